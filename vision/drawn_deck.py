"""The project's own card decks, written as SVG so the same Qt renderer draws them as the real decks.

They add styles no installed deck has (plain fonts, bold indexes, cream paper, jokers lettered in the
corner), so that no single artwork dominates the training data. Element ids follow KDE's naming
(``king_heart``, ``1_spade``, ``joker``, ``back``).
"""

from __future__ import annotations

import math
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


DRAWN_STYLES = (
    DrawnStyle("project-classic", "DejaVu Serif", "normal", "#ffffff", "#1b3a8a", 1.0, ("#a01818", "#ffffff")),
    DrawnStyle("project-bold", "DejaVu Sans", "bold", "#f4efdc", "#2a6b2a", 1.15, ("#17306e", "#c9a227")),
)


def write_drawn_decks(out_dir: Path) -> list[DeckSource]:
    """Write each drawn style as an SVG file and return them as deck sources."""
    out_dir.mkdir(parents=True, exist_ok=True)
    decks = []
    for style in DRAWN_STYLES:
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
    return (f'<g id="{element_id}"><rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="14" '
            f'fill="{style.paper}" stroke="#555" stroke-width="1"/>{content}</g>')


def _text(style: DrawnStyle, x: float, y: float, size: float, colour: str, text: str, rotate: bool = False) -> str:
    """Text centred on (x, y). Qt's SVG Tiny renderer ignores dominant-baseline: the baseline is set here."""
    turn = f' transform="rotate(180 {x:.1f} {y:.1f})"' if rotate else ""
    return (f'<text x="{x:.1f}" y="{y + 0.36 * size:.1f}" font-family="{style.font}" '
            f'font-weight="{style.font_weight}" font-size="{size:.1f}" fill="{colour}" text-anchor="middle"{turn}>'
            f"{text}</text>")


def _indexes(style: DrawnStyle, lines: list[str], colour: str, sizes: list[float]) -> str:
    """The rank and suit (or a joker's letters) stacked in the top-left corner and, turned, bottom-right."""
    out, y = [], 0.04 * CARD_H
    x = 0.11 * CARD_W * style.index_scale
    for text, size in zip(lines, sizes):
        y += size * 0.5
        out.append(_text(style, x, y, size, colour, text))
        out.append(_text(style, CARD_W - x, CARD_H - y, size, colour, text, rotate=True))
        y += size * 0.55
    return "".join(out)


def _card(style: DrawnStyle, code: str, element_id: str) -> str:
    rank, suit = code[:-1], code[-1]
    colour = "#c8102e" if suit in _RED else "#111111"
    glyph = _SUIT_GLYPHS[suit]
    scale = style.index_scale
    content = _indexes(style, [rank, glyph], colour, [0.13 * CARD_H * scale, 0.1 * CARD_H * scale])
    if rank in _PIPS:
        content += "".join(_text(style, fx * CARD_W, fy * CARD_H, 0.16 * CARD_H, colour, glyph, rotate=fy > 0.5)
                           for fx, fy in _PIPS[rank])
    elif rank == "A":
        content += _text(style, CARD_W / 2, CARD_H / 2, 0.42 * CARD_H, colour, glyph)
    else:
        content += _court(style, rank, glyph, colour)
    return _blank(style, element_id, content)


def _court(style: DrawnStyle, rank: str, glyph: str, colour: str) -> str:
    """A framed panel with the rank letter large and the suit twice, as a simple modern court card."""
    x0, y0 = 0.22 * CARD_W, 0.15 * CARD_H
    return (f'<rect x="{x0:.1f}" y="{y0:.1f}" width="{CARD_W - 2 * x0:.1f}" height="{CARD_H - 2 * y0:.1f}" '
            f'fill="none" stroke="{style.frame}" stroke-width="4"/>'
            + _text(style, CARD_W / 2, CARD_H * 0.45, 0.3 * CARD_H, colour, rank)
            + _text(style, CARD_W / 2, CARD_H * 0.68, 0.14 * CARD_H, colour, glyph)
            + _text(style, CARD_W / 2, CARD_H * 0.27, 0.1 * CARD_H, style.frame, glyph))


def _joker(style: DrawnStyle) -> str:
    letters = list("JOKER")
    size = 0.075 * CARD_H * style.index_scale
    star = " ".join(f"{CARD_W / 2 + r * math.cos(a):.1f},{CARD_H / 2 + r * math.sin(a):.1f}"
                    for i in range(10)
                    for r, a in [((0.3 if i % 2 == 0 else 0.12) * CARD_W, math.pi * (i / 5 - 0.5))])
    content = _indexes(style, letters, "#c8102e", [size] * len(letters))
    content += f'<polygon points="{star}" fill="{style.frame}" stroke="#111" stroke-width="2"/>'
    return _blank(style, "joker", content)


def _back(style: DrawnStyle) -> str:
    dark, light = style.back_colours
    lattice = "".join(
        f'<polygon points="{x},{y - 9} {x + 7},{y} {x},{y + 9} {x - 7},{y}" fill="{light}"/>'
        for x in range(28, CARD_W - 20, 16) for y in range(30, CARD_H - 22, 20)
    )
    return (f'<g id="back"><rect x="0.5" y="0.5" width="{CARD_W - 1}" height="{CARD_H - 1}" rx="14" '
            f'fill="#ffffff" stroke="#555"/><rect x="12" y="12" width="{CARD_W - 24}" height="{CARD_H - 24}" '
            f'rx="8" fill="{dark}"/>{lattice}</g>')
