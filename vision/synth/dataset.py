"""Writing a YOLO dataset of synthetic scenes: images, label files, scene JSON and ``data.yaml``.

Layout (ultralytics' own): ``images/<split>/<name>.jpg``, ``labels/<split>/<name>.txt`` and, beside
each image, ``<name>.json`` with the scene's ground truth. Train and val use the training decks;
test uses the held-out decks only. Work is spread over processes; each image depends only on the
dataset seed and its number, so the same seed gives the same files however many workers run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2

from vision.reader.classes import CLASS_NAMES
from vision.synth.atlas import FaceAtlas
from vision.synth.augment import photograph
from vision.synth.render import render_scene
from vision.synth.scenes import SPLITS, build_scene, scene_seed

#: Share of the images that go to each split.
SPLIT_SHARES = {"train": 0.8, "val": 0.1, "test": 0.1}
JPEG_QUALITY = 92

_worker_atlas: FaceAtlas | None = None


def plan(images: int) -> list[tuple[str, int]]:
    """(split, number) for every image of the dataset."""
    counts = {split: int(images * SPLIT_SHARES[split]) for split in SPLITS}
    counts["train"] += images - sum(counts.values())
    return [(split, number) for split in SPLITS for number in range(counts[split])]


def write_dataset(out_dir: Path, atlas_dir: Path, images: int, seed: int, image_size: tuple[int, int],
                  workers: int | None = None, splits: tuple[str, ...] = SPLITS,
                  card_heights: tuple[float, float] | None = None) -> Iterator[str]:
    """Write the dataset, or only some of its ``splits`` (each scene is the one the whole dataset
    would have: the same seed photographs the same test tables at another size); yields each image's
    name as it is written (for a progress bar). ``card_heights``: the range of card heights the
    cameras show (:func:`~vision.synth.camera.random_camera`); by default mostly whole tables."""
    FaceAtlas(atlas_dir)  # fail early, with the atlas's own message, if it is missing
    for split in SPLITS:
        (out_dir / "images" / split).mkdir(parents=True, exist_ok=True)
        (out_dir / "labels" / split).mkdir(parents=True, exist_ok=True)
    write_data_yaml(out_dir)
    jobs = [(out_dir, split, number, seed, image_size, card_heights) for split, number in plan(images)
            if split in splits]
    workers = workers or max(1, min(len(jobs), usable_cores()))
    if workers == 1:
        _init_worker(atlas_dir)
        yield from map(_write_one, jobs)
        return
    with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(atlas_dir,)) as pool:
        yield from pool.map(_write_one, jobs, chunksize=8)


def usable_cores(cgroup: Path = Path("/sys/fs/cgroup")) -> int:
    """The cores this process may use: those it may run on (its CPU affinity), fewer where its
    cgroup's CPU quota allows less time (a container given two cores of a larger machine), where
    ``os.cpu_count()`` counts the whole machine's and each worker would load its own faces."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    quota = _cgroup_quota(cgroup)
    return max(1, min(cores, round(quota))) if quota is not None else cores


def _cgroup_quota(cgroup: Path) -> float | None:
    """Cores' worth of CPU time the cgroup allows (v2's ``cpu.max``, v1's ``cpu.cfs_quota_us`` over
    its period); ``None`` when unlimited or unknown."""
    try:
        quota, period = (cgroup / "cpu.max").read_text().split()
    except (OSError, ValueError):
        try:
            quota = (cgroup / "cpu" / "cpu.cfs_quota_us").read_text().strip()
            period = (cgroup / "cpu" / "cpu.cfs_period_us").read_text().strip()
        except OSError:
            return None
    try:
        return int(quota) / int(period) if int(quota) > 0 else None
    except (ValueError, ZeroDivisionError):  # "max": no quota
        return None


def write_data_yaml(out_dir: Path) -> Path:
    """ultralytics' dataset description; class names in the order of :data:`CLASS_NAMES`."""
    names = "\n".join(f"  {number}: '{name}'" for number, name in enumerate(CLASS_NAMES))
    text = (f"# Synthetic canasta tables (python -m vision synth). test = held-out decks only.\n"
            f"path: {out_dir.resolve()}\ntrain: images/train\nval: images/val\ntest: images/test\n"
            f"nc: {len(CLASS_NAMES)}\nnames:\n{names}\n")
    path = out_dir / "data.yaml"
    path.write_text(text)
    return path


def _init_worker(atlas_dir: Path) -> None:
    global _worker_atlas
    cv2.setNumThreads(1)  # the processes already use every core
    _worker_atlas = FaceAtlas(atlas_dir)


def _write_one(job: tuple[Path, str, int, int, tuple[int, int], tuple[float, float] | None]) -> str:
    out_dir, split, number, seed, image_size, card_heights = job
    name = f"{split}_{number:06d}"
    image_seed = scene_seed(seed, split, number)
    scene = build_scene(_worker_atlas, image_seed, image_size, split, card_heights=card_heights)
    image = photograph(render_scene(scene, _worker_atlas), scene.owners, image_seed)
    cv2.imwrite(str(out_dir / "images" / split / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
    (out_dir / "labels" / split / f"{name}.txt").write_text("".join(line + "\n" for line in scene.labels()))
    (out_dir / "images" / split / f"{name}.json").write_text(json.dumps(scene.ground_truth()))
    return name
