"""The hand on the table is kept like the score sheet: a restart, or an undone scoring, brings it back."""

import sqlite3

from PySide6.QtWidgets import QDialog

from companion.app.store import Store
from tests.app.test_live_reading import demo_truth, follow_the_demo, hand_so_far, reader_of_the_demo
from tests.app.test_main_window import closed, reopened

#: A demo frame after the turn card was taken and two canastas were squared, with more plays to come.
LATE_IN_THE_HAND = 300


def panel(window):
    """The side panel as the players see it."""
    return ([window.team_panels[t].text.text() for t in ("A", "B")], window.dead_ranks.text(), window.turn_card.text())


def opened(qtbot, path):
    return reopened(qtbot, path, start_video=False)


def test_reopening_the_app_mid_hand_brings_the_hand_back_and_follows_it_on(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    frames, read = demo_truth(), reader_of_the_demo()
    straight, _ = follow_the_demo(qtbot, Store(tmp_path / "straight.sqlite3"))  # the whole hand in one go
    path = tmp_path / "s.sqlite3"
    first = opened(qtbot, path)
    for number, truth in enumerate(frames[:LATE_IN_THE_HAND]):
        first.on_reading(number, read(truth))
    assert first.state.dead_ranks.ranks and first.state.turn_card.drawn  # there is a hand to lose
    before, shown = hand_so_far(first.state), panel(first)
    closed(first)

    again = opened(qtbot, path)
    assert hand_so_far(again.state) == before and panel(again) == shown
    assert again.state.scores == {"A": 0, "B": 0} and again.broken_rule.text() == ""
    # The camera shows the table as it now stands, and the hand goes on: nothing is counted twice.
    for number, truth in enumerate(frames[LATE_IN_THE_HAND:]):
        again.on_reading(number, read(truth))
    assert hand_so_far(again.state) == hand_so_far(straight.state)
    assert again.broken_rule.text() == ""
    closed(again)


def test_a_new_game_leaves_an_empty_table_for_the_next_start(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    path = tmp_path / "s.sqlite3"
    first = opened(qtbot, path)
    first.turn_card_drawn()
    first.new_game()
    assert not first.state.turn_card.drawn
    closed(first)
    again = opened(qtbot, path)
    assert not again.state.turn_card.drawn and not again.state.events


def test_a_damaged_saved_hand_is_reported_and_the_games_are_kept(qtbot, tmp_path, monkeypatch):
    from tests.app.hands import hand_out

    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    path = tmp_path / "s.sqlite3"
    first = opened(qtbot, path)
    first.sheet_view.add_hand(hand_out("A"))
    first.turn_card_drawn()
    game = first.game.id
    closed(first)
    damaged = sqlite3.connect(path)
    damaged.execute("""UPDATE hand_in_progress SET hand = '{"events": [{"event": "CardsShuffled"}]}'""")
    damaged.commit()
    damaged.close()

    again = opened(qtbot, path)
    told = again.broken_rule.text()
    assert "The hand that was on the table when the app last closed can't be read back" in told
    assert "score sheet and its games are safe" in told and "'CardsShuffled' is not an event" in told
    assert again.game.id == game and again.sheet_view.table.rowCount() == 1
    assert not again.state.events  # a new hand, from the totals
    assert again.state.scores == {"A": 670, "B": -5}
    # ... and the unreadable hand is not lost with the new one: a copy, as it was, beside the file
    copies = list(tmp_path.glob("s.sqlite3.hand-in-progress-*.txt"))
    assert len(copies) == 1 and "CardsShuffled" in copies[0].read_text() and str(copies[0]) in told
    closed(again)


def test_the_game_played_last_that_cannot_be_read_is_kept_and_a_new_one_starts(qtbot, tmp_path, monkeypatch):
    """A game saved by a newer app (a table rule this one does not know) or damaged on disk: the
    window opens on a new game and says so; the old game's record is left exactly as it was."""
    from tests.app.hands import hand_out

    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    path = tmp_path / "s.sqlite3"
    first = opened(qtbot, path)
    first.sheet_view.add_hand(hand_out("A"))
    first.turn_card_drawn()  # a hand under way on its table
    old = first.game.id
    closed(first)
    for damage in ("""UPDATE games SET table_rules = '{"rule_from_a_newer_app": true}'""",
                   "UPDATE hands SET hand = 'not json'"):
        db = sqlite3.connect(path)
        db.execute(damage)
        db.commit()
        record = db.execute("SELECT table_rules, (SELECT hand FROM hands) FROM games WHERE id = ?", (old,)).fetchone()
        db.execute("UPDATE settings SET value = ? WHERE key = 'current_game'", (str(old),))
        db.commit()
        db.close()
        again = opened(qtbot, path)
        assert again.game.id != old and not again.game.hands
        told = again.broken_rule.text()
        assert f"game {old} can't be read back" in told and "the other games are safe" in told
        assert "known:" not in told  # not the list of rules this version knows
        copies = sorted(tmp_path.glob("s.sqlite3.hand-in-progress-*.txt"))
        assert copies and "TurnCardDrawn" in copies[-1].read_text() and str(copies[-1]) in told
        closed(again)
        db = sqlite3.connect(path)
        assert (
            db.execute("SELECT table_rules, (SELECT hand FROM hands) FROM games WHERE id = ?", (old,)).fetchone()
            == record
        )
        db.close()


def test_undoing_a_scored_hand_puts_its_table_back(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    frames, read = demo_truth(), reader_of_the_demo()
    path = tmp_path / "s.sqlite3"
    window = opened(qtbot, path)
    for number, truth in enumerate(frames[:LATE_IN_THE_HAND]):
        window.on_reading(number, read(truth))
    played, shown = hand_so_far(window.state), panel(window)

    def the_stock_ran_out(dialog):  # the players confirm the hand as read, nobody went out
        assert dialog.confirm_button.isEnabled()
        return QDialog.Accepted

    window.sheet_view.open_dialog = the_stock_ran_out
    window.score_hand()
    assert len(window.game.hands) == 1 and not window.state.events  # scored: the next hand starts
    assert window.game.hand_in_progress() is None

    window.sheet_view.undo_stack.undo()  # that hand was not over
    assert window.game.hands == [] and hand_so_far(window.state) == played and panel(window) == shown
    assert window.state.scores == {"A": 0, "B": 0}
    closed(window)
    again = opened(qtbot, path)  # and it is on disk so
    assert hand_so_far(again.state) == played
    again.sheet_view.undo_stack.clear()

    window = again
    window.sheet_view.open_dialog = the_stock_ran_out
    window.score_hand()
    window.sheet_view.undo_stack.undo()
    window.sheet_view.undo_stack.redo()  # scored after all
    assert len(window.game.hands) == 1 and not window.state.events and window.game.hand_in_progress() is None
    closed(window)


def test_a_saved_hand_that_can_neither_be_read_nor_copied_aside_is_left_and_said(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr("companion.app.main_window.load_card_reader", lambda: (None, "no reader"))
    path = tmp_path / "s.sqlite3"
    first = opened(qtbot, path)
    first.turn_card_drawn()
    closed(first)
    db = sqlite3.connect(path)
    db.execute("UPDATE hand_in_progress SET hand = 'not json'")
    db.commit()
    db.close()

    def disk_full(self):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Store, "keep_unreadable_hand_in_progress", disk_full)
    again = opened(qtbot, path)
    assert "nor copied aside (No space left on device)" in again.broken_rule.text()
    closed(again)
    db = sqlite3.connect(path)
    assert db.execute("SELECT hand FROM hand_in_progress").fetchone() == ("not json",)  # left until a play
    db.close()
