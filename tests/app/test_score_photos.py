"""Game ▸ Score from photos…: a phone photo of the melds (one of the whole table, or one per team)
read as a still picture on the reading thread, into the end-of-hand dialog; a file that is no photo
gets one line and the app goes on."""

import os
from pathlib import Path
from urllib.parse import quote

import cv2
import pytest
from PIL import Image
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox

from companion.app.main_window import DEMO_VIDEO, MainWindow
from tests.heic import save_heic
from vision.reader.card_reader import CardReader
from vision.reader.frame_sources import read_image


@pytest.fixture(scope="module")
def table_photo(tmp_path_factory) -> Path:
    """The demo table at the end of its hand, saved as a photo twice its size."""
    video = cv2.VideoCapture(str(DEMO_VIDEO))
    video.set(cv2.CAP_PROP_POS_FRAMES, video.get(cv2.CAP_PROP_FRAME_COUNT) - 1)
    ok, frame = video.read()
    video.release()
    assert ok
    path = tmp_path_factory.mktemp("photos") / "table.jpg"
    cv2.imwrite(str(path), cv2.resize(frame, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC))
    return path


@pytest.mark.parametrize("name", ["IMG_0001.HEIC", "IMG_0002.JPG", "IMG_0003.heic", "PXL_0004.avif", "table.jpeg"])
def test_a_phones_photo_is_taken_by_its_name_in_the_dialog_and_on_a_drop(name):
    """The file dialog's patterns matched case by case, as GTK's dialog on a Linux desktop matches them."""
    from fnmatch import fnmatchcase

    from companion.app.photos import PHOTO_FILTER, is_photo

    patterns = PHOTO_FILTER[PHOTO_FILTER.index("(") + 1:-1].split()
    assert is_photo(name) and any(fnmatchcase(name, pattern) for pattern in patterns)
    assert not is_photo("notes.txt") and not any(fnmatchcase("notes.txt", pattern) for pattern in patterns)


def window_scoring(qtbot, store, owners):
    """A window whose players answer whose cards the photos show, and confirm what the dialog holds."""
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    assert window.live is not None, "the shipped card reader did not load"
    window.ask_whose_photos = lambda paths, before=0: owners
    shown = []

    def confirm(dialog):
        shown.append(dialog.draft.to_hand())
        return QDialog.Rejected
    window.sheet_view.open_dialog = confirm
    return window, shown


def test_a_photo_of_the_whole_table_opens_the_end_of_hand_dialog_with_what_it_shows(qtbot, store, table_photo):
    window, shown = window_scoring(qtbot, store, [None])
    with qtbot.waitSignal(window.photo_reading.done, timeout=60000):
        window.score_photos([str(table_photo)])
    expected = CardReader().read_photo(cv2.imread(str(table_photo))).to_hand_dict()
    assert len(shown) == 1
    for team in ("A", "B"):
        assert shown[0]["teams"][team]["melds"] == expected["teams"][team]["melds"]
        assert shown[0]["teams"][team]["threes"] == expected["teams"][team]["threes"]
    assert sum(len(m) for side in shown[0]["teams"].values() for m in side["melds"]) >= 10
    assert QApplication.overrideCursor() is None  # the wait cursor is gone once the photo is read
    window.close()


def test_a_photo_of_one_teams_cards_gives_them_all_to_that_team(qtbot, store, table_photo):
    window, shown = window_scoring(qtbot, store, ["B"])
    with qtbot.waitSignal(window.photo_reading.done, timeout=60000):
        window.score_photos([str(table_photo)])
    teams = shown[0]["teams"]
    assert teams["A"]["melds"] == [] and teams["A"]["threes"] == []
    assert sum(len(m) for m in teams["B"]["melds"]) >= 10
    window.close()


@pytest.mark.parametrize("content", [b"", b"not a photo at all", b"\xff\xd8\xff\xe0 truncated"])
def test_a_file_that_is_no_photo_gets_one_line_and_the_app_goes_on(qtbot, store, tmp_path, monkeypatch, content):
    window, shown = window_scoring(qtbot, store, [None])
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: said.append(text))
    bad = tmp_path / "melds.jpg"
    bad.write_bytes(content)
    window.score_photos([str(bad)])
    assert len(said) == 1 and "\n" not in said[0] and str(bad) in said[0] and shown == []
    assert not window.photo_reading.busy
    window.close()


def test_a_heic_photo_cut_short_is_told_in_one_line_once_its_pixels_fail_to_decode(qtbot, store, table_photo,
                                                                                     tmp_path, monkeypatch):
    """A HEIC whose header is whole but whose pixels stop short passes the first check, is decoded on
    the reading thread, and fails there: one line naming the file, nothing scored, the app goes on."""
    heic = save_heic(Image.open(table_photo), tmp_path / "whole.HEIC")
    cut = tmp_path / "IMG_0002.HEIC"
    cut.write_bytes(heic.read_bytes()[: heic.stat().st_size // 2])
    window, shown = window_scoring(qtbot, store, [None])
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: said.append(text))
    with qtbot.waitSignal(window.photo_reading.done, timeout=60000):
        window.score_photos([str(cut)])
    assert len(said) == 1 and "\n" not in said[0] and str(cut) in said[0], said
    assert "a damaged or truncated HEIC photo" in said[0], said
    assert shown == [] and not window.photo_reading.busy and QApplication.overrideCursor() is None
    window.close()


def test_a_photo_offered_while_another_is_read_joins_it_for_one_dialog(qtbot, store, table_photo):
    """One team's photo dropped, then the other's while the first is read: one end-of-hand dialog
    holds both, the second photo's question defaults to the other team, and the wait cursor is
    pushed once and taken back."""
    window, shown = window_scoring(qtbot, store, None)
    asked = []

    def answer(paths, before=0):
        asked.append(before)
        if before:  # the question is answered with the usual pointer, the first photo still being read
            assert QApplication.overrideCursor().shape() == Qt.ArrowCursor
        return ["A"] if before == 0 else ["B"]
    window.ask_whose_photos = answer
    with qtbot.waitSignal(window.photo_reading.done, timeout=60000):
        window.score_photos([str(table_photo)])
        assert window.photo_reading.busy
        window.score_photos([str(table_photo)])
        assert "Reading 2 photos" in window.statusBar().currentMessage()
    qtbot.wait(200)
    assert asked == [0, 1] and len(shown) == 1
    assert not window.photo_reading.busy and QApplication.overrideCursor() is None
    teams = shown[0]["teams"]
    assert teams["A"]["melds"] == teams["B"]["melds"] and sum(len(m) for m in teams["B"]["melds"]) >= 10
    window.close()


def test_a_photo_that_fails_is_told_and_the_others_are_still_scored(qtbot, store, table_photo, tmp_path,
                                                                    monkeypatch):
    """Team B's photo is a HEIC cut short: one line names it, and the dialog opens with team A's
    cards from the photo that could be read (the players enter B's there)."""
    heic = save_heic(Image.open(table_photo), tmp_path / "whole.HEIC")
    cut = tmp_path / "IMG_0002.HEIC"
    cut.write_bytes(heic.read_bytes()[: heic.stat().st_size // 2])
    window, shown = window_scoring(qtbot, store, ["A", "B"])
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: said.append(text))
    with qtbot.waitSignal(window.photo_reading.done, timeout=60000):
        window.score_photos([str(table_photo), str(cut)])
    assert len(said) == 1 and str(cut) in said[0] and "shows the cards of the other photos" in said[0], said
    assert len(shown) == 1 and shown[0]["teams"]["B"]["melds"] == []
    assert sum(len(m) for m in shown[0]["teams"]["A"]["melds"]) >= 10
    assert not window.photo_reading.busy and QApplication.overrideCursor() is None
    window.close()


def test_a_photo_dropped_under_a_name_that_is_not_utf8_is_found_and_scored(qtbot, store, table_photo, tmp_path):
    """A file manager hands the name's bytes over percent-encoded; Qt's own toLocalFile would make
    the odd byte "�", a file that does not exist."""
    latin1 = os.fsdecode(os.fsencode(tmp_path) + b"/partie\xe9.jpg")
    Path(latin1).write_bytes(Path(table_photo).read_bytes())
    window, shown = window_scoring(qtbot, store, [None])
    data = QMimeData()
    data.setUrls([QUrl("file://" + quote(os.fsencode(latin1)))])
    drop = QDropEvent(QPoint(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier)
    with qtbot.waitSignal(window.photo_reading.done, timeout=60000):
        window.dropEvent(drop)
    assert len(shown) == 1 and sum(len(m) for side in shown[0]["teams"].values() for m in side["melds"]) >= 10
    window.close()


def test_a_set_read_while_more_photos_are_asked_about_waits_for_the_answer(qtbot, store, table_photo):
    """The first photo is read while the players are still answering about a second: its dialog
    waits; the second cancelled, the first photo's dialog opens on its own."""
    window, shown = window_scoring(qtbot, store, [None])
    window.score_photos([str(table_photo)])

    def answer_late(paths, before=0):
        qtbot.waitUntil(lambda: not window.photo_reading._waiting, timeout=60000)
        qtbot.wait(100)
        assert shown == []  # read, but held back while the question is open
        return None  # the players cancel
    window.ask_whose_photos = answer_late
    window.score_photos([str(table_photo)])
    assert len(shown) == 1 and not window.photo_reading.busy and QApplication.overrideCursor() is None
    window.close()


def test_a_photo_is_decoded_on_the_reading_thread_not_the_windows(qtbot, store, table_photo, monkeypatch):
    """A 48 MP HEIC takes about 1.8 s to decode: the window's thread only checks the file's header."""
    import threading

    from vision.reader.frame_sources import ImageFile

    decoded_on = []
    decode = ImageFile.decode

    def watched(self):
        decoded_on.append(threading.current_thread() is threading.main_thread())
        return decode(self)
    monkeypatch.setattr(ImageFile, "decode", watched)
    window, shown = window_scoring(qtbot, store, [None])
    with qtbot.waitSignal(window.photo_reading.done, timeout=60000):
        window.score_photos([str(table_photo)])
    assert decoded_on == [False] and len(shown) == 1
    window.close()


def test_an_iphones_heic_photo_taken_sideways_is_scored_upright(qtbot, store, table_photo, tmp_path):
    """The table photo as an iPhone held sideways stores it: HEIC, its pixels a quarter turn round,
    the orientation tag saying to turn them back. Dropped on the window, it reads as the upright
    picture it decodes to, with as many meld cards as the JPEG's."""
    upright = cv2.imread(str(table_photo))
    sideways = Image.fromarray(cv2.rotate(upright, cv2.ROTATE_90_COUNTERCLOCKWISE)[:, :, ::-1])
    heic = save_heic(sideways, tmp_path / "IMG_0001.HEIC", orientation=6)  # "turn 90° clockwise to show"
    decoded = read_image(heic)
    assert decoded.shape == upright.shape
    window, shown = window_scoring(qtbot, store, [None])
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(heic))])
    with qtbot.waitSignal(window.photo_reading.done, timeout=60000):
        window.dropEvent(QDropEvent(QPoint(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier))
    expected = CardReader().read_photo(decoded).to_hand_dict()
    assert len(shown) == 1
    for team in ("A", "B"):
        assert shown[0]["teams"][team]["melds"] == expected["teams"][team]["melds"]
    from_jpeg = CardReader().read_photo(upright).to_hand_dict()
    melds = [sum(len(m) for side in hand["teams"].values() for m in side["melds"]) for hand in (shown[0], from_jpeg)]
    assert melds[0] >= 10 and abs(melds[0] - melds[1]) <= 1, melds
    window.close()


def test_photos_dropped_on_the_window_are_scored(qtbot, store, table_photo):
    window, shown = window_scoring(qtbot, store, [None])
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(table_photo))])
    drop = QDropEvent(QPoint(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier)
    with qtbot.waitSignal(window.photo_reading.done, timeout=60000):
        window.dropEvent(drop)
    assert len(shown) == 1
    window.close()


def test_photos_dropped_while_a_dialog_is_open_are_not_taken(qtbot, store, table_photo):
    """Qt hands a drop to the window behind a modal dialog: it would open a second dialog on top."""
    from PySide6.QtGui import QDragEnterEvent

    window, shown = window_scoring(qtbot, store, [None])
    data = QMimeData()
    data.setUrls([QUrl.fromLocalFile(str(table_photo))])
    dialog = QDialog(window)
    dialog.setModal(True)
    dialog.show()
    qtbot.waitUntil(lambda: QApplication.activeModalWidget() is dialog)
    enter = QDragEnterEvent(QPoint(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier)
    enter.setAccepted(False)
    window.dragEnterEvent(enter)
    assert not enter.isAccepted()
    window.dropEvent(QDropEvent(QPoint(10, 10), Qt.CopyAction, data, Qt.LeftButton, Qt.NoModifier))
    assert not window.photo_reading.busy
    dialog.close()
    window.close()
