"""Detector latency on a 1920×1080 synthetic frame: OpenVINO (the app's), ONNX Runtime, the
ultralytics reference and stock ``YOLO(weights).predict``, measured in the same run, end to end (BGR
frame in, detections out).

    python bench/bench_detector.py [--weights models/cards.onnx] [--repeats 20] [--threads 2]
                                   [--input-width 1920] [--conf 0.2]

Prints a Markdown table of median milliseconds and each backend's speed-up over stock predict.
Every backend, stock predict too, runs the network on the frame scaled to ``--input-width`` (by
default the width the app reads a 1080p frame at, ``vision.detector.input_widths_for(1920)``), so the
ratio compares the pipelines, not two resolutions, and on ``--threads`` threads each (until the
twenty-fifth session stock predict ran on one, ultralytics' choice on a two-core machine). Every
one keeps finds down to ``--conf`` (by default the table reader's threshold,
``vision.reading.READING_THRESHOLD``), and the two-stage
detectors name them as the table reader does (by score): a lower threshold gives the classifier
more finds to read. Below the table, the app's path on the same frame shrunk to 1280×720, which it
reads at two widths and joins (``vision.detector.NARROW_FRAME_WIDTHS``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.atlas import DEFAULT_ATLAS_DIR  # noqa: E402
from vision.detector import NARROW_FRAME_WIDTHS, CardDetector, input_widths_for  # noqa: E402
from vision.reading import READING_THRESHOLD  # noqa: E402
from vision.train import keep_threads  # noqa: E402
from vision.weights import DEFAULT_WEIGHTS  # noqa: E402


def synthetic_frame(atlas_dir: Path, seed: int = 3) -> np.ndarray:
    from vision.atlas import FaceAtlas
    from vision.augment import photograph
    from vision.render import render_scene
    from vision.synth import build_scene

    atlas = FaceAtlas(atlas_dir)
    scene = build_scene(atlas, seed, (1920, 1080), "test")
    return photograph(render_scene(scene, atlas), scene.owners, seed)


def median_ms(run, frame: np.ndarray, repeats: int) -> float:
    run(frame)  # warm-up: first-call allocations and graph set-up are not what a video pays
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run(frame)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS)
    parser.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--input-width", type=int, default=input_widths_for(1920)[0],
                        help="network input width for every backend (default %(default)s, the app's for 1080p)")
    parser.add_argument("--conf", type=float, default=READING_THRESHOLD,
                        help="confidence threshold for every backend (default %(default)s, the table reader's)")
    args = parser.parse_args()
    os.environ["YOLO_OFFLINE"] = "1"
    import torch
    from ultralytics import YOLO

    torch.set_num_threads(args.threads)
    frame = synthetic_frame(args.atlas)
    width = args.input_width
    stock = YOLO(str(args.weights.with_suffix(".pt")))

    def detector(weights: Path, backend: str, **options) -> CardDetector:
        return CardDetector(weights, backend=backend, threads=args.threads, input_width=width, conf=args.conf,
                            naming="score", **options)

    keep_threads(stock, args.threads)  # else its predictor runs on the cores less one, as the rest do not
    timings = {
        "stock YOLO(weights).predict": median_ms(
            lambda f: stock.predict(f, imgsz=width, conf=args.conf, device="cpu", verbose=False),
            frame, args.repeats),
        "CardDetector ultralytics (reference)": median_ms(
            detector(args.weights, "ultralytics").detect, frame, args.repeats),
        "CardDetector onnx fp32": median_ms(detector(args.weights, "onnx").detect, frame, args.repeats),
    }
    int8 = args.weights.with_suffix(".int8.onnx")
    if int8.exists():  # written by python -m vision export --int8
        timings["CardDetector onnx int8"] = median_ms(detector(int8, "onnx").detect, frame, args.repeats)
    app = detector(args.weights, "openvino")
    timings[f"CardDetector openvino ({app._run.precision}, the app's)"] = median_ms(app.detect, frame, args.repeats)
    named = ""
    if app.classifier is not None:  # the two-stage design: where the time goes
        boxes = detector(args.weights, "openvino", classifier=False)
        timings["CardDetector openvino, boxes only (no classifier, as stock)"] = median_ms(
            boxes.detect, frame, args.repeats)
        named = f"; the classifier names {len(boxes.detect(frame))} finds, each read both ways up"
    stock_ms = timings["stock YOLO(weights).predict"]
    print(f"1920x1080 frame, network input {width} px wide, threshold {args.conf}, {args.threads} threads, "
          f"median of {args.repeats}{named}\n\n| backend | median ms | speed-up vs stock |\n|---|---|---|")
    for name, ms in timings.items():
        print(f"| {name} | {ms:.0f} | {stock_ms / ms:.2f}× |")
    # A narrower frame is read at two widths, the finds joined (vision.detector.join_views).
    small = cv2.resize(frame, (1280, 720), interpolation=cv2.INTER_AREA)
    narrow = CardDetector(args.weights, backend="openvino", threads=args.threads, conf=args.conf, naming="score")
    print(f"\nThe app's path on the same frame shrunk to 1280x720, read at "
          f"{' and '.join(map(str, NARROW_FRAME_WIDTHS))} px and the finds joined: "
          f"{median_ms(narrow.detect, small, args.repeats):.0f} ms")


if __name__ == "__main__":
    main()
