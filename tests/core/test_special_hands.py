"""Seed 000 §Special hands: all ten, from 14 cards."""

import pytest

from companion.special_hands import recognise, special_hand_value
from companion.table_rules import SPECIAL_HAND_NAMES, TableRules

EXAMPLES = {
    "pairs": "KH KS QH QS JH JS 10H 10S 9H 9S 8H 8S 6H 6S",
    "wild_pairs": "AH AS 7H 7S KH KS QH QS JH JS 9H 9S JK JK",
    "miami_pairs": "AH AS 7H 7S KH KS QH QS JH JS JK JK 2C 2D",
    "zip_code": "KH KS QH QS JH JS JD 10H 10S 10D 9H 9S 9D 9C",
    "straight": "AH KS QH JS 10H 9S 8H 7S 6H 5S 4H 3S 2H JK",
    "garbage": "KH KS KD KC QH QS QD QC 9H 9S 9D 8H 8S 8D",
    "blast_off": "KH KS KD KC KH QH QS QD QC 9H 9S 9D 8H 8S",
    "triples": "KH KS KD QH QS QD 9H 9S 9D 8H 8S 8D 2C 2D",
    "quads": "KH KS KD KC QH QS QD QC 9H 9S 9D 9C JK JK",
    "dream_hand": "KH KS KD KC KH QH QS QD QC QH 2C 2D 2H 2S",
}

VALUES = {"pairs": 2500, "wild_pairs": 2000, "miami_pairs": 2500, "zip_code": 2500, "straight": 3000,
          "garbage": 3000, "blast_off": 3000, "triples": 3500, "quads": 3500, "dream_hand": 8500}


@pytest.mark.parametrize("name", SPECIAL_HAND_NAMES)
def test_each_special_hand_is_recognised(cards, name):
    assert name in recognise(cards(EXAMPLES[name]))


@pytest.mark.parametrize("name", SPECIAL_HAND_NAMES)
def test_values(name):
    assert special_hand_value(name) == VALUES[name]


@pytest.mark.parametrize("text", [
    "KH KS QH QS JH JS 10H 10S 9H 9S 8H 8S 6H 2S",           # pairs with a wild card
    "KH KS QH QS JH JS 10H 10S 9H 9S 8H 8S 3H 3S",           # pairs with threes
    "AH AS 7H 7S KH KS QH QS JH JS 9H 9S JK 2C",             # wild pair not matching
    "KH KS QH QS JH JS 10H 10S 9H 9S 8H 8S 6H",              # 13 cards
    "KH KS KD KC QH QS QD QC 9H 9S 9D 8H 8S 2D",             # garbage with a wild card
    "AH KS QH JS 10H 9S 8H 7S 6H 5S 4H 4C 2H JK",            # straight without a three
])
def test_near_misses_are_not_special_hands(cards, text):
    assert recognise(cards(text)) == []


def test_dream_hand_five_and_four_with_five_wild_cards(cards):
    assert "dream_hand" in recognise(cards("KH KS KD KC KH QH QS QD QC JK JK 2C 2D 2H"))


def test_matching_wild_cards_may_make_a_set_in_zip_code_and_blast_off(cards):
    assert "zip_code" in recognise(cards("KH KS QH QS JH JS JD 10H 10S 10D JK JK JK JK"))
    assert "blast_off" in recognise(cards("KH KS KD KC KH QH QS QD QC 9H 9S 9D 2C 2D"))


def test_table_plays_only_some_special_hands(cards):
    rules = TableRules(special_hands=("pairs",))
    assert recognise(cards(EXAMPLES["garbage"]), rules) == []
    assert recognise(cards(EXAMPLES["pairs"]), rules) == ["pairs"]
