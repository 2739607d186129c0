"""How sharp the camera shows the card corners: the app asks players to focus when it is blurred.

Blur costs the reader more than any other fault of the synthetic webcam (``bench/camera_faults.py``;
models/MODEL_CARD.md), and a player can mend it (focus
the camera, steady it, light the table better), where the reader cannot. So the reader measures how
steep the ink's edges are in each corner index it finds, and the app, while the corners it read
lately are soft, says so (:func:`companion.app.reader.focus_advice`).

The measure (:func:`index_sharpness`) is the corner's steepest brightness steps (the 95th percentile
of the gradient's size, in grey levels a pixel) over its contrast (the 95th less the 5th percentile
of its brightness), in the frame's own pixels: an ink edge drawn across one pixel scores about 0.5,
and less the wider a blur spreads it (a drawn 7 about 20 px tall: 0.51 sharp, 0.38 / 0.25 / 0.18
blurred with σ 1 / 2 / 3 px), whatever the corner's size or the light. It takes a few
milliseconds for a 1080p table's corners.
"""

from __future__ import annotations

import cv2
import numpy as np

#: The square each corner is measured in, this many times its box's longer side (the classifier's
#: narrower window, :data:`vision.reader.index_classifier.READ_WINDOWS`).
WINDOW = 1.15
#: A corner with less contrast than this (grey levels) has too little ink to measure: not judged.
MIN_CONTRAST = 40.0
#: A corner smaller than this (pixels, its box's longer side) is not judged: too few pixels.
MIN_SIDE_PX = 6.0
#: Corners whose median sharpness is under this look blurred. Sharp synthetic tables score about
#: 0.5–0.66, blurred ones 0.28–0.52, noise and JPEG not passing for sharpness; 0.40 flags most
#: blurred tables and about 1 % of the others. The lower of the good bounds is taken, because a real
#: webcam's pictures in focus are softer than these renders, and the advice should not nag a camera
#: that cannot do better; it is not yet measured on a real camera (docs/experiments.md, "The camera").
BLURRED_BELOW = 0.40


def index_sharpness(frame_bgr: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(n,) how sharp each box's corner index is (see the module's docstring); NaN where it can't be
    judged (too small, too faint, or outside the frame)."""
    boxes = np.asarray(boxes, dtype=np.float32).reshape(-1, 4)
    sharpness = np.full(len(boxes), np.nan, dtype=np.float32)
    if not len(boxes):
        return sharpness
    height, width = frame_bgr.shape[:2]
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        side = max(x2 - x1, y2 - y1)
        if side < MIN_SIDE_PX:
            continue
        half = side * WINDOW / 2
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        left, top = max(int(cx - half), 0), max(int(cy - half), 0)
        right, bottom = min(int(np.ceil(cx + half)), width), min(int(np.ceil(cy + half)), height)
        if right - left < 3 or bottom - top < 3:
            continue
        crop = cv2.cvtColor(frame_bgr[top:bottom, left:right], cv2.COLOR_BGR2GRAY).astype(np.float32)
        low, high = percentiles(crop, (5, 95))
        if high - low < MIN_CONTRAST:
            continue
        dy, dx = np.gradient(crop)
        sharpness[i] = percentiles(np.hypot(dx, dy), (95,))[0] / (high - low)
    return sharpness


def percentiles(values: np.ndarray, percents: tuple[float, ...]) -> list[float]:
    """The values' percentiles, interpolated linearly between the sorted values (numpy's default
    method, to a few units in the last place), at a sixth of ``np.percentile``'s cost on a corner's
    few hundred pixels: a 1080p table's corners are judged every live frame."""
    ordered = np.sort(values, axis=None)
    last = len(ordered) - 1
    found = []
    for percent in percents:
        place = min(max(percent / 100 * last, 0.0), float(last))
        below = int(place)
        low, high = float(ordered[below]), float(ordered[min(below + 1, last)])
        found.append(low + (high - low) * (place - below))
    return found
