"""How much would the classifier gain from learning the players' own deck?

    python bench/deck_adaptation.py [--scenes datasets/generated/scenes720v2] [--minutes 1]
                                    [--learn-scenes N] [--classifier models/index_classifier.onnx]
                                    [--threads 1] [--limit N] [--pooled [--self-taught P] | --guard | --app]

The held-out decks stand in for a table's deck the reader has never seen. For each of them, the
shipped classifier is fine-tuned (all its layers, :func:`vision.reader.deck_learning.fine_tune`, the
usual augmentation) on that deck's labelled indexes in the first half of the test scenes (or its
first ``--learn-scenes``), as the cards players confirm at the end of a hand would label them, then
both classifiers read the deck's indexes in the other half as the app reads a find (two windows,
both ways up), but as they lie: the app turns a sideways find upright first, and teaches it so.
Printed per deck: crops named right by the shipped classifier and by the adapted one, all and
readable (:data:`vision.reader.reading.READABLE_INDEX_PX` tall or more,
:data:`vision.evaluation.detector.READABLE_VISIBLE` uncovered). Holds the test scenes in memory (about 0.7 GB
for 250 frames of 1280×720).

``--app`` learns each deck as the app does (*Reader → Teach it our cards*:
:func:`vision.reader.deck_learning.learn_deck`: the last scenes' cards held back, the lesson kept only if it
names more of them right, the shipped classifier otherwise), the labelled indexes of each scene
standing in for the cards players name on one picture.

``--pooled`` learns one classifier from all the held-out decks' indexes at once (most test tables
mix two designs, as real ones may) and scores the detector's finds on the other half named by each
classifier: mAP50 of every index and of the readable ones, as ``python -m vision evaluate`` scores
them (with ``--app``, learnt as the app does). ``--guard`` learns each deck from the first four
fifths of its learning scenes and keeps what it learnt only if that names the deck's indexes in the
last fifth better than the shipped classifier does, as an app should before trusting a deck learnt
from a few hands.

``--pooled --self-taught P`` learns from no labels at all: the classifier's own sure readings of the
learning scenes (the detector's finds at :data:`SELF_TAUGHT_FINDS` or more whose likeliest card has
probability ``P`` or more, each taken as that card), fine-tuned :data:`SELF_TAUGHT_PASSES` passes
at :data:`SELF_TAUGHT_LR`: what a reader could learn of a table's deck by watching the game. It
prints how many of those readings the labels say are right.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.evaluation.detector import READABLE_VISIBLE, test_frames  # noqa: E402
from vision.reader.index_classifier import BACKGROUND, IndexClassifier  # noqa: E402
from vision.reader.reading import READABLE_INDEX_PX  # noqa: E402

#: ``--self-taught``: the detector's finds it learns from are at least this sure (chosen with the
#: rest below on ``scenes720d``'s first 250 test scenes; docs/experiments.md, "Teaching the reader a deck").
SELF_TAUGHT_FINDS = 0.3
#: ``--self-taught``: passes over its readings, and the learning rate. The same sweep (learning
#: from the first 125 scenes, scored on the other 125; shipped 0.5073): sure at 0.9,
#: 10 passes at 1e-4 0.5095 / 0.5094 / 0.5086 (three training seeds), 5 passes 0.5046, 20 passes
#: 0.5116; sure at 0.8 0.5170 / 0.5182 (two seeds), at 20 passes 0.5155, at 3e-4 0.5187; sure at
#: 0.7 0.5171 / 0.5210, at 0.6 0.5190, at 0.95 0.5018. Three minutes at the app's lesson rate
#: (3e-4) on 0.9-sure readings lost (0.518 -> 0.515 on ``scenes720v2``'s halves).
SELF_TAUGHT_PASSES = 10
SELF_TAUGHT_LR = 1e-4


def deck_indexes(frames: list, deck: str):
    """(image, boxes, card ids, readable) of the deck's labelled indexes, frame by frame."""
    for image, truth, decks, visible in frames:
        mine = np.array(decks or [""] * len(truth)) == deck
        if mine.any():
            boxes = truth.xyxy[mine]
            seen = visible[mine] if visible is not None else np.ones(mine.sum())
            yield image, boxes, truth.class_id[mine], (boxes[:, 3] - boxes[:, 1] >= READABLE_INDEX_PX) & (
                seen >= READABLE_VISIBLE)


def learnt_classifier(frames: list, decks: list[str], args: argparse.Namespace,
                      folder: Path) -> tuple[IndexClassifier, int]:
    """The shipped classifier fine-tuned for ``--minutes`` on the indexes of ``decks`` in ``frames``
    (saved in ``folder``), and how many indexes it learnt from."""
    from vision.reader.deck_learning import fine_tune, teaching_crops

    contexts, labels = [], []
    for deck in decks:
        for image, boxes, ids, _ in deck_indexes(frames, deck):
            contexts.append(teaching_crops(image, boxes))
            labels.append(ids)
    labels = np.concatenate(labels).astype(np.int64)
    out = folder / "adapted.onnx"
    fine_tune(np.concatenate(contexts), labels, args.classifier, out, args.minutes, lr=args.lr, log=lambda _: None)
    return IndexClassifier(out), len(labels)


def app_lesson(frames: list, decks: list[str], args: argparse.Namespace, folder: Path) -> tuple[IndexClassifier, int]:
    """The classifier the app reads with after learning the indexes of ``decks`` in ``frames`` as
    players' taught cards, a frame for a picture (the shipped one when the lesson is refused), and
    how many cards were taught."""
    from vision.reader.deck_learning import PASSES, learn_deck, save_cards, teaching_crops
    from vision.reader.deck_learning import learnt_classifier as learnt_export

    contexts, labels, pictures = [], [], []
    for n, frame in enumerate(frames):
        for deck in decks:
            for image, boxes, ids, _ in deck_indexes([frame], deck):
                contexts.append(teaching_crops(image, boxes))
                labels.append(ids)
                pictures.append(np.full(len(ids), n))
    save_cards(folder, np.concatenate(contexts), np.concatenate(labels), np.concatenate(pictures))
    lesson = learn_deck(folder, args.minutes, base=args.classifier, log=lambda _: None,
                        passes=args.passes or PASSES)
    print(f"{', '.join(decks):24s} lesson: {lesson.summary()}")
    learnt = learnt_export(folder)
    return IndexClassifier(learnt if learnt else args.classifier), lesson.cards


def self_taught(frames: list, finds: list, shipped: IndexClassifier, sure: float,
                folder: Path) -> tuple[IndexClassifier, int]:
    """The shipped classifier fine-tuned on its own sure readings of ``finds`` in ``frames`` (see the
    module's docstring; saved in ``folder``), and how many readings it learnt from."""
    from vision.reader.deck_learning import fine_tune, teaching_crops
    from vision.reader.detections import iou

    contexts, labels, right = [], [], []
    for (image, truth, _, _), found in zip(frames, finds):
        boxes = found.xyxy[found.confidence >= SELF_TAUGHT_FINDS]
        cards = shipped.read_boxes(image, boxes)[:, :BACKGROUND]
        chosen = cards.max(axis=1) >= sure
        if not chosen.any():
            continue
        boxes, ids = boxes[chosen], cards[chosen].argmax(axis=1)
        contexts.append(teaching_crops(image, boxes))
        labels.append(ids)
        if len(truth):  # for the record only: how many of the readings learnt from are right
            overlap = iou(boxes, truth.xyxy)
            right.append((overlap.max(axis=1) >= 0.5) & (truth.class_id[overlap.argmax(axis=1)] == ids))
    if not labels:
        raise SystemExit(f"deck_adaptation: no reading of the learning scenes is {sure} sure: nothing to learn")
    labels = np.concatenate(labels).astype(np.int64)
    share_right = np.concatenate(right).mean() if right else float("nan")
    print(
        f"self-taught from {len(labels)} readings {sure:g} sure or more, {share_right:.1%} of them right by the labels"
    )
    out = folder / "self_taught.onnx"
    fine_tune(np.concatenate(contexts), labels, shipped.weights, out, minutes=10, passes=SELF_TAUGHT_PASSES,
              lr=SELF_TAUGHT_LR, log=lambda _: None)
    return IndexClassifier(out), len(labels)


def named_right(classifier: IndexClassifier, frames: list, deck: str) -> tuple[np.ndarray, np.ndarray]:
    """Whether the classifier names each of the deck's indexes in ``frames`` right, as the app reads
    a find, and whether each is readable."""
    right, readable = [np.zeros(0, bool)], [np.zeros(0, bool)]
    for image, boxes, ids, legible in deck_indexes(frames, deck):
        right.append(classifier.read_boxes(image, boxes)[:, :BACKGROUND].argmax(axis=1) == ids)
        readable.append(legible)
    return np.concatenate(right), np.concatenate(readable)


def pooled(learn: list, score: list, decks: list[str], shipped: IndexClassifier, args: argparse.Namespace) -> int:
    """One classifier learnt from every deck; the detector's finds on ``score`` named by each."""
    from vision.evaluation.detector import LOW_CONFIDENCE, Frame, class_aps, readable_only
    from vision.reader.detector import CardDetector

    detector = CardDetector(conf=LOW_CONFIDENCE, classifier=False, threads=args.threads)
    with tempfile.TemporaryDirectory() as folder:
        if args.self_taught:
            learn_finds = [detector.detect(image) for image, _, _, _ in learn]
            adapted, learnt = self_taught(learn, learn_finds, shipped, args.self_taught, Path(folder))
        else:
            adapted, learnt = (app_lesson if args.app else learnt_classifier)(learn, decks, args, Path(folder))
        print(f"learnt from {learnt} indexes of {len(decks)} decks")
        finds = [detector.detect(image) for image, _, _, _ in score]
        for label, classifier in (("shipped", shipped), ("adapted", adapted)):
            frames = [Frame(truth, classifier.name(image, found), frame_decks, visible)
                      for (image, truth, frame_decks, visible), found in zip(score, finds)]
            every, readable = (np.nanmean(class_aps(scored)[0][:, 0]) for scored in (frames, readable_only(frames)))
            print(f"{label:8s} classifier: mAP50 {every:.3f}, readable indexes alone {readable:.3f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=Path, default=Path("datasets/generated/scenes720v2"))
    parser.add_argument("--learn-scenes", type=int, help="learn from this many scenes (default: the first half)")
    parser.add_argument(
        "--minutes",
        type=float,
        help="fine-tuning per deck (default 1; with --app the app's, vision.reader.deck_learning.LESSON_MINUTES)",
    )
    parser.add_argument("--lr", type=float, default=3e-4, help="peak learning rate (default %(default)s)")
    parser.add_argument("--classifier", type=Path, default=Path("models/index_classifier.onnx"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--pooled", action="store_true", help="learn all decks at once and score mAP50 too")
    parser.add_argument(
        "--app", action="store_true", help="learn each deck as the app does (vision.reader.deck_learning)"
    )
    parser.add_argument("--passes", type=float, help="with --app: passes over the taught cards (default: the app's)")
    parser.add_argument("--guard", action="store_true",
                        help="learn from four fifths of the learning scenes and keep what is learnt only if it "
                             "names the deck's indexes in the last fifth better than the shipped classifier")
    parser.add_argument("--self-taught", type=float, metavar="P",
                        help="with --pooled: learn from no labels, the classifier's own readings P sure or more")
    parser.add_argument("--limit", type=int, help="only the first N test scenes")
    args = parser.parse_args()
    if args.self_taught is not None and (not args.pooled or args.app or not 0 < args.self_taught < 1):
        parser.error("--self-taught P (0 < P < 1) goes with --pooled, without --app")
    if args.minutes is None:
        from vision.reader.deck_learning import LESSON_MINUTES

        args.minutes = LESSON_MINUTES if args.app else 1.0
    if args.guard and (args.pooled or args.app):
        parser.error("--guard checks one deck at a time, learnt the bench's way: not with --pooled or --app")
    from threadpoolctl import threadpool_limits

    from vision.reader.weights import WeightsError

    threadpool_limits(args.threads)  # the lessons' numpy, on as many cores as the app gives one
    try:
        frames = list(test_frames(args.scenes, args.limit))
        shipped = IndexClassifier(args.classifier)
    except (FileNotFoundError, WeightsError) as error:
        print(f"deck_adaptation: {error}", file=sys.stderr)
        return 2
    if not 0 < (args.learn_scenes or 1) <= len(frames) // 2:
        parser.error(f"--learn-scenes: 1 to {len(frames) // 2} (the first half of {args.scenes}'s test scenes)")
    learn, score = frames[:args.learn_scenes or len(frames) // 2], frames[len(frames) // 2:]
    decks = sorted({deck for _, _, decks, _ in frames for deck in decks or []})
    print(f"{len(learn)} scenes to learn from, {len(score)} to score on; " + (
        f"{SELF_TAUGHT_PASSES} passes over the reader's own sure readings" if args.self_taught
        else f"{args.minutes:g} min of fine-tuning a deck"))
    if args.pooled:
        return pooled(learn, score, decks, shipped, args)
    totals = np.zeros((2, 2, 2))  # (shipped, adapted) × (all, readable) × (right, crops)
    check = learn[max(1, len(learn) * 4 // 5):] if args.guard else []
    learning = learn[:len(learn) - len(check)]
    for deck in decks:
        if next(deck_indexes(learning, deck), None) is None:
            print(f"{deck:24s} not in the first {len(learning)} scenes: nothing to learn from")
            continue
        started = time.monotonic()
        with tempfile.TemporaryDirectory() as folder:
            if args.app:
                adapted, learnt = app_lesson(learning, [deck], args, Path(folder))
            else:
                adapted, learnt = learnt_classifier(learning, [deck], args, Path(folder))
            if check:
                shipped_right, adapted_right = (named_right(reader, check, deck)[0] for reader in (shipped, adapted))
                kept = len(adapted_right) > 0 and adapted_right.mean() > shipped_right.mean()
                shipped_right, adapted_right = (right.mean() if len(right) else float("nan")
                                                for right in (shipped_right, adapted_right))
                print(f"{deck:24s} held-back check: shipped {shipped_right:.3f}, adapted {adapted_right:.3f}: "
                      f"{'kept' if kept else 'refused'}")
                adapted = adapted if kept else shipped
            counts = np.zeros((2, 2, 2))
            for row, classifier in enumerate((shipped, adapted)):
                right, readable = named_right(classifier, score, deck)
                counts[row] = [[right.sum(), len(right)], [right[readable].sum(), readable.sum()]]
        if not counts[0, 0, 1]:
            print(f"{deck:24s} not in the last {len(score)} scenes: nothing to score")
            continue
        totals += counts
        with np.errstate(invalid="ignore"):  # a deck without readable indexes reads nan there
            rate = counts[..., 0] / counts[..., 1]
        print(f"{deck:24s} learnt from {learnt:5d} crops ({time.monotonic() - started:3.0f} s), scored "
              f"{int(counts[0, 0, 1]):5d} ({int(counts[0, 1, 1])} readable): named right {rate[0, 0]:.3f} -> "
              f"{rate[1, 0]:.3f}, readable {rate[0, 1]:.3f} -> {rate[1, 1]:.3f}")
    with np.errstate(invalid="ignore"):
        rate = totals[..., 0] / totals[..., 1]
    print(f"{'all held-out decks':24s} named right {rate[0, 0]:.3f} -> {rate[1, 0]:.3f}, "
          f"readable {rate[0, 1]:.3f} -> {rate[1, 1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
