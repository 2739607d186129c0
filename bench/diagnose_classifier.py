"""Where the two-stage reader loses cards on the held-out decks: the classifier, or the detector.

    python bench/diagnose_classifier.py [--scenes datasets/generated/scenes720v2] [--limit 80]
                                        [--classifier models/index_classifier.onnx]
                                        [--detector models/cards.onnx]

Part 1 names the ground-truth index boxes of the first ``--limit`` test scenes as the app reads a
find (through two windows, both ways up): the share named right, rank right and suit right, by
index height and by deck.
Part 2 runs the one-class detector on the same scenes (confidence down to 0.01) and scores its
finds named by the classifier against the same finds named by a perfect one (every find that
overlaps a true index by IoU >= 0.5 gets that index's card, at the detector's confidence). The gap
between the two mAP50s is what the classifier costs; the gap from the second to 1 is the detector's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.evaluation.detector import Frame, _rank_and_suit_accuracy, class_aps, truth_decks  # noqa: E402
from vision.reader.detections import Detections, iou  # noqa: E402
from vision.reader.detector import BACKENDS, CardDetector, classifier_runtime  # noqa: E402
from vision.reader.index_classifier import BACKGROUND, IndexClassifier  # noqa: E402
from vision.reader.weights import WeightsError  # noqa: E402
from vision.synth.labels import labelled_images  # noqa: E402

HEIGHTS = ((0, 8), (8, 12), (12, 16), (16, 24), (24, 10_000))


def crops_report(scenes: Path, limit: int, classifier: IndexClassifier) -> None:
    truth_ids, named, heights, decks = [], [], [], []
    for path, image, truth in labelled_images(scenes, "test", limit):
        if not len(truth):
            continue
        # as the app reads a find, but as it lies
        probabilities = classifier.read_boxes(image, truth.xyxy)[:, :BACKGROUND]
        truth_ids.append(truth.class_id)
        named.append(probabilities.argmax(axis=1))
        heights.append(truth.xyxy[:, 3] - truth.xyxy[:, 1])
        decks += truth_decks(path.with_suffix(".json"), truth) or ["?"] * len(truth)
    truth_ids, named, heights, decks = (np.concatenate(truth_ids), np.concatenate(named), np.concatenate(heights),
                                        np.array(decks))

    def line(label: str, mask: np.ndarray) -> str:
        confusion = np.zeros((BACKGROUND + 1, BACKGROUND + 1), np.int64)
        np.add.at(confusion, (truth_ids[mask], named[mask]), 1)
        rank, suit = _rank_and_suit_accuracy(confusion)  # the evaluation's own rank and suit of a class
        return (f"{label:28s} {mask.sum():6d} crops: named right {(named[mask] == truth_ids[mask]).mean():.3f}, "
                f"rank right {rank:.3f}, suit right {suit:.3f}")

    print(line("all ground-truth crops", np.ones(len(truth_ids), bool)))
    for low, high in HEIGHTS:
        print(
            line(
                f"  {low}-{high} px tall" if high < 10_000 else f"  {low}+ px tall", (heights >= low) & (heights < high)
            )
        )
    for deck in sorted(set(decks)):
        print(line(f"  {deck}", decks == deck))


def finds_report(scenes: Path, limit: int, classifier: IndexClassifier, detector: CardDetector) -> None:
    named_frames, perfect_frames = [], []
    for _, image, truth in labelled_images(scenes, "test", limit):
        found = detector.detect(image)
        if not len(found):
            named_frames.append(Frame(truth, found))
            perfect_frames.append(Frame(truth, found))
            continue
        named = classifier.name(image, found)  # as the app names them, but as they lie
        named_frames.append(Frame(truth, named))
        if len(truth):
            overlap = iou(found.xyxy, truth.xyxy)
            hit = overlap.max(axis=1) >= 0.5
            perfect = np.where(hit, truth.class_id[overlap.argmax(axis=1)], named.class_id)
            confidence = np.where(hit, found.confidence, named.confidence)
            perfect_frames.append(Frame(truth, Detections(found.xyxy, confidence.astype(np.float32), perfect)))
        else:
            perfect_frames.append(named_frames[-1])
    for label, frames in (("finds named by the classifier", named_frames), ("finds named perfectly", perfect_frames)):
        table, _ = class_aps(frames)
        print(f"{label:30s} mAP50 {np.nanmean(table[:, 0]):.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=Path, default=Path("datasets/generated/scenes720v2"))
    parser.add_argument("--limit", type=int, default=80, help="test scenes to read (default %(default)s)")
    parser.add_argument("--classifier", type=Path, default=Path("models/index_classifier.onnx"),
                        help="the classifier to score (default: the one the app runs)")
    parser.add_argument("--detector", type=Path, default=Path("models/cards.onnx"))
    parser.add_argument("--backend", choices=BACKENDS, default=BACKENDS[0],
                        help="what runs both networks (default %(default)s, the app's)")
    args = parser.parse_args()
    try:
        classifier = IndexClassifier(args.classifier, runtime=classifier_runtime(args.backend))
        detector = CardDetector(args.detector, args.backend, conf=0.01, classifier=False)
    except WeightsError as error:
        print(f"diagnose_classifier: {error}", file=sys.stderr)
        return 2
    crops_report(args.scenes, args.limit, classifier)
    finds_report(args.scenes, args.limit, classifier, detector)
    return 0


if __name__ == "__main__":
    sys.exit(main())
