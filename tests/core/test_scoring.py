"""Scoring, seed by seed: the worked examples and each Modern American line."""

import pytest

from companion.cards import Card
from companion.handfile import HandFileError, score_report

KINGS7 = ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]
QUEENS_MIXED7 = ["QH", "QS", "QD", "QC", "QH", "QS", "2D"]


def team_total(hand, team="A"):
    return score_report(hand)["teams"][team]["total"]


def lines(hand, team="A"):
    return {line["item"]: line["points"] for line in score_report(hand)["teams"][team]["lines"]}


def hand(a=None, b=None, **top):
    return {"teams": {"A": a or {}, "B": b or {}}, **top}


def test_seed_001_seven_kings_natural_canasta_is_570():
    """Seed 001 §Scoring: 'Seven kings in a natural canasta are worth 570'."""
    assert team_total(hand({"melds": [KINGS7]}, variant="classic")) == 570
    # Modern American: the same canasta also scores 500 + 70 once the team has a canasta.
    assert team_total(hand({"melds": [KINGS7]})) == 570


def test_seed_001_worked_hand_is_1975():
    """Seed 001 §Scoring: one natural canasta, two mixed, two red threes, 620 in melded cards, going
    out, partner holding 45: 500 + 600 + 200 + 620 + 100 − 45 = 1,975."""
    team = {
        "melds": [
            ["AH", "AS", "AD", "AC", "AH", "AS", "AD"],
            ["KH", "KS", "KD", "KC", "KH", "JK", "JK"],
            ["QH", "QS", "QD", "QC", "QH", "JK", "JK"],
            ["10H", "10S", "10D", "2C"],
            ["9H", "9S", "9D", "2D"],
            ["8H", "8S", "8D", "8C", "2H", "2S"],
        ],
        "threes": ["3H", "3D"],
        "hands": [[], ["KC", "QC", "5C", "5D", "5H", "5S", "4C"]],
    }
    report = lines(hand(team, variant="classic", went_out="A"))
    assert report["melded cards"] == 620
    assert report["cards left in hand (player 2)"] == -45
    assert team_total(hand(team, variant="classic", went_out="A")) == 1975


@pytest.mark.parametrize("meld, bonus", [
    (QUEENS_MIXED7, 300),
    (KINGS7, 500),
    (["7H", "7S", "7D", "7C", "7H", "7S", "7D"], 2500),
    (["AH", "AS", "AD", "AC", "AH", "AS", "AD"], 2500),
    (["AH", "AS", "AD", "AC", "AH", "AS", "JK"], 300),
    (["2H", "2S", "2D", "2C", "2H", "2S", "2D"], 3000),
    (["JK", "JK", "JK", "JK", "2H", "2S", "2D"], 2500),
    (["JK", "JK", "2C", "2H", "2S", "2D", "2C"], 2000),
])
def test_canasta_bonuses(meld, bonus):
    points = sum(Card.parse(c).points for c in meld)
    # two canastas so that nothing else depends on the count; the kings' 570 is subtracted out
    other = KINGS7 if meld != KINGS7 else QUEENS_MIXED7
    other_value = 570 if meld != KINGS7 else 300 + 80
    assert team_total(hand({"melds": [meld, other]})) == bonus + points + other_value


@pytest.mark.parametrize("count, points", [(1, 100), (2, 300), (3, 500), (4, 1000)])
def test_threes_per_colour_add_with_two_canastas(count, points):
    reds = ["3H", "3D", "3H", "3D"][:count]
    base = team_total(hand({"melds": [KINGS7, QUEENS_MIXED7]}))
    assert team_total(hand({"melds": [KINGS7, QUEENS_MIXED7], "threes": reds})) == base + points
    blacks = ["3C", "3S", "3C", "3S"][:count]
    assert team_total(hand({"melds": [KINGS7, QUEENS_MIXED7], "threes": reds + blacks})) == base + 2 * points


def test_threes_count_nothing_with_one_canasta_and_against_with_none():
    assert team_total(hand({"melds": [KINGS7], "threes": ["3H", "3D"]})) == 570
    assert team_total(hand({"threes": ["3H", "3D", "3C"]})) == -300 - 100


def test_team_without_canasta_subtracts_its_melded_cards():
    assert team_total(hand({"melds": [["KH", "KS", "KD"], ["5H", "5S", "5D", "5C"]]})) == -(30 + 20)


def test_unfinished_sevens_aces_and_wild_melds_cost():
    with_canastas = {"melds": [KINGS7, QUEENS_MIXED7]}
    base = team_total(hand(with_canastas))
    for meld, penalty in ((["7H", "7S", "7D"], -2500), (["AH", "AS", "AD"], -2500), (["2C", "2D", "JK"], -2000),
                          (["JK", "JK", "JK", "JK"], -2500), (["AH", "AS", "JK"], 0)):
        melds = {"melds": with_canastas["melds"] + [meld]}
        value = sum(Card.parse(c).points for c in meld)
        assert team_total(hand(melds)) == base + value + penalty, meld


def test_four_joker_penalty_follows_the_table_rule():
    team = {"melds": [KINGS7, QUEENS_MIXED7, ["JK", "JK", "JK", "JK"]]}
    assert lines(hand(team))["unfinished wild-card meld with four jokers"] == -2500
    relaxed = hand(team, table_rules={"unfinished_four_joker_penalty": 2000})
    assert lines(relaxed)["unfinished wild-card meld with four jokers"] == -2000


def test_cards_left_in_hand_and_sets_of_sevens_or_aces():
    team = {"melds": [KINGS7, QUEENS_MIXED7], "hands": [["7H", "7S", "7D", "AH"], ["AS", "AD", "AC", "7C", "7C"]]}
    got = lines(hand(team))
    assert got["cards left in hand (player 1)"] == -(15 + 20)
    assert got["cards left in hand (player 2)"] == -(60 + 10)
    assert got["player 1 held 3 sevens"] == -1500
    assert got["player 2 held 3 aces"] == -1500
    assert "player 2 held 2 sevens" not in got


def test_a_three_left_as_the_last_card_counts_5_against():
    """Seed 000 §Threes: a three drawn as the very last card stays in hand and counts 5 against."""
    assert lines(hand({"melds": [KINGS7], "hands": [["3H"]]}))["cards left in hand (player 1)"] == -5


def test_going_out_is_100_in_modern():
    assert (
        team_total(hand({"melds": [KINGS7, QUEENS_MIXED7]}, went_out="A"))
        - team_total(hand({"melds": [KINGS7, QUEENS_MIXED7]}))
        == 100
    )


def test_special_hand_scores_only_itself():
    report = score_report(hand({"special_hand": "garbage", "threes": ["3H"]}, {"melds": [KINGS7]}, went_out="A"))
    assert report["teams"]["A"]["total"] == 3000
    assert report["teams"]["B"]["total"] == 570
    assert (
        score_report(hand({"special_hand": "garbage"}, table_rules={"garbage_value": 2500}))["teams"]["A"]["total"]
        == 2500
    )


def test_next_minimum_and_game_over():
    report = score_report(hand({"score_before": 8000, "melds": [KINGS7]}, {"score_before": 4900}))
    assert report["teams"]["A"]["score_after"] == 8570 and report["game_over"] and report["winner"] == "A"
    assert report["teams"]["A"]["next_minimum"] == 180 and report["teams"]["B"]["next_minimum"] == 155
    assert not score_report(hand({"score_before": 8000, "melds": [KINGS7]}, table_rules={"game_target": 10000}))[
        "game_over"
    ]


def test_a_tie_at_the_target_has_no_winner():
    report = score_report(
        hand(
            {"score_before": 7930, "melds": [KINGS7]},
            {"score_before": 7930, "melds": [["QH", "QS", "QD", "QC", "QH", "QS", "QD"]]},
        )
    )
    assert report["game_over"] and report["winner"] is None


def test_classic_red_threes_and_concealed_going_out():
    classic = {"variant": "classic"}
    assert team_total(hand({"melds": [["KH", "KS", "KD"]], "threes": ["3H", "3D", "3H", "3D"]}, **classic)) == 30 + 800
    assert team_total(hand({"threes": ["3H", "3D"]}, **classic)) == -200
    melds = {"melds": [KINGS7]}
    assert team_total(hand(melds, went_out="A", **classic)) == 670
    assert team_total(hand(melds, went_out="A", went_out_concealed=True, **classic)) == 770
    assert team_total(hand({"melds": [KINGS7 + ["KC"]], "hands": [["3S"]]}, **classic)) == 500 + 80 - 5


def test_classic_opening_minimums_and_target():
    from companion.variant import Classic

    classic = Classic()
    assert [classic.opening_minimum(s) for s in (-5, 0, 1495, 1500, 2995, 3000)] == [15, 50, 50, 90, 90, 120]
    report = score_report(hand({"score_before": 4500, "melds": [KINGS7]}, variant="classic"))
    assert report["game_over"] and report["winner"] == "A"


def test_classic_black_threes_meld_only_for_the_team_going_out():
    black = {"melds": [KINGS7, ["3C", "3S", "3C"]]}
    assert team_total(hand(black, went_out="A", variant="classic")) == 500 + 70 + 15 + 100
    with pytest.raises(HandFileError, match=r"teams.A.melds\[1\]: black threes meld only when going out"):
        score_report(hand(black, variant="classic"))


def test_classic_more_naturals_than_wilds_is_a_table_rule():
    two_and_two = {"melds": [["KH", "KS", "JK", "2C"]]}
    assert team_total(hand(two_and_two, variant="classic")) == 20 + 70
    with pytest.raises(HandFileError, match="more natural cards than wild"):
        score_report(hand(two_and_two, variant="classic", table_rules={"classic_more_naturals_than_wilds": True}))
