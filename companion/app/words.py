"""Cards and names as players read them on screen (plain text, no Qt)."""

from __future__ import annotations

import re

from companion import Card
from companion.cards import SUIT_NAMES
from companion.table_rules import SPECIAL_HAND_NAMES

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def file_filter(kind: str, suffixes) -> str:
    """A file dialog's filter offering files whose names end with one of ``suffixes`` (lower case),
    each in both cases: a phone names its photos IMG_0001.HEIC or IMG_0001.JPG, and a Linux
    desktop's own file dialog (GTK's) matches patterns case by case.

    >>> file_filter("Videos", [".mp4", ".mov"])
    'Videos (*.mp4 *.MP4 *.mov *.MOV)'
    """
    return f"{kind} (" + " ".join(f"*{suffix} *{suffix.upper()}" for suffix in suffixes) + ")"


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


#: Where a hand-file error points (companion.handfile), and how the end-of-hand dialog names that place.
_HAND_PLACES = (
    (re.compile(r"teams\.([AB])\.melds\[(\d+)\](?:\[\d+\])?: "), "meld"),
    (re.compile(r"teams\.([AB])\.hands\[(\d+)\](?:\[\d+\])?: "), "hand"),
    (re.compile(r"teams\.([AB])\.threes(?:\[\d+\])?: "), "threes"),
    (re.compile(r"teams\.([AB])\.special_hand: "), "special hand"),
)
#: A rule's source in brackets, one level of brackets inside allowed: "(seed 002 §Melds (table rule x))".
_SOURCE = re.compile(r"\(((?:[^()]|\([^()]*\))*?(?:§|table rule )(?:[^()]|\([^()]*\))*)\)")
_CARD_CODE = re.compile(r"\b(?:(?:10|[2-9JQKA])[CDHS]|JK)\b")


def hand_problem(message: str, names: dict[str, str], meld_numbers: dict[str, list[int]] | None = None) -> str:
    """Why a hand can't be scored (a :class:`~companion.handfile.HandFileError`'s message, which names
    the hand file's field) as players read it in the end-of-hand dialog: the place as the dialog
    names it, card codes as faces, the rule books by name. ``meld_numbers``: for each team, the
    dialog's number of each meld the hand file holds (the dialog keeps emptied melds; the file
    drops them); by default the file's order.

    >>> names = {"A": "KC & Di", "B": "Them"}
    >>> hand_problem("teams.B.melds[4]: A meld holds at most 2 wild cards; this one has 4. "
    ...              "(seed 000 §Natural and mixed melds)", names)
    'Them, meld 5: A meld holds at most 2 wild cards; this one has 4. (rules guide: Natural and mixed melds)'
    >>> hand_problem("teams.A.melds[0]: black threes meld only when going out, and team A did not go out",
    ...              names, {"A": [2], "B": []})
    'KC & Di, meld 2: black threes meld only when going out, and KC & Di did not go out'
    >>> hand_problem("teams: 3 × 8C but the pack has only 2 (two decks)", names)
    '3 × 8♣ but the pack has only 2 (two decks)'
    >>> hand_problem("teams: 5 × JK but the pack has only 4 (four jokers)", names)
    '5 × Joker but the pack has only 4 (four jokers)'
    >>> hand_problem("hand 3: teams.A.hands[1][0]: red threes are laid out at once, never held (seed 001 §Threes)",
    ...              names)
    "Hand 3, KC & Di, player 2's hand: red threes are laid out at once, never held (Pagat's canasta rules: Threes)"
    >>> hand_problem("teams.B.melds[0]: more wild than natural (seed 002 §Melds (table rule classic_wilds))", names)
    "Them, meld 1: more wild than natural (online game's rules: Melds (your table rules, in Settings))"
    >>> hand_problem("teams.A.special_hand: this table does not play miami_pairs (table rule special_hands)", names)
    'KC & Di, special hand: this table does not play Miami pairs (your table rules, in Settings)'
    """
    hand = re.match(r"hand (\d+): ", message)
    if hand:
        message = message[hand.end():]
    place = f"Hand {hand[1]}, " if hand else ""
    for pattern, kind in _HAND_PLACES:
        found = pattern.match(message)
        if found:
            team, *number = found.groups()
            if kind == "meld":
                shown = meld_numbers[team][int(number[0])] if meld_numbers else int(number[0]) + 1
                where = f"meld {shown}"
            else:
                where = f"player {int(number[0]) + 1}'s hand" if kind == "hand" else kind
            place += f"{names[team]}, {where}: "
            message = message[found.end():]
            break
    else:
        message = message.removeprefix("teams: ")
    # The body only: the place holds team names, which may look like card codes ("KC & Di").
    message = _SOURCE.sub(lambda m: f"({where_written(m.group(1))})", message)
    message = _CARD_CODE.sub(lambda m: card_face(m.group(0)), message)
    message = re.sub(r"\b[a-z]+(?:_[a-z]+)+\b",
                     lambda m: special_hand_name(m.group(0)) if m.group(0) in SPECIAL_HAND_NAMES else m.group(0),
                     message)
    return place + with_names(message, names)


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
