"""The card decks the synthetic scenes are drawn from, and which of them are held out for testing.

Three families: KDE's SVG decks (``/usr/share/carddecks``, elements named ``king_heart``), GNOME
Aisleriot's SVG themes (``/usr/share/aisleriot/cards``, elements named ``heart_king``), and the
project's own drawn decks (:mod:`vision.synth.drawn_deck`, named the KDE way). ``run.sh`` installs the
Debian packages that hold the first two.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from companion.cards import JOKER, RANKS, SUITS

KDE_DECKS_DIR = Path("/usr/share/carddecks")
GNOME_DECKS_DIR = Path("/usr/share/aisleriot/cards")

_SUIT_WORDS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
_RANK_WORDS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}

#: Decks the scenes do not use, by reason. A card reader for an American game reads A, K, Q, J in
#: two colours; these would teach it other letters, colours or broken shapes.
EXCLUDED_DECKS = {
    # the same artwork as another deck under a second name: it would count twice
    "gnome-atlasnye_skat": "repeat", "gnome-Атласные": "repeat", "gnome-anglo_bitmap": "repeat",
    "gnome-gnomangelo_bitmap": "repeat", "gnome-neoclassical_4_color": "repeat",
    "gnome-anglo_modern_4_color": "repeat",
    # court cards lettered in another language (R/D/V, K/D/B, Cyrillic) or German suits
    "gnome-ancient_french": "letters", "gnome-berlin": "letters", "gnome-lattmann": "letters",
    "gnome-rheinland": "letters", "gnome-slavic_costumes": "letters", "gnome-tarocco": "letters",
    "kde-xskat-french": "letters", "kde-xskat-german": "letters",
    # no corner index on the court cards, or rank and suit in different corners
    "gnome-guyenne-classic": "index", "gnome-swiss-xvii": "index", "kde-oxygen": "index",
    "kde-oxygen-air": "index", "kde-oxygen-white": "index", "gnome-tango_nuevo": "index",
    # four-colour suits
    "kde-konqi-modern": "colours",
    # Qt's SVG renderer draws these without the card (elements defined in other layers)
    "gnome-anglo_poker": "render", "gnome-simplistic": "render", "kde-future": "render",
}

#: Decks never used for training or validation: scenes made of them form the test split, so the
#: test measures how the detector reads artwork it has never seen. Different in style on purpose:
#: a 19th-century lithograph (both families ship a Dondorf, so both copies), a flat cartoon deck,
#: a glossy modern deck whose jokers carry an index (the test split needs jokers), and a themed deck
#: printed on beige.
HELD_OUT_DECKS = frozenset({"kde-dondorf", "gnome-dondorf", "gnome-tango", "gnome-plastic", "kde-ancient-egyptians"})


@dataclass(frozen=True)
class DeckSource:
    """One SVG deck: where it is and how its elements are named."""

    deck_id: str
    family: str  # "kde", "gnome" or "project"
    svg_path: Path

    def element_id(self, code: str) -> str:
        """The SVG element of a (non-joker) card code, e.g. ``KH`` -> ``king_heart`` or ``heart_king``."""
        rank, suit = code[:-1], code[-1]
        rank_word, suit_word = _RANK_WORDS.get(rank, rank), _SUIT_WORDS[suit]
        return f"{suit_word}_{rank_word}" if self.family == "gnome" else f"{rank_word}_{suit_word}"

    @property
    def joker_element_ids(self) -> tuple[str, ...]:
        """Joker elements to try; decks hold none, one, or a red and a black one."""
        if self.family == "gnome":
            return ("joker_red", "joker_black")
        return ("joker", "red_joker", "black_joker")

    @property
    def held_out(self) -> bool:
        return self.deck_id in HELD_OUT_DECKS


def card_codes() -> tuple[str, ...]:
    """The 52 suited cards (jokers are looked up separately: decks differ in how many they hold)."""
    return tuple(f"{rank}{suit}" for rank in RANKS for suit in SUITS if rank != JOKER)


def installed_decks() -> list[DeckSource]:
    """Every usable SVG deck the Debian packages installed, sorted by id."""
    found = [
        DeckSource(f"kde-{svg.parent.name.removeprefix('svg-')}", "kde", svg)
        for svg in sorted(KDE_DECKS_DIR.glob("*/*.svgz"))
    ] + [
        DeckSource(f"gnome-{svg.name.removesuffix('.svgz')}", "gnome", svg)
        for svg in sorted(GNOME_DECKS_DIR.glob("*.svgz"))
    ]
    return sorted((deck for deck in found if deck.deck_id not in EXCLUDED_DECKS), key=lambda d: d.deck_id)
