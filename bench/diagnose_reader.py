"""Why the reader's score differs from the truth on readable scenes read with the table set-up.

    python bench/diagnose_reader.py [--scenes 150] [--seed 1] [--show 5]

For every readable held-out-deck scene (ground-truth boxes: a perfect detector) whose score from the
reading (piles' contents told) differs from the truth, names the parts of each team that differ
(piles, cards read into a team or left out, cards in the wrong meld, threes or hand); prints how many misses each kind
of difference has, and a few examples of each.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.__main__ import parse_size  # noqa: E402
from vision.evaluation.tables import _truth_piles, detections_from_truth, judge, readable, synthetic_scenes  # noqa: E402
from vision.reader.card_reader import read_table  # noqa: E402
from vision.synth.atlas import DEFAULT_ATLAS_DIR, FaceAtlas  # noqa: E402


def differences(reading, truth) -> list[str]:
    """What the reading gets wrong on the scored parts of the table: piles missed or made up, cards
    read into a team or left out of it (counted over melds, threes and hands), cards in the wrong
    meld, threes or hand."""
    found = []
    for team in ("A", "B"):
        side, told = reading.teams[team], truth["hand"]["teams"][team]
        piles = _truth_piles(truth, team)
        melds = [m for m in told["melds"] if Counter(m) not in [Counter(p) for p in piles]]
        if len(piles) != len(side.piles):
            found.append("piles")
        hands = [c for h in told["hands"] for c in h]
        truth_cards = Counter(c for m in melds for c in m) + Counter(told["threes"]) + Counter(hands)
        read_cards = Counter(c.code for m in side.melds for c in m.cards) + Counter(c.code for c in side.threes) + \
            Counter(c.code for h in side.hands for c in h)
        if read_cards - truth_cards:
            found.append("extra cards")
        if truth_cards - read_cards:
            found.append("missing cards")
        if read_cards == truth_cards:
            if sorted(sorted(m) for m in melds) != sorted(sorted(m.codes) for m in side.melds):
                found.append("meld grouping")
            if sorted(told["threes"]) != sorted(c.code for c in side.threes):
                found.append("threes")
            if sorted(sorted(h) for h in told["hands"] if h) != sorted(sorted(c.code for c in h) for h in side.hands):
                found.append("hand split")
    return found


def detail(reading, truth) -> str:
    lines = []
    for team in ("A", "B"):
        side, told = reading.teams[team], truth["hand"]["teams"][team]
        lines.append(f"    {team} truth melds={told['melds']} threes={told['threes']} hands={told['hands']}")
        lines.append(f"    {team} read  melds={[m.codes for m in side.melds]} piles={[p.top.code for p in side.piles]} "
                     f"threes={[c.code for c in side.threes]} hands={[[c.code for c in h] for h in side.hands]}")
    discard = [c["code"] for c in truth["cards"] if c["area"] in ("discard", "turn_card") and c["code"]]
    lines.append(f"    middle truth={discard} read={[c.code for c in reading.discard]} "
                 f"turn={reading.turn_card.code if reading.turn_card else None}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenes", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--size", default="1920x1080")
    parser.add_argument("--show", type=int, default=3, help="examples to print of each kind")
    parser.add_argument("--default", action="store_true", help="read without the table set-up")
    args = parser.parse_args()
    kinds: Counter = Counter()
    examples: dict[str, list[str]] = {}
    scenes = misses = 0
    for number, (truth, setup) in enumerate(synthetic_scenes(FaceAtlas(DEFAULT_ATLAS_DIR), args.scenes, args.seed,
                                                              parse_size(args.size))):
        if not readable(truth):
            continue
        scenes += 1
        size = (truth["image"]["width"], truth["image"]["height"])
        reading = read_table(detections_from_truth(truth), size, None if args.default else setup)
        if judge(reading, truth).score_told:
            continue
        misses += 1
        kind = " + ".join(sorted(set(differences(reading, truth)))) or "(none found)"
        kinds[kind] += 1
        examples.setdefault(kind, []).append(f"  scene {number} ({truth['meld_layout']}):\n{detail(reading, truth)}")
    print(f"{misses} score misses in {scenes} readable scenes ({100 * (scenes - misses) / max(scenes, 1):.1f}% equal)")
    for kind, count in kinds.most_common():
        print(f"\n{count:4d}  {kind}")
        for example in examples[kind][:args.show]:
            print(example)


if __name__ == "__main__":
    main()
