"""The table reader on held-out-deck synthetic scenes and simulated hand videos, and its latency.

    python bench/bench_reader.py [--scenes 300] [--seed 1] [--size 1920x1080] [--videos DIR ...]

The hand videos are the demo and the ground truth of eleven more (``datasets/videos/seedN``: the
frames' labels and the events, without the pictures; ``python -m vision video --seed N`` films them).

Until the detector is trained (issue 4) the reader gets each scene's labelled index boxes (a perfect
detector), then the same boxes spoiled as a real detector would spoil them (see
``vision.evaluate_reader.Noise``). Prints meld-exact %, pile-right % and score-equal % for the
reader with the table set-up players would give (the table perspective) and without any, on every
scene and on the readable ones (every card the score needs shows an index); then the events of
each hand video; then the median time from detections to a ``TableReading`` on one core, next to
the detector's own time when there is a detector. Needs the face atlas (``python -m vision faces``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.__main__ import parse_size  # noqa: E402
from vision.atlas import DEFAULT_ATLAS_DIR, FaceAtlas  # noqa: E402
from vision.card_reader import read_table  # noqa: E402
from vision.evaluate_reader import Noise, detections_from_truth, evaluate, synthetic_scenes  # noqa: E402
from vision.evaluate_video import evaluate_video  # noqa: E402

COLUMNS = ("scenes", "melds", "meld_exact_%", "piles", "pile_right_%", "score_equal_told_%", "score_equal_assumed_%",
           "turn_card_right_%")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    parser.add_argument("--videos", type=Path, nargs="*",
                        default=[Path("datasets/demo"), *sorted(Path("datasets/videos").glob("seed*"),
                                                                key=lambda p: int(p.name.removeprefix("seed")))])
    args = parser.parse_args()
    size = parse_size(args.size)
    scenes = list(synthetic_scenes(FaceAtlas(args.atlas), args.scenes, args.seed, size))
    for label, noise in (("ground-truth boxes", None), ("noisy boxes", Noise())):
        print(f"\n{label}" + (f" ({noise})" if noise else "") + f", {args.scenes} held-out-deck scenes {args.size}:")
        print("  " + " ".join(f"{c:>22}" for c in ("reader/scenes",) + COLUMNS))
        for key, row in evaluate(scenes, noise).items():
            print("  " + " ".join(f"{v!s:>22}" for v in (key,) + tuple(row[c] for c in COLUMNS)))
    print("\nhand videos (ground-truth boxes; noisy boxes):")
    for video in args.videos:
        print(f"  {video}: {evaluate_video(video).summary()}; {evaluate_video(video, Noise()).summary()}")
    _latency(scenes, size)


def _latency(scenes, size, repeats: int = 3) -> None:
    times = []
    for truth, setup in scenes:
        detections = detections_from_truth(truth)
        for _ in range(repeats):
            started = time.perf_counter()
            read_table(detections, size, setup)
            times.append((time.perf_counter() - started) * 1000)
    cards = statistics.median(len(detections_from_truth(t)) for t, _ in scenes)
    print(f"\nlatency, detections -> TableReading, {size[0]}x{size[1]}: median {statistics.median(times):.1f} ms, "
          f"90th percentile {sorted(times)[int(0.9 * len(times))]:.1f} ms (median {cards:.0f} index boxes a frame)")
    try:
        from vision.detector import CardDetector  # noqa: F401
    except ImportError:
        print("detector: not available yet (issue 4); its time per frame goes here when it is")


if __name__ == "__main__":
    main()
