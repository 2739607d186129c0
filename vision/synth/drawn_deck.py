"""The project's own card decks, written as SVG so the same Qt renderer draws them as the real decks.

They add styles no installed deck has (plain fonts, bold indexes, cream paper, jokers lettered or
starred in the corner), so that no single artwork dominates the training data. Element ids follow
KDE's naming (``king_heart``, ``1_spade``, ``joker``, ``back``).
"""

from __future__ import annotations

import colorsys
import math
import random
from dataclasses import dataclass, replace
from pathlib import Path

from vision.synth.decks import DeckSource, card_codes

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
    # The third generation's looks (the defaults draw the first two generations' decks as they were):
    squeeze: float = 1.0  #: the index letters' width against their typeface's (under 1: condensed, as Dondorf's)
    outline: float = 0.0  #: a line round the index letters, as a share of their size (Tango's are outlined)
    #: How far an outlined letter's inside is lightened towards the paper (0: all ink). Never hollow:
    #: the atlas measures an index by its ink, and a hollow letter's rings would be measured apart.
    outline_tint: float = 0.0
    court_art: bool = False  #: court cards show a figure of coloured shapes framed right by the index
    inner_frame: str | None = None  #: a thin frame printed round every face just clear of the index
    paper_edge: str | None = None  #: the paper shades towards this colour at the edges (aged or printed ground)
    pip_spread: float = 1.0  #: how far the pips stand from the middle (over 1: close to the index)
    upright_bottom: bool = False  #: the bottom index printed upright, not turned, as ancient-egyptians prints it


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
#: :data:`FIRST_RANDOM_DECKS` (the first generation) draw on :data:`_FONTS` and :data:`_SUIT_FONTS` only;
#: the rest (the second) also on :data:`_MORE_FONTS` and :data:`_MORE_SUIT_FONTS`. The first ones stay
#: what they were, so the older scene sets can be remade.
RANDOM_DECKS = 64
FIRST_RANDOM_DECKS = 32
#: Decks from this number on (the third generation) also draw the looks the first sixty-four lack and
#: the held-out decks have: condensed and outlined letters, court figures and frames close by the index,
#: shaded paper, crowded pips, an upright bottom index. The atlas draws them only when asked
#: (``python -m vision faces --random-decks 96``): trained on, they did not help on the held-out decks
#: (docs/experiments.md, "The classifier"), so the default atlas, and the shipped recipe's
#: scenes, stay those of the first sixty-four.
THIRD_RANDOM_DECKS = 64
RANDOM_SEED = 2026

# What a random deck is drawn from: the typefaces of the Debian font packages ``run.sh`` installs
# (Z003 is a script face, as some decks letter their courts), weights, and the colours card printers use.
_FONTS = ("DejaVu Sans", "DejaVu Serif", "DejaVu Sans Condensed", "DejaVu Serif Condensed", "DejaVu Sans Mono",
          "Nimbus Roman", "Nimbus Sans", "Nimbus Sans Narrow", "Nimbus Mono PS", "URW Bookman", "URW Gothic",
          "C059", "P052", "Z003", "Liberation Sans", "Liberation Serif", "Liberation Mono", "FreeSans",
          "FreeSerif", "FreeMono")
_SUIT_FONTS = ("DejaVu Sans", "DejaVu Serif", "FreeSerif", "FreeSans", "Liberation Sans")
# The text faces of run.sh's further font packages: condensed and light ones (the held-out
# Dondorfs letter their indexes thin and narrow), slab, mono and old-style.
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


#: The joker corners a random deck may print instead of its letters: a star
#: plain, ringed by a circle, or knocked out of a disc, as five of the named training decks print
#: theirs; half the random decks do. Drawn from a generator of each deck's own, so the decks are
#: otherwise what they were: a scene set made before remade now differs in those decks' jokers alone.
JOKER_STARS = ("plain", "ringed", "knocked out")


def random_styles(count: int = RANDOM_DECKS, seed: int = RANDOM_SEED) -> tuple[DrawnStyle, ...]:
    """``count`` decks drawn at random from typefaces, weights, index sizes and places, suit shapes and
    colours, named ``project-random-NN``: the same seed gives the same decks.

    Every real deck the app will meet prints a rank and a suit in a corner, but in its own letters,
    sizes and inks; a detector trained on a few dozen designs learns those designs (the training
    decks' score rose while the held-out decks' stayed; docs/experiments.md). Many
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
        styles.append(
            DrawnStyle(
                f"project-random-{number:02d}",
                rng.choice(fonts),
                rng.choice(("normal", "normal", "bold")),
                paper,
                frame,
                rng.uniform(0.75, 1.25),
                (frame, _colour(hue, rng.uniform(0.1, 0.5), rng.uniform(0.75, 0.95))),
                red=_colour(rng.uniform(-0.03, 0.04) % 1.0, rng.uniform(0.75, 1.0), rng.uniform(0.55, 0.85)),
                black=_colour(rng.random(), rng.uniform(0.0, 0.5), rng.uniform(0.0, 0.2)),
                inset=rng.uniform(0.7, 1.3),
                suit_scale=rng.uniform(0.7, 1.3),
                four_corners=rng.random() < 0.3,
                italic=rng.random() < 0.15,
                line_gap=rng.uniform(0.4, 0.6),
                suit_font=rng.choice((None,) + suit_fonts),
                index_top=rng.uniform(0.025, 0.07),
                pip_scale=rng.uniform(0.75, 1.0),
                border=_colour(rng.random(), rng.uniform(0, 0.6), rng.uniform(0.2, 0.7)),
                border_width=rng.choice((1.0, 1.0, 2.0, 3.0)),
                court_fill=rng.choice(("none", "none", _colour(hue, rng.uniform(0.1, 0.4), rng.uniform(0.8, 0.97)))),
                joker_star=_joker_star(seed, number),
            )
        )
        if number >= THIRD_RANDOM_DECKS:
            styles[-1] = _third_generation(styles[-1], random.Random(f"{seed}-third-{number}"))
    return tuple(styles)


def _third_generation(style: DrawnStyle, rng: random.Random) -> DrawnStyle:
    """``style`` with the looks of :data:`THIRD_RANDOM_DECKS`, drawn from a generator of its own (so the
    earlier decks, and the rest of this one, stay what they were).

    Why these: the held-out decks the reader names worst print them and no training deck did.
    The Dondorfs (57 % of the held-out indexes, read least: docs/experiments.md) letter their
    indexes bold and condensed, close to a court figure's frame; Tango outlines its letters;
    ancient-egyptians prints on shaded beige inside a gold frame, its bottom index upright.
    """
    condensed = rng.random() < 0.6
    outlined = rng.random() < 0.3
    paper_edge = None
    if rng.random() < 0.35:  # towards an aged tan, but short of ink: the atlas tells ink from paper by 70 of 255
        paper_edge = _mix(style.paper, "#c8b48c", rng.uniform(0.2, 0.45))
    return replace(
        style,
        font_weight=rng.choice(("normal", "bold", "bold")),
        squeeze=rng.uniform(0.6, 0.9) if condensed else rng.uniform(0.95, 1.15),
        outline=rng.uniform(0.03, 0.07) if outlined else 0.0,
        outline_tint=rng.choice((0.0, rng.uniform(0.2, 0.4))) if outlined else 0.0,
        court_art=rng.random() < 0.7,
        inner_frame=_colour(rng.random(), rng.uniform(0.3, 0.8), rng.uniform(0.3, 0.7))
        if rng.random() < 0.35
        else None,
        paper_edge=paper_edge,
        pip_spread=rng.uniform(1.0, 1.15),
        pip_scale=rng.uniform(0.8, 1.2),
        upright_bottom=rng.random() < 0.2,
    )


def _joker_star(seed: int, number: int) -> str | None:
    """The joker corner of random deck ``number`` (None: its letters), from a generator of its own."""
    rng = random.Random(f"{seed}-joker-{number}")
    return rng.choice(JOKER_STARS) if rng.random() < 0.5 else None


def _colour(hue: float, saturation: float, value: float) -> str:
    red, green, blue = colorsys.hsv_to_rgb(hue, saturation, value)
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


def _mix(colour: str, other: str, share: float) -> str:
    """``colour`` moved ``share`` of the way to ``other`` (both ``#rrggbb``)."""
    return "#" + "".join(f"{round((1 - share) * int(colour[i:i + 2], 16) + share * int(other[i:i + 2], 16)):02x}"
                         for i in (1, 3, 5))


def all_styles(random_decks: int = RANDOM_DECKS) -> tuple[DrawnStyle, ...]:
    """The designed decks and the first ``random_decks`` random ones: what the atlas renders."""
    return DRAWN_STYLES + random_styles(random_decks)


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
    paper, defs = style.paper, ""
    if style.paper_edge is not None:  # ids must be unique in the deck's one document
        paper = f"url(#paper-{element_id})"
        defs = (f'<defs><radialGradient id="paper-{element_id}" cx="0.5" cy="0.5" r="0.75">'
                f'<stop offset="0.55" stop-color="{style.paper}"/><stop offset="1" stop-color="{style.paper_edge}"/>'
                "</radialGradient></defs>")
    frame = ""
    if style.inner_frame is not None:
        # Clear of the index on its right, like the frame round a Dondorf's court or an
        # ancient-egyptians face: a rule close to the index the reader must not take for part of it.
        right, _ = _index_extent(style)
        x0, y0 = right + 0.025 * CARD_W, 0.03 * CARD_H
        frame = (f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{CARD_W - 2 * x0:.1f}" height="{CARD_H - 2 * y0:.1f}" '
                 f'fill="none" stroke="{style.inner_frame}" stroke-width="1.5"/>')
    return (f'<g id="{element_id}">{defs}<rect x="{inset}" y="{inset}" width="{CARD_W - 2 * inset}" '
            f'height="{CARD_H - 2 * inset}" rx="14" fill="{paper}" stroke="{style.border}" '
            f'stroke-width="{style.border_width}"/>{frame}{content}</g>')


def _text(style: DrawnStyle, x: float, y: float, size: float, colour: str, text: str, rotate: bool = False,
          index: bool = False) -> str:
    """Text centred on (x, y). Qt's SVG Tiny renderer ignores dominant-baseline: the baseline is set here.

    ``index`` text takes the deck's index looks: its letters squeezed and outlined."""
    turns = [f"rotate(180 {x:.1f} {y:.1f})"] if rotate else []
    paint = f'fill="{colour}"'
    if index and style.squeeze != 1.0:
        turns.append(f"translate({x:.1f} 0) scale({style.squeeze:.3f} 1) translate({-x:.1f} 0)")
    if index and style.outline > 0:
        inside = _mix(colour, style.paper, style.outline_tint)
        paint = f'fill="{inside}" stroke="{_darker(colour)}" stroke-width="{style.outline * size:.2f}"'
    turn = f' transform="{" ".join(turns)}"' if turns else ""
    slant = ' font-style="italic"' if style.italic else ""
    font, weight = style.font, style.font_weight
    if text in _SUIT_GLYPHS.values():
        font = style.suit_font or style.font
        # FreeSerif Bold draws the spade as a club and the club as a spade.
        weight = "normal" if font == "FreeSerif" else weight
    return (f'<text x="{x:.1f}" y="{y + 0.36 * size:.1f}" font-family="{font}" '
            f'font-weight="{weight}"{slant} font-size="{size:.1f}" {paint} text-anchor="middle"{turn}>'
            f"{text}</text>")


def _darker(colour: str) -> str:
    """A colour at half its brightness: the line round an outlined letter of that ink."""
    return "#" + "".join(f"{int(colour[i:i + 2], 16) // 2:02x}" for i in (1, 3, 5))


def _index_sizes(style: DrawnStyle) -> tuple[float, float]:
    """The index's rank and suit sizes, in card units."""
    return 0.13 * CARD_H * style.index_scale, 0.1 * CARD_H * style.index_scale * style.suit_scale


def _index_x(style: DrawnStyle) -> float:
    """Where the top-left index's middle stands from the card's left edge, in card units."""
    return 0.11 * CARD_W * style.index_scale * style.inset


def _index_extent(style: DrawnStyle) -> tuple[float, float]:
    """About how far right and down the top-left index reaches, in card units (a 10's two digits at
    their widest): what a frame, a court figure or a pip must keep clear of."""
    rank, suit = _index_sizes(style)
    x = _index_x(style)
    right = x + max(0.65 * rank * style.squeeze, 0.5 * suit) + style.outline * rank
    bottom = style.index_top * CARD_H + rank * (0.5 + style.line_gap) + suit
    return right, bottom


def _corners(style: DrawnStyle, x: float, y: float) -> list[tuple[float, float, bool]]:
    """Where a point (x, y) of the top-left index is printed in each corner the deck prints an index
    in, and whether it is turned there: top-left and, turned, bottom-right (and the other two corners
    for a four-corner deck). An ``upright_bottom`` deck prints its bottom indexes the right way up."""
    if style.upright_bottom:  # the same stack, its foot as far from the bottom edge as its head from the top
        low, turned = CARD_H - _index_extent(style)[1] + (y - style.index_top * CARD_H), False
    else:
        low, turned = CARD_H - y, True
    corners = [(x, y, False), (CARD_W - x, low, turned)]
    return corners + [(CARD_W - x, y, False), (x, low, turned)] if style.four_corners else corners


def _indexes(style: DrawnStyle, lines: list[str], colour: str, sizes: list[float]) -> str:
    """The rank and suit (or a joker's letters) stacked in each of the deck's index corners."""
    out, y, x = [], style.index_top * CARD_H, _index_x(style)
    for text, size in zip(lines, sizes):
        y += size * 0.5
        out += [_text(style, cx, cy, size, colour, text, rotate=turned, index=True)
                for cx, cy, turned in _corners(style, x, y)]
        y += size * style.line_gap
    return "".join(out)


def _card(style: DrawnStyle, code: str, element_id: str) -> str:
    rank, suit = code[:-1], code[-1]
    colour = style.red if suit in _RED else style.black
    glyph = _SUIT_GLYPHS[suit]
    content = _indexes(style, [rank, glyph], colour, list(_index_sizes(style)))
    if rank in _PIPS:
        spread_x = _pip_spread_x(style)
        content += "".join(_text(style, (0.5 + (fx - 0.5) * spread_x) * CARD_W,
                                 (0.5 + (fy - 0.5) * style.pip_spread) * CARD_H,
                                 0.16 * CARD_H * style.pip_scale, colour, glyph, rotate=fy > 0.5)
                           for fx, fy in _PIPS[rank])
    elif rank == "A":
        content += _text(style, CARD_W / 2, CARD_H / 2, 0.42 * CARD_H, colour, glyph)
    elif style.court_art:
        content += _court_figure(style, code, glyph, colour)
    else:
        content += _court(style, rank, glyph, colour)
    return _blank(style, element_id, content)


def _pip_spread_x(style: DrawnStyle) -> float:
    """How far across the pips spread: the deck's ``pip_spread``, less where the side pips' edge
    would come within 3 % of the card of the index (never less than the first decks' spread)."""
    if style.pip_spread == 1.0:
        return 1.0
    half_pip = 0.5 * 0.16 * CARD_H * style.pip_scale * 0.75  # a suit glyph is about 3/4 of its size wide
    clear = _index_extent(style)[0] + 0.03 * CARD_W + half_pip  # the nearest a side pip's centre may come
    widest = (0.5 - clear / CARD_W) / (0.5 - _L)
    return max(1.0, min(style.pip_spread, widest))


def _court(style: DrawnStyle, rank: str, glyph: str, colour: str) -> str:
    """A framed panel with the rank letter large and the suit twice, as a simple modern court card."""
    reach = max(1.0, style.index_scale * style.inset)  # clear of the indexes
    index_right = _index_x(style) + 0.1 * CARD_H * style.index_scale
    x0, y0 = max(0.22 * CARD_W * reach, index_right + 0.05 * CARD_W), 0.15 * CARD_H * reach
    return (f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{CARD_W - 2 * x0:.1f}" height="{CARD_H - 2 * y0:.1f}" '
            f'fill="{style.court_fill}" stroke="{style.frame}" stroke-width="4"/>'
            + _text(style, CARD_W / 2, CARD_H * 0.45, 0.3 * CARD_H, colour, rank)
            + _text(style, CARD_W / 2, CARD_H * 0.68, 0.14 * CARD_H, colour, glyph)
            + _text(style, CARD_W / 2, CARD_H * 0.27, 0.1 * CARD_H, style.frame, glyph))


#: Inks of a court figure's robes, besides the deck's own red, black and frame colours.
_ROBES = ("#1f4fa0", "#e0b020", "#2e7d32", "#6a1b9a", "#d35400")
_SKIN = ("#f1c9a0", "#e8b88a", "#f6dcc0")


def _court_figure(style: DrawnStyle, code: str, glyph: str, colour: str) -> str:
    """A double-headed court figure of coloured shapes in a frame close to the index, as lithographed
    decks (the Dondorfs, most named decks) print their courts: no big letter, busy ink beside the index.

    The figure is drawn for the top half and turned for the bottom, from a generator of the card's own.
    """
    rng = random.Random(f"{style.name}-{code}")
    right, _ = _index_extent(style)
    x0, y0 = right + rng.uniform(0.02, 0.04) * CARD_W, 0.035 * CARD_H
    x1, mid = CARD_W - x0, CARD_H / 2
    width, cx = x1 - x0, CARD_W / 2
    inks = [style.red, style.black, style.frame, *rng.sample(_ROBES, 3)]
    pad = 0.08 * CARD_W  # the figure keeps off the frame, so no shape comes near the index
    head_r = min(0.12 * width, 0.06 * CARD_H)
    head_y = y0 + 0.2 * (mid - y0) + head_r
    shoulders, waist = head_y + 1.3 * head_r, mid - 0.02 * CARD_H
    parts = [
        # a crown or hat, then the head
        f'<polygon points="{cx - head_r:.1f},{head_y - 0.6 * head_r:.1f} '
        f'{cx - 0.7 * head_r:.1f},{head_y - 1.7 * head_r:.1f} '
        f"{cx:.1f},{head_y - 1.1 * head_r:.1f} {cx + 0.7 * head_r:.1f},{head_y - 1.7 * head_r:.1f} "
        f'{cx + head_r:.1f},{head_y - 0.6 * head_r:.1f}" fill="{rng.choice(inks[3:])}" stroke="{style.black}" '
        'stroke-width="1"/>',
        f'<circle cx="{cx:.1f}" cy="{head_y:.1f}" r="{head_r:.1f}" fill="{rng.choice(_SKIN)}" '
        f'stroke="{style.black}" stroke-width="1"/>',
    ]
    # the robe: bands from the shoulders to the waist, each its own ink, and the panel left as the
    # paper (a face mostly of one ink would make the atlas take that ink for the paper,
    # vision.synth.corner_index._paper_colour)
    bands = rng.randint(2, 4)
    left, full = x0 + pad, width - 2 * pad
    for band, ink in enumerate(rng.sample(inks, bands)):
        parts.append(f'<rect x="{left + band * full / bands:.1f}" y="{shoulders:.1f}" width="{full / bands:.1f}" '
                     f'height="{waist - shoulders:.1f}" fill="{ink}" stroke="{style.black}" stroke-width="1"/>')
    # something held across the robe (a sceptre, a sword), and the suit on a shield
    parts.append(f'<line x1="{left + 0.1 * full:.1f}" y1="{waist - 0.02 * CARD_H:.1f}" x2="{left + 0.9 * full:.1f}" '
                 f'y2="{shoulders + 0.01 * CARD_H:.1f}" stroke="{rng.choice(inks)}" stroke-width="3"/>')
    parts.append(_text(style, left + rng.uniform(0.25, 0.75) * full, (shoulders + waist) / 2, 0.07 * CARD_H,
                       colour, glyph))
    half = "".join(parts)
    return (
        f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{width:.1f}" height="{CARD_H - 2 * y0:.1f}" '
        f'fill="none" stroke="{style.frame}" stroke-width="2"/>'
        f'<line x1="{x0:.1f}" y1="{mid:.1f}" x2="{x1:.1f}" y2="{mid:.1f}" stroke="{style.frame}" stroke-width="1.5"/>'
        f'{half}<g transform="rotate(180 {cx:.1f} {mid:.1f})">{half}</g>'
    )


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
    x = max(_index_x(style), outer + 0.03 * CARD_W)
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
