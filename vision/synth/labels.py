"""Which parts of which cards the webcam sees, and the YOLO labels that follow.

Cards are drawn into an id map in the order they lie (later ones on top), then occluders; each
corner index's visible fraction is the share of its pixels that still belong to its card. An index
more than half hidden, or under :data:`MIN_INDEX_PX` tall, gets no box. The same code serves the
image writer and the labels-only path the tests use, so both label alike. :func:`labelled_images`
reads a written dataset's scenes back with their labels, for training and evaluation.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.reader.detections import Detections, LabelsError, read_yolo_labels

MIN_VISIBLE_FRACTION = 0.5
MIN_INDEX_PX = 3.0
_SUBPIXEL_BITS = 4
_OCCLUDER_ID = 32000


@dataclass(frozen=True)
class IndexView:
    """One corner index of one card as the image shows it."""

    corner: str
    polygon: np.ndarray  # (4, 2) image pixels
    visible: float
    labelled: bool

    def box(self, image_size: tuple[int, int]) -> tuple[float, float, float, float]:
        """The axis-aligned box of the polygon, clipped to the image (x0, y0, x1, y1)."""
        width, height = image_size
        x0, y0 = self.polygon.min(axis=0)
        x1, y1 = self.polygon.max(axis=0)
        return (max(0.0, x0), max(0.0, y0), min(float(width), x1), min(float(height), y1))


def id_map(
    image_size: tuple[int, int], card_quads: list[np.ndarray | None], occluder_polygons: list[np.ndarray]
) -> np.ndarray:
    """Which card (its position in ``card_quads``) each pixel shows; -1 for table, a large id for occluders."""
    width, height = image_size
    owners = np.full((height, width), -1, np.int16)
    for number, quad in enumerate(card_quads):
        if quad is not None:
            cv2.fillConvexPoly(owners, _fixed(quad), number, lineType=cv2.LINE_8, shift=_SUBPIXEL_BITS)
    for polygon in occluder_polygons:
        cv2.fillPoly(owners, [_fixed(polygon)], _OCCLUDER_ID, lineType=cv2.LINE_8, shift=_SUBPIXEL_BITS)
    return owners


def visible_fraction(owners: np.ndarray, polygon: np.ndarray, number: int) -> float:
    """Share of ``polygon``'s pixels (counted as if the image had no edges) that show card ``number``."""
    x0, y0 = np.floor(polygon.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(polygon.max(axis=0)).astype(int) + 2
    local = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(local, _fixed(polygon - (x0, y0)), 1, lineType=cv2.LINE_8, shift=_SUBPIXEL_BITS)
    total = int(local.sum())
    if total == 0:
        return 0.0
    height, width = owners.shape
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if cx0 >= cx1 or cy0 >= cy1:
        return 0.0
    inside = local[cy0 - y0:cy1 - y0, cx0 - x0:cx1 - x0].astype(bool)
    return float((owners[cy0:cy1, cx0:cx1][inside] == number).sum()) / total


def index_views(owners: np.ndarray, number: int, face_to_image: np.ndarray,
                index_boxes: dict[str, tuple[int, int, int, int]]) -> list[IndexView]:
    """Every measured corner index of card ``number``, projected, with its visibility and label decision."""
    views = []
    for corner, (x0, y0, x1, y1) in index_boxes.items():
        corners = np.array([[[x0, y0], [x1, y0], [x1, y1], [x0, y1]]], np.float64)
        polygon = cv2.perspectiveTransform(corners, face_to_image)[0]
        visible = visible_fraction(owners, polygon, number)
        side = min(np.ptp(polygon[:, 0]), np.ptp(polygon[:, 1]))
        views.append(
            IndexView(corner, polygon, visible, bool(visible >= MIN_VISIBLE_FRACTION and side >= MIN_INDEX_PX))
        )
    return views


def yolo_line(class_number: int, box: tuple[float, float, float, float], image_size: tuple[int, int]) -> str:
    width, height = image_size
    x0, y0, x1, y1 = box
    return (f"{class_number} {(x0 + x1) / 2 / width:.6f} {(y0 + y1) / 2 / height:.6f} "
            f"{(x1 - x0) / width:.6f} {(y1 - y0) / height:.6f}")


def _fixed(points: np.ndarray) -> np.ndarray:
    """Polygon vertices in OpenCV's fixed-point form, so fills keep sub-pixel positions."""
    return np.round(np.asarray(points) * (1 << _SUBPIXEL_BITS)).astype(np.int32)


def scene_paths(scenes: Path, split: str, limit: int | None = None) -> list[Path]:
    """The images of a split of a ``python -m vision synth`` folder, in name order (the first
    ``limit``); FileNotFoundError when the split has none."""
    paths = sorted((scenes / "images" / split).glob("*.jpg"))[:limit]
    if not paths:
        raise FileNotFoundError(f"no {split} scenes in {scenes / 'images' / split}: run python -m vision synth first")
    return paths


def labelled_image(scenes: Path, split: str, path: Path) -> tuple[Path, np.ndarray, Detections]:
    """(image path, BGR image, labelled index boxes) of one scene of the split; :class:`LabelsError`
    naming the file where the image or its labels cannot be read."""
    image = cv2.imread(str(path))
    if image is None:
        raise LabelsError(f"{path}: not an image OpenCV can read")
    return path, image, read_yolo_labels(scenes / "labels" / split / f"{path.stem}.txt", image.shape[1], image.shape[0])


def labelled_images(scenes: Path, split: str, limit: int | None = None):
    """(image path, BGR image, labelled index boxes) of a split of a ``python -m vision synth`` folder,
    in name order; FileNotFoundError when the split has no images."""
    for path in scene_paths(scenes, split, limit):
        yield labelled_image(scenes, split, path)
