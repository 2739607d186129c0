import pytest

from companion.handfile import HandFileError
from companion.scoresheet import ScoreSheet
from companion.table_rules import TableRules

KINGS7 = ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]
QUEENS7 = ["QH", "QS", "QD", "QC", "QH", "QS", "QD"]


def hand(a_melds=(), b_melds=(), went_out=None, a_hand=()):
    return {
        "went_out": went_out,
        "teams": {"A": {"melds": list(a_melds), "hands": [list(a_hand)]}, "B": {"melds": list(b_melds)}},
    }


def test_running_totals_and_next_minimums():
    sheet = ScoreSheet()
    sheet.add(hand([KINGS7], [QUEENS7], went_out="A"))          # A 670, B 570
    sheet.add(hand([KINGS7], [], a_hand=["5C"]))                  # A 565, B 0
    rows = sheet.rows()
    assert [r.scores for r in rows] == [{"A": 670, "B": 570}, {"A": 565, "B": 0}]
    assert rows[-1].totals == {"A": 1235, "B": 570}
    assert sheet.next_minimum("A") == 125


def test_editing_a_past_hand_recomputes_every_later_one():
    sheet = ScoreSheet(table_rules=TableRules(game_target=2500))
    for _ in range(3):
        sheet.add(hand([KINGS7], [QUEENS7]))
    assert [r.totals["A"] for r in sheet.rows()] == [570, 1140, 1710]
    sheet.replace(0, hand([KINGS7, QUEENS7], [], went_out="A"))
    assert [r.totals["A"] for r in sheet.rows()] == [1240, 1810, 2380]
    assert [r.totals["B"] for r in sheet.rows()] == [0, 570, 1140]
    sheet.delete(1)
    assert [r.totals["A"] for r in sheet.rows()] == [1240, 1810]


def test_next_minimum_follows_the_running_total():
    sheet = ScoreSheet()
    big = hand([["7H", "7S", "7D", "7C", "7H", "7S", "7D"], KINGS7], [], went_out="A")  # 2500+35+570+100
    sheet.add(big)
    assert sheet.rows()[0].next_minimums["A"] == 155
    sheet.add(big)
    assert sheet.rows()[1].next_minimums["A"] == 180


def test_game_ends_after_the_hand_that_reaches_the_target_and_the_higher_total_wins():
    sheet = ScoreSheet(table_rules=TableRules(game_target=2500))
    big = hand([["7H", "7S", "7D", "7C", "7H", "7S", "7D"]], [QUEENS7], went_out="A")
    sheet.add(big)
    assert sheet.game_over and sheet.winner == "A"
    sheet.add(hand())  # a hand added after the end is marked as such
    assert sheet.rows()[-1].after_game_end
    # ... and changes neither the result nor the totals it was won with, even where it would
    # take the winner back under the target and the other team past it
    for _ in range(6):
        sheet.add(hand([], [QUEENS7, KINGS7], went_out="B", a_hand=["JK", "JK", "AH"]))
    assert sheet.totals["A"] < 2500 < sheet.totals["B"]
    assert sheet.game_over and sheet.winner == "A" and sheet.final_totals == sheet.rows()[0].totals


def test_classic_sheet_plays_to_5000():
    assert ScoreSheet(variant="classic").target == 5000
    assert ScoreSheet().target == 8500


def test_an_invalid_hand_never_joins_the_sheet():
    sheet = ScoreSheet()
    with pytest.raises(HandFileError, match="hand 1: teams.A.melds"):
        sheet.add(hand([["KH", "QH", "JH"]]))
    assert sheet.hands == []
    with pytest.raises(IndexError, match="no hand 3"):
        sheet.delete(2)
