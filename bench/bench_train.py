"""Training throughput on this machine: tiles per second for each candidate recipe.

    python bench/bench_train.py --data datasets/generated/tiles/data.yaml --tiles 160

Each configuration trains one epoch on the first ``--tiles`` training tiles and reports tiles/s
over the training epoch alone (timed by callbacks; set-up and the final validation left out), so
recipes are chosen from measurement.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import torch

CONFIGS = [  # (architecture, tile size, batch)
    ("yolo11n.yaml", 640, 16),
    ("yolov8n.yaml", 640, 16),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--tiles", type=int, default=160)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    os.environ["YOLO_OFFLINE"] = "1"
    torch.set_num_threads(args.threads)
    from ultralytics import YOLO

    total = len(list((args.data.parent / "images" / "train").glob("*.jpg")))
    print("| model | tile | batch | tiles/s |\n|---|---|---|---|")
    for model, imgsz, batch in CONFIGS:
        with tempfile.TemporaryDirectory() as project:
            yolo, times = YOLO(model), {}
            yolo.add_callback("on_train_epoch_start", lambda trainer: times.setdefault("start", time.perf_counter()))
            yolo.add_callback("on_train_epoch_end", lambda trainer: times.setdefault("end", time.perf_counter()))
            yolo.train(data=str(args.data.resolve()), epochs=1, imgsz=imgsz, batch=batch, device="cpu",
                              workers=args.threads, pretrained=False, amp=False, plots=False, val=False,
                              fraction=args.tiles / total, project=project, name="bench", verbose=False,
                              fliplr=0.0)
            elapsed = times["end"] - times["start"]
        print(f"| {model} | {imgsz} | {batch} | {args.tiles / elapsed:.1f} |", flush=True)


if __name__ == "__main__":
    main()
