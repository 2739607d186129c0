"""Synthetic-scene throughput: images per second written by ``python -m vision synth``.

    python bench/bench_synth.py [--size 1280x720] [--images 200] [--repeats 3] [--workers N]

Needs the face atlas (``python -m vision faces``). Prints the median of the repeats, all measured
in this one run, plus the per-image median of the single-process stages.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.__main__ import parse_size  # noqa: E402
from vision.synth.atlas import DEFAULT_ATLAS_DIR, FaceAtlas  # noqa: E402
from vision.synth.augment import photograph  # noqa: E402
from vision.synth.dataset import write_dataset  # noqa: E402
from vision.synth.render import render_scene  # noqa: E402
from vision.synth.scenes import build_scene  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    args = parser.parse_args()
    size = parse_size(args.size)
    rates = []
    for repeat in range(args.repeats):
        with tempfile.TemporaryDirectory() as out:
            started = time.perf_counter()
            for _ in write_dataset(
                Path(out), args.atlas, args.images, seed=repeat, image_size=size, workers=args.workers
            ):
                pass
            rates.append(args.images / (time.perf_counter() - started))
    print(f"synth {args.size}: median {statistics.median(rates):.1f} images/s over {args.repeats} runs of "
          f"{args.images} images (runs: {', '.join(f'{r:.1f}' for r in rates)})")
    _stage_times(FaceAtlas(args.atlas), size)


def _stage_times(atlas: FaceAtlas, size: tuple[int, int], scenes: int = 60) -> None:
    layout, paint, effects = [], [], []
    for seed in range(scenes):
        t0 = time.perf_counter()
        scene = build_scene(atlas, seed, size)
        t1 = time.perf_counter()
        image = render_scene(scene, atlas)
        t2 = time.perf_counter()
        photograph(image, scene.owners, seed)
        t3 = time.perf_counter()
        layout.append(t1 - t0), paint.append(t2 - t1), effects.append(t3 - t2)
    print("one process, median ms per image: " + ", ".join(
        f"{name} {1000 * statistics.median(times):.1f}"
        for name, times in (("layout+labels", layout), ("paint", paint), ("effects", effects))))


if __name__ == "__main__":
    main()
