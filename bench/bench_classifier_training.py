"""The index classifier's training speed here: float32 against bfloat16, by width and thread count.

    python bench/bench_classifier_training.py [--batches 12] [--repeats 3]

Each configuration runs :func:`vision.model.index_training.train_classifier` itself (augmentation, forward,
backward, the optimiser's step and the final save) for ``--batches`` batches of 256 crops,
``--repeats`` times, on random crop contexts (speed does not depend on what the crops show), and
prints the median milliseconds a batch and bfloat16's speed-up over float32 measured in the same run.
Its first batches build oneDNN's kernels, so a short run understates the steady speed a little.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.model.index_training import bf16_is_fast, train_classifier  # noqa: E402
from vision.reader.index_classifier import BACKGROUND, CONTEXT  # noqa: E402

BATCH = 256


def ms_per_batch(contexts: np.ndarray, labels: np.ndarray, width: int, bf16: bool, batches: int, repeats: int) -> float:
    """Median over ``repeats`` runs of one run's milliseconds a batch."""
    times = []
    with tempfile.TemporaryDirectory() as folder:
        for repeat in range(repeats):
            started = time.perf_counter()
            train_classifier(contexts, labels, Path(folder) / "bench.pt", minutes=60, batch=BATCH, seed=repeat,
                             log=lambda _: None, width=width, max_crops=batches * BATCH, bf16=bf16)
            times.append((time.perf_counter() - started) * 1000 / batches)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--widths", type=int, nargs="+", default=[24, 32])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    contexts = rng.integers(0, 256, (2000, CONTEXT, CONTEXT, 3), dtype=np.uint8)
    labels = rng.integers(0, BACKGROUND + 1, len(contexts))
    print(f"bfloat16 in hardware (AMX or AVX-512 BF16): {'yes' if bf16_is_fast() else 'no'}; "
          f"{args.batches} batches of {BATCH} crops, median of {args.repeats} runs")
    print("| width | threads | float32 ms/batch | bfloat16 ms/batch | speed-up |\n|---|---|---|---|---|")
    for width in args.widths:
        for threads in args.threads:
            torch.set_num_threads(threads)
            fp32 = ms_per_batch(contexts, labels, width, False, args.batches, args.repeats)
            bf16 = ms_per_batch(contexts, labels, width, True, args.batches, args.repeats)
            print(f"| {width} | {threads} | {fp32:.0f} | {bf16:.0f} | {fp32 / bf16:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
