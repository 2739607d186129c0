"""Hands scored per second on one core (the app re-checks the table every frame).

    .venv/bin/python bench/bench_scoring.py [--hands 2000] [--repeats 7]

Prints the median over repeats for: scoring a built EndOfHand (what the app does per reading), and
scoring a hand file end to end (parse, validate, score) as `python -m companion score` does; and the
ratio of each to the 50,000 hands/s target.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from companion.cards import NATURAL_RANKS, SUITS
from companion.handfile import load_hand, score_report
from companion.scoring import score_hand

TARGET = 50_000


def random_hand(rng: random.Random) -> dict:
    """A plausible end-of-hand table: a few melds per team, some canastas, threes, cards in hand."""
    ranks = rng.sample(NATURAL_RANKS, len(NATURAL_RANKS))  # 8 ranks melded, the other 3 held
    held = [f"{rank}{suit}" for rank in ranks[8:] for suit in SUITS] * 2
    rng.shuffle(held)
    teams = {}
    for team, team_ranks in (("A", ranks[:4]), ("B", ranks[4:8])):
        melds = []
        for i, rank in enumerate(team_ranks):
            size = 7 if i < rng.randint(0, 2) else rng.randint(3, 6)
            melds.append([f"{rank}{SUITS[j % 4]}" for j in range(size)])
        teams[team] = {
            "melds": melds,
            "threes": rng.sample(["3H", "3D", "3C", "3S"], rng.randint(0, 3)),
            "hands": [[held.pop() for _ in range(rng.randint(0, 3))] for _ in range(2)],
        }
    return {"went_out": rng.choice(["A", "B", None]), "teams": teams}


def rate(fn, items, repeats: int) -> float:
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for item in items:
            fn(item)
        rates.append(len(items) / (time.perf_counter() - start))
    return statistics.median(rates)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    rng = random.Random(7)
    files = [random_hand(rng) for _ in range(args.hands)]
    built = [load_hand(f) for f in files]
    built_rate = rate(score_hand, built, args.repeats)
    file_rate = rate(score_report, files, args.repeats)
    print(f"{'what':<40} {'hands/s (median)':>18} {'÷ target':>9}")
    print(f"{'score a built EndOfHand':<40} {built_rate:>18,.0f} {built_rate / TARGET:>9.2f}")
    print(f"{'score a hand file (parse+check+score)':<40} {file_rate:>18,.0f} {file_rate / TARGET:>9.2f}")
    print(f"({args.hands} hands × {args.repeats} repeats, one core, target {TARGET:,} hands/s)")


if __name__ == "__main__":
    main()
