"""Cards and names as players read them on screen (plain text, no Qt)."""

from __future__ import annotations

import re

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


#: The three rule books the game follows, as players know them (README, "The rules, and where they
#: come from"): 000 a Modern American rules guide, 001 pagat.com's canasta page, 002 the rules
#: summary of an online Modern American game.
RULE_BOOKS = {"000": "rules guide", "001": "Pagat's canasta rules", "002": "online game's rules"}


def where_written(source: str) -> str:
    """Where a rule is written, as players read it: ``"seed 000 §Sevens"`` is ``"rules guide:
    Sevens"``; a table rule is a setting of theirs.

    >>> where_written("seed 000 §Taking the pack to open; seed 002 §Taking the discard pile")
    "rules guide: Taking the pack to open; online game's rules: Taking the discard pile"
    >>> where_written("seed 000 §Natural and mixed melds (table rule wild_card_threshold)")
    'rules guide: Natural and mixed melds (your table rules, in Settings)'
    >>> where_written("000 §Special hands: garbage 3,000; 002 plays none")
    "rules guide: Special hands: garbage 3,000; online game's rules plays none"
    """
    text = re.sub(r"(?:seed )?(\d{3}) §", lambda m: f"{RULE_BOOKS.get(m.group(1), m.group(1))}: ", source)
    # "002 plays none", but not the thousands of "2,000"
    text = re.sub(r"(?<![\d,.])\b(00[0-2])\b", lambda m: RULE_BOOKS[m.group(1)], text)
    return re.sub(r"table rule \w+", "your table rules, in Settings", text)


#: Where a hand-file error points (companion.handfile), as the end-of-hand dialog shows that place.
_HAND_PLACES = (
    (re.compile(r"^teams\.([AB])\.melds\[(\d+)\](?:\[\d+\])?: "), lambda team, n: f"{team}'s meld {int(n) + 1}: "),
    (re.compile(r"^teams\.([AB])\.hands\[(\d+)\](?:\[\d+\])?: "),
     lambda team, n: f"{team}'s player {int(n) + 1}'s hand: "),
    (re.compile(r"^teams\.([AB])\.threes(?:\[\d+\])?: "), lambda team: f"{team}'s threes: "),
    (re.compile(r"^teams\.([AB])\.special_hand: "), lambda team: f"{team}'s special hand: "),
)


def hand_problem(message: str, names: dict[str, str]) -> str:
    """Why a hand can't be scored (a :class:`~companion.handfile.HandFileError`'s message, which names
    the hand file's field) as players read it in the end-of-hand dialog: the place as the dialog
    shows it, card codes as faces, the rule books by name.

    >>> names = {"A": "Us", "B": "Them"}
    >>> hand_problem("teams.B.melds[4]: A meld holds at most 2 wild cards; this one has 4. "
    ...              "(seed 000 §Natural and mixed melds)", names)
    "Them's meld 5: A meld holds at most 2 wild cards; this one has 4. (rules guide: Natural and mixed melds)"
    >>> hand_problem("teams: 3 × 8C but the pack has only 2 (two decks)", names)
    '3 × 8♣ but the pack has only 2 (two decks)'
    >>> hand_problem("teams: 5 × JK but the pack has only 4 (four jokers)", names)
    '5 × Joker but the pack has only 4 (four jokers)'
    >>> hand_problem("teams.A.hands[1][0]: red threes are laid out at once, never held (seed 001 §Threes)", names)
    "Us's player 2's hand: red threes are laid out at once, never held (Pagat's canasta rules: Threes)"
    """
    for pattern, place in _HAND_PLACES:
        found = pattern.match(message)
        if found:
            team, *number = found.groups()
            message = place(names[team], *number) + message[found.end():]
            break
    message = re.sub(r"^teams: ", "", message)
    message = re.sub(r"\b(?:(?:10|[2-9JQKA])[CDHS]|JK)\b", lambda m: card_face(m.group(0)), message)
    message = re.sub(r"\(([^()]*(?:§|table rule )[^()]*)\)", lambda m: f"({where_written(m.group(1))})", message)
    return with_names(message, names)


def special_hand_name(name: str) -> str:
    """A special hand's name as players write it: ``"miami_pairs"`` is ``"Miami pairs"``, ``"zip_code"``
    ``"zip code"``."""
    words = name.replace("_", " ")
    return words.replace("miami", "Miami")


def with_names(message: str, names: dict[str, str]) -> str:
    """A core message's "team A" and "team B" as the teams' names.

    >>> with_names("team A went out; team B did not", {"A": "The team Bears", "B": "Cy"})
    'The team Bears went out; Cy did not'
    """
    return re.sub(r"\bteam ([AB])\b", lambda m: names[m.group(1)], message)
