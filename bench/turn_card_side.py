"""Where the stock lies: the turn card read on held-out-deck scenes with the draw pile left of the
discard pile as team A sees the table (as the generated tables lay it) and right of it.

    python bench/turn_card_side.py [--scenes 150] [--seed 1] [--size 1920x1080]

Each scene is read from its labelled index boxes (a perfect detector) three ways: with the set-up
players would give (the table's top-down view), with that set-up's sides swapped (team A named
the other way round, ``TableSetup.with_sides_swapped``), and without a set-up. Prints, per layout
and way, how many scenes have their turn card read with its code (or none read where none shows),
and how many melds have their ranks right (the turn card's place must not cost the melds). Needs
the face atlas (``python -m vision faces``).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.__main__ import parse_size  # noqa: E402
from vision.atlas import DEFAULT_ATLAS_DIR, FaceAtlas  # noqa: E402
from vision.card_reader import read_table  # noqa: E402
from vision.evaluate_reader import detections_from_truth, judge, synthetic_scenes  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    args = parser.parse_args()
    atlas, size = FaceAtlas(args.atlas), parse_size(args.size)
    for right in (False, True):
        turn_cards, melds, of = Counter(), Counter(), Counter()
        for truth, setup in synthetic_scenes(atlas, args.scenes, args.seed, size, stock_on_right=right):
            shows = [c["code"] for c in truth["cards"] if c["area"] == "turn_card" and any(i["labelled"] for i in c["indexes"])]
            detections = detections_from_truth(truth)
            for way, used in (("set-up", setup), ("set-up, sides swapped", setup.with_sides_swapped()), ("none", None)):
                reading = read_table(detections, size, used)
                turn_cards[way] += (reading.turn_card.code if reading.turn_card else None) == (shows[0] if shows else None)
                tally = judge(reading.with_teams_swapped() if used is not setup and used is not None else reading, truth)
                melds[way] += tally.melds_ranks_right
                of[way] += tally.melds
        print(f"stock {'right' if right else 'left'} of the discard pile, {args.scenes} scenes {args.size}:")
        for way in turn_cards:
            print(f"  {way:>22}: turn card right {turn_cards[way]} of {args.scenes}, melds with their ranks right "
                  f"{melds[way]} of {of[way]}")


if __name__ == "__main__":
    main()
