"""What the facing network costs the card reader (``vision.reader.facing``): turning sideways finds
upright for the classifier, and finding the table's turn.

    python bench/facing.py [--repeats 20] [--seed 3]

On the 1920×1080 synthetic frame of ``bench/bench_detector.py`` (held-out decks), measured in one
run, taken in turn: the shipped reader's ``CardReader.read`` with no set-up (the facing network reads
every find that may lie sideways, for the classifier to read it upright, and the sure ones give the
table's turn), the same with the facing network off (each find read as it lies), and the facing
network alone on the frame's finds that may lie sideways; then both readers with team areas drawn
around each team's cards, where the table reader faces only the middle's sure finds (for the turn
card, ``vision.reader.facing.finds_to_face``). Each run reads a fresh copy of the frame, made before
its clock starts, as a camera gives a new one (the facing network answers the picture it has just
read from memory). Prints median milliseconds and the share the facing adds each way.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_detector import synthetic_frame  # noqa: E402
from vision.reader.card_reader import CardReader, trained_detector  # noqa: E402
from vision.reader.facing import finds_to_face, may_lie_sideways  # noqa: E402
from vision.reader.team_areas import TableSetup  # noqa: E402
from vision.synth.atlas import DEFAULT_ATLAS_DIR, FaceAtlas  # noqa: E402
from vision.synth.scenes import build_scene  # noqa: E402
from vision.synth.video import team_areas  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    args = parser.parse_args()
    frame = synthetic_frame(args.atlas, args.seed)
    with_facing = CardReader()
    if with_facing.facing is None:
        print("no facing network (models/facing.onnx): nothing to measure")
        return 1
    lying = trained_detector(None)  # the shipped detector without the facing network: finds read as they lie
    without = CardReader(detector=lying)  # a detector given: no facing network
    without.threshold = with_facing.threshold
    found = lying.boxes(frame)  # every find the classifier reads; those that may lie sideways are faced
    asked = found.xyxy[may_lie_sideways(found.xyxy)]
    named = lying.detect(frame)
    areas = TableSetup(areas=team_areas([build_scene(FaceAtlas(args.atlas), args.seed, (1920, 1080), "test")
                                         .ground_truth()]))
    areas_on = CardReader(detector=with_facing.detector, setup=areas, facing=with_facing.facing)
    areas_off = CardReader(detector=lying, setup=areas)
    areas_on.threshold = areas_off.threshold = with_facing.threshold
    middle = int((finds_to_face(areas, (1920, 1080), named) & (named.confidence >= with_facing.threshold)).sum())
    runs = {"read, facing on": with_facing.read,
            "read, facing off": without.read,
            f"facing alone ({len(asked)} of {len(found)} finds)":
                lambda picture: with_facing.facing.facing(picture, asked),
            f"read, team areas, facing on (the middle's {middle} sure finds placed)": areas_on.read,
            "read, team areas, facing off": areas_off.read}
    for run in runs.values():  # warm up: models load and compile
        run(frame.copy())
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):
        for name, run in runs.items():  # in turn, so a busy moment of the machine hits all alike
            picture = frame.copy()  # made before the clock starts
            start = time.perf_counter()
            run(picture)
            times[name].append((time.perf_counter() - start) * 1000)
    medians = {name: statistics.median(values) for name, values in times.items()}
    print("| run | median ms |\n|---|---|")
    for name, value in medians.items():
        print(f"| {name} | {value:.1f} |")
    on, off = medians["read, facing on"], medians["read, facing off"]
    print(f"\nfacing adds {on - off:.1f} ms a reading ({on / off - 1:+.1%}), {args.repeats} repeats")
    on, off = medians[next(name for name in runs if name.startswith("read, team areas, facing on"))], \
        medians["read, team areas, facing off"]
    print(f"with team areas facing adds {on - off:.1f} ms a reading ({on / off - 1:+.1%})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
