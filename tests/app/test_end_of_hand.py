import html
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from companion import TableRules
from companion.app.cards_ui import REMOVE, CardChip, CardPicker
from companion.app.draft import HandDraft
from companion.app.end_of_hand import EndOfHandDialog
from companion.app.game import Game
from tests.app.hands import KINGS, hand_out


def make_game(store):
    return Game.start(store, "modern", TableRules(), {"A": "Ann & Bob", "B": "Cy & Di"})


def test_a_corrected_card_changes_the_score(qtbot, store):
    game = make_game(store)
    dialog = EndOfHandDialog(game, HandDraft.from_hand(hand_out("A", left=("5C",))), 0)
    qtbot.addWidget(dialog)
    assert dialog.report["teams"]["B"]["total"] == -5
    # The camera read the five of clubs; it was the joker. One click on the chip, pick "Joker".
    dialog.ask_card = lambda current: "JK"
    qtbot.mouseClick(chips(dialog, "B")[0], Qt.LeftButton)
    assert dialog.draft.teams["B"]["hands"][0] == ["JK"]
    assert dialog.report["teams"]["B"]["total"] == -50
    assert "-50" in dialog.breakdown.text()


def chips(dialog, team):
    return dialog.team_boxes[team].findChildren(CardChip)


def test_an_impossible_hand_says_why_in_players_words_and_cannot_be_confirmed(qtbot, store):
    game = make_game(store)
    dialog = EndOfHandDialog(game, HandDraft.from_hand(hand_out("A")), 0)
    qtbot.addWidget(dialog)
    dialog.ask_card = lambda current: "QH"   # a queen in the kings meld
    qtbot.mouseClick(chips(dialog, "A")[0], Qt.LeftButton)
    text = html.unescape(dialog.breakdown.text())
    # The meld as the dialog numbers it and the rule book by name, not the hand file's field and seed number.
    assert "Ann & Bob, meld 1: A meld holds one rank" in text and "(rules guide: Melds" in text, text
    assert "teams." not in text and "seed 0" not in text and "§" not in text
    assert not dialog.confirm_button.isEnabled()
    dialog.ask_card = lambda current: REMOVE   # remove it: six kings, not a canasta
    qtbot.mouseClick(chips(dialog, "A")[0], Qt.LeftButton)
    assert dialog.draft.teams["A"]["melds"][0] == KINGS[1:]
    assert dialog.confirm_button.isEnabled()


def test_the_meld_a_problem_names_is_numbered_as_the_dialog_shows_it_past_an_emptied_meld(qtbot, store):
    """The hand the core checks leaves out an emptied meld; the message still names the dialog's."""
    dialog = with_a_new_meld(qtbot, store, ["AH", "AS", "QD"])  # meld 2: two aces and a queen
    for _ in range(len(KINGS)):
        dialog.ask_card = lambda current: REMOVE
        qtbot.mouseClick(chips(dialog, "A")[0], Qt.LeftButton)  # meld 1 emptied, one card at a time
    assert dialog.draft.teams["A"]["melds"][0] == []
    assert "Ann & Bob, meld 2: A meld holds one rank" in html.unescape(dialog.breakdown.text())


def with_a_new_meld(qtbot, store, codes: list[str]) -> EndOfHandDialog:
    """The dialog of a small hand, team A's second meld started with ``codes`` (picked one by one)."""
    dialog = EndOfHandDialog(make_game(store), HandDraft.from_hand(hand_out("A")), 0)
    qtbot.addWidget(dialog)
    picks = iter(codes)
    dialog.ask_card = lambda current: next(picks)
    dialog.new_meld("A")  # its first card asked too
    for _ in codes[1:]:
        dialog.add_card("A", ("melds", 1))
    return dialog


def test_a_missed_card_is_added_and_a_new_meld_started(qtbot, store):
    dialog = with_a_new_meld(qtbot, store, ["AH", "AS", "AD"])
    assert dialog.draft.teams["A"]["melds"][1] == ["AH", "AS", "AD"]
    # Unfinished aces at the end of the hand cost 2,500 (the core's rule), shown line by line.
    assert {"item": "unfinished meld of natural aces", "points": -2500} in dialog.report["teams"]["A"]["lines"]
    assert "unfinished meld of natural aces" in dialog.breakdown.text()


def test_the_picker_takes_a_rank_then_a_suit(qtbot):
    picker = CardPicker("5C")
    qtbot.addWidget(picker)
    qtbot.mouseClick(picker.rank_buttons["Q"], Qt.LeftButton)
    qtbot.mouseClick(picker.suit_buttons["H"], Qt.LeftButton)
    assert picker.chosen == "QH" and picker.result() == QDialog.Accepted


def test_the_picker_takes_a_joker_in_one_click(qtbot):
    picker = CardPicker(None)
    qtbot.addWidget(picker)
    assert not picker.suit_buttons["H"].isEnabled()
    qtbot.mouseClick(picker.rank_buttons["JK"], Qt.LeftButton)
    assert picker.chosen == "JK"


def test_going_out_without_two_canastas_is_scored_but_flagged(qtbot, store):
    game = make_game(store)
    dialog = EndOfHandDialog(game, HandDraft.from_hand(hand_out("A")), 0)
    qtbot.addWidget(dialog)
    assert "Check, Ann &amp; Bob went out:" in dialog.breakdown.text() and dialog.confirm_button.isEnabled()


def test_a_special_hand_is_how_its_team_goes_out(qtbot, store):
    """Seed 000 §Special hands: laid down at once, the team's only meld, and the hand ends. Choosing
    one for a team says that team went out; one beside melds, or by a team that did not go out, is
    flagged."""
    game = make_game(store)
    dialog = EndOfHandDialog(game, HandDraft.from_hand(hand_out("A")), 0)
    qtbot.addWidget(dialog)
    dialog._set_special("B", "pairs")
    assert dialog.draft.went_out == "B" and dialog.went_out_buttons["B"].isChecked()
    assert "Check, Cy &amp; Di went out:" not in dialog.breakdown.text()
    dialog.went_out_buttons[None].setChecked(True)
    text = dialog.breakdown.text()
    assert ("<b>Check:</b> The special hand of Cy &amp; Di ends the hand: Cy &amp; Di went out with it. "
            "(rules guide: Special hands)") in text
    dialog._set_special("A", "pairs")  # Ann & Bob still have their canasta of kings
    assert "A special hand is the only meld of Ann &amp; Bob" in dialog.breakdown.text()


APP = Path(__file__).resolve().parents[2] / "companion" / "app"


@pytest.mark.parametrize("module", sorted(path.stem for path in APP.glob("*.py") if ">>> " in path.read_text()))
def test_the_app_modules_examples_hold(module):
    """companion/app is left out of the suite's doctest collection (its modules import Qt, and some
    act on import); the examples of those that have them (words.py's, on what players read, among
    them) run here."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"companion.app.{module}"))
    assert result.attempted >= 1 and result.failed == 0
