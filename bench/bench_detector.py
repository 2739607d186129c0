"""Detector latency on a 1920×1080 synthetic frame: OpenVINO (the app's int8 model, and the fp32
export), ONNX Runtime, the ultralytics reference and stock ``YOLO(weights).predict``, measured in the
same run, taken in turn, end to end (BGR frame in, detections out). ``--weights`` names the fp32
export; the int8 models beside it (``.int8.xml``, ``.int8.onnx``) are timed where they are.

    python bench/bench_detector.py [--weights models/cards.onnx] [--repeats 20] [--threads 2]
                                   [--input-width 1920] [--conf 0.2]

Prints a Markdown table of median milliseconds and each backend's speed-up over stock predict.
Every backend, stock predict too, runs the network on the frame scaled to ``--input-width`` (by
default the width the app reads a 1080p frame at, ``vision.reader.detector.input_widths_for(1920)``), so the
ratio compares the pipelines, not two resolutions, and on ``--threads`` threads each (stock
predict too, where ultralytics would take one on a two-core machine). Every
one keeps finds down to ``--conf`` (by default where the table reader's detector cuts,
``vision.reader.reading.READING_THRESHOLD`` times ``COLUMN_SHARE``: the weak finds that continue meld
columns are read too, once by the classifier: ``reread_from``), and the two-stage
detectors name them as the table reader does (by score): a lower threshold gives the classifier
more finds to read. Below the table, the app's path on the same frame shrunk to 1280×720, which it
reads at two widths and joins (``vision.reader.detector.NARROW_FRAME_WIDTHS``).
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

from vision.model.train import keep_threads  # noqa: E402
from vision.reader.detector import NARROW_FRAME_WIDTHS, CardDetector, input_widths_for  # noqa: E402
from vision.reader.reading import COLUMN_SHARE, READING_THRESHOLD  # noqa: E402
from vision.reader.weights import DEFAULT_WEIGHTS, OPENVINO_INT8, default_weights  # noqa: E402
from vision.synth.atlas import DEFAULT_ATLAS_DIR  # noqa: E402


def synthetic_frame(atlas_dir: Path, seed: int = 3) -> np.ndarray:
    from vision.synth.atlas import FaceAtlas
    from vision.synth.augment import photograph
    from vision.synth.render import render_scene
    from vision.synth.scenes import build_scene

    atlas = FaceAtlas(atlas_dir)
    scene = build_scene(atlas, seed, (1920, 1080), "test")
    return photograph(render_scene(scene, atlas), scene.owners, seed)


def median_ms(run, frame: np.ndarray, repeats: int) -> float:
    return medians_ms({"": run}, frame, repeats)[""]


def medians_ms(runs: dict, frame: np.ndarray, repeats: int) -> dict[str, float]:
    """Each run's median milliseconds on the frame, the runs taken in turn ``repeats`` times over, so
    a slow spell of a shared machine falls on all of them alike rather than on one."""
    for run in runs.values():
        run(frame)  # warm-up: first-call allocations and graph set-up are not what a video pays
    times = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            started = time.perf_counter()
            run(frame)
            times[name].append((time.perf_counter() - started) * 1000)
    return {name: statistics.median(taken) for name, taken in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--weights", type=Path, default=DEFAULT_WEIGHTS)
    parser.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--input-width", type=int, default=input_widths_for(1920)[0],
                        help="network input width for every backend (default %(default)s, the app's for 1080p)")
    parser.add_argument("--conf", type=float, default=READING_THRESHOLD * COLUMN_SHARE,
                        help="confidence threshold for every backend (default %(default).2g, the table reader's "
                        "detector's: its threshold times COLUMN_SHARE, for the weak finds of meld columns)")
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
                            naming="score", reread_from=READING_THRESHOLD, **options)

    keep_threads(stock, args.threads)  # else its predictor runs on the cores less one, as the rest do not
    fp32 = args.weights.with_suffix(".onnx")
    runs = {
        "stock YOLO(weights).predict":
            lambda f: stock.predict(f, imgsz=width, conf=args.conf, device="cpu", verbose=False),
        "CardDetector ultralytics (reference)": detector(args.weights, "ultralytics").detect,
        "CardDetector onnx fp32": detector(fp32, "onnx").detect,
    }
    int8 = fp32.with_suffix(".int8.onnx")
    if int8.exists():  # written by python -m vision export --int8
        runs["CardDetector onnx int8"] = detector(int8, "onnx").detect
    exported = detector(fp32, "openvino")
    runs[f"CardDetector openvino, the fp32 export ({exported._run.precision})"] = exported.detect
    app_weights = default_weights("openvino") if args.weights == DEFAULT_WEIGHTS else args.weights
    app = detector(app_weights, "openvino")
    kind = "int8" if app_weights.name.endswith(OPENVINO_INT8) else app._run.precision
    runs[f"CardDetector openvino ({kind}, the app's)"] = app.detect
    named = ""
    if app.classifier is not None:  # the two-stage design: where the time goes
        boxes = detector(app_weights, "openvino", classifier=False)
        runs["CardDetector openvino, the app's, boxes only (no classifier, as stock)"] = boxes.detect
        named = f"; the classifier names {len(boxes.detect(frame))} finds, each read both ways up"
    timings = medians_ms(runs, frame, args.repeats)
    stock_ms = timings["stock YOLO(weights).predict"]
    print(
        f"1920x1080 frame, network input {width} px wide, threshold {args.conf}, {args.threads} threads, "
        f"median of {args.repeats}, the backends taken in turn{named}\n\n| backend | median ms | speed-up vs stock "
        f"|\n|---|---|---|"
    )
    for name, ms in timings.items():
        print(f"| {name} | {ms:.0f} | {stock_ms / ms:.2f}× |")
    # A narrower frame is read at two widths, the finds joined (vision.reader.detector.join_views).
    small = cv2.resize(frame, (1280, 720), interpolation=cv2.INTER_AREA)
    narrow = CardDetector(app_weights, backend="openvino", threads=args.threads, conf=args.conf, naming="score",
                          reread_from=READING_THRESHOLD)
    print(f"\nThe app's path on the same frame shrunk to 1280x720, read at "
          f"{' and '.join(map(str, NARROW_FRAME_WIDTHS))} px and the finds joined: "
          f"{median_ms(narrow.detect, small, args.repeats):.0f} ms")


if __name__ == "__main__":
    main()
