"""Threes laid out in front of a team.

Seed 000 §Threes: every three, red or black, is laid face up in front of the team and replaced;
threes never go into melds. Seed 001 §Threes (classic): only red threes are laid out.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .cards import Card


@dataclass(frozen=True)
class Threes:
    """The row of threes a team has laid out."""

    cards: tuple[Card, ...] = ()
    red: int = field(init=False, compare=False)
    black: int = field(init=False, compare=False)

    def __post_init__(self) -> None:
        cards = tuple(self.cards)
        object.__setattr__(self, "cards", cards)
        # counted once: the scorer asks for them on every camera reading
        object.__setattr__(self, "red", sum(1 for c in cards if c.is_red_three))
        object.__setattr__(self, "black", sum(1 for c in cards if c.is_black_three))

    def plus(self, *cards: Card) -> Threes:
        return Threes(self.cards + tuple(cards))

    def __len__(self) -> int:
        return len(self.cards)
