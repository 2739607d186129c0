"""Physical cards from corner-index detections: the indexes of one card become one card.

A card shows its index in two corners (top left and bottom right, the second turned half round) or
in all four. Read in the team's upright frame (:class:`~vision.team_areas.TableFrame`, team B's side
turned half round), the top-left index of a card lies up and left of its bottom-right one, at the
card's index diagonal. The diagonal is measured on the frame itself, in units of index size, from
same-card pairs (so it fits the deck and the camera), with a prior from the decks when there are none.

Two detections of one class are one card when they lie at one of the card's corner-to-corner
offsets (diagonal, across the top, down the side) and no other card's index lies between them: in
a column of cards the next card covers the previous one's lower corners, so two identical cards of
one meld (one from each deck) always have another card between them and stay two cards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.detections import Detections
from vision.team_areas import TableFrame

#: Index diagonal (top-left index centre to bottom-right index centre) in index sizes, when a frame
#: shows no card with both indexes; the median over the decks' measured indexes.
PRIOR_DIAGONAL = np.array([3.9, 5.0])
#: A pair of indexes matches a corner-to-corner offset when its length is within this share of it.
LENGTH_TOLERANCE = 0.28
#: Two indexes of one card never have another card's index between them, within this many index sizes.
BETWEEN_MARGIN = 0.25


@dataclass(frozen=True)
class SeenCard:
    """One physical card, from one to four of its corner indexes."""

    code: str
    detections: tuple[int, ...]  #: positions in the frame's :class:`Detections`
    confidence: float
    box: tuple[float, float, float, float]  #: union of its index boxes, image pixels
    side: str  #: the team side of the frame it lies on ("A" or "B")
    top_left: tuple[float, float]  #: its top-left index in the side's upright frame
    centre: tuple[float, float]  #: estimated card centre in the side's upright frame


@dataclass(frozen=True)
class CardsSeen:
    """Every physical card of one frame, with the index diagonal the frame was read with."""

    cards: tuple[SeenCard, ...]
    diagonal: tuple[float, float]  #: typical top-left to bottom-right index offset, upright frame units

    @property
    def card_size(self) -> tuple[float, float]:
        """Typical card width and height in upright frame units (the indexes sit inside the corners)."""
        return self.diagonal[0] / 0.78, self.diagonal[1] / 0.72


def see_cards(detections: Detections, frame: TableFrame) -> CardsSeen:
    if not len(detections):
        return CardsSeen((), tuple(PRIOR_DIAGONAL * 10.0))
    sides = frame.sides(detections.centers)
    upright = frame.to_frame(detections.centers)
    upright[sides == "B"] *= -1  # team B's cards stand upright once its side is turned half round
    sizes = _index_sizes(detections, frame)
    diagonal = _diagonal(detections.class_id, upright, sizes, sides)
    groups = _pair(detections.class_id, upright, sizes, sides, diagonal)
    cards = tuple(_card(detections, members, upright, sizes, sides, diagonal) for members in groups)
    return CardsSeen(cards, tuple(diagonal * float(np.median(sizes))))


def _index_sizes(detections: Detections, frame: TableFrame) -> np.ndarray:
    """Each index box's size in the frame: the square root of its area once mapped there."""
    x0, y0, x1, y1 = detections.xyxy.T.astype(np.float64)
    quads = np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1), np.stack([x0, y1], 1)], 1)
    mapped = frame.to_frame(quads.reshape(-1, 2)).reshape(-1, 4, 2)
    x, y = mapped[..., 0], mapped[..., 1]
    area = 0.5 * np.abs((x * np.roll(y, -1, 1) - np.roll(x, -1, 1) * y).sum(1))
    return np.sqrt(np.maximum(area, 1e-9))


def _candidate_pairs(class_id: np.ndarray, sides: np.ndarray):
    """(i, j) for every two detections of one class on one side."""
    for cls in np.unique(class_id):
        members = np.flatnonzero(class_id == cls)
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                i, j = members[a], members[b]
                if sides[i] == sides[j]:
                    yield i, j


def _diagonal(class_id, upright, sizes, sides) -> np.ndarray:
    """The median index diagonal, in index sizes, of pairs that can only be one card's two indexes."""
    found = []
    for i, j in _candidate_pairs(class_id, sides):
        first, second = (i, j) if upright[i].sum() <= upright[j].sum() else (j, i)
        offset = (upright[second] - upright[first]) / ((sizes[i] + sizes[j]) / 2)
        angle = np.degrees(np.arctan2(offset[1], offset[0]))
        if 35 <= angle <= 65 and 0.55 <= np.hypot(*offset) / np.hypot(*PRIOR_DIAGONAL) <= 1.8 \
                and not _anything_between(first, second, upright, sizes, class_id):
            found.append(offset)
    return np.median(found, axis=0) if found else PRIOR_DIAGONAL


def _pair(class_id, upright, sizes, sides, diagonal) -> list[list[int]]:
    """Detections grouped into cards, best-fitting pairs first (union-find)."""
    lengths = (np.hypot(*diagonal), diagonal[0], diagonal[1])
    scored = []
    for i, j in _candidate_pairs(class_id, sides):
        scale = (sizes[i] + sizes[j]) / 2
        length = np.hypot(*(upright[j] - upright[i])) / scale
        misfit = min(abs(length - expected) / expected for expected in lengths)
        if misfit <= LENGTH_TOLERANCE:
            scored.append((misfit, i, j))
    parent = list(range(len(class_id)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    members = {k: [k] for k in range(len(class_id))}
    for _, i, j in sorted(scored):
        ri, rj = root(i), root(j)
        if ri == rj or len(members[ri]) + len(members[rj]) > 4:
            continue
        if _anything_between(i, j, upright, sizes, class_id):
            continue
        parent[rj] = ri
        members[ri] += members.pop(rj)
    return list(members.values())


def _anything_between(i: int, j: int, upright, sizes, class_id) -> bool:
    """Whether an index of another card lies in the rectangle spanned by indexes ``i`` and ``j``."""
    margin = BETWEEN_MARGIN * (sizes[i] + sizes[j]) / 2
    low = np.minimum(upright[i], upright[j]) - margin
    high = np.maximum(upright[i], upright[j]) + margin
    inside = np.all((upright >= low) & (upright <= high), axis=1)
    inside[[i, j]] = False
    # The same card's other corners (four-index decks) lie at the rectangle's corners: not in the way.
    return bool(np.any(inside & (class_id != class_id[i])))


def _card(detections: Detections, members: list[int], upright, sizes, sides, diagonal) -> SeenCard:
    members = sorted(members)
    points = upright[members]
    scale = float(np.mean(sizes[members]))
    top_left = points.min(axis=0)
    # One index alone is taken as the top-left one: lower corners are the ones later cards cover.
    centre = top_left + diagonal * scale / 2
    confidence = 1.0 - float(np.prod(1.0 - detections.confidence[members]))
    boxes = detections.xyxy[members]
    box = (float(boxes[:, 0].min()), float(boxes[:, 1].min()), float(boxes[:, 2].max()), float(boxes[:, 3].max()))
    return SeenCard(detections.codes[members[0]], tuple(int(m) for m in members), round(confidence, 4), box,
                    str(sides[members[0]]), tuple(map(float, top_left)), tuple(map(float, centre)))
