"""The table reader on held-out-deck synthetic scenes and simulated hand videos, and its latency.

    python bench/bench_reader.py [--scenes 300] [--seed 1] [--size 1920x1080] [--videos DIR ...]
    python bench/bench_reader.py --pictures datasets/generated/scenes1080v2 [--limit 250] [--thresholds 0.5 0.2]
                                 [--naming score|card]

The hand videos are the demo and the ground truth of eleven more (``datasets/videos/seedN``: the
frames' labels and the events, without the pictures; ``python -m vision video --seed N`` films them).

The reader first gets each scene's labelled index boxes (a perfect detector), then the same boxes
spoiled as a real detector would spoil them (see ``vision.evaluation.tables.Noise``). Prints meld-exact %,
meld-ranks-right %, pile-right % and score-equal % for the reader with the table set-up players
would give (the table perspective) and without any, on every scene and on the readable ones (every
card the score needs shows an index); then the events of each hand video; then the median time
from detections to a ``TableReading`` on one core. The scenes need the face atlas (``python -m vision faces``).

With ``--pictures`` it reads instead the test pictures of a ``python -m vision synth`` folder end to
end with the shipped detector (``models/``), as the app reads a frame, once per confidence threshold
of ``--thresholds`` (by default the table reader's), beside the same scenes' labelled boxes, each
also without a set-up as the app reads one, turned as the cards face (the "facing" rows). A hand
video with its pictures (``hand.mp4``: the demo, or one filmed with ``python -m vision video --split
test``) is also read from them, as the app reads it; ``--scenes 0`` reads the videos alone, and
``--set-ups areas facing halves`` reads each with the team areas (the middle's cards faced, for the
turn card, as the app does), without them as the app does
(the sides told apart by the cards' facing, ``vision.reader.facing``), and with the picture's halves;
``--swap-after 125`` plays a player who swaps the sides' names five seconds after the reader
named them the wrong way round; ``--live`` reads them at this machine's pace, each reading taking the
first frame shown after the last one ended, as the app reads a playing video.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.__main__ import parse_size  # noqa: E402
from vision.evaluation.tables import (  # noqa: E402
    Noise,
    SceneMismatch,
    dataset_scenes,
    detections_from_truth,
    evaluate,
    synthetic_scenes,
)
from vision.evaluation.videos import evaluate_video  # noqa: E402
from vision.reader.card_reader import read_at, read_table  # noqa: E402
from vision.reader.index_classifier import NAMINGS  # noqa: E402
from vision.reader.reading import COLUMN_SHARE, READING_THRESHOLD  # noqa: E402
from vision.synth.atlas import DEFAULT_ATLAS_DIR, FaceAtlas  # noqa: E402

COLUMNS = (
    "scenes",
    "melds",
    "meld_exact_%",
    "meld_ranks_right_%",
    "cards_missed_%",
    "cards_extra_%",
    "piles",
    "pile_right_%",
    "score_equal_told_%",
    "score_equal_assumed_%",
    "turn_card_right_%",
)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    parser.add_argument("--videos", type=Path, nargs="*",
                        default=[Path("datasets/demo"), *sorted(Path("datasets/videos").glob("seed*"),
                                                                key=lambda p: int(p.name.removeprefix("seed")))])
    parser.add_argument("--pictures", type=Path, help="a python -m vision synth folder whose test pictures "
                        "the shipped detector reads (instead of synthetic scenes, videos and latency)")
    parser.add_argument("--limit", type=int, help="with --pictures: the first this many test pictures")
    parser.add_argument("--thresholds", type=float, nargs="+", default=[READING_THRESHOLD],
                        help="with --pictures, and for videos with pictures: the detector's confidence thresholds "
                        "to read at (default %(default)s)")
    parser.add_argument("--column-share", type=float, default=COLUMN_SHARE, metavar="SHARE",
                        help="with pictures: the detector runs at this share of each threshold, for weak finds "
                        "that continue meld columns (default %(default)s, the reader's; 1: none)")
    parser.add_argument("--naming", choices=NAMINGS, default="score",
                        help="with --pictures, and for videos with pictures: how the classifier judges a find "
                        "(default %(default)s, the reader's)")
    parser.add_argument("--every", type=int, default=3,
                        help="videos with pictures are read every this many frames (default %(default)s: the app "
                        "reads at most 8 of a camera's 25 frames a second; on two cores it reads a 1080p video "
                        "every 6th, the demo every 7th)")
    parser.add_argument("--live", action="store_true",
                        help="videos with pictures are read at this machine's pace, as the app reads a playing "
                        "video: each reading takes the first frame shown after the last one ended, but not "
                        "sooner than --every frames after it")
    parser.add_argument("--set-ups", nargs="+", choices=SET_UPS, default=["areas"],
                        help="videos with pictures are read with each of these set-ups: the team areas drawn "
                        "around each team's cards (areas), none with the sides told apart by the cards' facing "
                        "(facing, what the app does without a set-up), none at all, the picture's lower half "
                        "for team A (halves) (default: %(default)s)")
    parser.add_argument("--swap-after", type=int, metavar="FRAMES",
                        help="with the facing set-up: a player presses \"Swap the sides\" once the reader has named "
                        "the sides the wrong way round for this many frames (125: five seconds)")
    args = parser.parse_args()
    if args.pictures:
        try:
            _pictures(args)
        except (FileNotFoundError, SceneMismatch) as error:
            sys.exit(f"bench_reader: {error}")
        return
    size = parse_size(args.size)
    # Scenes are drawn from the face atlas, needed only when some are asked for (--scenes 0: videos alone).
    scenes = list(synthetic_scenes(FaceAtlas(args.atlas), args.scenes, args.seed, size)) if args.scenes else []
    if scenes:
        for label, noise in (("ground-truth boxes", None), ("noisy boxes", Noise())):
            _table(f"{label}" + (f" ({noise})" if noise else "") + f", {args.scenes} held-out-deck scenes "
                   f"{args.size}:", evaluate(scenes, noise))
    print("\nhand videos (ground-truth boxes; noisy boxes):")
    for video in args.videos:
        print(f"  {video}: {evaluate_video(video).summary()}; {evaluate_video(video, Noise()).summary()}")
    _filmed([video for video in args.videos if (video / "hand.mp4").is_file()], args)
    if scenes:
        _latency(scenes, size)


#: How ``--set-ups`` may read the hand videos: see its help.
SET_UPS = ("areas", "facing", "halves")


def _filmed(videos: list[Path], args) -> None:
    """Hand videos read from their pictures by the shipped reader, at each threshold and set-up."""
    if not videos:
        return
    from vision.reader.card_reader import shipped_facing
    from vision.reader.detector import CardDetector

    facing = shipped_facing()  # the classifier reads each find upright by it, as the app's does, whatever the set-up
    if facing is None:
        sys.exit("bench_reader: no facing network (models/facing.onnx): rebuild it with python -m vision facing")
    detector = CardDetector(naming=args.naming, facing=facing)
    pace = "live, at this machine's pace, at most every" if args.live else "every"
    for threshold, set_up in ((t, s) for t in args.thresholds for s in args.set_ups):
        read_at(detector, threshold, args.column_share)
        print(f"\nhand videos read from their pictures by the shipped detector, threshold {threshold} (weak finds "
              f"from {detector.conf:.3g}), named by {args.naming}, "
              f"{pace} {args.every} frames, set-up: {set_up}:")
        swap_after = args.swap_after if set_up == "facing" else None
        if swap_after is not None:
            print(f"  (a player swaps the sides' names once they have been wrong for {swap_after} frames)")
        results = [evaluate_video(video, detector=detector, every=args.every, threshold=threshold,
                                  areas=set_up == "areas", facing=facing if set_up != "halves" else None,
                                  swap_after=swap_after, live=args.live)
                   for video in videos]
        for video, result in zip(videos, results):
            print(f"  {video}: {result.summary()}\n    truth: {result.truth_events}\n    read:  {result.read_events}")
        lags = [r.turn_card_lag for r in results if r.turn_card_lag is not None]
        print(
            f"  all: {sum(r.events_in_order for r in results)} of {sum(len(r.truth_events) for r in results)} "
            f"events in the order played ({sum(r.events_in_order_as_reported for r in results)} in the order "
            f"reported; {sum(r.events_extra for r in results)} read events beyond those in order), "
            f"{sum(r.events_match for r in results)} of {len(results)} videos with every event, "
            f"the turn card reported drawn {statistics.median(lags) if lags else '-'} frames after it was (median "
            f"of {len(lags)}; {sum(lag < 0 for lag in lags)} reported before; reported and taken back "
            f"{sum(r.turn_card_taken_back for r in results)} times), "
            f"dead ranks right in {sum(r.dead_ranks[0] == r.dead_ranks[1] for r in results)}; at the end the melds "
            f"read with {sum(r.meld_cards_extra for r in results)} cards extra and "
            f"{sum(r.meld_cards_missing for r in results)} missing of "
            f"{sum(sum(r.meld_cards[0].values()) for r in results)}; "
            f"{sum(r.readings for r in results)} readings"
        )


def _table(title: str, results: dict[str, dict]) -> None:
    print(f"\n{title}")
    print("  " + " ".join(f"{c:>22}" for c in ("reader/scenes",) + COLUMNS))
    for key, row in results.items():
        print("  " + " ".join(f"{v!s:>22}" for v in (key,) + tuple(row[c] for c in COLUMNS)))


def _pictures(args) -> None:
    """The shipped reader end to end on a synth folder's test pictures, at each threshold."""
    from vision.reader.card_reader import shipped_facing
    from vision.reader.detector import CardDetector

    scenes = list(dataset_scenes(args.pictures, FaceAtlas(args.atlas), args.limit))
    where = f"{len(scenes)} test pictures of {args.pictures}"
    facing = shipped_facing()  # each picture also read without a set-up as the app reads it: the "facing" rows
    if facing is None:
        sys.exit("bench_reader: no facing network (models/facing.onnx): rebuild it with python -m vision facing")
    _table(f"labelled boxes, {where}:", evaluate(scenes, facing=facing))
    detector = CardDetector(naming=args.naming, facing=facing)  # each find read upright, as the app reads it
    for threshold in args.thresholds:
        read_at(detector, threshold, args.column_share)
        _table(f"the shipped detector at threshold {threshold} (weak finds from {detector.conf:.3g}), named by "
               f"{args.naming}, {where}:", evaluate(scenes, detector=detector, threshold=threshold, facing=facing))


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
          f"90th percentile {sorted(times)[int(0.9 * len(times))]:.1f} ms (median {cards:.0f} index boxes a frame); "
          f"the detector's own time per frame: bench/bench_detector.py")


if __name__ == "__main__":
    main()
