"""Where the stock lies: the turn card read on held-out-deck scenes with the draw pile left of the
discard pile as team A sees the table (as the generated tables lay it) and right of it.

    python bench/turn_card_side.py [--scenes 150] [--seed 1] [--size 1920x1080]

Each scene is read from its labelled index boxes (a perfect detector): with the set-up players
would give (the table's top-down view), with that set-up's sides swapped (team A named the other
way round, ``TableSetup.with_sides_swapped``), with team areas drawn around each team's cards and
no perspective (the scenes where both teams laid cards, all of them in the picture) and with
those swapped, without a set-up, and without one but turned as the cards face (as the app reads a
table nobody set up). Each index's direction is taken from its labels (a perfect facing network)
and given to the reading (``Detections.up``) as the app's reader gives the network's: to the
finds ``vision.reader.facing.finds_to_face`` names (all but, with team areas, those in neither area);
some ways are also read without directions (as the reader read the set-up, the areas and the
facing before it used directions there). Prints, per layout and way, how many
scenes have their turn card read with its code (or none read where none shows), and how many melds
have their ranks right (the turn card's place must not cost the melds; as the facing names the
teams by a convention, each scene's melds are judged with the names that read them better). Needs
the face atlas (``python -m vision faces``).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.__main__ import parse_size  # noqa: E402
from vision.evaluation.tables import detections_from_truth, judge, synthetic_scenes, turn_card_shown  # noqa: E402
from vision.model.facing_training import labelled_ups  # noqa: E402
from vision.reader.card_reader import read_table  # noqa: E402
from vision.reader.facing import directions_of, finds_to_face, table_turn  # noqa: E402
from vision.reader.team_areas import TEAMS, TableSetup  # noqa: E402
from vision.synth.atlas import DEFAULT_ATLAS_DIR, FaceAtlas  # noqa: E402
from vision.synth.video import team_areas  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    args = parser.parse_args()
    atlas, size = FaceAtlas(args.atlas), parse_size(args.size)
    for right in (False, True):
        turn_cards, melds, of, read = Counter(), Counter(), Counter(), Counter()
        for truth, setup in synthetic_scenes(atlas, args.scenes, args.seed, size, stock_on_right=right):
            shown = turn_card_shown(truth)
            detections = detections_from_truth(truth)
            faced, turn = _faced(detections, truth)
            swapped = setup.with_sides_swapped()
            readings = {"set-up, without directions": read_table(detections, size, setup),
                        "set-up, with directions": read_table(_as_the_app(faced, setup, size), size, setup),
                        "set-up swapped, with directions": read_table(_as_the_app(faced, swapped, size), size,
                                                                      swapped).with_teams_swapped(),
                        "none": read_table(detections, size, None),
                        "facing, without directions": read_table(detections, size, None, turn=turn),
                        "facing, with directions": read_table(faced, size, None, turn=turn)}
            if all(card["corners"] for team in TEAMS for card in truth["cards"] if card["team"] == team) and \
                    all(any(card["team"] == team for card in truth["cards"]) for team in TEAMS):
                areas = TableSetup(areas=team_areas([truth]))
                swapped = areas.with_sides_swapped()
                readings |= {"areas, without directions": read_table(detections, size, areas),
                             "areas, with directions": read_table(_as_the_app(faced, areas, size), size, areas),
                             "areas swapped, with directions": read_table(_as_the_app(faced, swapped, size), size,
                                                                          swapped).with_teams_swapped()}
            for way, reading in readings.items():
                read[way] += 1
                turn_cards[way] += (reading.turn_card.code if reading.turn_card else None) == shown
                tally = max((judge(r, truth) for r in (reading, reading.with_teams_swapped())),
                            key=lambda t: t.melds_ranks_right) if way.startswith("facing") else judge(reading, truth)
                melds[way] += tally.melds_ranks_right
                of[way] += tally.melds
        print(f"stock {'right' if right else 'left'} of the discard pile, {args.scenes} scenes {args.size}:")
        for way in turn_cards:
            print(f"  {way:>32}: turn card right {turn_cards[way]} of {read[way]}, melds with their ranks right "
                  f"{melds[way]} of {of[way]}")


def _as_the_app(faced, setup, size):
    """The finds with the directions of those the app's reader asks the facing network about."""
    return directions_of(faced, finds_to_face(setup, size, faced))


def _faced(detections, truth):
    """The finds with each index's labelled direction (``Detections.up``), and the table's turn
    those directions give (:func:`vision.reader.facing.table_turn`)."""
    up = labelled_ups(truth, detections.xyxy)
    known = np.linalg.norm(up, axis=1) > 0
    return replace(detections, up=up), table_turn(detections.centers[known], up[known])


if __name__ == "__main__":
    main()
