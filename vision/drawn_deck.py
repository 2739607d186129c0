"""The project's own card decks, written as SVG so the same Qt renderer draws them as the real decks.

They add styles no installed deck has (plain fonts, bold indexes, cream paper, jokers lettered or
starred in the corner), so that no single artwork dominates the training data. Element ids follow
KDE's naming (``king_heart``, ``1_spade``, ``joker``, ``back``).
"""

from __future__ import annotations

import colorsys
import math
import random
from dataclasses import dataclass
from pathlib import Path

from vision.decks import DeckSource, card_codes

CARD_W, CARD_H = 250, 350
_SUIT_GLYPHS = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
_RED = {"D", "H"}
# Pip centres as fractions of the card, per rank (the usual arrangement of a French deck).
_L, _C, _R = 0.34, 0.5, 0.66
_ROWS4 = (0.24, 0.41, 0.59, 0.76)
_PIPS = {
    "2": ((_C, 0.24), (_C, 0.76)),
    "3": ((_C, 0.24), (_C, 0.5), (_C, 0.76)),
    "4": ((_L, 0.24), (_R, 0.24), (_L, 0.76), (_R, 0.76)),
    "5": ((_L, 0.24), (_R, 0.24), (_C, 0.5), (_L, 0.76), (_R, 0.76)),
    "6": tuple((x, y) for y in (0.24, 0.5, 0.76) for x in (_L, _R)),
    "7": tuple((x, y) for y in (0.24, 0.5, 0.76) for x in (_L, _R)) + ((_C, 0.37),),
    "8": tuple((x, y) for y in (0.24, 0.5, 0.76) for x in (_L, _R)) + ((_C, 0.37), (_C, 0.63)),
    "9": tuple((x, y) for y in _ROWS4 for x in (_L, _R)) + ((_C, 0.5),),
    "10": tuple((x, y) for y in _ROWS4 for x in (_L, _R)) + ((_C, 0.33), (_C, 0.67)),
}
_RANK_WORDS = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}
_SUIT_WORDS = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}


@dataclass(frozen=True)
class DrawnStyle:
    """What distinguishes one drawn deck from another."""

    name: str
    font: str
    font_weight: str
    paper: str
    frame: str
    index_scale: float
    back_colours: tuple[str, str]
    red: str = "#c8102e"
    black: str = "#111111"
    inset: float = 1.0  #: how far in from the side the index sits (the default's multiple)
    suit_scale: float = 1.0  #: the index's suit against its rank
    four_corners: bool = False  #: indexes in all four corners, as Dondorf and many European decks print
    italic: bool = False
    line_gap: float = 0.55  #: space after each line of the index, in the line's size
    suit_font: str | None = None  #: the suit glyphs' typeface, when not the rank's (suit shapes differ by font)
    index_top: float = 0.04  #: where the index starts below the card's top edge, as a share of its height
    pip_scale: float = 1.0
    border: str = "#555555"  #: the line round the card's edge
    border_width: float = 1.0
    court_fill: str = "none"  #: the court panel's ground
    #: The joker's corner index: its letters, or a star (:data:`JOKER_STARS`) as many decks print
    joker_star: str | None = None


DRAWN_STYLES = (
    DrawnStyle("project-classic", "DejaVu Serif", "normal", "#ffffff", "#1b3a8a", 1.0, ("#a01818", "#ffffff")),
    DrawnStyle("project-bold", "DejaVu Sans", "bold", "#f4efdc", "#2a6b2a", 1.15, ("#17306e", "#c9a227")),
    # Typefaces and layouts no installed deck has, so that the detector learns what an index is rather
    # than what a few decks' indexes look like (fonts from Debian's fonts-urw-base35, -liberation2
    # and -freefont-ttf; a missing font falls back to Qt's default and the deck still renders).
    DrawnStyle("project-roman", "Nimbus Roman", "bold", "#fbf8f0", "#7a1f1f", 0.9, ("#1f4f7a", "#e8e0c8"),
               red="#b3122a", inset=0.8),
    DrawnStyle("project-gothic", "URW Gothic", "bold", "#ffffff", "#303030", 1.1, ("#303030", "#d0d0d0"),
               red="#e2231a", black="#000000", inset=0.9, suit_scale=0.8),
    DrawnStyle("project-bookman", "URW Bookman", "normal", "#f3ead2", "#5b3a1a", 1.05, ("#5b3a1a", "#d8b46a"),
               red="#a4161a", black="#2b1d0e", inset=0.85, four_corners=True),
    DrawnStyle("project-schoolbook", "C059", "bold", "#ffffff", "#0b5d3b", 0.85, ("#0b5d3b", "#ffffff"),
               inset=0.75, suit_scale=1.2),
    DrawnStyle("project-palatino", "P052", "normal", "#fffdf7", "#3b2a6e", 1.15, ("#3b2a6e", "#c0b3e6"),
               red="#d0021b", italic=True),
    DrawnStyle("project-narrow", "Nimbus Sans Narrow", "bold", "#eef2f5", "#1d3557", 1.1, ("#1d3557", "#a8dadc"),
               red="#e63946", black="#1d3557", inset=0.8, four_corners=True),
    DrawnStyle("project-mono", "Nimbus Mono PS", "bold", "#ffffff", "#444444", 1.0, ("#8a1c1c", "#111111"),
               suit_scale=0.9, line_gap=0.4),
    DrawnStyle("project-liberation", "Liberation Sans", "bold", "#fff8e7", "#9c6b00", 0.95, ("#9c6b00", "#fff1c1"),
               red="#cc0000", inset=1.2, suit_scale=1.1, line_gap=0.4),
    DrawnStyle("project-free-serif", "FreeSerif", "normal", "#ffffff", "#6b0f1a", 1.2, ("#6b0f1a", "#f2c14e"),
               red="#c1121f", black="#14213d", four_corners=True),
    DrawnStyle("project-free-sans", "FreeSans", "normal", "#f7f7f2", "#2d6a4f", 0.8, ("#2d6a4f", "#b7e4c7"),
               red="#d62828", inset=0.85, suit_scale=1.25),
)

#: How many decks :func:`random_styles` draws for the atlas, and from which seed. The first
#: :data:`FIRST_RANDOM_DECKS` (fourth session) draw on :data:`_FONTS` and :data:`_SUIT_FONTS` only; the
#: rest (ninth session) also on :data:`_MORE_FONTS` and :data:`_MORE_SUIT_FONTS`. The first ones stay
#: what they were, so the older scene sets can be remade.
RANDOM_DECKS = 64
FIRST_RANDOM_DECKS = 32
RANDOM_SEED = 2026

# What a random deck is drawn from: the typefaces of the Debian font packages ``run.sh`` installs
# (Z003 is a script face, as some decks letter their courts), weights, and the colours card printers use.
_FONTS = ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Condensed", "DejaVu Serif Condensed", "DejaVu Sans Mono",
          "Nimbus Roman", "Nimbus Sans", "Nimbus Sans Narrow", "Nimbus Mono PS", "URW Bookman", "URW Gothic",
          "C059", "P052", "Z003", "Liberation Sans", "Liberation Serif", "Liberation Mono", "FreeSans",
          "FreeSerif", "FreeMono")
_SUIT_FONTS = ("DejaVu Sans", "DejaVu Serif", "FreeSerif", "FreeSans", "Liberation Sans")
# The text faces of the font packages run.sh added in the seventh and eighth sessions: condensed and
# light ones (the held-out Dondorfs letter their indexes thin and narrow), slab, mono and old-style.
_MORE_FONTS = ("Open Sans Condensed", "Roboto Condensed", "PT Sans Narrow", "Yanone Kaffeesatz", "Bebas Neue",
               "CMU Sans Serif Demi Condensed", "Oldania ADF Std", "Jura", "Dosis", "League Spartan", "Quicksand",
               "Comfortaa", "EB Garamond", "Vollkorn", "Old Standard TT", "Linux Libertine O", "Linux Biolinum O",
               "Lato", "Open Sans", "Roboto", "Roboto Slab", "PT Sans", "PT Serif", "PT Mono", "Go", "Go Mono",
               "Cantarell", "Caladea", "Carlito", "Charis SIL", "Gentium Plus", "Andika", "Arimo", "Tinos",
               "Cousine", "Inter", "Cabin", "Fira Code", "Hack", "Inconsolata", "JetBrains Mono", "CMU Serif",
               "CMU Concrete", "CMU Bright", "CMU Typewriter Text", "GFS Didot", "GFS Neohellenic", "Tuffy",
               "Averia GWF", "Accanthis ADF Std", "Baskervald ADF Std", "Berenis ADF Pro", "Gillius ADF",
               "Ikarius ADF Std", "Irianis ADF Std", "Libris ADF Std", "Mekanus ADF Std", "Romande ADF Std",
               "Switzera ADF", "Tribun ADF Std", "Universalis ADF Std", "Verana Sans", "Radis Sans", "Comic Neue",
               "Fantasque Sans Mono", "STIXGeneral")
# More installed faces with the four suit symbols (fc-list ':charset=2660 2663 2665 2666').
_MORE_SUIT_FONTS = ("Symbola", "STIXGeneral", "Linux Libertine O", "Linux Biolinum O", "Go", "PT Mono", "Arimo",
                    "Tinos", "Cousine", "Fira Code", "Nimbus Sans", "Nimbus Roman", "URW Bookman", "C059")


#: The joker corners a random deck may print instead of its letters (sixteenth session): a star
#: plain, ringed by a circle, or knocked out of a disc, as five of the named training decks print
#: theirs; half the random decks do. Drawn from a generator of each deck's own, so the decks are
#: otherwise what they were: a scene set made before remade now differs in those decks' jokers alone.
JOKER_STARS = ("plain", "ringed", "knocked out")


def random_styles(count: int = RANDOM_DECKS, seed: int = RANDOM_SEED) -> tuple[DrawnStyle, ...]:
    """``count`` decks drawn at random from typefaces, weights, index sizes and places, suit shapes and
    colours, named ``project-random-NN``: the same seed gives the same decks.

    Every real deck the app will meet prints a rank and a suit in a corner, but in its own letters,
    sizes and inks; a detector trained on a few dozen designs learns those designs (the third
    session measured it: the training decks' score rose while the held-out decks' stayed). Many
    random designs make the corner index, not a deck, the thing to learn.
    """
    rng = random.Random(seed)
    styles = []
    for number in range(count):
        fonts, suit_fonts = (_FONTS, _SUIT_FONTS) if number < FIRST_RANDOM_DECKS else (
            _FONTS + _MORE_FONTS, _SUIT_FONTS + _MORE_SUIT_FONTS)
        hue = rng.random()
        frame = _colour(hue, rng.uniform(0.4, 0.9), rng.uniform(0.2, 0.5))
        paper = _colour(rng.uniform(0.05, 0.2), rng.uniform(0.0, 0.08), rng.uniform(0.88, 1.0))
        styles.append(DrawnStyle(
            f"project-random-{number:02d}", rng.choice(fonts), rng.choice(("normal", "normal", "bold")),
            paper, frame, rng.uniform(0.75, 1.25), (frame, _colour(hue, rng.uniform(0.1, 0.5), rng.uniform(0.75, 0.95))),
            red=_colour(rng.uniform(-0.03, 0.04) % 1.0, rng.uniform(0.75, 1.0), rng.uniform(0.55, 0.85)),
            black=_colour(rng.random(), rng.uniform(0.0, 0.5), rng.uniform(0.0, 0.2)),
            inset=rng.uniform(0.7, 1.3), suit_scale=rng.uniform(0.7, 1.3), four_corners=rng.random() < 0.3,
            italic=rng.random() < 0.15, line_gap=rng.uniform(0.4, 0.6),
            suit_font=rng.choice((None,) + suit_fonts), index_top=rng.uniform(0.025, 0.07),
            pip_scale=rng.uniform(0.75, 1.0), border=_colour(rng.random(), rng.uniform(0, 0.6), rng.uniform(0.2, 0.7)),
            border_width=rng.choice((1.0, 1.0, 2.0, 3.0)),
            court_fill=rng.choice(("none", "none", _colour(hue, rng.uniform(0.1, 0.4), rng.uniform(0.8, 0.97)))),
            joker_star=_joker_star(seed, number),
        ))
    return tuple(styles)


def _joker_star(seed: int, number: int) -> str | None:
    """The joker corner of random deck ``number`` (None: its letters), from a generator of its own."""
    rng = random.Random(f"{seed}-joker-{number}")
    return rng.choice(JOKER_STARS) if rng.random() < 0.5 else None


def _colour(hue: float, saturation: float, value: float) -> str:
    red, green, blue = colorsys.hsv_to_rgb(hue, saturation, value)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


def all_styles() -> tuple[DrawnStyle, ...]:
    """The designed decks and the random ones: what the atlas renders."""
    return DRAWN_STYLES + random_styles()


def write_drawn_decks(out_dir: Path, styles: tuple[DrawnStyle, ...] | None = None) -> list[DeckSource]:
    """Write each drawn style (default: :func:`all_styles`) as an SVG file and return them as deck sources."""
    out_dir.mkdir(parents=True, exist_ok=True)
    decks = []
    for style in all_styles() if styles is None else styles:
        path = out_dir / f"{style.name}.svg"
        path.write_text(deck_svg(style), encoding="utf-8")
        decks.append(DeckSource(style.name, "project", path))
    return decks


def deck_svg(style: DrawnStyle) -> str:
    """A whole deck as one SVG document: the 52 cards, a joker and a back, laid out in a grid."""
    cards = [_card(style, code, f"{_RANK_WORDS.get(code[:-1], code[:-1])}_{_SUIT_WORDS[code[-1]]}")
             for code in card_codes()]
    cards += [_joker(style), _back(style)]
    placed = [f'<g transform="translate({(i % 13) * (CARD_W + 10)},{(i // 13) * (CARD_H + 10)})">{card}</g>'
              for i, card in enumerate(cards)]
    width, height = 13 * (CARD_W + 10), 5 * (CARD_H + 10)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}">' + "".join(placed) + "</svg>")


def _blank(style: DrawnStyle, element_id: str, content: str) -> str:
    inset = style.border_width / 2
    return (f'<g id="{element_id}"><rect x="{inset}" y="{inset}" width="{CARD_W - 2 * inset}" '
            f'height="{CARD_H - 2 * inset}" rx="14" fill="{style.paper}" stroke="{style.border}" '
            f'stroke-width="{style.border_width}"/>{content}</g>')


def _text(style: DrawnStyle, x: float, y: float, size: float, colour: str, text: str, rotate: bool = False) -> str:
    """Text centred on (x, y). Qt's SVG Tiny renderer ignores dominant-baseline: the baseline is set here."""
    turn = f' transform="rotate(180 {x:.1f} {y:.1f})"' if rotate else ""
    slant = ' font-style="italic"' if style.italic else ""
    font, weight = style.font, style.font_weight
    if text in _SUIT_GLYPHS.values():
        font = style.suit_font or style.font
        # FreeSerif Bold draws the spade as a club and the club as a spade.
        weight = "normal" if font == "FreeSerif" else weight
    return (f'<text x="{x:.1f}" y="{y + 0.36 * size:.1f}" font-family="{font}" '
            f'font-weight="{weight}"{slant} font-size="{size:.1f}" fill="{colour}" text-anchor="middle"{turn}>'
            f"{text}</text>")


def _corners(style: DrawnStyle, x: float, y: float) -> list[tuple[float, float, bool]]:
    """Where a point (x, y) of the top-left index is printed in each corner the deck prints an index
    in, and whether it is turned there: top-left and, turned, bottom-right (and the other two corners
    for a four-corner deck)."""
    corners = [(x, y, False), (CARD_W - x, CARD_H - y, True)]
    return corners + [(CARD_W - x, y, False), (x, CARD_H - y, True)] if style.four_corners else corners


def _indexes(style: DrawnStyle, lines: list[str], colour: str, sizes: list[float]) -> str:
    """The rank and suit (or a joker's letters) stacked in each of the deck's index corners."""
    out, y = [], style.index_top * CARD_H
    x = 0.11 * CARD_W * style.index_scale * style.inset
    for text, size in zip(lines, sizes):
        y += size * 0.5
        out += [_text(style, cx, cy, size, colour, text, rotate=turned) for cx, cy, turned in _corners(style, x, y)]
        y += size * style.line_gap
    return "".join(out)


def _card(style: DrawnStyle, code: str, element_id: str) -> str:
    rank, suit = code[:-1], code[-1]
    colour = style.red if suit in _RED else style.black
    glyph = _SUIT_GLYPHS[suit]
    scale = style.index_scale
    content = _indexes(style, [rank, glyph], colour, [0.13 * CARD_H * scale, 0.1 * CARD_H * scale * style.suit_scale])
    if rank in _PIPS:
        content += "".join(_text(style, fx * CARD_W, fy * CARD_H, 0.16 * CARD_H * style.pip_scale, colour, glyph,
                                 rotate=fy > 0.5)
                           for fx, fy in _PIPS[rank])
    elif rank == "A":
        content += _text(style, CARD_W / 2, CARD_H / 2, 0.42 * CARD_H, colour, glyph)
    else:
        content += _court(style, rank, glyph, colour)
    return _blank(style, element_id, content)


def _court(style: DrawnStyle, rank: str, glyph: str, colour: str) -> str:
    """A framed panel with the rank letter large and the suit twice, as a simple modern court card."""
    reach = max(1.0, style.index_scale * style.inset)  # clear of the indexes
    index_right = 0.11 * CARD_W * style.index_scale * style.inset + 0.1 * CARD_H * style.index_scale
    x0, y0 = max(0.22 * CARD_W * reach, index_right + 0.05 * CARD_W), 0.15 * CARD_H * reach
    return (f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{CARD_W - 2 * x0:.1f}" height="{CARD_H - 2 * y0:.1f}" '
            f'fill="{style.court_fill}" stroke="{style.frame}" stroke-width="4"/>'
            + _text(style, CARD_W / 2, CARD_H * 0.45, 0.3 * CARD_H, colour, rank)
            + _text(style, CARD_W / 2, CARD_H * 0.68, 0.14 * CARD_H, colour, glyph)
            + _text(style, CARD_W / 2, CARD_H * 0.27, 0.1 * CARD_H, style.frame, glyph))


def _star_points(x: float, y: float, radius: float) -> str:
    """A five-pointed star's polygon points, one point up, centred on (x, y)."""
    return " ".join(f"{x + r * math.cos(a):.1f},{y + r * math.sin(a):.1f}"
                    for i in range(10) for r, a in [(radius * (1 if i % 2 == 0 else 0.4), math.pi * (i / 5 - 0.5))])


def _joker(style: DrawnStyle) -> str:
    if style.joker_star is None:
        letters = list("JOKER")
        size = 0.075 * CARD_H * style.index_scale
        content = _indexes(style, letters, style.red, [size] * len(letters))
    else:
        content = _joker_star_corners(style)
    content += f'<polygon points="{_star_points(CARD_W / 2, CARD_H / 2, 0.3 * CARD_W)}" fill="{style.frame}" ' \
               'stroke="#111" stroke-width="2"/>'
    return _blank(style, "joker", content)


def _joker_star_corners(style: DrawnStyle) -> str:
    """A star in each of the deck's index corners (:func:`_corners`), in the deck's red."""
    radius = 0.045 * CARD_H * style.index_scale
    disc = radius * 1.3  # the circle round a ringed or knocked-out star
    outer = radius if style.joker_star == "plain" else disc
    # Where the rank's middle would be, but clear of the card's edge.
    x = max(0.11 * CARD_W * style.index_scale * style.inset, outer + 0.03 * CARD_W)
    y = style.index_top * CARD_H + outer
    out = []
    for cx, cy, _ in _corners(style, x, y):
        if style.joker_star == "plain":
            out.append(f'<polygon points="{_star_points(cx, cy, radius)}" fill="{style.red}"/>')
        elif style.joker_star == "ringed":
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{disc:.1f}" fill="none" '
                       f'stroke="{style.red}" stroke-width="{radius * 0.15:.1f}"/>'
                       f'<polygon points="{_star_points(cx, cy, radius * 0.9)}" fill="{style.red}"/>')
        else:  # knocked out of a disc
            out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{disc:.1f}" fill="{style.red}"/>'
                       f'<polygon points="{_star_points(cx, cy, radius * 0.9)}" fill="{style.paper}"/>')
    return "".join(out)


def _back(style: DrawnStyle) -> str:
    dark, light = style.back_colours
    lattice = "".join(
        f'<polygon points="{x},{y - 9} {x + 7},{y} {x},{y + 9} {x - 7},{y}" fill="{light}"/>'
        for x in range(28, CARD_W - 20, 16) for y in range(30, CARD_H - 22, 20)
    )
    return (f'<g id="back"><rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="14" '
            f'fill="#ffffff" stroke="#555"/><rect x="12" y="12" width="{CARD_W - 24}" height="{CARD_H - 24}" '
            f'rx="8" fill="{dark}"/>{lattice}</g>')
