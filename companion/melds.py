"""Melds and canastas as values.

>>> from companion.cards import parse_cards
>>> meld = Meld(parse_cards("KH KS KD KC KH KS JK"))
>>> meld.rank, meld.kind, meld.is_canasta, meld.canasta
('K', 'mixed', True, <Canasta.MIXED: 'mixed canasta'>)
>>> Meld(parse_cards("2C 2D JK")).kind
'wild'

Seed 000 §Melds and canastas: a meld is three or more cards of one rank; at seven it is a canasta.
§Natural and mixed melds: natural = no wild card, mixed = at least one. §Wild card melds: three to
seven 2s and jokers. Whether a meld is *legal* depends on the variant: see :mod:`companion.variant`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from .cards import RANK_NAMES, Card


class Canasta(Enum):
    """The kinds of finished canasta, each with its own bonus (seed 001 §How Modern American scores)."""

    NATURAL = "natural canasta"
    MIXED = "mixed canasta"
    NATURAL_SEVENS = "natural canasta of sevens"
    NATURAL_ACES = "natural canasta of aces"
    WILD = "wild canasta"
    WILD_FOUR_JOKERS = "wild canasta with four jokers"
    WILD_SEVEN_TWOS = "wild canasta of seven twos"


@dataclass(frozen=True)
class Meld:
    """Cards laid together on the table. ``cards`` keeps the order they were laid."""

    cards: tuple[Card, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(self.cards))

    @property
    def naturals(self) -> tuple[Card, ...]:
        return tuple(c for c in self.cards if not c.is_wild)

    @property
    def wilds(self) -> tuple[Card, ...]:
        return tuple(c for c in self.cards if c.is_wild)

    @property
    def ranks(self) -> frozenset[str]:
        """The ranks of the non-wild cards (one rank in a well-formed meld)."""
        return frozenset(c.rank for c in self.naturals)

    @property
    def rank(self) -> str | None:
        """The meld's rank; ``None`` for a wild-card meld (or for a meld of mixed ranks)."""
        ranks = self.ranks
        return next(iter(ranks)) if len(ranks) == 1 else None

    @property
    def is_wild_meld(self) -> bool:
        return bool(self.cards) and not self.naturals

    @property
    def is_natural(self) -> bool:
        return bool(self.cards) and not self.wilds

    @property
    def is_mixed(self) -> bool:
        return bool(self.naturals) and bool(self.wilds)

    @property
    def kind(self) -> str:
        """``"natural"``, ``"mixed"`` or ``"wild"``."""
        return "wild" if self.is_wild_meld else "mixed" if self.wilds else "natural"

    @property
    def is_canasta(self) -> bool:
        """Seven cards (seed 000 §Melds and canastas; classic canastas may grow past seven)."""
        return len(self.cards) >= 7

    @property
    def jokers(self) -> int:
        return sum(1 for c in self.cards if c.is_joker)

    @property
    def canasta(self) -> Canasta | None:
        """What kind of canasta this meld is, or ``None`` while it is unfinished."""
        if not self.is_canasta:
            return None
        if self.is_wild_meld:
            if self.jokers == 0:
                return Canasta.WILD_SEVEN_TWOS
            if self.jokers == 4:
                return Canasta.WILD_FOUR_JOKERS
            return Canasta.WILD
        if self.wilds:
            return Canasta.MIXED
        if self.rank == "7":
            return Canasta.NATURAL_SEVENS
        if self.rank == "A":
            return Canasta.NATURAL_ACES
        return Canasta.NATURAL

    @property
    def points(self) -> int:
        return sum(c.points for c in self.cards)

    def plus(self, *cards: Card) -> Meld:
        return Meld(self.cards + tuple(cards))

    @property
    def name(self) -> str:
        """``"7 kings"``, ``"3 wild cards"``."""
        if self.is_wild_meld:
            return f"{len(self.cards)} wild cards"
        return f"{len(self.cards)} {RANK_NAMES.get(self.rank or '', 'cards')}"

    def describe(self) -> str:
        """``"7 kings (mixed canasta)"``, ``"4 aces (natural)"``."""
        return f"{self.name} ({self.canasta.value if self.canasta else self.kind})"

    def codes(self) -> list[str]:
        return [c.code for c in self.cards]

    def __str__(self) -> str:
        return " ".join(self.codes())

