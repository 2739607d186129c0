"""The detector's 53 classes: the 52 cards and the joker, written as the game writes them.

Defined here once; the dataset writer, ``data.yaml`` and the table reader all take this order.

>>> CLASS_NAMES[:5], CLASS_NAMES[-1], len(CLASS_NAMES)
(('2C', '2D', '2H', '2S', '3C'), 'JK', 53)
>>> class_id("10D"), class_id("JK")
(33, 52)
>>> score_name("7S"), score_name("3D"), score_name("3C"), score_name("2H"), score_name("JK")
('7', 'red 3', 'black 3', '2', 'JK')
"""

from __future__ import annotations

from companion.cards import JOKER, RANKS, SUITS, Card

CLASS_NAMES: tuple[str, ...] = tuple(f"{rank}{suit}" for rank in RANKS for suit in SUITS) + (JOKER,)
_CLASS_IDS = {code: i for i, code in enumerate(CLASS_NAMES)}


def class_id(code: str) -> int:
    """The class index of a card code such as ``KH`` or ``JK`` (any spelling ``Card.parse`` accepts)."""
    return _CLASS_IDS[Card.parse(code).code]


def score_name(code: str) -> str:
    """What the score needs to know of a card: its rank, a three's colour (red and black threes are
    scored separately: seed 000, "Threes"), whether it is a two or a joker (wild cards worth 20 and
    50: seed 000, "What each card is worth"). A natural card's suit scores nothing."""
    card = Card.parse(code)
    if card.code == JOKER:
        return JOKER
    if card.rank == "3":
        return "red 3" if card.is_red else "black 3"
    return card.rank


#: The score names (:func:`score_name`) in order, and the one each class has.
SCORE_NAMES: tuple[str, ...] = tuple(dict.fromkeys(score_name(code) for code in CLASS_NAMES))
SCORE_NAME_OF_CLASS: tuple[int, ...] = tuple(SCORE_NAMES.index(score_name(code)) for code in CLASS_NAMES)
