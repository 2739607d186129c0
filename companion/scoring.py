"""Scoring a hand: each team's score with a line-by-line breakdown, by the hand's variant.

>>> from companion.cards import parse_cards
>>> from companion.end_of_hand import EndOfHand, TeamHand
>>> from companion.melds import Meld
>>> kings = Meld(parse_cards("KH KS KD KC KH KS KD"))
>>> end = EndOfHand(teams={"A": TeamHand(melds=(kings,)), "B": TeamHand()}, went_out=None, variant="classic")
>>> score_hand(end)["A"].total   # seed 001 §Scoring: seven kings in a natural canasta are worth 570
570
"""

from __future__ import annotations

from .end_of_hand import TEAMS, EndOfHand, HandScore
from .variant import get_variant


def score_hand(end: EndOfHand) -> dict[str, HandScore]:
    """Score both teams with the hand's variant (see :mod:`companion.variant`)."""
    variant = get_variant(end.variant)
    return {
        team: HandScore(team, tuple(variant.score_lines(end, team)))
        for team in TEAMS
    }
