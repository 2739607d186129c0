"""Teaching the card reader the table's deck, in the real window: the shipped detector and
classifier, the score-sheet database, and the learner run as the background process the app starts."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from companion.app.deck import LEAVE_OUT, DeckLearner, DeckTeacher, TeachDialog, deck_folder, upright_crops
from companion.app.main_window import DEMO_VIDEO, MainWindow
from companion.app.store import Store
from vision.reader.classes import CLASS_NAMES
from vision.reader.deck_learning import LEARNT_EXPORT, MIN_CARDS, NOT_A_CARD, decode_crop, encode_crop, teaching_crops
from vision.reader.index_classifier import CONTEXT, IndexClassifier


@pytest.fixture(scope="module")
def table() -> np.ndarray:
    """The demo's fullest table, as the camera gives it (BGR)."""
    video = cv2.VideoCapture(str(DEMO_VIDEO))
    video.set(cv2.CAP_PROP_POS_FRAMES, video.get(cv2.CAP_PROP_FRAME_COUNT) - 1)
    ok, frame = video.read()
    assert ok
    return frame


@pytest.fixture(scope="module")
def finds(table, tmp_path_factory):
    return DeckTeacher(tmp_path_factory.mktemp("deck")).finds(table)


def window_on(qtbot, path) -> MainWindow:
    window = MainWindow(Store(path), start_video=False)
    qtbot.addWidget(window)
    return window


def test_the_dialog_shows_each_corner_found_with_the_readers_guess_and_keeps_what_players_name(qtbot, table, finds):
    assert len(finds) >= 10
    dialog = TeachDialog(table, finds, 12, None)
    qtbot.addWidget(dialog)
    assert len(dialog.pickers) == len(finds)
    guesses = sorted(CLASS_NAMES[i] for i in finds.class_id)
    assert sorted(picker.currentData() for picker in dialog.pickers) == guesses
    dialog.pickers[0].setCurrentIndex(dialog.pickers[0].findData(NOT_A_CARD))
    dialog.pickers[1].setCurrentIndex(dialog.pickers[1].findData(LEAVE_OUT))
    dialog.pickers[2].setCurrentIndex(dialog.pickers[2].findData("QS"))
    taught = dialog.taught()
    assert len(taught) == len(finds) - 1  # the corner left out is not taught
    assert taught[0][0] == NOT_A_CARD and taught[1][0] == "QS"
    assert all(decode_crop(png).shape == (CONTEXT, CONTEXT, 3) for _, png in taught)
    screenshot = dialog.grab()
    assert screenshot.width() > 600


def test_the_teacher_reads_and_crops_each_corner_upright_as_the_reader_does_in_play(table, finds, tmp_path):
    # The table seen from its side: every card lies sideways, which the classifier reads badly as it lies.
    sideways_table = np.ascontiguousarray(np.rot90(table))
    sideways = DeckTeacher(tmp_path).finds(sideways_table)
    assert (np.linalg.norm(sideways.up, axis=1) > 0).mean() >= 0.8  # the facing network knows most ways up
    # Each sideways find matched to its find in the table as filmed (rot90: x, y -> y, width - x).
    width = table.shape[1]
    turned_back = np.c_[width - sideways.centers[:, 1], sideways.centers[:, 0]]
    gaps = np.linalg.norm(turned_back[:, None] - finds.centers[None], axis=2)
    match, near = gaps.argmin(axis=1), gaps.min(axis=1) < 4
    assert near.mean() >= 0.9
    # Named alike either way the table lies ...
    assert (sideways.class_id[near] == finds.class_id[match[near]]).mean() >= 0.9
    # ... and the lesson learns each crop upright or upside down, as play reads it (both ways up): like the
    # filmed table's crops either way up, unlike the sideways crops as they lie.
    upright, filmed = upright_crops(sideways_table, sideways)[near], upright_crops(table, finds)[match[near]]
    as_they_lie = teaching_crops(sideways_table, sideways.xyxy)[near]
    assert upright.shape == as_they_lie.shape == (near.sum(), CONTEXT, CONTEXT, 3)

    def gap(crops):  # the mean of each crop's difference from its filmed crop as it is or turned half round
        ways = (filmed, np.rot90(filmed, 2, axes=(1, 2)))
        differences = [np.abs(crops.astype(np.float32) - way.astype(np.float32)).mean(axis=(1, 2, 3)) for way in ways]
        return float(np.minimum(*differences).mean())

    assert gap(upright) < 0.5 * gap(as_they_lie)  # 0.28 (upright crops straighten the filmed ones' small tilts)


def test_teaching_from_the_picture_keeps_the_named_cards_in_the_database(qtbot, tmp_path, table, finds):
    window = window_on(qtbot, tmp_path / "sheet.sqlite3")
    window.teach_cards()  # no picture yet: players are told, nothing is kept
    assert "no picture" in window.statusBar().currentMessage() and window.store.taught_card_count() == 0
    window.newest_frame = table
    QTimer.singleShot(0, lambda: QApplication.activeModalWidget().accept())
    window.teach_cards()
    assert window.store.taught_card_count() == len(finds)
    if len(finds) < MIN_CARDS:
        assert f"learns your deck once it has {MIN_CARDS}" in window.statusBar().currentMessage()
        assert not window.learner.busy
    assert not window.frozen


def test_a_lesson_learnt_in_the_background_reads_the_next_frames_and_the_next_start(qtbot, tmp_path, table, finds):
    path = tmp_path / "sheet.sqlite3"
    window = window_on(qtbot, path)
    assert window.live is not None
    # A table whose players call every corner the joker: after the lesson the reader reads jokers.
    crops = teaching_crops(table, finds.xyxy)
    jokers = [("JK", encode_crop(crop)) for crop in crops] * 2
    window.learner.passes = 150  # a lesson long enough to turn every name into the joker
    with qtbot.waitSignal(window.learner.finished, timeout=600_000) as done:
        window.keep_taught_cards(jokers)
        assert window.learner.busy and "is learning your deck" in window.statusBar().currentMessage()
        window.keep_taught_cards(jokers[:1])  # taught while it learns: it learns again when done
        assert "learns again with these when it is done" in window.statusBar().currentMessage()
    lesson, message = done.args
    assert lesson is not None and lesson.kept, message
    assert message.startswith(f"The reader learnt your deck from {len(jokers)} cards")
    assert window.statusBar().currentMessage() == message
    assert window.learner.busy  # the next lesson, with the card taught meanwhile
    window.learner.stop()
    with qtbot.waitSignal(window.live.reading, timeout=30_000):  # the reader takes it up at its next reading
        window.live.offer(0, table)
    learnt = deck_folder(path) / LEARNT_EXPORT
    assert window.reader.detector.classifier.weights == learnt
    named = IndexClassifier(learnt, runtime="openvino").name(table, finds).class_id
    assert (named == CLASS_NAMES.index("JK")).mean() >= 0.8
    window.close()
    window.store.close()

    again = window_on(qtbot, path)
    assert f"It has learnt your deck from {len(jokers)} cards." in again.statusBar().currentMessage()
    assert again.reader.detector.classifier.weights == deck_folder(path) / LEARNT_EXPORT
    again.forget_learnt_deck()
    assert again.store.taught_card_count() == 0 and not (deck_folder(path) / LEARNT_EXPORT).exists()
    with qtbot.waitSignal(again.live.reading, timeout=30_000):
        again.live.offer(0, table)
    assert again.reader.detector.classifier.weights.name == "index_classifier.int8.onnx"  # as a fresh start
    assert again.reader.detector.classifier.weights != deck_folder(path) / LEARNT_EXPORT
    again.close()
    again.store.close()


def test_a_lesson_that_cannot_run_says_why_in_words(qtbot, tmp_path):
    learner = DeckLearner(tmp_path / "deck")
    with qtbot.waitSignal(learner.finished, timeout=120_000) as done:
        learner.start([("KH", b"a damaged picture", 1)] * MIN_CARDS)  # none of them can be learnt from
    lesson, message = done.args
    assert lesson is None and not learner.busy
    assert message == (f"The reader could not learn your deck: the reader needs at least {MIN_CARDS} taught "
                       "cards to learn a deck, and has 0: teach it more")


def test_a_damaged_learnt_deck_is_reported_and_the_reader_reads_as_shipped(qtbot, tmp_path, table):
    path = tmp_path / "sheet.sqlite3"
    deck_folder(path).mkdir(parents=True)
    (deck_folder(path) / LEARNT_EXPORT).write_bytes(b"half a model")
    window = window_on(qtbot, path)
    assert "What it learnt of your deck can't be loaded, so it reads as shipped" in window.statusBar().currentMessage()
    assert window.reader.detector.classifier.weights.parent != deck_folder(path)
    window.newest_frame = table
    window.teach_cards()
    assert window.statusBar().currentMessage().startswith("The card reader could not look at the picture: ")
    assert not window.frozen and QApplication.activeModalWidget() is None
    window.forget_learnt_deck()  # what players do about it
    assert not (deck_folder(path) / LEARNT_EXPORT).exists()
    QTimer.singleShot(0, lambda: QApplication.activeModalWidget().reject())
    window.teach_cards()
    assert window.store.taught_card_count() == 0


def test_a_deck_folder_that_cannot_be_written_is_reported_not_raised(qtbot, tmp_path):
    blocked = tmp_path / "deck"
    blocked.write_text("a file where the deck folder should be")
    learner = DeckLearner(blocked)
    with qtbot.waitSignal(learner.finished, timeout=5_000) as done:
        learner.start([("KH", encode_crop(np.zeros((CONTEXT, CONTEXT, 3), np.uint8)), 1)] * MIN_CARDS)
    lesson, message = done.args
    assert lesson is None and not learner.busy
    assert message.startswith(f"The reader could not learn your deck: its cards could not be written to {blocked}")


def test_forgetting_a_deck_whose_files_cannot_all_go_says_so_and_keeps_the_taught_cards(qtbot, tmp_path, monkeypatch):
    """The reader's export goes first, each file is tried, and the taught cards stay unless all went:
    a lesson's leftovers go too, and the reader runs the classifier a fresh start runs."""
    path = tmp_path / "sheet.sqlite3"
    deck = deck_folder(path)
    deck.mkdir(parents=True)
    for name in (LEARNT_EXPORT, "lesson.json", "index_classifier.onnx.partial"):
        (deck / name).write_bytes(b"learnt")
    (deck / "learning.onnx").mkdir()  # a lesson's leftover that can't be removed as a file
    window = window_on(qtbot, path)
    window.store.add_taught_cards([("KH", b"png")])
    used = []
    monkeypatch.setattr(window.live, "use_classifier", used.append)
    window.forget_learnt_deck()
    told = window.statusBar().currentMessage()
    assert "could not all be removed" in told and "learning.onnx" in told and "taught cards are kept" in told
    assert sorted(p.name for p in deck.iterdir()) == ["learning.onnx"]
    assert window.store.taught_card_count() == 1
    assert used[0].weights == window.reader.detector.classifier.weights  # as a fresh start reads
    (deck / "learning.onnx").rmdir()
    window.forget_learnt_deck()
    assert window.statusBar().currentMessage().startswith("The card reader has forgotten your deck")
    assert window.store.taught_card_count() == 0


def test_taught_cards_of_the_wrong_type_are_left_out_of_a_lesson(qtbot, tmp_path):
    blocked = tmp_path / "deck"
    blocked.write_text("a file where the deck folder should be")  # the lesson stops at writing its cards
    learner = DeckLearner(blocked)
    good = encode_crop(np.zeros((CONTEXT, CONTEXT, 3), np.uint8))
    with qtbot.waitSignal(learner.finished, timeout=5_000) as done:
        learner.start([("KH", good, 1), ("KH", good, "two"), ("KH", "not bytes", 1), ("KH", good, 2 ** 70)])
    assert done.args[1].startswith("The reader could not learn your deck: its cards could not be written")


def test_a_lesson_ends_when_the_app_that_started_it_is_killed(tmp_path):
    """Killed, the app can't stop its lesson: the lesson watches for it (learn-deck --stop-with-parent)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    child = ("import sys, time, vision.__main__ as m; m.stop_with_parent(int(sys.argv[1]), 0.1); "
             "open(r'%s', 'w').write('started'); time.sleep(60)" % (tmp_path / "started"))
    app = subprocess.Popen([sys.executable, "-c",
                            "import os, subprocess, sys, time; "
                            f"p = subprocess.Popen([sys.executable, '-c', {child!r}, str(os.getpid())]); "
                            "print(p.pid, flush=True); time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    lesson = int(app.stdout.readline())
    for _ in range(100):
        if (tmp_path / "started").exists():
            break
        time.sleep(0.1)
    assert (tmp_path / "started").exists()
    time.sleep(0.3)
    os.kill(lesson, 0)  # the lesson runs while the app does
    os.kill(app.pid, signal.SIGKILL)
    app.wait()
    for _ in range(50):
        try:
            os.kill(lesson, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(lesson, signal.SIGKILL)
        pytest.fail("the lesson outlived the app that started it")


def test_a_lesson_whose_app_died_while_it_started_ends_at_once(tmp_path):
    """The app may be killed while the lesson is still loading Python and its libraries: the lesson is told
    the app's own id, so it finds its parent already gone."""
    import subprocess
    import sys

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    lesson = subprocess.run([sys.executable, "-c", "import time, vision.__main__ as m; "
                             f"m.stop_with_parent({gone.pid}, 0.1); time.sleep(30)"], timeout=60)
    assert lesson.returncode == 3
