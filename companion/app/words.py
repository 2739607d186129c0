"""Cards and names as players read them on screen (plain text, no Qt)."""

from __future__ import annotations

from companion import Card
from companion.cards import SUIT_NAMES

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_face(code: str) -> str:
    """``"K♥"``; a joker is ``"Joker"``."""
    card = Card.parse(code)
    return "Joker" if card.is_joker else f"{card.rank}{SUIT_SYMBOLS[card.suit]}"


def card_name(code: str) -> str:
    card = Card.parse(code)
    if card.is_joker:
        return "joker"
    rank = {"J": "jack", "Q": "queen", "K": "king", "A": "ace"}.get(card.rank, card.rank)
    return f"{rank} of {SUIT_NAMES[card.suit]}"


def as_title(name: str) -> str:
    """A team name for a button or box title, where Qt would read "&" as a keyboard shortcut."""
    return name.replace("&", "&&")
