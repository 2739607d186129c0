"""Cutting frames into square tiles: a training set of tiles, and the tile grid the detector shares.

Corner indexes are small (a median 11 px tall in a 1280×720 scene, one in twenty under 5 px).
Shrinking a whole scene to a 640 px network input would halve them again, below what a detector
can read, so training uses 640×640 tiles cut from the scenes at full resolution, and inference runs
the (fully convolutional) network on the whole frame at the scenes' resolution: the indexes keep the
size they had in training either way.
"""

from __future__ import annotations

import functools
import math
import multiprocessing
import shutil
from pathlib import Path

import cv2
import numpy as np

from vision.reader.detections import Detections
from vision.synth.dataset import write_data_yaml

TILE = 640
#: An index cut by a tile edge is kept as a label when at least this share of its box lies inside;
#: less than that and the glyphs are too broken to name.
KEEP_SHARE = 0.6


def tile_origins(length: int, tile: int = TILE) -> list[int]:
    """Evenly spaced starts of tiles that cover ``length`` pixels (overlapping where they must).

    >>> tile_origins(1280), tile_origins(720), tile_origins(500)
    ([0, 640], [0, 80], [0])
    """
    count = max(1, math.ceil(length / tile))
    if count == 1:
        return [0]
    step = (length - tile) / (count - 1)
    return [round(i * step) for i in range(count)]


def tile_labels(truth: Detections, x0: int, y0: int, tile: int = TILE) -> Detections:
    """The ground-truth boxes of one tile, in tile pixels, clipped to it."""
    shifted = truth.xyxy - np.array([x0, y0, x0, y0], dtype=np.float32)
    clipped = np.clip(shifted, 0, tile)
    area = lambda b: np.maximum(b[:, 2] - b[:, 0], 0) * np.maximum(b[:, 3] - b[:, 1], 0)  # noqa: E731
    keep = area(clipped) >= KEEP_SHARE * np.maximum(area(shifted), 1e-6)
    return Detections(clipped[keep], truth.confidence[keep], truth.class_id[keep])


def yolo_lines(boxes: Detections, width: int, height: int) -> list[str]:
    """YOLO label lines (``class cx cy w h``, normalised) for boxes in an image of that size."""
    lines = []
    for (x1, y1, x2, y2), cls in zip(boxes.xyxy, boxes.class_id):
        lines.append(f"{cls} {(x1 + x2) / 2 / width:.6f} {(y1 + y2) / 2 / height:.6f} "
                     f"{(x2 - x1) / width:.6f} {(y2 - y1) / height:.6f}")
    return lines


def write_tiles(scenes: Path, out: Path, limits: dict[str, int] | None = None, workers: int = 1) -> dict[str, int]:
    """Cut the train and val scenes of a ``vision synth`` dataset into tiles under ``out``.

    ``limits`` caps the scenes taken per split (a small val split keeps per-epoch validation cheap).
    The test split is not tiled: evaluation runs the detector on whole frames, as the app does.
    ``workers`` processes cut scenes side by side (the device machine's 16 cores; the same tiles
    either way). Returns the tiles written per split.
    """
    from vision.synth.labels import scene_paths

    counts = {}
    for split in ("train", "val"):
        paths = scene_paths(scenes, split, (limits or {}).get(split))  # none: said before old tiles go
        for kind in ("images", "labels"):
            shutil.rmtree(out / kind / split, ignore_errors=True)
            (out / kind / split).mkdir(parents=True)
        cut = functools.partial(_tile_path, scenes=scenes, out=out, split=split)
        if workers > 1:
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                counts[split] = sum(pool.imap_unordered(cut, paths, chunksize=16))
        else:
            counts[split] = sum(map(cut, paths))
    write_data_yaml(out)
    return counts


def _tile_path(image_path: Path, scenes: Path, out: Path, split: str) -> int:
    from vision.synth.labels import labelled_image

    return _tile_scene(*labelled_image(scenes, split, image_path), out, split)


def _tile_scene(image_path: Path, image: np.ndarray, truth: Detections, out: Path, split: str) -> int:
    height, width = image.shape[:2]
    written = 0
    for y0 in tile_origins(height):
        for x0 in tile_origins(width):
            name = f"{image_path.stem}_{x0}_{y0}"
            crop = image[y0:y0 + TILE, x0:x0 + TILE]
            cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
            lines = yolo_lines(tile_labels(truth, x0, y0), crop.shape[1], crop.shape[0])
            (out / "labels" / split / f"{name}.txt").write_text("".join(line + "\n" for line in lines))
            written += 1
    return written
