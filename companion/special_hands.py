"""The ten special hands of seed 000 §Special hands, recognised from 14 cards.

A special hand is laid down all at once, right after drawing (13 dealt + 1 drawn = 14 cards), only
before the team opens; the team scores just the special hand. No special hand holds a three except
the straight. "A matching pair of wild cards" is two jokers or two 2s, not one of each.

Reading of the seed where it is terse (documented so tables can check it against their own):
"sets" in one hand are of different ranks; "matching wild cards allowed" (zip code, blast off) means
one of the sets may be made of matching wild cards (all jokers or all 2s) instead of a natural rank;
the dream hand's "five wild cards" may mix jokers and 2s, its "four matching wild cards" may not.

>>> from companion.cards import parse_cards
>>> recognise(parse_cards("KH KS KD KC QH QS QD QC 9H 9S 9D 8H 8S 8D"))
['garbage']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from .cards import JOKER, Card
from .rulebook import value
from .table_rules import SPECIAL_HAND_NAMES, TableRules

WILD_RANKS = ("2", JOKER)


def _split(cards: Iterable[Card]) -> tuple[Counter, Counter, int]:
    """Counts of natural ranks, counts of wild kinds (2 / JK), and the number of threes."""
    counts = Counter(c.rank for c in cards)
    threes = counts.pop("3", 0)
    wilds = Counter({r: counts.pop(r) for r in WILD_RANKS if r in counts})
    return counts, wilds, threes


def _sizes(counter: Counter) -> list[int]:
    return sorted(counter.values())


def _one_matching_wild_group(wilds: Counter, size: int) -> bool:
    """Exactly ``size`` wild cards, all jokers or all 2s."""
    return sorted(wilds.values()) == [size]


def _pairs(n: Counter, w: Counter, threes: int) -> bool:
    return not w and not threes and _sizes(n) == [2] * 7


def _wild_pairs(n: Counter, w: Counter, threes: int) -> bool:
    return not threes and _sizes(n) == [2] * 6 and n["A"] == 2 and n["7"] == 2 and _one_matching_wild_group(w, 2)


def _miami_pairs(n: Counter, w: Counter, threes: int) -> bool:
    return not threes and _sizes(n) == [2] * 5 and n["A"] == 2 and n["7"] == 2 and w["2"] == 2 and w[JOKER] == 2


def _groups_with_optional_matching_wilds(n: Counter, w: Counter, threes: int, sizes: list[int]) -> bool:
    """Natural sets of different ranks; one more set may be matching wild cards."""
    if threes or len(w) > 1:
        return False
    return sorted(_sizes(n) + _sizes(w)) == sorted(sizes)


def _zip_code(n: Counter, w: Counter, threes: int) -> bool:
    return _groups_with_optional_matching_wilds(n, w, threes, [2, 2, 3, 3, 4])


def _blast_off(n: Counter, w: Counter, threes: int) -> bool:
    return _groups_with_optional_matching_wilds(n, w, threes, [2, 3, 4, 5])


def _straight(n: Counter, w: Counter, threes: int) -> bool:
    ranks = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
    return threes == 1 and all(n[r] == 1 for r in ranks) and len(n) == len(ranks) and w["2"] == 1 and w[JOKER] == 1


def _garbage(n: Counter, w: Counter, threes: int) -> bool:
    return not w and not threes and _sizes(n) == [3, 3, 4, 4]


def _triples(n: Counter, w: Counter, threes: int) -> bool:
    return not threes and _sizes(n) == [3, 3, 3, 3] and _one_matching_wild_group(w, 2)


def _quads(n: Counter, w: Counter, threes: int) -> bool:
    return not threes and _sizes(n) == [4, 4, 4] and _one_matching_wild_group(w, 2)


def _dream_hand(n: Counter, w: Counter, threes: int) -> bool:
    if threes:
        return False
    if _sizes(n) == [5, 5] and _one_matching_wild_group(w, 4):
        return True
    return _sizes(n) == [4, 5] and sum(w.values()) == 5


_CHECKS: dict[str, Callable[[Counter, Counter, int], bool]] = {
    "pairs": _pairs,
    "wild_pairs": _wild_pairs,
    "miami_pairs": _miami_pairs,
    "zip_code": _zip_code,
    "straight": _straight,
    "garbage": _garbage,
    "blast_off": _blast_off,
    "triples": _triples,
    "quads": _quads,
    "dream_hand": _dream_hand,
}
assert tuple(_CHECKS) == SPECIAL_HAND_NAMES


def recognise(cards: Iterable[Card], rules: TableRules | None = None) -> list[str]:
    """The special hands (names) that these 14 cards make, among those the table plays."""
    cards = list(cards)
    if len(cards) != value("special.hand_size"):
        return []
    played = (rules or TableRules()).special_hands
    naturals, wilds, threes = _split(cards)
    return [name for name, check in _CHECKS.items() if name in played and check(naturals, wilds, threes)]


def special_hand_value(name: str, rules: TableRules | None = None) -> int:
    """Seed 000 §Special hands: pairs 2,500 … dream hand 8,500; garbage per table rule ``garbage_value``."""
    rules = rules or TableRules()
    if name not in SPECIAL_HAND_NAMES:
        raise ValueError(f"'{name}' is not a special hand; known: {', '.join(SPECIAL_HAND_NAMES)}")
    if name == "garbage":
        return rules.garbage_value
    return value(f"special.{name}")
