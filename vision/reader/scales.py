"""Which scales a frame is read at, so that its corner indexes come to the network at a size it reads.

The detector finds corner indexes well while their boxes' longer side is within :data:`BAND` in the
pixels it reads (its training scenes' indexes, and real photos: ``models/MODEL_CARD.md``,
"Reading at every size"), and misses most of them well above it. A camera close to the table, a 4K
webcam or a phone photo shows indexes far larger than that, so:

* a **still picture** (a photo, the frozen frame players score) is read as a pyramid
  (:func:`still_levels`): its default views (:func:`vision.reader.detector.input_widths_for`), then halved
  again and again until an index a quarter of the picture tall fits the band. Each level keeps the
  finds of the sizes it reads best (:func:`owned`), so near and far cards in one picture are each
  read at their own scale. The levels are read coarsest first, and finer ones only while a level
  shows finds smaller than its own band (:func:`needs_finer`): a photo of large cards costs a few
  small passes, not its full resolution.
* a **live frame** is read in one pass, at the scale that brings the median index of the last
  readings into the band (:func:`live_scale`), or at its default views while indexes are no larger
  than the band; mostly only the part of it the cards lie in
  (:class:`vision.reader.card_reader.LiveDetection`).
"""

from __future__ import annotations

import math

import numpy as np

from vision.reader.detections import Detections, iou

#: The longer side of an index box, in the pixels the network reads, that a pyramid level reads
#: best: one octave, so consecutive levels (a factor 2 apart) tile every size.
BAND = (24.0, 48.0)
#: Each level keeps finds this far beyond its band on either side, where the next level reads them
#: too; :func:`join_levels` keeps the surer of the two (``models/MODEL_CARD.md``, "Reading at every
#: size": more of the indexes near a band's edge read, a little less precisely).
OVERLAP = 1.25
#: The largest index a picture is read for: a quarter of its height (a card filling the frame).
LARGEST_INDEX_SHARE = 0.25
#: Finds of two levels overlapping this much (IoU) are one index: the more confident is kept.
LEVELS_IOU = 0.5


def long_sides(detections: Detections) -> np.ndarray:
    """Each find's longer side, in the pixels its boxes are given in."""
    xyxy = detections.xyxy
    return np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])


def still_levels(height: int, finest: float) -> list[float]:
    """The scales (frame to network) a still picture ``height`` pixels tall is read at, finest first:
    ``finest`` (its default views' scale), then halved until an index a quarter of the picture tall
    falls within :data:`BAND`."""
    levels = [finest]
    while LARGEST_INDEX_SHARE * height * levels[-1] > BAND[1]:
        levels.append(levels[-1] / 2)
    return levels


def owned(found: Detections, scale: float, finest: bool, coarsest: bool) -> np.ndarray:
    """Booleans: the finds (in frame pixels) that the level at ``scale`` keeps, those whose size there
    lies within :data:`BAND` widened by :data:`OVERLAP`; the finest level keeps every smaller find
    too, the coarsest every larger one."""
    size = long_sides(found) * scale
    return ((size >= BAND[0] / OVERLAP) | finest) & ((size < BAND[1] * OVERLAP) | coarsest)


def needs_finer(found: Detections, scale: float) -> bool:
    """Whether a finer level is worth reading after this one: it found nothing (everything may be too
    small for it), or something smaller than its band (a finer level reads those better)."""
    return not len(found) or bool((long_sides(found) * scale < BAND[0]).any())


def join_levels(levels: list[Detections]) -> Detections:
    """The finds each level owns, as one set: where two levels' finds overlap (:data:`LEVELS_IOU`),
    the more confident is kept. Most confident first."""
    found = Detections.merge(levels) if levels else Detections.empty()
    order = np.argsort(-found.confidence, kind="stable")
    found = found[order]
    keep = np.ones(len(found), bool)
    if len(found) > 1:
        overlap = iou(found.xyxy, found.xyxy)
        for i in range(len(found)):
            if keep[i]:
                later = np.arange(len(found)) > i
                keep[later & (overlap[i] >= LEVELS_IOU)] = False
    return found[keep]


def live_scale(median_long_side: float | None, default_scale: float) -> float | None:
    """The one scale a live frame is read at, given the median longer side (frame pixels) of the
    indexes the last readings found: ``None`` (its default views) while that median read at
    ``default_scale`` is within :data:`BAND` or unknown; else ``default_scale`` halved until it is."""
    if median_long_side is None or median_long_side * default_scale < BAND[1]:
        return None
    halvings = math.ceil(math.log2(median_long_side * default_scale / BAND[1]) + 1e-9)
    return default_scale / 2 ** max(1, halvings)
