"""One value for what the detector found in a frame, passed through every stage.

Like Roboflow supervision's ``Detections``: a dataclass of numpy arrays, validated on creation, with
``from_*`` constructors, :meth:`Detections.empty`, :meth:`Detections.merge` and numpy-style indexing::

    confident = detections[detections.confidence > 0.5]

No stage reaches back into a model's own result objects: backends convert to this value at once.
Boxes are corner-index boxes in image pixels, ``xyxy`` = (x1, y1, x2, y2); ``class_id`` indexes
:data:`vision.reader.classes.CLASS_NAMES`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .classes import CLASS_NAMES


@dataclass
class Detections:
    xyxy: np.ndarray  #: (n, 4) float32, image pixels
    confidence: np.ndarray  #: (n,) float32 in [0, 1]
    class_id: np.ndarray  #: (n,) int64 into CLASS_NAMES
    #: (n, 2) which way each index's top points in the image, a unit vector (zero where not known):
    #: the facing network's (:mod:`vision.reader.facing`); ``None`` when it did not run
    up: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4)
        self.confidence = np.asarray(self.confidence, dtype=np.float32).reshape(-1)
        self.class_id = np.asarray(self.class_id, dtype=np.int64).reshape(-1)
        n = len(self.xyxy)
        if len(self.confidence) != n or len(self.class_id) != n:
            raise ValueError(
                f"Detections: {n} boxes but {len(self.confidence)} confidences and {len(self.class_id)} class ids"
            )
        if self.up is not None:
            self.up = np.asarray(self.up, dtype=np.float32).reshape(-1, 2)
            if len(self.up) != n:
                raise ValueError(f"Detections: {n} boxes but {len(self.up)} directions")
        if n and (self.class_id.min() < 0 or self.class_id.max() >= len(CLASS_NAMES)):
            raise ValueError(f"Detections: class ids must lie in 0..{len(CLASS_NAMES) - 1}")

    # ------------------------------------------------------------------------- constructors
    @classmethod
    def empty(cls) -> Detections:
        return cls(np.zeros((0, 4)), np.zeros(0), np.zeros(0))

    @classmethod
    def merge(cls, parts: Iterable[Detections]) -> Detections:
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        return cls(
            np.concatenate([p.xyxy for p in parts]),
            np.concatenate([p.confidence for p in parts]),
            np.concatenate([p.class_id for p in parts]),
        )

    @classmethod
    def from_ultralytics(cls, result) -> Detections:
        """From one ``ultralytics`` ``Results`` (its ``boxes``), on CPU, as numpy."""
        boxes = result.boxes
        as_numpy = lambda t: t.cpu().numpy() if hasattr(t, "cpu") else np.asarray(t)  # noqa: E731
        return cls(as_numpy(boxes.xyxy), as_numpy(boxes.conf), as_numpy(boxes.cls).astype(np.int64))

    @classmethod
    def from_yolo_labels(cls, lines: Sequence[str], width: int, height: int) -> Detections:
        """From YOLO label lines ``class cx cy w h`` (normalised), as ground truth with confidence 1;
        a ValueError naming the first line that is not one."""
        rows = np.array([_yolo_row(line, number) for number, line in enumerate(lines, 1) if line.strip()],
                        dtype=np.float64).reshape(-1, 5)
        if not len(rows):
            return cls.empty()
        cx, cy, w, h = rows[:, 1] * width, rows[:, 2] * height, rows[:, 3] * width, rows[:, 4] * height
        xyxy = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
        return cls(xyxy, np.ones(len(rows)), rows[:, 0].astype(np.int64))

    # ------------------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return len(self.xyxy)

    def __getitem__(self, index) -> Detections:
        if isinstance(index, (int, np.integer)):
            index = [index]
        return Detections(self.xyxy[index], self.confidence[index], self.class_id[index],
                          None if self.up is None else self.up[index])

    @property
    def codes(self) -> list[str]:
        """Card codes (``"KH"``, ``"JK"``) of the detections, in order."""
        return [CLASS_NAMES[i] for i in self.class_id]

    @property
    def centers(self) -> np.ndarray:
        return np.stack([(self.xyxy[:, 0] + self.xyxy[:, 2]) / 2, (self.xyxy[:, 1] + self.xyxy[:, 3]) / 2], axis=1)

    @property
    def sizes(self) -> np.ndarray:
        """(n, 2) widths and heights."""
        return np.stack([self.xyxy[:, 2] - self.xyxy[:, 0], self.xyxy[:, 3] - self.xyxy[:, 1]], axis=1)


class LabelsError(ValueError):
    """A labelled scene that cannot be read: its YOLO label file, its description or its picture (one
    line naming the file, and the line where it tells)."""


def read_yolo_labels(path: Path, width: int, height: int) -> Detections:
    """The boxes of a YOLO label file (:meth:`Detections.from_yolo_labels`); :class:`LabelsError`
    naming the file and line where it is not one, ``OSError`` where it cannot be read."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError:
        raise LabelsError(f"{path}: not a YOLO label file (not UTF-8 text)") from None
    try:
        return Detections.from_yolo_labels(lines, width, height)
    except ValueError as error:
        raise LabelsError(f"{path}: {error}") from None


def _yolo_row(line: str, number: int) -> list[float]:
    """One YOLO label line's ``class cx cy w h``, or a ValueError naming the line."""
    fields = line.split()[:5]
    try:
        row = [float(field) for field in fields]
    except ValueError:
        row = []
    if len(row) != 5 or not np.isfinite(row).all():
        raise ValueError(f"line {number}: not a YOLO label 'class cx cy w h' ({line.strip()[:40]!r})")
    if not row[0].is_integer() or not 0 <= row[0] < len(CLASS_NAMES):
        raise ValueError(f"line {number}: class {fields[0]} is not a card's (0..{len(CLASS_NAMES) - 1})")
    return row


def iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) intersection over union of two sets of xyxy boxes."""
    inter = _intersections(a, b)
    return inter / (_areas(a)[:, None] + _areas(b)[None, :] - inter + 1e-9)


def inside_share(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(n, m) how much of the smaller of each two xyxy boxes lies inside the other (its area's share)."""
    return _intersections(a, b) / np.maximum(np.minimum(_areas(a)[:, None], _areas(b)[None, :]), 1e-9)


def union_box(boxes) -> tuple[float, float, float, float]:
    """The box round xyxy boxes."""
    boxes = np.asarray(boxes, float)
    return (*map(float, boxes[:, :2].min(axis=0)), *map(float, boxes[:, 2:].max(axis=0)))


def _intersections(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    top_left = np.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = np.minimum(a[:, None, 2:], b[None, :, 2:])
    return np.prod(np.clip(bottom_right - top_left, 0, None), axis=2)


def _areas(boxes: np.ndarray) -> np.ndarray:
    return np.prod(boxes[:, 2:] - boxes[:, :2], axis=1)
