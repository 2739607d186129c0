"""Canasta Companion's game core: pure Python, no Qt, OpenCV or torch (an import-linter contract in
pyproject.toml enforces it).

The names a reader who knows the game expects:

>>> from companion import Card, Meld, parse_cards
>>> Meld(parse_cards("AH AS AD AC AH AS AD")).canasta
<Canasta.NATURAL_ACES: 'natural canasta of aces'>
"""

from .cards import Card, CardError, full_pack, parse_cards
from .end_of_hand import TEAMS, EndOfHand, HandScore, ScoreLine, TeamHand
from .hand import (
    CanastaClosed,
    CardsAdded,
    DeadRanks,
    HandEnded,
    HandState,
    MeldStarted,
    Opened,
    PackTaken,
    SpecialHandLaid,
    ThreesLaidOut,
    TurnCard,
    TurnCardDrawn,
    WentOut,
)
from .handfile import HandFileError, load_hand, score_report
from .melds import Canasta, Meld
from .scoresheet import ScoreSheet, SheetRow
from .scoring import score_hand
from .special_hands import recognise as recognise_special_hand
from .table_rules import SETTINGS, TableRules, TableRulesError
from .threes import Threes
from .variant import VARIANTS, Classic, ModernAmerican, get_variant
from .violations import Violation

__all__ = [
    "Canasta", "CanastaClosed", "Card", "CardError", "CardsAdded", "Classic", "DeadRanks", "EndOfHand", "HandEnded",
    "HandFileError", "HandScore", "HandState", "Meld", "MeldStarted", "ModernAmerican", "Opened",
    "PackTaken", "SETTINGS", "ScoreLine", "ScoreSheet", "SheetRow", "SpecialHandLaid", "TEAMS",
    "TableRules", "TableRulesError", "TeamHand", "Threes", "ThreesLaidOut", "TurnCard",
    "TurnCardDrawn", "VARIANTS", "Violation", "WentOut", "full_pack", "get_variant", "load_hand",
    "parse_cards", "recognise_special_hand", "score_hand", "score_report",
]
