"""Scoring the reader on labelled photographs: exact-card recall and precision, by index height.

A photo folder holds the photos and a ``labels.json`` mapping each photo's file name to its visible
corner indexes, ``[{"code": "10H", "box": [x0, y0, x1, y1]}, ...]`` in pixels. A card whose two
corners show has two entries; the entries of one code in one photo are one card (``"card"``, where
given, tells two copies of a code apart).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.bands import band_names, band_of, long_sides

#: A card read lies on a labelled index when the index's centre is this close to its box (pixels),
#: or within half the index's longer side where that is more.
NEAR_PX = 40.0


#: The ``cv2.rotate`` code that turns a picture clockwise by so many degrees (0: as it is).
TURNS = {0: None, 90: cv2.ROTATE_90_CLOCKWISE, 180: cv2.ROTATE_180, 270: cv2.ROTATE_90_COUNTERCLOCKWISE}


def turn_picture(picture: np.ndarray, degrees: int) -> np.ndarray:
    """The picture turned clockwise by ``degrees`` (one of :data:`TURNS`)."""
    _check_turn(degrees)
    return picture if TURNS[degrees] is None else cv2.rotate(picture, TURNS[degrees])


def _check_turn(degrees: int) -> None:
    if degrees not in TURNS:
        raise ValueError(f"a photo turns by 0, 90, 180 or 270 degrees, not {degrees}")


class LabelsFileError(ValueError):
    """A photo folder's labels.json that can't be used: the message names the file and the fault."""


@dataclass(frozen=True)
class LabelledCard:
    code: str
    boxes: np.ndarray  #: (n, 4) its visible indexes

    @property
    def height(self) -> float:
        """Its largest index's longer side, in pixels."""
        return float(long_sides(self.boxes).max())


@dataclass(frozen=True)
class LabelledPhoto:
    path: Path
    cards: tuple[LabelledCard, ...]

    def scaled(self, factor: float) -> LabelledPhoto:
        """The labels of this photo resized by ``factor``."""
        if factor == 1.0:
            return self
        return LabelledPhoto(self.path, tuple(LabelledCard(c.code, c.boxes * factor) for c in self.cards))

    def turned(self, degrees: int, width: int, height: int) -> LabelledPhoto:
        """The labels of this photo (``width`` × ``height`` pixels) with the picture turned clockwise
        by ``degrees`` (0, 90, 180 or 270) as :func:`turn_picture` turns it: a photo taken holding the
        phone another way."""
        _check_turn(degrees)
        turn = {0: lambda x, y: (x, y), 90: lambda x, y: (height - y, x),
                180: lambda x, y: (width - x, height - y), 270: lambda x, y: (y, width - x)}[degrees]

        def boxes(b: np.ndarray) -> np.ndarray:
            xs, ys = turn(b[:, [0, 2]], b[:, [1, 3]])
            return np.stack([xs.min(1), ys.min(1), xs.max(1), ys.max(1)], 1)

        return LabelledPhoto(self.path, tuple(LabelledCard(c.code, boxes(c.boxes)) for c in self.cards))


@dataclass
class PhotoScore:
    cards: int = 0
    read: int = 0
    readings: int = 0
    right: int = 0
    #: per labelled card: (its index height, read or not)
    by_card: list[tuple[float, bool]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.read / self.cards if self.cards else float("nan")

    @property
    def precision(self) -> float:
        return self.right / self.readings if self.readings else float("nan")

    @classmethod
    def total(cls, scores: list[PhotoScore]) -> PhotoScore:
        return cls(sum(s.cards for s in scores), sum(s.read for s in scores), sum(s.readings for s in scores),
                   sum(s.right for s in scores), [c for s in scores for c in s.by_card])

    def to_json(self) -> dict:
        return {"cards": self.cards, "read": self.read, "recall": round(self.recall, 4),
                "readings": self.readings, "precision": round(self.precision, 4)}


def labelled_photos(root: Path) -> list[LabelledPhoto]:
    """Every labelled photo in the folders under ``root`` (or in ``root`` itself), in name order."""
    photos = []
    for labels_file in sorted(Path(root).rglob("labels.json")):
        try:
            labels = json.loads(labels_file.read_text())
            for name, entries in sorted(labels.items()):
                photos.append(LabelledPhoto(labels_file.parent / name, _cards(entries)))
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise LabelsFileError(f"{labels_file}: not a photo labels file ({error})") from None
    return photos


def _cards(entries: list[dict]) -> tuple[LabelledCard, ...]:
    boxes: dict[tuple[str, object], list] = {}
    for entry in entries:
        boxes.setdefault((entry["code"], entry.get("card")), []).append([float(v) for v in entry["box"]])
    return tuple(LabelledCard(code, np.array(b, np.float64).reshape(-1, 4)) for (code, _), b in boxes.items())


def score_photo(photo: LabelledPhoto, read_cards) -> PhotoScore:
    """How the cards read (anything with ``code`` and ``box``: a card's box spans the indexes it was
    read from) match the photo's labelled cards: each labelled card is claimed by at most one card
    read of its code lying on one of its indexes (:func:`lies_on`), the most confident first; every
    other card read counts against precision."""
    read_cards = sorted(read_cards, key=lambda c: -getattr(c, "confidence", 1.0))
    claimed = [False] * len(photo.cards)
    right = 0
    for card in read_cards:
        for k, truth in enumerate(photo.cards):
            if not claimed[k] and truth.code == card.code and lies_on(card.box, truth.boxes):
                claimed[k] = True
                right += 1
                break
    return PhotoScore(len(photo.cards), sum(claimed), len(read_cards), right,
                      [(truth.height, hit) for truth, hit in zip(photo.cards, claimed)])


def lies_on(box, indexes: np.ndarray) -> bool:
    """Whether a box read lies on one of a card's labelled indexes: an index's centre within it, or
    within :data:`NEAR_PX` of it (half the index's longer side where that is more)."""
    x0, y0, x1, y1 = box
    centres = (indexes[:, :2] + indexes[:, 2:]) / 2
    dx = np.maximum(0.0, np.maximum(x0 - centres[:, 0], centres[:, 0] - x1))
    dy = np.maximum(0.0, np.maximum(y0 - centres[:, 1], centres[:, 1] - y1))
    reach = np.maximum(NEAR_PX, 0.5 * long_sides(indexes))
    return bool((np.hypot(dx, dy) <= reach).any())


def score_tables(scores: list[PhotoScore], milliseconds: list[float]) -> str:
    """Markdown: the photos' cards, read right, recall, readings, precision and median milliseconds a
    photo (``milliseconds``, each photo's reading time), then :func:`band_table`."""
    total = PhotoScore.total(scores)
    return "\n".join([
        "| cards | read right | recall | readings | precision | median ms |",
        "|---|---|---|---|---|---|",
        f"| {total.cards} | {total.read} | {total.recall:.3f} | {total.readings} | {total.precision:.3f} "
        f"| {statistics.median(milliseconds):.0f} |",
        "",
        band_table(scores),
    ])


def band_table(scores: list[PhotoScore]) -> str:
    """Markdown: recall of the labelled cards by band of index height (bands with no card left out)."""
    cards = PhotoScore.total(scores).by_card
    bands = band_of([height for height, _ in cards])
    rows = ["| index size | cards | recall |", "|---|---|---|"]
    for number, name in enumerate(band_names()):
        hits = [hit for (_, hit), band in zip(cards, bands) if band == number]
        if hits:
            rows.append(f"| {name} | {len(hits)} | {sum(hits) / len(hits):.3f} |")
    return "\n".join(rows)
