"""The end of a hand: what each team has (:class:`TeamHand`, :class:`EndOfHand`), and a team's score
line by line (:class:`HandScore`, :class:`ScoreLine`). :func:`companion.scoring.score_hand` scores it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from .cards import Card
from .melds import Meld
from .table_rules import TableRules
from .threes import Threes

TEAMS = ("A", "B")


class ScoreLine(NamedTuple):
    """One line of the breakdown. A named tuple: immutable, and cheap to make many times a second."""

    item: str
    points: int


@dataclass(frozen=True)
class HandScore:
    """One team's score for one hand: the lines of the breakdown and their total."""

    team: str
    lines: tuple[ScoreLine, ...]

    @property
    def total(self) -> int:
        return sum(line.points for line in self.lines)

    def __str__(self) -> str:
        width = max((len(line.item) for line in self.lines), default=10)
        rows = [f"  {line.item:<{width}}  {line.points:>+7,}" for line in self.lines]
        rows.append(f"  {'total':<{width}}  {self.total:>+7,}")
        return "\n".join(rows)


@dataclass(frozen=True)
class TeamHand:
    """What one team has at the end of a hand."""

    melds: tuple[Meld, ...] = ()
    threes: Threes = field(default_factory=Threes)
    hands: tuple[tuple[Card, ...], ...] = ()  #: cards left in each partner's hand
    special_hand: str | None = None  #: the special hand the team laid down, by name
    score_before: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "melds", tuple(self.melds))
        object.__setattr__(self, "hands", tuple(tuple(h) for h in self.hands))

    @property
    def canastas(self) -> tuple[Meld, ...]:
        return tuple(m for m in self.melds if m.is_canasta)

    def all_cards(self) -> list[Card]:
        cards = [c for m in self.melds for c in m.cards]
        cards += self.threes.cards
        cards += [c for h in self.hands for c in h]
        return cards


@dataclass(frozen=True)
class EndOfHand:
    """The table when a hand ends: both teams, who went out, the variant and the table rules."""

    teams: Mapping[str, TeamHand]
    went_out: str | None = None  #: "A", "B", or None when the stock ran out
    went_out_concealed: bool = False  #: classic only (seed 001 §Going out)
    variant: str = "modern"
    table_rules: TableRules = field(default_factory=TableRules)
