"""The app follows a hand from the card reader's readings.

The shipped detector is still in training, so these tests drive the window with readings made
from the demo's labelled index boxes — the readings a perfect detector would give the reader — and
check the real reading thread with the shipped detector separately.
"""

import dataclasses
import gzip
import json
from collections import Counter

import cv2
import numpy as np
import pytest

from companion import Meld, Opened, parse_cards
from companion.app.main_window import DEMO_SETUP, DEMO_VIDEO, MainWindow
from companion.handfile import score_report
from vision.evaluation.tables import detections_from_truth
from vision.evaluation.videos import read_event, truth_events
from vision.reader.card_reader import CardReader, read_table
from vision.reader.detections import Detections
from vision.reader.reading import COLUMN_SHARE, READING_THRESHOLD, TableReading
from vision.reader.team_areas import TableSetup
from vision.synth.video import team_areas


def demo_truth():
    with gzip.open(DEMO_VIDEO.parent / "frames.jsonl.gz", "rt") as lines:
        return [json.loads(line) for line in lines]


def reader_of_the_demo():
    """Reads a demo frame from its labelled index boxes, with the team areas players would draw
    around each side."""
    setup = TableSetup(areas=team_areas(demo_truth()))

    def read(truth: dict) -> TableReading:
        return read_table(detections_from_truth(truth), (truth["image"]["width"], truth["image"]["height"]), setup)
    return read


def follow_the_demo(qtbot, store) -> tuple[MainWindow, list[dict]]:
    """A window fed the reading of every demo frame, as the reading thread would deliver them."""
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    frames, read = demo_truth(), reader_of_the_demo()
    for number, truth in enumerate(frames):
        window.on_reading(number, read(truth))
    return window, frames


def test_the_app_follows_the_demo_hand_from_its_readings(qtbot, store):
    window, frames = follow_the_demo(qtbot, store)
    assert_the_table_is_the_demos_at_its_end(window, frames)


def assert_the_table_is_the_demos_at_its_end(window, frames):
    final = frames[-1]["hand"]
    for team in ("A", "B"):
        # Rank, size and kind: a canasta squared before the camera saw all its cards keeps its
        # suits unknown (the reader guesses suits the pack still has; players correct them).
        read = sorted((m.rank or "wild", len(m.cards), m.kind) for m in window.state.teams[team].melds)
        truth = [Meld(parse_cards(codes)) for codes in final["teams"][team]["melds"]]
        assert read == sorted((m.rank or "wild", len(m.cards), m.kind) for m in truth)
        assert sorted(c.code for c in window.state.teams[team].threes.cards) == sorted(final["teams"][team]["threes"])
    canastas = {
        Meld(parse_cards(codes)).rank for side in final["teams"].values() for codes in side["melds"] if len(codes) == 7
    }
    assert set(window.state.dead_ranks.ranks) == canastas
    assert window.state.turn_card.drawn
    assert window.broken_rule.text() == ""  # the demo hand is played by the rules


def test_the_app_scores_the_demo_hand_as_played(qtbot, store):
    window, frames = follow_the_demo(qtbot, store)
    draft = window.end_of_hand_draft()
    draft.went_out = frames[-1]["hand"]["went_out"]  # the players say who went out
    # Five of team A's spread cards lie below the frame's edge in every frame (no index shows): the
    # players add those five, as in the end-of-hand dialog. Team B's four, spread at the picture's
    # far edge, are read as its hand.
    assert never_shown_hand_cards(frames) == {"A": ["2D", "4S", "6D", "8C", "QC"], "B": []}
    missing = {"A": ["2D", "4S", "6D", "8C", "QC"], "B": []}
    for team in ("A", "B"):
        truth = sorted(c for hand in frames[-1]["hand"]["teams"][team]["hands"] for c in hand)
        read = sorted(c for hand in draft.teams[team]["hands"] for c in hand)
        assert read == sorted((Counter(truth) - Counter(missing[team])).elements())
        draft.teams[team]["hands"][0] += missing[team]
    scores = score_report(draft.to_hand())["teams"]
    assert {t: scores[t]["total"] for t in ("A", "B")} == frames[-1]["scores"]


def never_shown_hand_cards(frames: list[dict]) -> dict[str, list[str]]:
    """Each team's spread cards that show no labelled index in any frame."""
    shown = {(c["team"], c["group"], c["code"]) for f in frames for c in f["cards"]
             if c["area"] == "hand" and any(i["labelled"] for i in c["indexes"])}
    return {team: sorted(c["code"] for c in frames[-1]["cards"] if c["team"] == team and c["area"] == "hand"
                         and (team, c["group"], c["code"]) not in shown) for team in ("A", "B")}


def test_the_app_follows_every_play_of_the_demo_read_by_the_shipped_reader(qtbot, store):
    """The bundled demo read from its pictures as the app reads a playing video on two cores (the
    shipped reader with the demo's team areas, a reading every sixth frame): the app reports every
    play in the order played, and before the hands are spread the table holds each team's melds,
    canasta piles and threes as laid."""
    events = json.loads((DEMO_VIDEO.parent / "events.json").read_text())["events"]
    spread = next(e["frame"] for e in events if e["event"] == "hands_spread")
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    reader = CardReader(setup=TableSetup.load(DEMO_SETUP))
    video = cv2.VideoCapture(str(DEMO_VIDEO))
    frames = demo_truth()
    for number in range(len(frames)):
        ok, frame = video.read()
        assert ok
        if number % 6 == 0:
            window.on_reading(number, reader.read(frame))
        if number == spread - 1:
            assert_the_table_is_the_demos_at_its_end(window, frames)
    video.release()
    played = truth_events(events)
    read = [read_event(e) for e in sorted(window.tracker.events, key=lambda e: e.frame)]
    assert read == played


def test_the_reading_thread_reads_a_demo_frame_with_the_shipped_reader(qtbot, store):
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    if window.live is None:  # no reader here: the status bar already says so (tested elsewhere)
        return
    video = cv2.VideoCapture(str(DEMO_VIDEO))
    ok, frame = video.read()
    video.release()
    assert ok
    with qtbot.waitSignal(window.live.reading, timeout=20000) as delivered:
        window.live.offer(0, frame)
    number, reading = delivered.args
    assert number == 0 and isinstance(reading, TableReading) and reading.image_size == (frame.shape[1], frame.shape[0])
    shown = window._with_reading(window.video.grab().toImage()) if window.last_reading else None
    assert window.last_reading is reading and shown is not None
    window.close()


def test_the_detection_threshold_in_settings_reaches_the_reader(qtbot, store):
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    if window.live is None:  # no reader here: the status bar already says so (tested elsewhere)
        return
    frame = np.full((540, 960, 3), 90, np.uint8)

    def read_once() -> None:
        with qtbot.waitSignal(window.live.reading, timeout=20000):
            window.live.offer(0, frame)

    read_once()
    assert window.reader.threshold == window.settings.threshold == READING_THRESHOLD
    window.apply_settings(dataclasses.replace(window.settings, threshold=0.35))
    read_once()
    assert window.reader.threshold == 0.35 and window.reader.detector.conf == pytest.approx(0.35 * COLUMN_SHARE)
    window.close()


def test_the_overlay_draws_what_was_read(qtbot, store):
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    truth = demo_truth()[-1]
    size = (truth["image"]["width"], truth["image"]["height"])
    window.on_reading(0, read_table(detections_from_truth(truth), size))
    from companion.app.video import to_qimage

    blank = np.zeros((size[1], size[0], 3), np.uint8)
    drawn = window._with_reading(to_qimage(blank))
    pixels = np.frombuffer(drawn.constBits(), np.uint8).reshape(size[1], drawn.bytesPerLine() // 4, 4)
    assert pixels[..., :3].any()  # boxes and codes were painted on the black frame


def hand_so_far(state):
    """What a switch of video must not lose: each team's melds and threes, opened, dead ranks."""
    return ({team: (sorted(tuple(sorted(c.code for c in m.cards)) for m in side.melds), side.opened,
                    sorted(c.code for c in side.threes.cards)) for team, side in state.teams.items()},
            sorted(state.dead_ranks.ranks), state.turn_card.drawn)


def test_switching_the_video_mid_hand_keeps_the_hand(qtbot, store, monkeypatch, tmp_path):
    from companion.app.store import Store

    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    frames, read = demo_truth(), reader_of_the_demo()
    # The whole hand on one video, kept in another file (a window resumes the hand its file holds).
    straight, _ = follow_the_demo(qtbot, Store(tmp_path / "straight.sqlite3"))
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    middle = len(frames) // 2
    for number, truth in enumerate(frames[:middle]):
        window.on_reading(number, read(truth))
    assert window.state.dead_ranks.ranks  # a canasta is down by then: there is a hand to lose
    before = hand_so_far(window.state)

    window.start_source("demo")  # another video: its frames are numbered from 0 again
    assert hand_so_far(window.state) == before
    for number, truth in enumerate(frames[middle:]):
        window.on_reading(number, read(truth))
    assert hand_so_far(window.state) == hand_so_far(straight.state)
    assert window.broken_rule.text() == ""  # nothing already counted was counted again

    window.on_reading(0, read(frames[0]))  # the same video starting over (the demo loops): a new hand
    assert not any(side.melds for side in window.state.teams.values())
    window.close()


def test_a_reading_of_the_old_video_is_dropped_after_a_switch(qtbot):
    import threading

    from companion.app.live import LiveReading

    class SlowReader:
        def __init__(self):
            self.started = threading.Event()

        def read(self, frame):
            self.started.set()
            threading.Event().wait(0.3)
            return int(frame[0, 0, 0])

    reader = SlowReader()
    live = LiveReading(reader)
    delivered = []
    live.reading.connect(lambda number, reading: delivered.append((number, reading)))
    live.offer(7, np.full((4, 4, 3), 1, np.uint8))
    assert reader.started.wait(5)
    live.new_source()  # the old video stopped while its frame was being read
    live.offer(0, np.full((4, 4, 3), 2, np.uint8))
    qtbot.waitUntil(lambda: bool(delivered), timeout=5000)
    qtbot.wait(400)
    assert delivered == [(0, 2)]  # only the new video's frame
    live.stop()


def test_closing_during_a_long_first_reading_waits_for_it(qtbot):
    """The first reading loads and compiles the models: seconds on a slow machine. Closing the
    window meanwhile must wait for it; a reading thread destroyed while it runs aborts the app."""
    import threading

    from companion.app.live import LiveReading

    started = threading.Event()

    class FirstReadingLoadsModels:
        def read(self, frame):
            started.set()
            threading.Event().wait(3.5)
            return 0

    live = LiveReading(FirstReadingLoadsModels())
    live.offer(0, np.zeros((4, 4, 3), np.uint8))
    assert started.wait(5)
    live.stop()
    assert live._thread.isFinished()


def test_another_video_is_read_without_the_view_measured_on_the_last(qtbot):
    from companion.app.live import LiveReading

    class Reader:  # records what the reading thread asks of it, in order
        def __init__(self):
            self.calls = []

        def new_view(self):
            self.calls.append("new view")

        def read(self, frame):
            self.calls.append(int(frame[0, 0, 0]))
            return None

    reader = Reader()
    live = LiveReading(reader)
    live.offer(0, np.full((4, 4, 3), 1, np.uint8))
    qtbot.waitUntil(lambda: 1 in reader.calls, timeout=5000)
    live.new_source()
    live.offer(0, np.full((4, 4, 3), 2, np.uint8))
    qtbot.waitUntil(lambda: 2 in reader.calls, timeout=5000)
    live.stop()
    assert reader.calls[-2:] == ["new view", 2]


class RecordingReader:
    """A card reader that records what the reading thread asks of it, in order: a new set-up (with
    its way from team A's side to team B's), a new view, a new hand, and each frame read (by its
    first pixel); each reading is of an empty table."""

    def __init__(self):
        self.calls = []

    def __setattr__(self, name, value):
        if name == "setup":
            self.calls.append(("setup", None if value.towards_b is None else tuple(value.towards_b)))
        object.__setattr__(self, name, value)

    def new_hand(self):
        self.calls.append("new hand")

    def new_view(self):
        self.calls.append("new view")

    def read(self, frame):
        self.calls.append(int(frame[0, 0, 0]))
        return read_table(Detections.empty(), (frame.shape[1], frame.shape[0]))


def window_reading_first_frame(qtbot, store, monkeypatch) -> tuple[MainWindow, RecordingReader]:
    """A window whose reading thread runs a :class:`RecordingReader`, once it has read a frame."""
    reader = RecordingReader()
    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (reader, "Card reader ready"))
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    window._play("0", None)
    window.live.offer(0, np.full((4, 4, 3), 1, np.uint8))
    qtbot.waitUntil(lambda: 1 in reader.calls, timeout=5000)
    return window, reader


def test_swapping_the_sides_hands_the_reader_the_new_names_and_keeps_its_view(qtbot, store, monkeypatch):
    """The camera has not moved: the reader keeps the finds it took the table's turn from (a new
    view would start gathering them again), and reads the next frame with the sides swapped."""
    window, reader = window_reading_first_frame(qtbot, store, monkeypatch)
    window.swap_sides()
    window.live.offer(1, np.full((4, 4, 3), 2, np.uint8))
    qtbot.waitUntil(lambda: 2 in reader.calls, timeout=5000)
    assert reader.calls[-2:] == [("setup", (0.0, 1.0)), 2]


def test_a_new_hand_is_read_without_the_last_hands_turn_card(qtbot, store, monkeypatch):
    # The demo plays again (its frame numbers go back): a new hand is dealt, with a turn card of its
    # own, so the reading thread tells the reader to forget the one it read (the camera's view stays).
    window, reader = window_reading_first_frame(qtbot, store, monkeypatch)
    assert "new hand" not in reader.calls
    empty = read_table(Detections.empty(), (4, 4))
    window.on_reading(50, empty)
    window.on_reading(0, empty)  # the video started over
    window.live.offer(0, np.full((4, 4, 3), 2, np.uint8))
    qtbot.waitUntil(lambda: 2 in reader.calls, timeout=5000)
    assert reader.calls[-2:] == ["new hand", 2]


def test_correcting_an_earlier_hand_or_the_settings_mid_hand_keeps_the_hand_on_the_table(qtbot, store, monkeypatch):
    from dataclasses import replace

    from tests.app.hands import hand_out

    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    window.sheet_view.add_hand(hand_out("A"))
    assert window.state.scores == {"A": 670, "B": -5}
    frames, read = demo_truth(), reader_of_the_demo()
    for number, truth in enumerate(frames[:len(frames) // 2]):
        window.on_reading(number, read(truth))
    before = hand_so_far(window.state)
    window.sheet_view.delete_hand(0)  # that hand was entered by mistake
    assert hand_so_far(window.state) == before and window.state.scores == {"A": 0, "B": 0}
    window.sheet_view.undo_stack.undo()
    assert hand_so_far(window.state) == before and window.state.scores == {"A": 670, "B": -5}
    window.apply_settings(replace(window.settings, team_names={"A": "Ann & Bob", "B": "Cy & Di"}))
    assert hand_so_far(window.state) == before and window.team_panels["B"].title() == "Cy && Di"


def test_blurred_card_corners_make_the_app_ask_for_focus_until_they_are_sharp(qtbot, store):
    from companion.app.main_window import DEMO
    from vision.reader.focus import BLURRED_BELOW

    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    frames, read = demo_truth(), reader_of_the_demo()
    # Large corners, so only the focus is in question.
    readings = [dataclasses.replace(read(truth), index_heights=(30.0,) * 10) for truth in frames[-6:]]
    window.playing = "0"  # as if a camera filmed this table, its team areas set up
    window.use_table_setup(TableSetup(areas=team_areas(frames)))
    for number, reading in enumerate(readings):
        window.on_reading(number, dataclasses.replace(reading, index_sharpness=(BLURRED_BELOW - 0.1,) * 10))
    assert not window.camera_advice.isHidden()
    assert "look blurred" in window.camera_advice.text() and "closer" not in window.camera_advice.text()
    for number, reading in enumerate(readings, len(readings)):  # brought into focus
        window.on_reading(number, dataclasses.replace(reading, index_sharpness=(0.55,) * 10))
    assert window.camera_advice.isHidden()
    window._play(DEMO, None)  # nobody can focus the demo's camera
    for number, reading in enumerate(readings):
        window.on_reading(number, dataclasses.replace(reading, index_sharpness=(0.2,) * 10))
    assert window.camera_advice.isHidden()


def test_small_card_corners_make_the_app_ask_for_the_camera_closer_but_not_on_the_demo(qtbot, store):
    from companion.app.main_window import DEMO, RECENT_CORNERS
    from companion.app.reader import CORNERS_TO_JUDGE, SMALL_CORNER_PX

    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    frames, read = demo_truth(), reader_of_the_demo()
    as_filmed = [read(truth) for truth in frames[-20:]]
    assert np.median([h for reading in as_filmed for h in reading.index_heights]) >= SMALL_CORNER_PX
    # The demo's table filmed from twice as far: its corners too small to read well.
    readings = [dataclasses.replace(reading, index_heights=tuple(h / 2 for h in reading.index_heights))
                for reading in as_filmed]
    heights = [h for reading in readings for h in reading.index_heights]
    assert np.median(heights) < SMALL_CORNER_PX
    window.playing = "0"  # as if a camera filmed this table, its team areas set up
    window.use_table_setup(TableSetup(areas=team_areas(frames)))
    window.on_reading(0, readings[0])
    if len(readings[0].index_heights) < CORNERS_TO_JUDGE:  # too few corners yet to judge
        assert window.camera_advice.isHidden()
    for number, reading in enumerate(readings[1:], 1):
        window.on_reading(number, reading)
    assert not window.camera_advice.isHidden()
    advice = window.camera_advice.text()
    assert f"about {np.median(heights[-RECENT_CORNERS:]):.0f} pixels tall" in advice
    assert "move it closer" in advice and "24+ px tall" in advice  # with the measured shares, size by size
    # The table as the demo films it, twice as close: the corners are large enough, and the advice goes.
    for number, reading in enumerate(as_filmed, len(readings)):
        window.on_reading(number, reading)
    assert window.camera_advice.isHidden()
    # On the bundled demo nobody can move the camera: no advice.
    window._play(DEMO, None)
    for number, reading in enumerate(readings):
        window.on_reading(number, reading)
    assert window.camera_advice.isHidden()


def test_the_app_asks_for_the_team_areas_until_they_are_set_up(qtbot, store):
    """Without team areas the reader tells the sides apart by which way the cards face: on the
    held-out hand videos it follows far fewer plays so than with the areas."""
    from companion.app.main_window import AREAS_ADVICE, DEMO

    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    frames, read = demo_truth(), reader_of_the_demo()
    readings = [dataclasses.replace(read(truth), index_heights=(30.0,) * 10) for truth in frames[-3:]]
    window._play("0", None)  # a camera with nothing kept for it
    window.on_reading(0, readings[0])
    assert not window.camera_advice.isHidden() and window.camera_advice.text() == AREAS_ADVICE
    assert "Set up table areas" in AREAS_ADVICE
    window.use_table_setup(TableSetup(areas=team_areas(frames)), keep=True)  # the players drag the areas
    window.on_reading(1, readings[1])
    assert window.camera_advice.isHidden()
    window._play(DEMO, None)  # the demo comes with its areas
    window.on_reading(0, readings[2])
    assert window.camera_advice.isHidden()


def test_players_swap_the_sides_the_camera_named_the_wrong_way_round_mid_hand(qtbot, store):
    """The team areas kept for a camera are each other's (players drew them the wrong way round):
    half way through the demo hand they press "Swap the sides". The areas are swapped and kept, the
    hand so far becomes each team's play the other's, and the hand ends as it was played; the hand
    saved in the store is the swapped one."""
    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    frames = demo_truth()
    areas = team_areas(frames)
    window._play("0", None)
    window.use_table_setup(TableSetup(areas={"A": areas["B"], "B": areas["A"]}), keep=True)
    middle = len(frames) // 2
    for number, truth in enumerate(frames):
        if number == middle:
            before = {team: [m.name for m in window.state.teams[team].melds] for team in "AB"}
            assert before["A"] != before["B"]  # both teams opened, each taken for the other
            window.swap_sides()
            assert {team: [m.name for m in window.state.teams[team].melds] for team in "AB"} == \
                {"A": before["B"], "B": before["A"]}
            assert "Sides swapped" in window.statusBar().currentMessage()
        size = (truth["image"]["width"], truth["image"]["height"])
        window.on_reading(number, read_table(detections_from_truth(truth), size, window.table_setup))
    assert np.array_equal(window.table_setup.areas["A"], areas["A"])
    assert np.allclose(TableSetup.from_json(store.table_setup("0")).areas["A"], areas["A"])
    assert_the_table_is_the_demos_at_its_end(window, frames)
    again = MainWindow(store, start_video=False)  # the app opened again: the hand as swapped
    qtbot.addWidget(again)
    assert [m.name for m in again.state.teams["A"].melds] == [m.name for m in window.state.teams["A"].melds]


def test_swapping_the_sides_the_cards_facing_gave_names_them_the_other_way_and_keeps_that(qtbot, store):
    """Without a set-up the reader named the side nearer the picture's bottom team A's; players
    swap: the outlines change names at once, and the camera's set-up keeps the way from team A's
    side to team B's (down the picture now) for the reader; swapping again goes back."""
    from vision.reader.facing import TableTurn

    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    frames = demo_truth()
    size = (frames[-1]["image"]["width"], frames[-1]["image"]["height"])
    turn = TableTurn(np.array([size[0] / 2, size[1] / 2]), np.array([0.0, -1.0]))
    reading = read_table(detections_from_truth(frames[-1]), size, TableSetup(), None, 0.0, turn)
    assert reading.towards_b == (0.0, -1.0)
    window._play("0", None)
    window.on_reading(0, reading)
    bottom = window.video.areas["A"]
    window.swap_sides()
    assert np.allclose(window.video.areas["B"], bottom)
    assert not window.table_setup.set_up and np.allclose(window.table_setup.towards_b, [0, 1])
    assert store.table_setup("0") == {"towards_b": [0.0, 1.0]}
    assert window.camera_advice.isVisible() or not window.isVisible()
    window.swap_sides()  # without a newer reading: the set-up's own way, reversed
    assert np.allclose(window.table_setup.towards_b, [0, -1])
    # A team's opening is checked against its own minimum once it is the other team's.
    window.state.scores = {"A": 3000, "B": 0}
    window.apply_event(Opened("B", (parse_cards("KH KS KD"), parse_cards("QH QS QD"), parse_cards("8H 8S 8D JK"))))
    assert window.broken_rule.text() == ""  # 140: enough at 0 points
    window.swap_sides()
    assert "needs 155" in window.broken_rule.text() and window.state.teams["A"].opened


def test_without_a_set_up_the_window_outlines_the_sides_the_reader_took(qtbot, store):
    """A table nobody set up, its cards showing team A's side on the right (the reader's turn from
    the cards' facing, vision.reader.facing): the picture outlines each team's side as read, until players
    set their own areas."""
    from vision.reader.facing import TableTurn

    window = MainWindow(store, start_video=False)
    qtbot.addWidget(window)
    frames = demo_truth()
    size = (frames[-1]["image"]["width"], frames[-1]["image"]["height"])
    turn = TableTurn(np.array([size[0] / 2, size[1] / 2]), np.array([-1.0, 0.0]))  # B on the left
    reading = read_table(detections_from_truth(frames[-1]), size, TableSetup(), None, 0.0, turn)
    window._play("0", None)
    window.on_reading(0, reading)
    shown = window.video.areas
    assert set(shown) == {"A", "B"}
    assert shown["A"][:, 0].min() >= size[0] / 2 - 1 and shown["B"][:, 0].max() <= size[0] / 2 + 1
    assert shown["A"][:, 1].min() <= 1 and shown["A"][:, 1].max() >= size[1] - 1  # top to bottom of the picture
    from PySide6.QtGui import QImage

    window.video.show_frame(QImage(size[0], size[1], QImage.Format_RGB32))  # a picture to drag areas on
    window.set_up_areas(True)  # the players start setting the areas up, and think better of it
    window.on_reading(1, reading)
    assert window.video.editing
    window.cancel_set_up()
    window.on_reading(2, reading)
    assert np.allclose(window.video.areas["A"], shown["A"])
    areas = team_areas(frames)
    window.use_table_setup(TableSetup(areas=areas), keep=True)  # the players drag their own
    window.on_reading(1, reading)
    assert np.allclose(window.video.areas["A"], areas["A"])
