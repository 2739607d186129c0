"""Corner indexes drawn straight into classifier crops, in every typeface the machine has.

The scenes teach the classifier the indexes of the decks they hold (55 designs); a held-out deck's
index is another typeface, weight, size and spacing. This draws an index the way a deck prints one,
a rank over its suit (now and then beside it), from the installed typefaces, at random sizes,
stretch, stroke weight, inks and paper, with the card's corner, a neighbouring card and the table
round it, then blurs and shrinks it to a camera's few pixels.

``run.sh`` installs Debian's DejaVu, URW base35, Liberation and FreeFont families and 57 more font
packages for these crops: 581 files with every rank's characters, 115 of them with the suit
symbols, counting weights and italics. Each new set of typefaces lifted the held-out decks' mAP50;
suits drawn from their parts, the scenes' blur and TeX's typefaces, tried together, did not, and
were dropped (commit 8224008 holds that code; docs/experiments.md, "The classifier").

Each sample is a context crop framed exactly as :func:`vision.model.index_crops.scene_crops` frames a
labelled index (a square :data:`~vision.reader.index_classifier.WINDOW` × 2 times the index box's longer
side, centred on the box), so both feed the same training loop and augmentation.
"""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.reader.classes import CLASS_NAMES
from vision.reader.index_classifier import CONTEXT, WINDOW

FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts/opentype"))
SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
#: The share of drawn jokers whose index is a star (:func:`_star_ink`) rather than letters.
JOKER_STAR_SHARE = 0.5
#: What the drawing makes, for ``--crops-cache``: 2 since jokers are drawn with stars too; 1 before.
DRAWING = 2
#: Drawing scale: the index box's longer side is about this many pixels before it is shrunk.
DRAW_SIDE = 96
#: The camera's size of the index box's longer side, in pixels (the scenes' 5th to 95th percentile
#: of index heights is 4.4 to 28 px).
SMALLEST, LARGEST = 5.0, 34.0


@functools.cache
def font_files() -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(typefaces with every rank's characters, typefaces that also have the four suit symbols)."""
    from fontTools.ttLib import TTFont

    ranks, suits = [], []
    for path in sorted(p for folder in FONT_DIRS if folder.is_dir() for p in folder.rglob("*")
                       if p.suffix.lower() in (".ttf", ".otf")):
        try:
            cmap = TTFont(path, lazy=True).getBestCmap() or {}
        except Exception:  # noqa: BLE001 - a font fontTools cannot read is simply not used
            continue
        if all(ord(c) in cmap for c in "0123456789JQKAOR"):
            ranks.append(path)
            if all(ord(c) in cmap for c in SUIT_GLYPHS.values()):
                suits.append(path)
    return tuple(ranks), tuple(suits)


@functools.cache
def _font(path: Path, size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(path), size)


def _ink(text: str, path: Path, size: int, stretch: float) -> np.ndarray:
    """The text's ink as a float mask cropped to its bounding box, stretched sideways."""
    font = _font(path, size)
    left, top, right, bottom = font.getbbox(text)
    canvas = Image.new("L", (right - left + 4, bottom - top + 4), 0)
    ImageDraw.Draw(canvas).text((2 - left, 2 - top), text, font=font, fill=255)
    mask = np.asarray(canvas, dtype=np.float32) / 255
    ys, xs = np.nonzero(mask > 0.2)
    if not len(xs):
        return np.ones((size, max(1, size // 2)), np.float32)
    mask = mask[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]
    return cv2.resize(mask, (max(1, round(mask.shape[1] * stretch)), mask.shape[0]), interpolation=cv2.INTER_AREA)


def _lines(card: str, rng: np.random.Generator, rank_font: Path, suit_font: Path) -> list[np.ndarray]:
    """Ink masks of the index's parts, top to bottom: rank and suit, or a joker's letters."""
    size = int(DRAW_SIDE * rng.uniform(0.5, 0.7))
    stretch = rng.uniform(0.7, 1.25)
    if card == "JK":
        if rng.random() < JOKER_STAR_SHARE:
            return [_star_ink(size, rng)]
        letters = "JOKER" if rng.random() < 0.8 else "JOKER"[: rng.integers(3, 5)]
        return [_ink(letter, rank_font, size // 2, stretch) for letter in letters]
    rank = card[:-1]
    rank_ink = _ink(rank, rank_font, size, stretch * (rng.uniform(0.6, 0.9) if rank == "10" else 1.0))
    suit_ink = _ink(SUIT_GLYPHS[card[-1]], suit_font, int(size * rng.uniform(0.55, 1.15)), rng.uniform(0.85, 1.15))
    return [rank_ink, suit_ink]


def _star_ink(size: int, rng: np.random.Generator) -> np.ndarray:
    """A joker's star as an ink mask about ``size`` pixels across (:func:`star_mask`): five points,
    plain, ringed or knocked out of a disc, as five training decks' jokers print theirs
    (gnome-anglo_modern, -gnomangelo, -neoclassical, -orell and -tigullio), and also four, six or eight
    points or an outline, which none of them prints (the held-out gnome-plastic's joker is a
    four-pointed star knocked out of a disc)."""
    points = int(rng.choice([4, 5, 6, 8], p=[0.25, 0.55, 0.1, 0.1]))
    inner = rng.uniform(0.25, 0.45) if points == 4 else rng.uniform(0.3, 0.55)
    style = str(rng.choice(STAR_STYLES, p=[0.4, 0.1, 0.3, 0.2]))
    return star_mask(size, points, inner, style, turn=rng.uniform(-10, 10), ring=rng.uniform(0.6, 0.8),
                     stroke=rng.uniform(0.06, 0.12))


#: How a joker's star is inked: plain, its outline, ringed by a circle, or left as paper in a disc.
STAR_STYLES = ("plain", "outline", "ringed", "knocked out")


def star_mask(size: int, points: int, inner: float, style: str, turn: float = 0.0, ring: float = 0.7,
              stroke: float = 0.08) -> np.ndarray:
    """A star of ``points`` points (inner radius ``inner`` times the outer), one point upwards give
    or take ``turn`` degrees, as a float ink mask cropped to its ink, ``size`` pixels across; in a
    ringed or knocked-out style the star is ``ring`` times the circle's size, and lines are
    ``stroke`` times the radius thick."""
    scale = 8  # drawn 8× and shrunk, for smooth edges
    radius = size * scale / 2
    star_radius = radius * (ring if style in ("ringed", "knocked out") else 1.0)
    angles = np.radians(turn) - np.pi / 2 + np.arange(2 * points) * np.pi / points
    radii = np.where(np.arange(2 * points) % 2 == 0, star_radius, star_radius * inner)
    centre = radius + scale
    star = [np.round(np.stack([centre + radii * np.cos(angles), centre + radii * np.sin(angles)], axis=1)
                     ).astype(np.int32)]
    canvas = np.zeros((int(2 * centre), int(2 * centre)), np.uint8)
    line = max(scale, int(radius * stroke))
    if style == "knocked out":
        cv2.circle(canvas, (int(centre), int(centre)), int(radius), 255, -1)
        cv2.fillPoly(canvas, star, 0)
    elif style == "outline":
        cv2.polylines(canvas, star, True, 255, line)
    else:
        cv2.fillPoly(canvas, star, 255)
        if style == "ringed":
            cv2.circle(canvas, (int(centre), int(centre)), int(radius - line / 2), 255, line)
    mask = cv2.resize(canvas, (canvas.shape[1] // scale, canvas.shape[0] // scale),
                      interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    ys, xs = np.nonzero(mask > 0.2)
    return mask[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1]


def _layout(parts: list[np.ndarray], rng: np.random.Generator, beside: bool) -> np.ndarray:
    """The parts one after another, down (centred across) or side by side (mostly centred), as one
    ink mask."""
    along = 1 if beside else 0  # the axis the parts follow each other on
    across = 1 - along
    gap = rng.uniform(0.05, 0.35) * parts[0].shape[along]
    shape = [0, 0]
    shape[across] = max(p.shape[across] for p in parts)
    shape[along] = int(sum(p.shape[along] for p in parts) + gap * (len(parts) - 1))
    mask, offset = np.zeros(shape, np.float32), 0.0
    for part in parts:
        origin = [0, 0]
        origin[along] = int(offset)
        origin[across] = (shape[across] - part.shape[across]) // 2 if not beside or rng.random() < 0.7 else 0
        region = mask[origin[0]: origin[0] + part.shape[0], origin[1]: origin[1] + part.shape[1]]
        np.maximum(region, part, out=region)
        offset += part.shape[along] + gap
    return mask


def _colour(rng: np.random.Generator, low: float, high: float) -> np.ndarray:
    return rng.uniform(low, high, 3).astype(np.float32)


def _turn(rng: np.random.Generator) -> float:
    """Degrees the card lies turned: upright or upside down (the far team's cards, as the camera sees
    them) give or take a fan's spread, or any angle."""
    pick = rng.random()
    if pick < 0.35:
        return float(rng.uniform(-25, 25))
    if pick < 0.7:
        return float(180 + rng.uniform(-25, 25))
    return float(rng.uniform(0, 360))


def draw_index(card: str, rng: np.random.Generator) -> np.ndarray:
    """One (CONTEXT, CONTEXT, 3) uint8 BGR context crop of ``card``'s corner index (a class name)."""
    rank_fonts, suit_fonts = font_files()
    rank_font = rank_fonts[rng.integers(len(rank_fonts))]
    suit_font = suit_fonts[rng.integers(len(suit_fonts))] if rng.random() < 0.6 else (
        rank_font if rank_font in suit_fonts else suit_fonts[rng.integers(len(suit_fonts))])
    ink = _layout(_lines(card, rng, rank_font, suit_font), rng, beside=card != "JK" and rng.random() < 0.1)
    if rng.random() < 0.3:  # stroke weight other than the typeface's
        kernel = np.ones((3, 3), np.uint8)
        ink = (cv2.dilate if rng.random() < 0.5 else cv2.erode)(ink, kernel, iterations=int(rng.integers(1, 3)))
    size = int(np.ceil(2 * WINDOW * np.hypot(*ink.shape))) + 2  # room for the index at any angle
    # Paper, the card's corner up and left of the index, the table beyond it.
    paper = _colour(rng, 0.82, 1.0)
    paper[:] = paper.mean() + (paper - paper.mean()) * 0.3
    table = _colour(rng, 0.05, 0.7)
    image = np.empty((size, size, 3), np.float32)
    image[:] = table
    top = (size - ink.shape[0]) / 2
    left = (size - ink.shape[1]) / 2
    edge_x = left - rng.uniform(0.15, 1.0) * ink.shape[1]
    edge_y = top - rng.uniform(0.05, 0.6) * ink.shape[0]
    corner = int(rng.uniform(0.1, 0.6) * ink.shape[1])
    card_mask = np.zeros((size, size), np.uint8)
    cv2.rectangle(card_mask, (int(edge_x) + corner, int(edge_y)), (size * 3, size * 3), 255, -1)
    cv2.rectangle(card_mask, (int(edge_x), int(edge_y) + corner), (size * 3, size * 3), 255, -1)
    cv2.circle(card_mask, (int(edge_x) + corner, int(edge_y) + corner), corner, 255, -1)
    image[card_mask > 0] = paper
    if rng.random() < 0.6:  # the card's edge line
        cv2.rectangle(image, (int(edge_x), int(edge_y)), (size * 3, size * 3), _colour(rng, 0.1, 0.7).tolist(),
                      int(rng.integers(1, 3)), lineType=cv2.LINE_AA)
    red = rng.random() < 0.5 if card == "JK" else card[-1] in "HD"
    if red:
        colour = np.array([rng.uniform(0, 0.25), rng.uniform(0, 0.2), rng.uniform(0.55, 0.95)], np.float32)
    else:
        colour = _colour(rng, 0.0, 0.25)
    x0, y0 = int(left), int(top)
    region = image[y0: y0 + ink.shape[0], x0: x0 + ink.shape[1]]
    region[:] = region * (1 - ink[..., None]) + colour * ink[..., None]
    if rng.random() < 0.35:  # the next card of a meld, over the far side of this one
        cover = np.zeros((size, size), np.uint8)
        far = int(left + ink.shape[1] * rng.uniform(1.3, 2.0))
        cv2.rectangle(cover, (far, -size), (size * 3, size * 3), 255, -1)
        image[cover > 0] = _colour(rng, 0.8, 1.0)
        cv2.line(image, (far, 0), (far, size), _colour(rng, 0.2, 0.7).tolist(), 1, lineType=cv2.LINE_AA)
    # The card's turn on the table, then the context framed as a label frames it: around the turned
    # index's upright box, 2 × WINDOW times its longer side.
    centre = (left + ink.shape[1] / 2, top + ink.shape[0] / 2)
    angle = _turn(rng)
    image = cv2.warpAffine(image, cv2.getRotationMatrix2D(centre, angle, 1.0), (size, size),
                           flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    cos, sin = abs(np.cos(np.radians(angle))), abs(np.sin(np.radians(angle)))
    height, width = ink.shape
    side = 2 * WINDOW * max(width * cos + height * sin, width * sin + height * cos)
    image = cv2.getRectSubPix(image, (int(side), int(side)), centre)
    # The camera: shrink to a few pixels, blur, noise, compress; then up to the stored context size.
    camera = int(np.clip(2 * WINDOW * np.exp(rng.uniform(np.log(SMALLEST), np.log(LARGEST))), 12, int(side)))
    image = cv2.resize(image * 255, (camera, camera), interpolation=cv2.INTER_AREA)
    if rng.random() < 0.4:
        image = cv2.GaussianBlur(image, (0, 0), rng.uniform(0.3, 1.0))
    image = np.clip(image * rng.uniform(0.6, 1.2) + rng.normal(0, rng.uniform(1, 6), image.shape), 0, 255)
    image = image.astype(np.uint8)
    if rng.random() < 0.5:
        quality = int(rng.integers(35, 90))
        image = cv2.imdecode(cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR)
    return cv2.resize(image, (CONTEXT, CONTEXT), interpolation=cv2.INTER_LINEAR)


def drawn_contexts(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``count`` drawn index contexts (n, CONTEXT, CONTEXT, 3) and their class ids, classes in turn."""
    rng = np.random.default_rng(seed)
    labels = np.arange(count) % len(CLASS_NAMES)
    rng.shuffle(labels)
    contexts = np.stack([draw_index(CLASS_NAMES[label], rng) for label in labels]) if count else (
        np.empty((0, CONTEXT, CONTEXT, 3), np.uint8))
    return contexts, labels.astype(np.int64)
