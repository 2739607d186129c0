"""A whole hand as a video: the generator plays a simulated hand forward and films it.

The hand's final table is drawn first (a legal end of hand, a team out), then replayed from the
deal: the turn card is taken, threes are laid out, melds appear and grow, a meld reaching seven
becomes a canasta and is squared into a pile, the discard pile changes, a team goes out and the
hands are spread. Every frame has its scene ground truth; the events are listed with their frames.
The camera, surface, decks and light stay fixed through the hand, as a webcam's would.
"""

from __future__ import annotations

import copy
import gzip
import json
import random
from dataclasses import replace
from pathlib import Path

import cv2

from vision.atlas import FaceAtlas
from vision.augment import photograph
from vision.camera import random_camera
from vision.occluders import random_occluders
from vision.render import render_scene
from vision.scene import random_style
from vision.synth import build_scene
from vision.table_state import TEAMS, TableState, TeamTable, random_table

FRAMES_PER_EVENT = 3
FPS = 4


def hand_events(final: TableState, rng: random.Random) -> list[tuple[dict, TableState]]:
    """The table after each event of the hand, from the deal to the spread hands."""
    state = TableState({t: TeamTable() for t in TEAMS}, final.discard[:1], 40, final.turn_card or final.discard[0])
    steps: list[tuple[dict, TableState]] = [({"event": "deal"}, copy.deepcopy(state))]

    def record(event: dict) -> None:
        steps.append((event, copy.deepcopy(state)))

    state.turn_card = None
    record({"event": "turn_card_taken"})
    moves = _table_moves(final)
    rng.shuffle(moves)
    moves.sort(key=lambda move: move[2])  # within each meld the cards keep the order they were laid
    for team, kind, order, target, codes in _interleave(moves, rng):
        side = state.teams[team]
        if kind == "three":
            side.threes.append(codes[0])
            record({"event": "three_laid_out", "team": team, "card": codes[0]})
        elif len(side.melds) <= target:
            side.melds.append(list(codes))
            record({"event": "meld", "team": team, "meld": target, "cards": list(codes)})
        else:
            side.melds[target].extend(codes)
            record({"event": "canasta" if len(side.melds[target]) == 7 else "added_to_meld",
                    "team": team, "meld": target, "cards": list(codes)})
        state.stock_size = max(0, state.stock_size - 1)
        if rng.random() < 0.4 and len(state.discard) < len(final.discard):
            state.discard.append(final.discard[len(state.discard)])
    state.went_out = final.went_out
    record({"event": "went_out", "team": final.went_out})
    for team in TEAMS:
        state.teams[team].hands = copy.deepcopy(final.teams[team].hands)
    record({"event": "hands_spread"})
    return steps


def _table_moves(final: TableState) -> list[tuple[str, str, int, int, list[str]]]:
    """(team, kind, order, meld number, cards) for every card laid: a meld starts with three cards."""
    moves = []
    for team, side in final.teams.items():
        moves += [(team, "three", 0, 0, [code]) for code in side.threes]
        for number, meld in enumerate(side.melds):
            moves.append((team, "meld", 0, number, meld[:3]))
            moves += [(team, "meld", i, number, [code]) for i, code in enumerate(meld[3:], start=1)]
    return moves


def _interleave(moves: list, rng: random.Random) -> list:
    """Moves in a playable order: melds opened in their number order, each meld's cards in order."""
    pending = sorted(moves, key=lambda m: (m[0], m[3], m[2], m[1]))
    ordered, opened = [], {t: -1 for t in TEAMS}
    while pending:
        ready = [m for m in pending if m[1] == "three" or (m[2] == 0 and m[3] == opened[m[0]] + 1)
                 or (m[2] > 0 and m[3] <= opened[m[0]] and _previous_done(m, pending))]
        move = rng.choice(ready)
        if move[1] == "meld" and move[2] == 0:
            opened[move[0]] = move[3]
        pending.remove(move)
        ordered.append(move)
    return ordered


def _previous_done(move: tuple, pending: list) -> bool:
    return not any(m[0] == move[0] and m[1] == "meld" and m[3] == move[3] and m[2] < move[2] for m in pending)


def write_hand_video(atlas: FaceAtlas, out_dir: Path, seed: int, image_size: tuple[int, int]) -> dict:
    """Write ``hand.mp4``, ``frames.jsonl.gz`` (per-frame ground truth) and ``events.json``."""
    rng = random.Random(seed)
    final = random_table(rng, hand_over=True)
    style = replace(random_style(rng), squares_canastas=True, fan_melds=False, messiness=0.0)
    camera = random_camera(rng, image_size, (0.0, 0.0), card_height_px=image_size[1] / rng.uniform(7, 9))
    steps = hand_events(final, rng)
    out_dir.mkdir(parents=True, exist_ok=True)
    video = cv2.VideoWriter(str(out_dir / "hand.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), FPS, image_size)
    events, frame = [], 0
    with gzip.open(out_dir / "frames.jsonl.gz", "wt") as truth_file:
        for event, state in steps:
            events.append({**event, "frame": frame})
            for still in range(FRAMES_PER_EVENT):
                # A player's arm reaches in while a card is being laid, then the view is clear.
                reach = random_occluders(random.Random(seed * 7919 + frame), image_size, camera.card_height_px)[:1]
                scene = build_scene(atlas, seed, image_size, "train", state=state, style=style, camera=camera,
                                    occluders=reach if still == 0 else [])
                video.write(photograph(render_scene(scene, atlas), scene.owners, seed))
                truth_file.write(json.dumps({"frame": frame, "event": len(events) - 1, **scene.ground_truth()}) + "\n")
                frame += 1
    video.release()
    summary = {"seed": seed, "fps": FPS, "frames": frame, "size": list(image_size), "events": events}
    (out_dir / "events.json").write_text(json.dumps(summary, indent=1))
    return summary
