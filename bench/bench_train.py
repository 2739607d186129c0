"""Training throughput on this machine: tiles per second for each candidate recipe.

    python bench/bench_train.py --data datasets/generated/tiles/data.yaml --tiles 160

Each configuration trains one epoch on the first ``--tiles`` training tiles and reports tiles/s
over the training epoch alone (timed by callbacks; set-up and the final validation left out), and
its speed against the first row's, so recipes are chosen from measurement. ``bf16`` computes in
bfloat16 (``python -m vision train --bf16``, :func:`vision.model.train.allow_cpu_bfloat16`).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import torch

CONFIGS = [  # (architecture, tile size, batch, precision)
    ("yolov8n.yaml", 640, 16, "fp32"),
    ("yolov8n.yaml", 640, 16, "bf16"),
    ("yolov8n.yaml", 640, 16, "bf16, channels-last"),
    ("yolo11n.yaml", 640, 16, "fp32"),
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

    from vision.model.train import allow_cpu_bfloat16, cpu_bfloat16_network, keep_threads

    allow_cpu_bfloat16()

    total = len(list((args.data.parent / "images" / "train").glob("*.jpg")))
    print("| model | tile | batch | precision | tiles/s | speed-up |\n|---|---|---|---|---|---|")
    first = None
    for model, imgsz, batch, precision in CONFIGS:
        with tempfile.TemporaryDirectory() as project:
            yolo, times = YOLO(model), {}
            if "channels-last" in precision:
                cpu_bfloat16_network(yolo)
            keep_threads(yolo, args.threads)  # else ultralytics trains on the cores less one
            yolo.add_callback("on_train_epoch_start",
                              lambda trainer, times=times: times.setdefault("start", time.perf_counter()))
            yolo.add_callback("on_train_epoch_end",
                              lambda trainer, times=times: times.setdefault("end", time.perf_counter()))
            yolo.train(
                data=str(args.data.resolve()),
                epochs=1,
                imgsz=imgsz,
                batch=batch,
                device="cpu",
                workers=args.threads,
                pretrained=False,
                amp="bf16" if precision.startswith("bf16") else False,
                plots=False,
                val=False,
                fraction=args.tiles / total,
                project=project,
                name="bench",
                verbose=False,
                fliplr=0.0,
            )
            elapsed = times["end"] - times["start"]
        first = first or elapsed
        print(f"| {model} | {imgsz} | {batch} | {precision} | {args.tiles / elapsed:.1f} | {first / elapsed:.2f}x |",
              flush=True)


if __name__ == "__main__":
    main()
