"""Would reading a still table over several frames mend the reader's mistakes?

    python bench/frame_fusion.py [--scenes datasets/generated/scenes720v2] [--limit 60]
                                 [--frames 5] [--noise 2.0]

A webcam on a still table sends the same picture again and again with fresh sensor noise (the demo
videos add ``--noise`` grey levels of Gaussian noise to each frame, as :mod:`vision.synth.video` does).
Each held-out test scene becomes ``--frames`` such frames. The app's reader reads the first frame
alone (the detector's boxes, each named by the classifier), and then every frame: the first frame's
boxes are read again in each, their card probabilities joined by their geometric mean
(:func:`vision.reader.index_classifier.join_readings`, as a find's windows are), and the detector's
confidence averaged over the frames (0 in a frame where no find overlaps the box by IoU 0.5). Both
are scored as ``python -m vision evaluate`` scores a frame: if the reader's mistakes were noise,
the joined reading would score higher.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.evaluation.detector import Frame, operating_points, readable_only, score, test_frames  # noqa: E402
from vision.reader.detections import Detections, iou  # noqa: E402
from vision.reader.detector import SURE_CONFIDENCE, CardDetector  # noqa: E402
from vision.reader.index_classifier import join_readings, named_finds  # noqa: E402

#: The lowest detector confidence read (the app's finds are far above it).
LOWEST = 0.05


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=Path, default=Path("datasets/generated/scenes720v2"))
    parser.add_argument("--limit", type=int, default=60, help="the first N test scenes")
    parser.add_argument("--frames", type=int, default=5)
    parser.add_argument("--noise", type=float, default=2.0, help="sensor noise, grey levels (standard deviation)")
    args = parser.parse_args()
    reader = CardDetector(conf=LOWEST)
    classifier, reader.classifier = reader.classifier, None  # the app's classifier; the reader finds boxes
    rng = np.random.default_rng(0)
    one, joined = [], []
    for image, truth, decks, visible in test_frames(args.scenes, args.limit):
        frames = [np.clip(image + rng.normal(0, args.noise, image.shape), 0, 255).astype(np.uint8)
                  for _ in range(args.frames)]
        finds = [reader.detect(frame) for frame in frames]
        first = finds[0]
        readings = np.stack([classifier.read_boxes(frame, first.xyxy) for frame in frames])
        one.append(Frame(truth, named_finds(first, readings[0]), decks, visible))
        confidences = [first.confidence]
        for later in finds[1:]:
            overlap = iou(first.xyxy, later.xyxy) if len(first) and len(later) else np.zeros((len(first), 1))
            seen = overlap.max(axis=1) >= 0.5
            confidences.append(np.where(seen, later.confidence[overlap.argmax(axis=1)] if len(later) else 0, 0.0))
        steady = Detections(first.xyxy, np.mean(confidences, axis=0).astype(np.float32), first.class_id)
        joined.append(Frame(truth, named_finds(steady, join_readings(readings) if len(first) else readings[0]),
                            decks, visible))
    for label, frames_ in (("one frame", one), (f"{args.frames} frames joined", joined)):
        report, _ = score(frames_, SURE_CONFIDENCE)
        readable, _ = score(readable_only(frames_), SURE_CONFIDENCE)
        at = next(p for p in operating_points(frames_) if abs(p["conf"] - SURE_CONFIDENCE) < 1e-9)
        print(f"{label:18} mAP50 {report.map50:.3f}, readable mAP50 {readable.map50:.3f}, named right at "
              f"{SURE_CONFIDENCE} {at['named_right']:.3f} (precision {at['precision']:.3f})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
