"""Bands of corner-index size that the reader is scored in: how large the camera shows the indexes
decides how many it can read, so one figure for all sizes hides what a closer camera would do."""

from __future__ import annotations

import math

import numpy as np

#: Index sizes (the longer side of an index's box, in the picture's pixels) the scores are given by.
HEIGHT_BANDS = (0, 8, 16, 32, 64, 128, math.inf)


def band_names() -> list[str]:
    return [band_name(low, high) for low, high in zip(HEIGHT_BANDS, HEIGHT_BANDS[1:])]


def band_name(low: float, high: float) -> str:
    if math.isinf(high):
        return f"≥ {low:g} px"
    return f"< {high:g} px" if low == 0 else f"{low:g}–{high:g} px"


def band_of(sizes: np.ndarray) -> np.ndarray:
    """The band number (into :func:`band_names`) of each size."""
    return np.searchsorted(np.asarray(HEIGHT_BANDS[1:-1]), np.asarray(sizes, np.float64), side="right")


def long_sides(xyxy: np.ndarray) -> np.ndarray:
    xyxy = np.asarray(xyxy, np.float64).reshape(-1, 4)
    return np.maximum(xyxy[:, 2] - xyxy[:, 0], xyxy[:, 3] - xyxy[:, 1])
