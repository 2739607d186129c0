"""Threes laid out in front of a team.

Seed 000 §Threes: every three, red or black, is laid face up in front of the team and replaced;
threes never go into melds. Seed 001 §Threes (classic): only red threes are laid out.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card


@dataclass(frozen=True)
class Threes:
    """The row of threes a team has laid out."""

    cards: tuple[Card, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(self.cards))

    @property
    def red(self) -> int:
        return sum(1 for c in self.cards if c.is_red_three)

    @property
    def black(self) -> int:
        return sum(1 for c in self.cards if c.is_black_three)

    def plus(self, *cards: Card) -> Threes:
        return Threes(self.cards + tuple(cards))

    def __len__(self) -> int:
        return len(self.cards)
