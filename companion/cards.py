"""Cards of the 108-card canasta pack.

A card is written the way players write it on a score pad: rank then suit, ``KH`` (king of hearts),
``10D``, ``2C``, ``AS``, and ``JK`` for a joker.

>>> Card.parse("10D")
Card('10D')
>>> Card.parse("JK").is_wild, Card.parse("2C").is_wild, Card.parse("3H").is_red_three
(True, True, True)
>>> Card.parse("KS").points, Card.parse("JK").points, Card.parse("7C").points
(10, 50, 5)

Seed 000 §The cards: two standard decks and four jokers, 108 cards. Natural cards are 4 to ace;
2s and jokers are wild; threes never go into melds. Seed 000 §What each card is worth gives the
point values (seed 001 §Scoring agrees and adds black three = 5, used by the classic variant).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

SUITS = ("C", "D", "H", "S")
RED_SUITS = frozenset({"D", "H"})
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}

#: Ranks from low to high. "JK" (joker) is a rank of its own with no suit.
RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
NATURAL_RANKS = ("4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKER = "JK"
RANK_NAMES = {
    "2": "twos", "3": "threes", "4": "fours", "5": "fives", "6": "sixes", "7": "sevens",
    "8": "eights", "9": "nines", "10": "tens", "J": "jacks", "Q": "queens", "K": "kings",
    "A": "aces", JOKER: "jokers",
}

#: Seed 000 §What each card is worth: joker 50; ace or 2 20; K-8 10; 7-4 5.
#: A three only ever scores as a card left in hand: 5 (seed 000 §Threes, seed 001 §Scoring).
CARD_POINTS = {
    JOKER: 50, "A": 20, "2": 20,
    "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
    "7": 5, "6": 5, "5": 5, "4": 5, "3": 5,
}

#: Seed 000 §The cards: two decks, so at most two of each card, and four jokers.
COPIES_PER_CARD = 2
JOKERS_IN_PACK = 4
PACK_SIZE = 52 * COPIES_PER_CARD + JOKERS_IN_PACK  # 108


class CardError(ValueError):
    """A card code that is not a card of the canasta pack."""


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card: a rank and a suit, or a joker (suit ``None``)."""

    rank: str
    suit: str | None

    def __post_init__(self) -> None:
        if self.rank == JOKER:
            if self.suit is not None:
                raise CardError("a joker has no suit")
        elif self.rank not in RANKS or self.suit not in SUITS:
            raise CardError(f"{self.rank}{self.suit or ''} is not a card")

    @classmethod
    def parse(cls, code: str) -> Card:
        """Read a card code such as ``KH``, ``10D``, ``2C`` or ``JK`` (case and spaces ignored)."""
        if not isinstance(code, str):
            raise CardError(f"a card code must be text like 'KH', not {code!r}")
        text = code.strip().upper()
        if text in (JOKER, "JOKER"):
            return cls(JOKER, None)
        if text.startswith("T") and len(text) == 2:  # "TD" is a common way to write 10D
            text = "10" + text[1]
        rank, suit = text[:-1], text[-1:]
        if rank not in RANKS or suit not in SUITS:
            raise CardError(
                f"'{code}' is not a card code: write rank then suit, e.g. KH, 10D, 2C, AS, or JK"
            )
        return cls(rank, suit)

    @property
    def code(self) -> str:
        return self.rank if self.rank == JOKER else f"{self.rank}{self.suit}"

    @property
    def is_joker(self) -> bool:
        return self.rank == JOKER

    @property
    def is_wild(self) -> bool:
        """2s and jokers (seed 001 §What you need: "Twos and jokers are wild"; seed 000 §The cards)."""
        return self.rank in ("2", JOKER)

    @property
    def is_three(self) -> bool:
        return self.rank == "3"

    @property
    def is_natural(self) -> bool:
        """4 up to ace: the cards most melds are made of (seed 000 §The cards)."""
        return self.rank in NATURAL_RANKS

    @property
    def is_red(self) -> bool:
        return self.suit in RED_SUITS

    @property
    def is_red_three(self) -> bool:
        return self.is_three and self.is_red

    @property
    def is_black_three(self) -> bool:
        return self.is_three and not self.is_red

    @property
    def points(self) -> int:
        """The card's value for the opening count and the end-of-hand count."""
        return CARD_POINTS[self.rank]

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card('{self.code}')"


def parse_cards(codes: Iterable[str]) -> tuple[Card, ...]:
    """Parse several card codes; a string of codes separated by spaces or commas also works."""
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    return tuple(Card.parse(code) for code in codes)


def full_pack() -> tuple[Card, ...]:
    """All 108 cards: two of each of the 52 cards and four jokers."""
    deck = tuple(Card(rank, suit) for rank in RANKS for suit in SUITS)
    return deck * COPIES_PER_CARD + (Card(JOKER, None),) * JOKERS_IN_PACK


def pack_overflow(cards: Iterable[Card]) -> str | None:
    """Say which card appears more often than the pack holds, or ``None`` if the cards fit the pack."""
    for card, count in sorted(Counter(cards).items(), key=lambda item: item[0].code):
        limit = JOKERS_IN_PACK if card.is_joker else COPIES_PER_CARD
        if count > limit:
            return (
                f"{count} × {card.code} but the pack has only {limit} "
                f"({'four jokers' if card.is_joker else 'two decks'})"
            )
    return None


def total_points(cards: Iterable[Card]) -> int:
    return sum(card.points for card in cards)


def rank_list(ranks: Iterable[str]) -> str:
    """``"jacks, kings and queens"``: ranks in plain words, low to high."""
    names = [RANK_NAMES[r] for r in sorted(set(ranks), key=(RANKS + (JOKER,)).index)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
