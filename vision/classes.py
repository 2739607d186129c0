"""The detector's 53 classes: the 52 cards and the joker, written as the game writes them.

Defined here once; the dataset writer, ``data.yaml`` and the table reader all take this order.

>>> CLASS_NAMES[:5], CLASS_NAMES[-1], len(CLASS_NAMES)
(('2C', '2D', '2H', '2S', '3C'), 'JK', 53)
>>> class_id("10D"), class_id("JK")
(33, 52)
"""

from __future__ import annotations

from companion.cards import JOKER, RANKS, SUITS, Card

CLASS_NAMES: tuple[str, ...] = tuple(f"{rank}{suit}" for rank in RANKS for suit in SUITS) + (JOKER,)
_CLASS_IDS = {code: i for i, code in enumerate(CLASS_NAMES)}


def class_id(code: str) -> int:
    """The class index of a card code such as ``KH`` or ``JK`` (any spelling ``Card.parse`` accepts)."""
    return _CLASS_IDS[Card.parse(code).code]
