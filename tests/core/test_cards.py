from collections import Counter

import pytest

from companion.cards import Card, CardError, full_pack, pack_overflow, parse_cards


def test_full_pack_is_108_cards_two_decks_and_four_jokers():
    pack = full_pack()
    counts = Counter(pack)
    assert len(pack) == 108
    assert counts[Card.parse("JK")] == 4
    assert all(n == 2 for card, n in counts.items() if not card.is_joker)
    assert sum(1 for c in pack if c.rank == "K") == 8


@pytest.mark.parametrize("code, points", [
    ("JK", 50), ("AS", 20), ("2C", 20), ("KH", 10), ("10D", 10), ("8S", 10), ("7C", 5), ("4H", 5), ("3D", 5),
])
def test_card_values_from_seed_000(code, points):
    assert Card.parse(code).points == points


def test_groups_natural_wild_three():
    assert [c.is_wild for c in parse_cards("2C JK KH")] == [True, True, False]
    assert [c.is_natural for c in parse_cards("4H AS 3C 2D")] == [True, True, False, False]
    assert Card.parse("3H").is_red_three and Card.parse("3S").is_black_three


@pytest.mark.parametrize("text, expected", [("kh", "KH"), (" 10d ", "10D"), ("TD", "10D"), ("joker", "JK")])
def test_parse_is_forgiving_about_case_and_spacing(text, expected):
    assert Card.parse(text).code == expected


@pytest.mark.parametrize("bad", ["1H", "KX", "", "11S", "JKH", 12, None])
def test_parse_rejects_non_cards_with_a_message(bad):
    with pytest.raises(CardError, match="card"):
        Card.parse(bad)


def test_pack_overflow_names_the_card():
    assert pack_overflow(parse_cards("KH KH")) is None
    assert "3 × KH" in pack_overflow(parse_cards("KH KH KH"))
    assert "jokers" in pack_overflow(parse_cards("JK JK JK JK JK"))
