"""The facing network's training data: index contexts of a ``python -m vision synth`` folder's scenes
with the direction each index's top points (:func:`facing_contexts`), their augmentation
(:func:`augment_facing`), and how often a :class:`~vision.reader.facing.FacingReader` gets the
direction right (:func:`facing_accuracy`). The network trains in :mod:`vision.model.index_training`.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np

from vision.reader.facing import FACING_WINDOW, FacingReader, direction_bin
from vision.reader.index_classifier import CROP, WINDOW, recolour, window_crops

#: The stored context around each index for training: three reading windows wide, so a crop turned
#: any way never reaches the context's edge.
FACING_CONTEXT = 96
FACING_CONTEXT_WINDOW = 3 * WINDOW
#: Indexes shorter than this (pixels) are left out of training and scoring: too few pixels to tell.
MIN_INDEX_HEIGHT = 8.0


def facing_contexts(scenes: Path, split: str = "train", limit: int | None = None,
                    min_height: float = MIN_INDEX_HEIGHT) -> tuple[np.ndarray, np.ndarray]:
    """Training contexts (n, FACING_CONTEXT, FACING_CONTEXT, 3) around every index at least half
    visible and ``min_height`` pixels tall in a dataset's scenes, and the unit direction (n, 2) its
    top points in the picture: the card's top (its first corner less its fourth) for an index in a
    top corner, the card's bottom for one in a bottom corner (printed the other way up)."""
    contexts, ups = [], []
    for image, boxes, directions in _labelled_pictures(scenes, split, limit, min_height):
        contexts.append(window_crops(image, boxes, FACING_CONTEXT, FACING_CONTEXT_WINDOW))
        ups.append(directions)
    if not contexts:
        return np.empty((0, FACING_CONTEXT, FACING_CONTEXT, 3), np.uint8), np.empty((0, 2))
    return np.concatenate(contexts), np.concatenate(ups)


def _labelled_pictures(scenes: Path, split: str, limit: int | None, min_height: float):
    """(picture, boxes (k, 4), directions (k, 2)) of each described scene of a split, in name order
    (the first ``limit``), that has an index :func:`labelled_directions` takes."""
    for path in sorted((Path(scenes) / "images" / split).glob("*.json"))[:limit]:
        boxes, directions = labelled_directions(json.loads(path.read_text()), min_height)
        image = cv2.imread(str(path.with_suffix(".jpg"))) if boxes else None
        if image is not None:
            yield image, np.array(boxes), np.array(directions)


def labelled_directions(truth: dict, min_height: float = MIN_INDEX_HEIGHT) -> tuple[list, list]:
    """The boxes of a scene's indexes at least half visible and ``min_height`` tall, and the unit
    direction each one's top points."""
    boxes, directions = [], []
    for card in truth["cards"]:
        if not card.get("corners") or not card.get("indexes"):
            continue
        corners = np.asarray(card["corners"], float)
        top = corners[0] - corners[3]
        top /= max(float(np.linalg.norm(top)), 1e-9)
        for index in card["indexes"]:
            polygon = np.asarray(index["polygon"], float)
            box = np.r_[polygon.min(axis=0), polygon.max(axis=0)]
            if index["visible"] < 0.5 or box[3] - box[1] < min_height:
                continue
            boxes.append(box)
            directions.append(top if index["corner"].startswith("top") else -top)
    return boxes, directions


def labelled_ups(truth: dict, boxes: np.ndarray) -> np.ndarray:
    """(n, 2) the labelled direction of each of a scene's ``boxes`` (xyxy) that is a labelled index's
    (within a pixel, as :func:`vision.evaluation.tables.detections_from_truth` gives them), zero for
    the rest: what a perfect facing network would read."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    ups = np.zeros((len(boxes), 2))
    for box, top in zip(*labelled_directions(truth, min_height=0)):
        gap = np.abs(boxes - box).max(axis=1)
        if len(gap) and gap.min() < 1:
            ups[gap.argmin()] = top
    return ups


def augment_facing(context: np.ndarray, up: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, int]:
    """A CROP×CROP view of one context turned any way (and moved and scaled like a detector's box),
    recoloured like the classifier's crops, with the class of the direction its index's top then points."""
    centre = FACING_CONTEXT / 2 + rng.uniform(-0.1, 0.1, 2) * FACING_CONTEXT / FACING_CONTEXT_WINDOW
    # context pixels per box side against the reader's crop pixels per box side
    zoom = (CROP / FACING_WINDOW) / (FACING_CONTEXT / FACING_CONTEXT_WINDOW) * rng.uniform(0.8, 1.2)
    matrix = cv2.getRotationMatrix2D(tuple(centre), rng.uniform(0, 360), zoom)
    matrix[:, 2] += CROP / 2 - centre
    crop = cv2.warpAffine(context, matrix, (CROP, CROP), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    return recolour(crop, rng), int(direction_bin(matrix[:, :2] @ up))


def facing_accuracy(reader: FacingReader, scenes: Path, split: str = "test", limit: int | None = 200,
                    within: tuple[int, ...] = (15, 45, 90)) -> dict[int, float]:
    """The share of a split's labelled indexes (as :func:`facing_contexts` takes them, read through the
    reader's window around their true boxes) whose direction the reader gives within each angle of
    ``within`` degrees of the truth; empty when the split has no labelled indexes."""
    errors = []
    for image, boxes, directions in _labelled_pictures(scenes, split, limit, MIN_INDEX_HEIGHT):
        found, _ = reader.facing(image, boxes)
        errors.append(np.degrees(np.arccos(np.clip((found * directions).sum(axis=1), -1, 1))))
    if not errors:
        return {}
    errors = np.concatenate(errors)
    return {deg: float((errors <= deg).mean()) for deg in within}
