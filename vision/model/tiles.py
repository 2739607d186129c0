"""Cutting frames into square tiles: a training set of tiles, and the tile grid the detector shares.

Corner indexes are small (a median 11 px tall in a 1280×720 scene, one in twenty under 5 px).
Shrinking a whole scene to a 640 px network input would halve them again, below what a detector
can read, so training uses 640×640 tiles cut from the scenes at full resolution, and inference runs
the (fully convolutional) network on the whole frame at the scenes' resolution: the indexes keep the
size they had in training either way. Close-up scenes, whose indexes the reader reads from a halved
frame (:mod:`vision.reader.scales`), can be cut at that scale instead (``reader_scale``).
"""

from __future__ import annotations

import functools
import math
import multiprocessing
import shutil
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.reader.detections import Detections
from vision.reader.detector import LETTERBOX_GREY, input_widths_for, letterbox
from vision.reader.scales import live_scale, long_sides
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


def write_tiles(scenes: Path | Sequence[Path], out: Path, limits: dict[str, int] | None = None, workers: int = 1,
                reader_scale: bool = False) -> dict[str, int]:
    """Cut the train and val scenes of one or more ``vision synth`` datasets into tiles under ``out``.

    ``limits`` caps the scenes taken per split and folder (a small val split keeps per-epoch
    validation cheap). The test split is not tiled: evaluation runs the detector on whole frames, as
    the app does. With several folders, each tile's name starts with its folder's. ``reader_scale``
    first shrinks each scene to the scale the reader reads it at (:func:`reader_scale_of`), so that a
    close-up's large indexes come to the network as they do when it is read. ``workers`` processes
    cut scenes side by side (the same tiles either way). Returns the tiles written per split.
    """
    from vision.synth.labels import scene_paths

    folders = [scenes] if isinstance(scenes, Path) else list(scenes)
    names = [folder.name for folder in folders]
    if len(set(names)) < len(names):
        raise ValueError(f"scene folders must have different names, their tiles are named after them: {names}")
    # Every split's scenes are listed before old tiles go, so a missing folder or split keeps them.
    jobs = {split: [(folder, path) for folder in folders
                    for path in scene_paths(folder, split, (limits or {}).get(split))] for split in ("train", "val")}
    counts = {}
    for split in ("train", "val"):
        for kind in ("images", "labels"):
            shutil.rmtree(out / kind / split, ignore_errors=True)
            (out / kind / split).mkdir(parents=True)
        cut = functools.partial(_tile_path, out=out, split=split, prefixed=len(folders) > 1,
                                reader_scale=reader_scale)
        if workers > 1:
            with multiprocessing.get_context("spawn").Pool(workers) as pool:
                counts[split] = sum(pool.imap_unordered(cut, jobs[split], chunksize=16))
        else:
            counts[split] = sum(map(cut, jobs[split]))
    write_data_yaml(out)
    return counts


def reader_scale_of(truth: Detections, width: int) -> float:
    """The frame-to-network scale the reader picks for a frame ``width`` pixels wide whose median
    index is that of these boxes: its narrowest default view while that median fits the detector's
    band there, else the halving :func:`vision.reader.scales.live_scale` picks."""
    default = min(input_widths_for(width)) / width
    if not len(truth):
        return default
    scale = live_scale(float(np.median(long_sides(truth))), default)
    return default if scale is None else scale


def _tile_path(job: tuple[Path, Path], out: Path, split: str, prefixed: bool, reader_scale: bool) -> int:
    from vision.synth.labels import labelled_image

    folder, image_path = job
    _, image, truth = labelled_image(folder, split, image_path)
    if reader_scale and (scale := reader_scale_of(truth, image.shape[1])) != 1.0:
        image, scale = letterbox(image, max(1, round(image.shape[1] * scale)))  # as the reader scales it
        truth = Detections(truth.xyxy * scale, truth.confidence, truth.class_id)
    stem = f"{folder.name}_{image_path.stem}" if prefixed else image_path.stem
    return _tile_scene(stem, image, truth, out, split)


def _tile_scene(stem: str, image: np.ndarray, truth: Detections, out: Path, split: str) -> int:
    height, width = image.shape[:2]
    written = 0
    for y0 in tile_origins(height):
        for x0 in tile_origins(width):
            name = f"{stem}_{x0}_{y0}"
            crop = image[y0:y0 + TILE, x0:x0 + TILE]
            if crop.shape[:2] != (TILE, TILE):
                # Padded, not left small: ultralytics enlarges a smaller image to the tile size,
                # which would change the size of its indexes.
                crop = cv2.copyMakeBorder(crop, 0, TILE - crop.shape[0], 0, TILE - crop.shape[1],
                                          cv2.BORDER_CONSTANT, value=LETTERBOX_GREY)
            cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
            lines = yolo_lines(tile_labels(truth, x0, y0), crop.shape[1], crop.shape[0])
            (out / "labels" / split / f"{name}.txt").write_text("".join(line + "\n" for line in lines))
            written += 1
    return written
