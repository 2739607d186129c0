import json
import sqlite3

import cv2
import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialog

from companion import TableRules, ThreesLaidOut, parse_cards
from companion.app.game import Game
from companion.app.main import open_store
from companion.app.main_window import MainWindow
from companion.app.settings import AppSettings
from companion.app.settings_dialog import SettingsDialog
from companion.app.store import Store
from tests.app.hands import hand_out


def window(qtbot, store):
    w = MainWindow(store, start_video=False)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitExposed(w)
    w.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is w)  # key shortcuts go to the active window
    return w


def test_without_the_card_reader_the_app_says_so_and_stays_usable(qtbot, store, monkeypatch, tmp_path):
    monkeypatch.setattr("vision.reader.weights.DEFAULT_WEIGHTS", tmp_path / "cards.onnx")  # no trained detector
    w = window(qtbot, store)
    assert w.statusBar().currentMessage().startswith("Card reader not available yet:")
    w.start_source("demo")  # the bundled demo plays, decoded off the GUI thread
    qtbot.waitUntil(lambda: w.video.frames_shown >= 3, timeout=10000)
    assert "Not opened yet: needs 125 points to open" in w.team_panels["A"].text.text()


def test_frames_reach_the_window_in_their_own_colours(qapp):
    from PySide6.QtGui import QImage

    from companion.app.video import to_qimage

    frame = np.zeros((4, 6, 3), np.uint8)
    frame[1, 2] = (255, 0, 0)  # OpenCV's blue
    frame[3, 5] = (10, 120, 230)  # an orange
    image = to_qimage(frame)
    assert image.format() == QImage.Format_RGB32 and (image.width(), image.height()) == (6, 4)
    assert image.pixelColor(2, 1).getRgb()[:3] == (0, 0, 255)
    assert image.pixelColor(5, 3).getRgb()[:3] == (230, 120, 10)
    assert image.pixelColor(0, 0).getRgb()[:3] == (0, 0, 0)


def test_a_missing_demo_gets_a_plain_message(qtbot, store, tmp_path, monkeypatch):
    import companion.app.main_window as main_window

    monkeypatch.setattr(main_window, "DEMO_VIDEO", tmp_path / "gone.mp4")
    w = window(qtbot, store)
    w.start_source("demo")
    assert "demo video is not installed" in w.video.text()


def test_score_hand_adds_the_hand_to_the_sheet_and_the_next_hand_starts_from_the_totals(qtbot, store):
    w = window(qtbot, store)

    def enter_the_hand(dialog):  # the players enter what the reader can't yet
        for code in ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]:
            dialog.ask_card = lambda current, c=code: c
            dialog.add_card("A", ("melds", 0)) if dialog.draft.teams["A"]["melds"] else dialog.new_meld("A")
        dialog.ask_card = lambda current: "9C"
        dialog.add_card("B", ("hands", 1))
        dialog.went_out_group.buttons()[0].setChecked(True)
        assert dialog.confirm_button.isEnabled()
        return QDialog.Accepted

    w.sheet_view.open_dialog = enter_the_hand
    qtbot.keyClick(w, Qt.Key_S)
    assert w.game.sheet.totals == {"A": 670, "B": -10}
    assert Game.load(store, w.game.id).hands[0]["went_out"] == "A"
    assert w.tabs.currentWidget() is w.sheet_view
    assert w.state.opening_minimum("A") == 125 and w.state.scores == {"A": 670, "B": -10}
    assert "press Ctrl+L to teach the card reader your deck" in w.statusBar().currentMessage()


def test_the_turn_card_key(qtbot, store):
    w = window(qtbot, store)
    qtbot.keyClick(w, Qt.Key_T)
    assert w.turn_card.text() == "Turn card drawn: 8 cards left; no more bonus cards"


def test_the_swap_the_sides_key(qtbot, store):
    w = window(qtbot, store)
    w.apply_event(ThreesLaidOut("A", tuple(parse_cards("3H"))))
    qtbot.keyClick(w, Qt.Key_W)
    assert not w.state.teams["A"].threes and len(w.state.teams["B"].threes) == 1
    assert "Sides swapped" in w.statusBar().currentMessage()


def test_reopening_resumes_the_game(qtbot, tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    first = window(qtbot, store)
    first.sheet_view.add_hand(hand_out("A"))
    first.close()
    store.close()
    again = window(qtbot, Store(tmp_path / "s.sqlite3"))
    assert again.game.id == first.game.id and again.sheet_view.table.rowCount() == 1


def test_settings_are_kept_and_apply_to_a_game_without_hands(qtbot, store):
    w = window(qtbot, store)
    dialog = SettingsDialog(w.settings, [], "note")
    qtbot.addWidget(dialog)
    dialog.team_names["A"].setText("Ann & Bob")
    combo = dialog.rule_inputs["wild_card_threshold"]
    combo.setCurrentIndex(combo.findData(3))
    dialog.rule_inputs["special_hands"]["garbage"].setChecked(False)
    dialog.accept()
    w.apply_settings(dialog.settings)
    assert w.game.rules.wild_card_threshold == 3 and "garbage" not in w.game.rules.special_hands
    assert AppSettings.load(store).team_names["A"] == "Ann & Bob"
    assert w.team_panels["A"].title() == "Ann && Bob"  # shown as "Ann & Bob", not as a shortcut


def test_settings_show_every_table_rule_with_its_default_and_sources(qtbot):
    from companion import SETTINGS
    dialog = SettingsDialog(AppSettings(), [], "note")
    qtbot.addWidget(dialog)
    assert set(dialog.rule_inputs) == set(SETTINGS)
    text = " ".join(label.text() for label in dialog.findChildren(type(dialog.error)))
    assert "Default: <b>5</b>" in text and "rules guide: Dead cards" in text
    assert "checks nothing against it" in text and "A rank is dead once a team finishes" in text


def test_a_damaged_database_is_put_aside_only_when_the_players_say_so(tmp_path):
    path = tmp_path / "s.sqlite3"
    path.write_bytes(b"not a database" * 100)
    assert open_store(str(path), lambda error: False) is None
    assert path.read_bytes() == b"not a database" * 100
    store = open_store(str(path), lambda error: "damaged" in str(error))
    assert store.games() == [] and len(list(tmp_path.glob("s.sqlite3.unreadable-*"))) == 1


def test_a_file_in_use_is_left_as_it_is_and_the_players_are_told_why(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite3"
    Store(path).close()
    before = path.read_bytes()
    monkeypatch.setattr(Store, "busy_timeout", 0.2)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    told, asked = [], []
    assert open_store(str(path), lambda error: asked.append(error) or True, told.append) is None
    assert not asked and "is Canasta Companion already open" in str(told[0])
    other.execute("ROLLBACK")
    other.close()
    assert path.read_bytes() == before and not list(tmp_path.glob("*.unreadable-*"))


def grey_video(path, frames: int):
    """A 320×240 MJPG video at 30 fps whose frames grow lighter one by one."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30, (320, 240))
    for i in range(frames):
        writer.write(np.full((240, 320, 3), i * 8, np.uint8))
    writer.release()
    return path


def test_a_video_file_plays_off_the_gui_thread(qtbot, store, tmp_path):
    video = grey_video(tmp_path / "table.avi", 30)
    w = window(qtbot, store)
    w.feed.start(str(video), loop=True)
    qtbot.waitUntil(lambda: w.video.frames_shown >= 5, timeout=5000)
    w.close()  # stops the worker and releases the file
    assert w.feed._worker is None


def test_a_video_file_plays_at_its_own_size_where_a_camera_is_asked_for_1080p(tmp_path):
    from companion.app.video import open_capture

    video = grey_video(tmp_path / "table.avi", 3)
    capture = open_capture(str(video))
    ok, frame = capture.read()
    assert ok and frame.shape == (240, 320, 3)
    assert (capture.get(cv2.CAP_PROP_FRAME_WIDTH), capture.get(cv2.CAP_PROP_FRAME_HEIGHT)) == (320, 240)
    capture.release()
    assert not open_capture(str(tmp_path / "no-such-camera")).isOpened()


def test_the_reader_status_says_how_much_the_shipped_model_finds(tmp_path):
    from companion.app.reader import MODEL_METRICS, load_card_reader

    reader, status = load_card_reader()
    if reader is None:
        assert status.startswith("Card reader not available yet")
        return
    measured = json.loads(MODEL_METRICS.read_text())
    assert (f"is sure of {measured['located']:.0%}" in status) and (
        ("still in training" in status) == (measured["located"] < 0.95)
    )
    assert (
        f"({measured['readable']['located']:.0%} of those whose corners the camera sees 16 pixels tall or more)"
        in status
    )
    unmeasured = load_card_reader(tmp_path / "missing.json")[1]
    assert "not measured" in unmeasured
    (tmp_path / "older.json").write_text(json.dumps({"located": 0.2}))  # measured before the readable subset
    assert load_card_reader(tmp_path / "older.json")[1].startswith("Card reader still in training: on unseen card "
                                                                   "designs it is sure of 20% of the cards. Check")


def reopened(qtbot, path, start_video=True):
    """The app started again on the same score-sheet file, playing what it played last."""
    w = MainWindow(Store(path), start_video=start_video)
    qtbot.addWidget(w)
    return w


def pressing_ok(change, seen: list | None = None, noted=lambda dialog: dialog.variant.currentData()):
    """A SettingsDialog.exec as players answer it: ``noted`` (what the dialog shows) added to
    ``seen``, then ``change`` done on the dialog, then OK."""
    def press_ok(dialog):
        if seen is not None:
            seen.append(noted(dialog))
        change(dialog)
        dialog.accept()
        return QDialog.Accepted
    return press_ok


def closed(w):
    w.close()
    w.store.close()


def test_the_video_file_played_is_reopened_next_time_and_the_demo_plays_when_it_is_gone(qtbot, tmp_path, monkeypatch):
    from companion.app.main_window import OPEN_FILE
    from companion.app.settings import DEMO, VIDEO_FILE

    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    video = grey_video(tmp_path / "our table.avi", 30)
    monkeypatch.setattr("companion.app.main_window.QFileDialog.getOpenFileName", lambda *args: (str(video), ""))
    path = tmp_path / "s.sqlite3"
    first = MainWindow(Store(path), start_video=False)
    qtbot.addWidget(first)
    first.start_source(OPEN_FILE)
    assert first.playing == str(video) and first.source.currentText() == "Video: our table.avi"
    closed(first)

    again = reopened(qtbot, path)
    assert again.playing == str(video) and again.source.currentData() == VIDEO_FILE
    qtbot.waitUntil(lambda: again.video.frames_shown >= 1, timeout=5000)
    closed(again)

    video.unlink()
    third = reopened(qtbot, path)
    assert third.playing == DEMO and third.source.currentData() == DEMO
    assert (
        "not there any more" in third.statusBar().currentMessage()
        and "our table.avi" in third.statusBar().currentMessage()
    )
    assert AppSettings.load(third.store).video_file is None
    closed(third)


def test_the_chosen_camera_or_the_demo_is_played_again_next_time(qtbot, tmp_path, monkeypatch):
    from companion.app.cameras import Camera
    from companion.app.settings import DEMO

    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    cameras = [Camera("/dev/video-one", "Kitchen"), Camera("/dev/video-two", "Over the table")]
    monkeypatch.setattr("companion.app.main_window.list_cameras", lambda: cameras)
    path = tmp_path / "s.sqlite3"
    first = MainWindow(Store(path), start_video=False)
    qtbot.addWidget(first)
    first.start_source("/dev/video-two")
    closed(first)
    again = reopened(qtbot, path)
    assert again.playing == "/dev/video-two" and again.source.currentText() == "Camera: Over the table"
    again.start_source(DEMO)  # the players watch the demo: a camera is there, but the demo is what they chose
    closed(again)
    assert reopened(qtbot, path).playing == DEMO

    cameras[:] = [cameras[0]]
    Store(path).set_settings({"source": "/dev/video-two"})
    unplugged = reopened(qtbot, path)
    assert unplugged.playing == "/dev/video-one" and "not connected" in unplugged.statusBar().currentMessage()


def test_ok_in_the_settings_switches_the_video_only_when_the_players_chose_another(qtbot, store, monkeypatch):
    from companion.app.cameras import Camera
    from companion.app.settings import DEMO

    monkeypatch.setattr("companion.app.main_window.list_cameras", lambda: [Camera("/dev/video-one", "Kitchen")])
    w = window(qtbot, store)
    w.settings.source = "/dev/video-two"  # playing a camera unplugged since: the dialog can't list it
    started = []
    monkeypatch.setattr(w, "start_source", started.append)
    shown = []

    def players(change):
        return pressing_ok(change, shown, lambda dialog: dialog.video.currentData())

    monkeypatch.setattr(SettingsDialog, "exec", players(lambda d: d.team_names["A"].setText("Ann & Bob")))
    w.edit_settings()
    assert shown == ["/dev/video-one"]  # the first entry shows, as no choice of theirs
    assert started == [] and w.settings.source == "/dev/video-two" and w.settings.team_names["A"] == "Ann & Bob"
    monkeypatch.setattr(SettingsDialog, "exec", players(lambda d: d.video.setCurrentIndex(d.video.findData(DEMO))))
    w.edit_settings()
    assert started == [DEMO]


def test_a_classic_game_s_panel_has_no_dead_ranks_or_turn_card(qtbot, tmp_path, monkeypatch):
    """Seed 001: classic canasta's canastas close no rank and its stock has no turn card; its side
    panel counts the one canasta it needs to go out."""
    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    store = Store(tmp_path / "s.sqlite3")
    AppSettings(variant="classic").save(store)
    w = MainWindow(store, start_video=False)
    qtbot.addWidget(w)
    assert w.game.variant == "classic"
    assert w.dead_ranks.isHidden() and w.turn_card.isHidden() and w.turn_button.isHidden()
    w.turn_card_drawn()
    assert not w.state.events and not w.state.turn_card.drawn
    assert "0 (one is needed to go out)" in w.team_panels["A"].text.text()
    closed(w)
    modern = Store(tmp_path / "m.sqlite3")
    w = MainWindow(modern, start_video=False)
    qtbot.addWidget(w)
    assert not w.dead_ranks.isHidden() and not w.turn_button.isHidden()
    assert "0 of the 2 needed to go out" in w.team_panels["A"].text.text()
    closed(w)


def test_ok_in_the_settings_leaves_a_past_game_s_names_and_rules_as_they_are(qtbot, store, monkeypatch):
    """The settings dialog shows the game being played: a past game opened again keeps its names,
    variant and table rules when players only move the threshold."""
    w = window(qtbot, store)
    past = Game.start(store, "classic", TableRules(game_target=2500), {"A": "Ann & Bob", "B": "Cy & Di"})
    w.set_game(Game.load(store, past.id))
    seen = []

    def press_ok(dialog):
        seen.append((dialog.team_names["A"].text(), dialog.variant.currentData()))
        dialog.threshold.setValue(0.3)
        dialog.accept()
        return QDialog.Accepted

    monkeypatch.setattr(SettingsDialog, "exec", press_ok)
    w.edit_settings()
    assert seen == [("Ann & Bob", "classic")]
    again = Game.load(store, past.id)
    assert again.team_names == {"A": "Ann & Bob", "B": "Cy & Di"} and again.variant == "classic"
    assert again.rules == TableRules(game_target=2500) and w.settings.threshold == 0.3


def test_a_new_game_asks_first_when_a_hand_is_under_way(qtbot, store, monkeypatch):
    """Only one hand in progress is kept: leaving one unscored is the players' choice, asked."""
    from PySide6.QtWidgets import QMessageBox

    w = window(qtbot, store)
    first = w.game.id
    asked = []
    answer = [QMessageBox.No]
    monkeypatch.setattr(QMessageBox, "question", lambda *args: asked.append(args[2]) or answer[0])
    w.ask_new_game()  # nothing played yet: no question
    assert not asked and w.game.id != first
    second = w.game.id
    w.turn_card_drawn()
    w.ask_new_game()
    assert "The hand on the table (1 play so far) is not on the score sheet yet" in asked[0]
    assert w.game.id == second and w.state.turn_card.drawn
    answer[0] = QMessageBox.Yes
    w.ask_new_game()
    assert w.game.id not in (first, second) and not w.state.events


def test_past_games_show_each_game_s_score_and_the_one_being_played(qtbot, store):
    from companion.app.main_window import PastGamesDialog

    w = window(qtbot, store)
    w.sheet_view.add_hand(hand_out("A"))
    playing = w.game.id
    other = Game.start(store, "modern", TableRules(), {"A": "Ann", "B": "Cy"})
    store._db.execute("UPDATE games SET table_rules = '{\"from_a_newer_app\": 1}' WHERE id = ?", (other.id,))
    dialog = PastGamesDialog(store, w, playing=playing)
    qtbot.addWidget(dialog)
    lines = [dialog.list.item(i).text() for i in range(dialog.list.count())]
    assert lines[0].endswith("Ann v Cy, its score can't be read — 0 hands, in play")
    assert lines[1].endswith(f"{w.game.team_names['A']} 670, {w.game.team_names['B']} -5 — 1 hand, being played")


def test_rules_changed_before_the_first_hand_replay_the_hand_on_the_table_keeping_its_plays(qtbot, store, monkeypatch):
    """Settings changed while the game has no hands yet apply to this game: the hand on the table is
    played again by the new rules, its plays kept (they were thrown away without a word)."""
    from companion import TurnCardDrawn

    w = window(qtbot, store)
    w.apply_event(ThreesLaidOut("A", tuple(parse_cards("3H"))))
    w.apply_event(TurnCardDrawn())
    w.apply_event(ThreesLaidOut("B", tuple(parse_cards("3D"))))
    plays = len(w.state.events)
    press_ok = pressing_ok

    def wild_limit(dialog):
        box = dialog.rule_inputs["wild_card_threshold"]
        box.setCurrentIndex(box.findData(3))
    monkeypatch.setattr(SettingsDialog, "exec", press_ok(wild_limit))
    w.edit_settings()
    assert w.game.rules.wild_card_threshold == 3 and len(w.state.events) == plays
    assert len(Game.load(store, w.game.id).hand_in_progress()["events"]) == plays  # kept for a restart
    to_classic = press_ok(lambda d: d.variant.setCurrentIndex(d.variant.findData("classic")))
    monkeypatch.setattr(SettingsDialog, "exec", to_classic)
    w.edit_settings()  # classic has no turn card: the hand is replayed or started again, never a traceback
    assert w.game.variant == "classic"
    closed(w)


def test_rules_chosen_for_the_next_game_survive_another_visit_to_the_settings(qtbot, store, monkeypatch):
    """With hands on the sheet the settings apply from the next game: opened again only to rename a
    team, the dialog shows (and OK keeps) the rules chosen for the next game, not this game's."""
    from tests.app.hands import hand_out

    w = window(qtbot, store)
    assert w.sheet_view.add_hand(hand_out("A"))
    seen = []

    def press_ok(change):
        return pressing_ok(change, seen)

    to_classic = press_ok(lambda d: d.variant.setCurrentIndex(d.variant.findData("classic")))
    monkeypatch.setattr(SettingsDialog, "exec", to_classic)
    w.edit_settings()
    monkeypatch.setattr(SettingsDialog, "exec", press_ok(lambda d: d.team_names["A"].setText("Ann & Bob")))
    w.edit_settings()
    assert seen == ["modern", "classic"] and w.game.variant == "modern" and w.settings.variant == "classic"
    w.new_game()
    assert w.game.variant == "classic" and w.game.team_names["A"] == "Ann & Bob"
    closed(w)
