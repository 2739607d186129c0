"""Where a card face's corner indexes (rank and suit glyphs) sit, measured from its pixels.

Decks put the index in different places and sizes, and some print it in all four corners while
others only in two, so labels come from this measurement rather than from a fixed guess. Each
corner is measured the same way after flipping the face so that corner is at the top left.
"""

from __future__ import annotations

import cv2
import numpy as np

#: The corners, each with the flips (about x, about y) that bring it to the top left.
CORNER_FLIPS = {
    "top_left": (False, False),
    "top_right": (True, False),
    "bottom_left": (False, True),
    "bottom_right": (True, True),
}

# Window in which an index may lie, and the largest a single glyph may be, as fractions of the face.
_WINDOW_W, _WINDOW_H = 0.36, 0.42
_GLYPH_W, _GLYPH_H = 0.24, 0.2
# The widest a rule printed on the card (a frame's line, a stem) may be, and how far under the rank
# a suit cut from one may start, as fractions of the face's height.
_RULE_WIDTH = 0.01
_SUIT_GAP = 0.07
# The tallest a suit cut from a stem may be, in rank heights.
_SUIT_HEIGHT = 1.1
# Other corners count as an index only if about the size of the top-left one (not a lone pip).
_SIZE_TOLERANCE = 0.35

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in face pixels, x1/y1 exclusive


def measure_index_boxes(face_rgba: np.ndarray) -> dict[str, Box]:
    """The index box of every corner that carries one; empty when the top-left has none."""
    h, w = face_rgba.shape[:2]
    ink = _ink_mask(face_rgba)
    boxes: dict[str, Box] = {}
    for corner, (flip_x, flip_y) in CORNER_FLIPS.items():
        view = ink[::-1 if flip_y else 1, ::-1 if flip_x else 1]
        box = _index_at_origin(view)
        if box is None:
            continue
        x0, y0, x1, y1 = box
        if flip_x:
            x0, x1 = w - x1, w - x0
        if flip_y:
            y0, y1 = h - y1, h - y0
        boxes[corner] = (x0, y0, x1, y1)
    if "top_left" not in boxes:
        return {}
    return {corner: box for corner, box in boxes.items() if _similar_size(box, boxes["top_left"])}


def _similar_size(box: Box, reference: Box) -> bool:
    def close(a: int, b: int) -> bool:
        return abs(a - b) <= _SIZE_TOLERANCE * b

    return close(box[2] - box[0], reference[2] - reference[0]) and close(box[3] - box[1], reference[3] - reference[1])


def _ink_mask(face_rgba: np.ndarray) -> np.ndarray:
    """Pixels printed on the card, not paper, and inside the card's printed outline."""
    opaque = (face_rgba[..., 3] > 128).astype(np.uint8)
    paper = _paper_colour(face_rgba, opaque.astype(bool))
    ink = np.abs(face_rgba[..., :3].astype(np.int16) - paper).max(axis=2) > 70
    margin = 0.015 * face_rgba.shape[1] + _outline_width(ink, opaque)
    return ink & (cv2.distanceTransform(opaque, cv2.DIST_L2, 3) > margin)


def _outline_width(ink: np.ndarray, opaque: np.ndarray) -> int:
    """How far the card's printed border reaches in from its left edge (median over mid rows)."""
    h = ink.shape[0]
    widths = []
    for row in range(int(0.3 * h), int(0.7 * h), max(1, h // 40)):
        first = int(np.argmax(opaque[row]))
        run = np.argmin(ink[row, first:]) if ink[row, first:].any() else 0
        widths.append(int(run))
    return int(np.median(widths)) if widths else 0


def _paper_colour(face_rgba: np.ndarray, opaque: np.ndarray) -> np.ndarray:
    """The most common colour of the face, coarsely binned: the paper the card is printed on."""
    pixels = face_rgba[..., :3][opaque] // 16
    keys = (pixels[:, 0].astype(np.int32) << 8) | (pixels[:, 1].astype(np.int32) << 4) | pixels[:, 2]
    mode = np.bincount(keys, minlength=4096).argmax()
    return (np.array([mode >> 8, (mode >> 4) & 15, mode & 15]) * 16 + 8).astype(np.int16)


def _index_at_origin(ink: np.ndarray) -> Box | None:
    """The rank-over-suit glyph stack nearest the top-left corner, or ``None``."""
    h, w = ink.shape
    win_w, win_h = int(_WINDOW_W * w), int(_WINDOW_H * h)
    glyphs = _glyphs(np.ascontiguousarray(ink[:win_h, :win_w]).astype(np.uint8), w, h)
    seeds = [g for g in glyphs if g[0] < 0.16 * w and g[1] < 0.16 * h]
    if not seeds:
        return None
    rank = min(seeds, key=lambda g: g[0] + g[1])
    stack = _grow(rank, glyphs, max_gap=0.05 * h)
    if stack[3] <= rank[3] + 0.2 * (rank[3] - rank[1]):
        # Nothing under the rank: the suit may hang from a rule printed past it (a frame's line, a
        # stem), one shape too big or too far for a glyph. Open the thin rules away and take the
        # glyph-sized part just under the rank.
        # (A taller window: the rule may run on past the usual one.) A stem may be thicker than a
        # rule where it meets the suit, so the window is opened three times, each wider.
        rule, tall = max(3, round(_RULE_WIDTH * h)), min(h, 2 * win_h)
        below_window = np.ascontiguousarray(ink[:tall, :win_w]).astype(np.uint8)
        opened_parts: list[tuple[int, Box]] = []  # (the opening's side, a part it leaves)
        for side in (rule | 1, (2 * rule) | 1, (3 * rule) | 1):
            opened = cv2.morphologyEx(below_window, cv2.MORPH_OPEN, np.ones((side, side), np.uint8))
            # The opening eroded the window's edges by `side`.
            opened_parts += [(side, g) for g in _glyphs(opened, w, h, margin=side)]
        # A wider opening also wears the suit's own thin tips away, so its gap may be that much wider.
        below = [(side, g) for side, g in opened_parts
                 if _is_below(g, stack, _SUIT_GAP * h + side - (rule | 1)) and g[1] >= stack[3]]
        rank_height = rank[3] - rank[1]
        if below:
            # The narrowest opening that shows a suit no taller than the rank (a narrower one may
            # leave a thick stem on it), else the narrowest that shows any.
            tops = {side: min((g for s, g in below if s == side), key=lambda g: g[1])
                    for side in {s for s, _ in below}}
            fits = [side for side, g in tops.items() if g[3] - g[1] <= _SUIT_HEIGHT * rank_height]
            side = min(fits or tops)
            suit = tops[side]
            # The opening may cut the suit itself in two (a spade's point from its body, where the
            # stem meets it), and a wider one may leave the body alone: while the part found is
            # less than half the rank's height, join a part that goes on from it, if the two are
            # no taller than the rank.
            for _, part in sorted(opened_parts, key=lambda part: part[1][1]):
                if suit[3] - suit[1] >= 0.5 * rank_height:
                    break
                joined = (min(suit[0], part[0]), suit[1], max(suit[2], part[2]), max(suit[3], part[3]))
                if part != suit and _is_below(part, suit, side) and joined[3] - joined[1] <= _SUIT_HEIGHT * rank_height:
                    suit = joined
            stack = (min(stack[0], suit[0]), stack[1], max(stack[2], suit[2]), suit[3])
    return stack


def _glyphs(window: np.ndarray, w: int, h: int, margin: int = 0) -> list[Box]:
    """The glyph-sized ink shapes of a corner window of a ``w``×``h`` face, clear of the window's far
    edges by more than ``margin`` (a shape the edge cuts is not whole)."""
    win_h, win_w = window.shape
    count, _, stats, _ = cv2.connectedComponentsWithStats(window, connectivity=8)
    return [(x, y, x + bw, y + bh) for x, y, bw, bh, _ in stats[1:]
            if x + bw < win_w - margin and y + bh < win_h - margin and bw < _GLYPH_W * w and bh < _GLYPH_H * h
            and bw * bh >= (0.015 * h) ** 2]


def _grow(rank: Box, glyphs: list[Box], max_gap: float) -> Box:
    """Add the glyphs printed beside the rank (the 0 of a 10), then those under it (the suit)."""
    remaining = [g for g in glyphs if g != rank]
    stack = rank
    grew = True
    while grew:
        grew = False
        for glyph in remaining:
            if _is_below(glyph, stack, max_gap) or _is_beside(glyph, stack, rank, max_gap):
                stack = (min(stack[0], glyph[0]), min(stack[1], glyph[1]),
                         max(stack[2], glyph[2]), max(stack[3], glyph[3]))
                remaining.remove(glyph)
                grew = True
                break
    return stack


def _is_below(glyph: Box, stack: Box, max_gap: float) -> bool:
    overlap = min(stack[2], glyph[2]) - max(stack[0], glyph[0])
    starts_below = 0 <= glyph[1] - stack[3] <= max_gap or stack[1] <= glyph[1] < stack[3]
    return starts_below and overlap >= 0.3 * min(stack[2] - stack[0], glyph[2] - glyph[0])


def _is_beside(glyph: Box, stack: Box, rank: Box, max_gap: float) -> bool:
    """A glyph just right of the rank and as tall as it: the next digit of a 10."""
    rank_height = rank[3] - rank[1]
    same_line = abs(glyph[1] - rank[1]) <= 0.2 * rank_height and abs(glyph[3] - rank[3]) <= 0.2 * rank_height
    return same_line and 0 <= glyph[0] - stack[2] <= max_gap
