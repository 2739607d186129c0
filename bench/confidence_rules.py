"""How a find's confidence should join the detector's and the classifier's judgements.

    python bench/confidence_rules.py [--scenes datasets/generated/scenes720v2] [--limit N]
                                     [--detector models/cards.onnx]
                                     [--classifier models/index_classifier.onnx]

The app scores a find at ``det * p`` (the detector's confidence times the probability of the card
the classifier reads best, :meth:`vision.reader.index_classifier.IndexClassifier.name`). This runs the
detector (boxes only, down to 0.001) and the classifier once on each scene of the val split (the
training decks) and the test split (the held-out decks), then scores ``det * p**b`` for a few
``b`` (only the ratio of two exponents matters: raising every confidence to one power keeps each
class's ranking and each threshold's finds): mAP50, mAP50-95, and the share of true indexes named right at the lowest
threshold whose
finds are still 99 % right (what players could be shown without checking). Choose on val, confirm
on test.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.evaluation.detector import Frame, class_aps, match  # noqa: E402
from vision.reader.detections import Detections  # noqa: E402
from vision.reader.detector import BACKENDS, CardDetector, classifier_runtime  # noqa: E402
from vision.reader.index_classifier import BACKGROUND, IndexClassifier  # noqa: E402
from vision.reader.weights import WeightsError  # noqa: E402
from vision.synth.labels import labelled_images  # noqa: E402

POWERS = (0.5, 1, 2, 4)  #: of the classifier's probability
PRECISION = 0.99


def readings(scenes: Path, split: str, limit: int | None, detector: CardDetector, classifier: IndexClassifier):
    """(truth, finds, card probabilities of each find) of each scene of the split."""
    rows = []
    for _, image, truth in labelled_images(scenes, split, limit):
        found = detector.detect(image)
        rows.append((truth, found, classifier.read_boxes(image, found.xyxy)[:, :BACKGROUND]))
    return rows


def frames(rows, b: float) -> list[Frame]:
    scored = []
    for truth, found, cards in rows:
        best = cards.argmax(axis=1)
        confidence = found.confidence * cards[np.arange(len(best)), best] ** b
        scored.append(Frame(truth, Detections(found.xyxy, confidence, best)))
    return scored


def named_right_at_precision(frames_: list[Frame], precision: float = PRECISION) -> tuple[float, float]:
    """(share of true indexes named right, threshold) at the lowest threshold whose finds are right
    at ``precision`` or better."""
    hits = np.concatenate([match(f.truth, f.found, 0.5, same_class=True) >= 0 for f in frames_])
    confidence = np.concatenate([f.found.confidence for f in frames_])
    order = np.argsort(-confidence, kind="stable")
    right = np.cumsum(hits[order])
    good = np.nonzero(right / np.arange(1, len(order) + 1) >= precision)[0]
    if not len(good):
        return 0.0, 1.0
    last = good.max()
    return float(right[last] / max(sum(len(f.truth) for f in frames_), 1)), float(confidence[order][last])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenes", type=Path, default=Path("datasets/generated/scenes720v2"))
    parser.add_argument("--limit", type=int, default=None, help="scenes per split (default: all)")
    parser.add_argument("--detector", type=Path, default=Path("models/cards.onnx"))
    parser.add_argument("--backend", choices=BACKENDS, default=BACKENDS[0],
                        help="what runs both networks (default %(default)s, the app's)")
    parser.add_argument("--classifier", type=Path, default=Path("models/index_classifier.onnx"))
    args = parser.parse_args()
    try:
        detector = CardDetector(args.detector, args.backend, conf=0.001, classifier=False)
        classifier = IndexClassifier(args.classifier, runtime=classifier_runtime(args.backend))
        for split in ("val", "test"):
            rows = readings(args.scenes, split, args.limit, detector, classifier)
            for b in POWERS:
                scored = frames(rows, b)
                table, _ = class_aps(scored)
                named, threshold = named_right_at_precision(scored)
                print(f"{split:4} det * p**{b:<3}: mAP50 {np.nanmean(table[:, 0]):.4f}, mAP50-95 "
                      f"{np.nanmean(table):.4f}, named right at precision {PRECISION}: {named:.4f} "
                      f"(threshold {threshold:.3f})", flush=True)
    except (WeightsError, FileNotFoundError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
