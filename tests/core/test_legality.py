"""Meld shapes and wild-card timing (seed 000 §Melds and canastas, §Natural and mixed melds, §Sevens,
§Aces, §Wild card melds)."""

import pytest

from companion.legality import going_out_problems, meld_shape_problems, opening_minimum, wild_card_problems
from companion.melds import Canasta, Meld
from companion.table_rules import TableRules


def rules_of(problems):
    return [p.rule for p in problems]


@pytest.mark.parametrize("text", [
    "KH KS KD", "KH KS KD KC KH KS KD", "KH KS 2C", "KH KS JK 2D", "7H 7S 7D 7C",
    "2C 2D JK", "2C 2D 2H 2S 2C 2D 2H", "AH AS JK",
])
def test_legal_shapes(cards, text):
    assert meld_shape_problems(Meld(cards(text))) == []


@pytest.mark.parametrize("text, rule", [
    ("KH KS", "meld.too_few"),
    ("KH KS KD KC KH KS KD 2C", "meld.too_many"),
    ("KH KS QD", "meld.mixed_ranks"),
    ("KH KS KD 2C 2D JK", "meld.too_many_wild"),
    ("KH 2C JK", "meld.too_few_natural"),
    ("7H 7S 7D 2C", "meld.sevens_wild"),
    ("3H 3D 3C", "meld.three"),
])
def test_illegal_shapes_name_the_rule_and_seed(cards, text, rule):
    problems = meld_shape_problems(Meld(cards(text)))
    assert rule in rules_of(problems)
    assert all(p.source.startswith("seed 00") for p in problems)


def test_wild_cards_in_the_opening_need_two_naturals_only(cards):
    assert wild_card_problems(Meld(cards("5H 5S 2C")), opening=True, team_melds=[], rules=TableRules()) == []


@pytest.mark.parametrize("threshold, naturals, ok", [
    (5, 4, False), (5, 5, True), (3, 2, False), (3, 3, True), (2, 2, True), (None, 2, True),
])
def test_rule_of_five_and_its_table_variants(cards, threshold, naturals, ok):
    meld = Meld(cards(" ".join(["9H", "9S", "9D", "9C", "9H"][:naturals]) + " JK"))
    problems = wild_card_problems(meld, opening=False, team_melds=[], rules=TableRules(wild_card_threshold=threshold))
    assert (problems == []) is ok
    if not ok:
        assert rules_of(problems) == ["meld.rule_of_five"]


def test_aces_take_wild_cards_only_in_the_opening(cards):
    aces = Meld(cards("AH AS AD AC AH JK"))
    assert wild_card_problems(aces, opening=True, team_melds=[], rules=TableRules()) == []
    assert "meld.aces_wild" in rules_of(wild_card_problems(aces, opening=False, team_melds=[], rules=TableRules()))


def test_no_wild_card_elsewhere_while_a_wild_meld_is_unfinished(cards):
    unfinished = Meld(cards("2C 2D JK"))
    finished = Meld(cards("2C 2D JK 2H 2S JK JK"))
    kings = Meld(cards("KH KS KD KC KH 2H"))
    assert "meld.wild_meld_unfinished" in rules_of(
        wild_card_problems(kings, opening=False, team_melds=[unfinished], rules=TableRules())
    )
    assert wild_card_problems(kings, opening=False, team_melds=[finished], rules=TableRules()) == []


@pytest.mark.parametrize(
    "score, minimum", [(-2000, 125), (0, 125), (2995, 125), (3000, 155), (4995, 155), (5000, 180), (9000, 180)]
)
def test_opening_minimum_by_score(score, minimum):
    assert opening_minimum(score) == minimum


def test_going_out_needs_two_canastas_and_no_unfinished_special_meld(cards):
    kings = Meld(cards("KH KS KD KC KH KS KD"))
    queens = Meld(cards("QH QS QD QC QH QS 2D"))
    assert going_out_problems([kings]) and rules_of(going_out_problems([kings])) == ["going_out.canastas"]
    assert going_out_problems([kings, queens]) == []
    for text in ("7H 7S 7D", "AH AS AD", "2C 2D JK"):
        assert rules_of(going_out_problems([kings, queens, Meld(cards(text))])) == ["going_out.unfinished_special"]
    # a mixed meld of aces (laid in the opening) does not block going out
    assert going_out_problems([kings, queens, Meld(cards("AH AS JK"))]) == []
    assert rules_of(going_out_problems([kings, queens], cards("3H")[0])) == ["going_out.last_three"]


def test_canasta_kinds(cards):
    assert Meld(cards("KH KS KD KC KH KS KD")).canasta is Canasta.NATURAL
    assert Meld(cards("KH KS KD KC KH KS 2D")).canasta is Canasta.MIXED
    assert Meld(cards("7H 7S 7D 7C 7H 7S 7D")).canasta is Canasta.NATURAL_SEVENS
    assert Meld(cards("AH AS AD AC AH AS AD")).canasta is Canasta.NATURAL_ACES
    assert Meld(cards("AH AS AD AC AH AS JK")).canasta is Canasta.MIXED
    assert Meld(cards("2H 2S 2D 2C 2H 2S 2D")).canasta is Canasta.WILD_SEVEN_TWOS
    assert Meld(cards("JK JK JK JK 2H 2S 2D")).canasta is Canasta.WILD_FOUR_JOKERS
    assert Meld(cards("JK JK 2C 2H 2S 2D 2C")).canasta is Canasta.WILD
    assert Meld(cards("KH KS KD KC KH KS")).canasta is None
