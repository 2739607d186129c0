"""Players set each team's area by dragging its corners on the picture; the reader uses the areas
and they are kept for that video."""

import gzip
import json

import numpy as np
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtWidgets import QPushButton

from companion.app.main_window import DEMO_SETUP, MainWindow
from companion.app.settings import DEMO
from companion.app.store import Store
from vision.reader.card_reader import read_table
from vision.reader.detections import Detections
from vision.reader.team_areas import TableSetup
from vision.synth.video import players_areas

DEMO_SIZE = (1920, 1080)


class RecordingReader:
    """Stands in for the card reader: reads no cards, and remembers the set-up each frame was read with."""

    def __init__(self):
        self.setup = TableSetup()
        self.used = []

    def read(self, frame):
        self.used.append(self.setup)
        return read_table(Detections.empty(), (frame.shape[1], frame.shape[0]), self.setup)


def demo_window(qtbot, store, monkeypatch):
    reader = RecordingReader()
    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (reader, "Card reader ready"))
    w = MainWindow(store, start_video=False)
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    qtbot.waitExposed(w)
    w.start_source(DEMO)
    qtbot.waitUntil(lambda: w.video.frames_shown >= 1, timeout=10000)
    return w, reader


def button(w, text):
    return next(b for b in w.set_up_bar.findChildren(QPushButton) if b.text() == text)


def drag(qtbot, widget, start: QPoint, end: QPoint):
    qtbot.mousePress(widget, Qt.LeftButton, pos=start)
    qtbot.mouseMove(widget, (start + end) / 2)
    qtbot.mouseMove(widget, end)
    qtbot.mouseRelease(widget, Qt.LeftButton, pos=end)


def test_dragging_a_corner_sets_the_area_the_reader_uses_and_it_is_kept(qtbot, tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite3"
    w, reader = demo_window(qtbot, Store(path), monkeypatch)
    bundled = TableSetup.from_json(json.loads(DEMO_SETUP.read_text()))
    assert all(np.allclose(w.table_setup.areas[team], bundled.areas[team]) for team in "AB")  # the demo's own

    w.set_up_action.trigger()
    assert w.video.editing and w.set_up_bar.isVisible()
    area_a = w.video.areas["A"].copy()
    corner = area_a[0]  # team A's far-left corner, in frame pixels
    scale = w.video.picture_rect().width() / DEMO_SIZE[0]
    assert abs(scale - 1) > 0.1  # the picture is scaled: widget and frame pixels differ
    grab = w.video.to_widget(corner).toPoint()
    drop = grab + QPoint(30, -45)
    drag(qtbot, w.video, grab, drop)
    moved = w.video.areas["A"][0]
    assert np.allclose(moved, w.video.to_frame(QPointF(drop)))
    assert np.allclose(moved - corner, np.array([30, -45]) / scale, atol=1.5 / scale)  # in frame pixels
    assert np.allclose(w.video.areas["A"][1:], area_a[1:])  # only that corner moved

    qtbot.mouseClick(button(w, "Done"), Qt.LeftButton)
    assert not w.video.editing and not w.set_up_bar.isVisible() and not w.set_up_action.isChecked()
    assert np.allclose(w.table_setup.areas["A"][0], moved)
    qtbot.waitUntil(lambda: bool(reader.used) and reader.used[-1] is w.table_setup, timeout=10000)
    w.close()
    w.store.close()

    # Reopened: the demo's areas come back, and the reader is given them.
    again, reader = demo_window(qtbot, Store(path), monkeypatch)
    assert np.allclose(again.table_setup.areas["A"][0], moved, atol=0.01)
    qtbot.waitUntil(lambda: bool(reader.used) and reader.used[-1].areas is not None, timeout=10000)
    assert np.allclose(reader.used[-1].areas["A"][0], moved, atol=0.01)

    # Reset to default: no areas any more, for the reader and in the store, where the demo keeps
    # "none" rather than nothing (nothing kept brings back its own areas).
    again.set_up_action.trigger()
    assert np.allclose(again.video.areas["A"][0], moved, atol=0.01)  # editing starts from the kept areas
    qtbot.mouseClick(button(again, "Reset to default"), Qt.LeftButton)
    assert again.table_setup.areas is None and again.store.table_setup(DEMO) == {}
    qtbot.waitUntil(lambda: reader.used[-1].areas is None, timeout=10000)
    again.close()
    again.store.close()
    third, reader = demo_window(qtbot, Store(path), monkeypatch)
    assert third.table_setup.areas is None
    third.close()


def test_the_demo_plays_with_its_own_team_areas_drawn_around_each_teams_cards(qtbot, store, monkeypatch):
    """Without areas the reader took the demo's discard pile for the turn card and reported it
    drawn before the first three was laid; the demo comes with the areas its evaluation reads with."""
    with gzip.open(DEMO_SETUP.with_name("frames.jsonl.gz"), "rt") as lines:
        areas = players_areas([json.loads(line) for line in lines]).areas
    w, reader = demo_window(qtbot, store, monkeypatch)
    assert set(w.table_setup.areas) == {"A", "B"}
    assert all(np.allclose(w.table_setup.areas[team], areas[team], atol=0.01) for team in "AB")
    for polygon in w.table_setup.areas.values():  # four corners to drag, all on the picture
        assert polygon.shape == (4, 2) and (polygon >= 0).all() and (polygon <= DEMO_SIZE).all()
    assert w.video.areas is not None and set(w.video.areas) == {"A", "B"}  # shown on the picture
    qtbot.waitUntil(lambda: bool(reader.used) and reader.used[-1].areas is not None, timeout=10000)
    assert store.table_setup(DEMO) is None  # nothing kept: the bundled file is the default


def test_a_whole_area_can_be_moved_and_cancel_keeps_the_areas_as_they_were(qtbot, store, monkeypatch):
    w, _ = demo_window(qtbot, store, monkeypatch)
    w.set_up_action.trigger()
    before = {team: polygon.copy() for team, polygon in w.video.areas.items()}
    inside = w.video.to_widget(before["B"].mean(axis=0)).toPoint()
    drag(qtbot, w.video, inside, inside + QPoint(30, 0))
    shift = w.video.areas["B"] - before["B"]
    assert np.allclose(shift, shift[0]) and shift[0][0] > 0 and np.allclose(w.video.areas["A"], before["A"])
    qtbot.mouseClick(button(w, "Cancel"), Qt.LeftButton)
    assert all(np.allclose(w.table_setup.areas[team], before[team]) for team in "AB")
    assert store.table_setup(DEMO) is None and all(np.allclose(w.video.areas[team], before[team]) for team in "AB")


def test_setting_up_needs_a_picture(qtbot, store):
    w = MainWindow(store, start_video=False)
    qtbot.addWidget(w)
    w.set_up_action.trigger()
    assert not w.video.editing and not w.set_up_action.isChecked()
    assert "Start a camera or a video first" in w.statusBar().currentMessage()


def test_the_tables_corners_give_the_reader_a_top_down_view_and_are_kept(qtbot, tmp_path, monkeypatch):
    import cv2

    from companion.app.video_view import TABLE

    path = tmp_path / "s.sqlite3"
    w, reader = demo_window(qtbot, Store(path), monkeypatch)
    w.set_up_action.trigger()
    w.mark_corners.setChecked(True)  # the camera films the table at an angle
    far_left = w.video.areas[TABLE][0].copy()
    grab = w.video.to_widget(far_left).toPoint()
    drag(qtbot, w.video, grab, grab + QPoint(40, 20))
    dropped = w.video.areas[TABLE][0].copy()
    assert not np.allclose(dropped, far_left)
    qtbot.mouseClick(button(w, "Done"), Qt.LeftButton)

    perspective = w.table_setup.perspective
    assert perspective is not None and w.table_setup.areas is not None
    seen_from_above = cv2.perspectiveTransform(dropped.reshape(1, 1, 2), perspective).reshape(2)
    assert np.allclose(seen_from_above, [-500, -500], atol=0.5)  # the far-left corner of the top-down view
    qtbot.waitUntil(lambda: bool(reader.used) and reader.used[-1] is w.table_setup, timeout=10000)
    w.close()
    w.store.close()

    again, _ = demo_window(qtbot, Store(path), monkeypatch)
    again.set_up_action.trigger()
    assert again.mark_corners.isChecked() and np.allclose(again.video.areas[TABLE][0], dropped, atol=0.5)
    again.mark_corners.setChecked(False)  # the camera was moved above the table: no perspective now
    qtbot.mouseClick(button(again, "Done"), Qt.LeftButton)
    assert again.table_setup.perspective is None and again.table_setup.areas is not None
    again.close()


def test_a_video_file_plays_with_the_areas_beside_it_until_players_set_their_own(qtbot, store, monkeypatch, tmp_path):
    """``python -m vision video`` writes ``table_setup.json`` beside each hand video: opened in the
    app, the video is read with those areas, as its evaluation reads it."""
    import cv2

    video = tmp_path / "hand.mp4"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 25, DEMO_SIZE)
    for _ in range(5):
        writer.write(np.full((DEMO_SIZE[1], DEMO_SIZE[0], 3), 60, np.uint8))
    writer.release()
    beside = {
        "areas": {"A": [[0, 300], [960, 300], [960, 540], [0, 540]], "B": [[0, 0], [960, 0], [960, 240], [0, 240]]}
    }
    (tmp_path / "table_setup.json").write_text(json.dumps(beside))
    w, reader = demo_window(qtbot, store, monkeypatch)
    w._play(str(video), str(video))
    assert np.allclose(w.table_setup.areas["A"], beside["areas"]["A"]) and store.table_setup(str(video)) is None
    w.reset_set_up()  # the players want none: kept as such, or the file's areas would come back
    assert w.table_setup.areas is None and store.table_setup(str(video)) == {}
    w._play(str(video), str(video))
    assert w.table_setup.areas is None
    (tmp_path / "table_setup.json").write_text("{not json")  # a damaged file beside another video
    other = tmp_path / "other.mp4"
    other.write_bytes(video.read_bytes())
    w._play(str(other), str(other))
    assert w.table_setup.areas is None  # read without areas, no error
    w.close()


def test_table_corners_dragged_onto_a_line_are_refused_and_a_bad_kept_set_up_does_not_stop_the_app(
        qtbot, tmp_path, monkeypatch):
    """Three corners dragged past the picture's bottom edge (where they are pinned, on one line)
    make no view of the table: one warning, nothing kept, the outlines left to drag again. A set-up
    kept broken (a view that can't be inverted) is told in the status bar at the next start, which
    plays on without it."""
    from PySide6.QtWidgets import QMessageBox

    from companion.app.video_view import TABLE

    path = tmp_path / "s.sqlite3"
    w, reader = demo_window(qtbot, Store(path), monkeypatch)
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: said.append(text))
    w.set_up_action.trigger()
    w.mark_corners.setChecked(True)
    bottom = w.video.to_widget(np.array([DEMO_SIZE[0] / 2, DEMO_SIZE[1] - 1.0])).toPoint().y()
    for corner in (0, 1, 2):
        grab = w.video.to_widget(w.video.areas[TABLE][corner]).toPoint()
        drag(qtbot, w.video, grab, QPoint(grab.x(), bottom + 200))
    assert np.allclose(w.video.areas[TABLE][:3, 1], DEMO_SIZE[1], atol=1)  # pinned to the picture's edge
    qtbot.mouseClick(button(w, "Done"), Qt.LeftButton)
    assert len(said) == 1 and "lie on a line" in said[0], said
    assert w.video.editing and w.set_up_action.isChecked() and w.table_setup.perspective is None
    assert w.store.table_setup(DEMO) is None  # nothing kept
    w.cancel_set_up()
    w.store.save_table_setup(DEMO, {"perspective": [[0, 0, 0], [0, 0, 0], [0, 0, 0]]})  # kept broken
    w.close()
    w.store.close()

    again, _ = demo_window(qtbot, Store(path), monkeypatch)
    assert "can't be used" in again.statusBar().currentMessage()
    assert again.table_setup.perspective is None and again.video.frames_shown >= 1
    again.close()


def test_a_mirrored_table_outline_is_refused_in_the_teams_words(qtbot, tmp_path, monkeypatch):
    """Two of the table's corners swapped (far left for far right, near right for near left) would
    read the table as its mirror image: refused, naming the team the corners are seen from."""
    from PySide6.QtWidgets import QMessageBox

    from companion.app.video_view import TABLE

    w, reader = demo_window(qtbot, Store(tmp_path / "s.sqlite3"), monkeypatch)
    said = []
    monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, text: said.append(text))
    w.set_up_action.trigger()
    w.mark_corners.setChecked(True)
    w.video.areas[TABLE] = w.video.areas[TABLE][[1, 0, 3, 2]]
    qtbot.mouseClick(button(w, "Done"), Qt.LeftButton)
    assert len(said) == 1 and "outline is mirrored" in said[0], said
    assert f"seen from {w.game.team_names['A']}'s side" in said[0] and "team A" not in said[0]
    assert w.video.editing and w.table_setup.perspective is None
    w.close()
