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
import numpy as np

from companion.cards import Card
from companion.hand import CardsAdded, HandEnded, HandState, MeldStarted, Opened, ThreesLaidOut, TurnCardDrawn, WentOut
from companion.hand import Event as HandEvent
from companion.legality import opening_minimum
from vision.reader.team_areas import TABLE_SETUP_FILE, TableSetup, in_picture
from vision.synth.atlas import FaceAtlas
from vision.synth.augment import photograph
from vision.synth.camera import random_camera
from vision.synth.layout import random_style
from vision.synth.occluders import random_occluders
from vision.synth.render import render_scene
from vision.synth.scenes import build_scene
from vision.synth.table_state import TEAMS, TableState, TeamTable, random_table

#: Each event is filmed as a few stills (an arm reaching in, then a clear view), each held for a
#: third of a second at a webcam's frame rate, with fresh sensor noise in every frame.
STILLS_PER_EVENT = 3
FRAMES_PER_STILL = 8
FPS = 25


def hand_events(final: TableState, rng: random.Random) -> list[tuple[dict, TableState]]:
    """The table after each event of the hand, from the deal to the spread hands.

    Played as the rules have it: each team's first meld is an opening that reaches the minimum for a
    team on 0 points with a clean triple (seed 000 §Your team's first meld), wild cards come last in
    their melds (the rule of five), and the turn card is drawn late, when 8 cards are left.
    """
    state = TableState({t: TeamTable() for t in TEAMS}, final.discard[:1], 40, final.turn_card or final.discard[0])
    steps: list[tuple[dict, TableState]] = [({"event": "deal"}, copy.deepcopy(state))]

    def record(event: dict) -> None:
        steps.append((event, copy.deepcopy(state)))

    turns = _playable_turns(final, rng)
    turn_card_at = int(len(turns) * 0.8)
    for number, turn in enumerate(turns):
        if number == turn_card_at:
            state.turn_card = None
            record({"event": "turn_card_taken"})
        record(_play(state, turn))
        state.stock_size = max(0, state.stock_size - 1)
        if rng.random() < 0.4 and len(state.discard) < len(final.discard):
            state.discard.append(final.discard[len(state.discard)])
    if state.turn_card is not None:
        state.turn_card = None
        record({"event": "turn_card_taken"})
    state.went_out = final.went_out
    record({"event": "went_out", "team": final.went_out} if final.went_out else {"event": "stock_out"})
    for team in TEAMS:
        state.teams[team].hands = copy.deepcopy(final.teams[team].hands)
    record({"event": "hands_spread"})
    return steps


def _playable_turns(final: TableState, rng: random.Random, tries: int = 20) -> list[list]:
    """An order of play for the final table that the game core finds legal, if one of a few random
    orders is (the orderings follow the rules, but an opening can pull a wild-card meld ahead of a
    wild card another meld was due)."""
    for _ in range(tries):
        moves = _table_moves(final)
        rng.shuffle(moves)
        moves.sort(key=lambda move: move[2])  # within each meld the cards keep the order they were laid
        turns = _with_openings(_interleave(moves, rng))
        if _legal(turns):
            break
    return turns


def _legal(turns: list[list]) -> bool:
    state, scratch = HandState(), TableState({t: TeamTable() for t in TEAMS}, [], 0, None)
    return not any(state.apply(as_hand_event(_play(scratch, turn))) for turn in turns)


def as_hand_event(event: dict) -> HandEvent | None:
    """The game core's event for one event of the simulated hand (``None`` for the deal and the
    spread hands, which change nothing the hand state checks)."""
    cards = lambda codes: tuple(Card.parse(c) for c in codes)  # noqa: E731
    kind, team = event["event"], event.get("team")
    if kind == "opened":
        return Opened(team, tuple(cards(m) for m in event["melds"]))
    if kind == "meld":
        return MeldStarted(team, cards(event["cards"]))
    if kind in ("added_to_meld", "canasta"):
        return CardsAdded(team, event["meld"], cards(event["cards"]))
    if kind == "three_laid_out":
        return ThreesLaidOut(team, cards([event["card"]]))
    if kind == "turn_card_taken":
        return TurnCardDrawn()
    if kind == "went_out":
        return WentOut(team)
    if kind == "stock_out":
        return HandEnded("stock_out")
    return None


def _play(state: TableState, turn: list) -> dict:
    """Put one turn's cards on the table; the event that says what happened."""
    team, kind, _, target, codes = turn[0]
    side = state.teams[team]
    if kind == "three":
        side.threes.append(codes[0])
        return {"event": "three_laid_out", "team": team, "card": codes[0]}
    if kind == "opening":
        melds: dict[int, list[str]] = {}
        for _, _, _, number, cards in turn:
            melds.setdefault(number, []).extend(cards)
        side.melds.extend(list(melds[number]) for number in sorted(melds))
        return {"event": "opened", "team": team, "melds": [melds[number] for number in sorted(melds)]}
    if len(side.melds) <= target:
        side.melds.append(list(codes))
        return {"event": "meld", "team": team, "meld": target, "cards": list(codes)}
    side.melds[target].extend(codes)
    return {"event": "canasta" if len(side.melds[target]) == 7 else "added_to_meld",
            "team": team, "meld": target, "cards": list(codes)}


def _with_openings(ordered: list) -> list[list]:
    """Group moves into turns: a team's first meld becomes an opening that also takes the team's next
    meld moves (in their playable order) until it counts the minimum of a team on 0 points with a
    clean triple (the simulated hand is the first of a game)."""
    wild_melds = {(m[0], m[3]) for m in ordered if m[1] == "meld" and m[2] == 0 and not any(map(_is_natural, m[4]))}
    turns, opened, pending = [], set(), list(ordered)
    while pending:
        move = pending.pop(0)
        if move[1] != "meld" or move[0] in opened:
            turns.append([move])
            continue
        opened.add(move[0])
        opening = [move]
        # Wild cards are the last of their natural meld, so they can wait for its five naturals;
        # they join the opening only when it can't reach the minimum without them.
        for with_wild in (False, True):
            for later in [m for m in pending if m[0] == move[0] and m[1] == "meld"]:
                if _opening_points(opening) >= opening_minimum(0) and _has_clean_triple(opening):
                    break
                wild_card = later[2] > 0 and (later[0], later[3]) not in wild_melds and not _all_natural(later)
                if wild_card and not (with_wild and _has_clean_triple(opening + [later])):
                    continue
                opening.append(later)
                pending.remove(later)
        turns.append([(t, "opening", o, n, c) for t, _, o, n, c in opening])
    return turns


def _opening_points(moves: list) -> int:
    return sum(Card.parse(code).points for move in moves for code in move[4])


def _is_natural(code: str) -> bool:
    return Card.parse(code).is_natural


def _all_natural(move: tuple) -> bool:
    return all(map(_is_natural, move[4]))


def _has_clean_triple(moves: list) -> bool:
    """Some meld of the opening is three or more natural cards with no wild card."""
    melds: dict[int, list[str]] = {}
    for move in moves:
        melds.setdefault(move[3], []).extend(move[4])
    return any(len(cards) >= 3 and all(map(_is_natural, cards)) for cards in melds.values())


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
    """Moves in a playable order: melds opened in their number order, each meld's cards in order, and
    no wild card into another meld while the team's wild-card meld is unfinished (seed 000 §Wild card
    melds)."""
    pending = sorted(moves, key=lambda m: (m[0], m[3], m[2], m[1]))
    wild_melds = {(m[0], m[3]) for m in moves if m[1] == "meld" and m[2] == 0 and not any(map(_is_natural, m[4]))}
    ordered, opened = [], {t: -1 for t in TEAMS}

    def wild_meld_going(team: str) -> bool:
        return any(t == team and n <= opened[team] and any(m[0] == t and m[3] == n for m in pending)
                   for t, n in wild_melds)

    def ready(m: tuple) -> bool:
        if m[1] == "three":
            return True
        if m[2] == 0:
            return m[3] == opened[m[0]] + 1
        if m[3] > opened[m[0]] or not _previous_done(m, pending):
            return False
        spends_wild = (m[0], m[3]) not in wild_melds and not all(map(_is_natural, m[4]))
        return not (spends_wild and wild_meld_going(m[0]))

    while pending:
        move = rng.choice([m for m in pending if ready(m)])
        if move[1] == "meld" and move[2] == 0:
            opened[move[0]] = move[3]
        pending.remove(move)
        ordered.append(move)
    return ordered


def _previous_done(move: tuple, pending: list) -> bool:
    return not any(m[0] == move[0] and m[1] == "meld" and m[3] == move[3] and m[2] < move[2] for m in pending)


def write_hand_video(atlas: FaceAtlas, out_dir: Path, seed: int, image_size: tuple[int, int],
                     split: str = "train", pause: float = 0.0, stock_on_right: bool = False) -> dict:
    """Write ``hand.mp4``, ``frames.jsonl.gz`` (per-frame ground truth) and ``events.json``; the
    cards are of ``split``'s decks (``"test"``: the held-out ones, which the detector never saw).

    Each play is filmed in about a second, a play after another, far faster than a table plays:
    between two plays of one team come at least the other team's turn, and every turn is a draw,
    melds and a discard (seed 000 §Taking a turn). ``pause`` holds the clear view this many seconds longer after each
    event, as the table lies still between turns; the hand, the camera and the arms are the same
    as without it, so one seed filmed at two paces measures what the pace alone does to a reader.
    ``stock_on_right`` lays the draw pile and the turn card right of the discard pile as team A
    sees the table (:attr:`~vision.synth.layout.LayoutStyle.stock_on_right`), the hand otherwise the same."""
    if not np.isfinite(pause) or round(pause * FPS) < 0:
        raise ValueError(f"pause must be 0 seconds or more, not {pause}")
    pause_frames = round(pause * FPS)
    rng = random.Random(seed)
    final = random_table(rng, hand_over=True)
    style = replace(random_style(rng), squares_canastas=True, fan_melds=False, messiness=0.0,
                    stock_on_right=stock_on_right)
    camera = random_camera(rng, image_size, (0.0, 0.0), card_height_px=image_size[1] / rng.uniform(7, 9))
    steps = hand_events(final, rng)
    out_dir.mkdir(parents=True, exist_ok=True)
    video = cv2.VideoWriter(str(out_dir / "hand.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), FPS, image_size)
    events, frame = [], 0
    noise = np.random.default_rng(seed)
    with gzip.open(out_dir / "frames.jsonl.gz", "wt") as truth_file:
        for number, (event, state) in enumerate(steps):
            events.append({**event, "frame": frame})
            # A player's arm reaches in while a card is being laid (the first still), then the view
            # is clear for the other stills, one picture with fresh sensor noise in every frame. The
            # arm is drawn from the frame number the video would have without pauses.
            unpaused = number * STILLS_PER_EVENT * FRAMES_PER_STILL
            reach = random_occluders(random.Random(seed * 7919 + unpaused), image_size, camera.card_height_px)[:1]
            clear = (STILLS_PER_EVENT - 1) * FRAMES_PER_STILL + pause_frames
            for occluders, held in ((reach, FRAMES_PER_STILL), ([], clear)):
                scene = build_scene(atlas, seed, image_size, split, state=state, style=style, camera=camera,
                                    occluders=occluders)
                picture = photograph(render_scene(scene, atlas), scene.owners, seed)
                truth = json.dumps({"event": len(events) - 1, **scene.ground_truth()})
                for _ in range(held):
                    video.write(_sensor_noise(picture, noise))
                    truth_file.write(f'{{"frame": {frame}, {truth[1:]}\n')
                    frame += 1
    video.release()
    summary = {"seed": seed, "fps": FPS, "frames": frame, "size": list(image_size), "pause": pause_frames / FPS,
               "events": events}
    (out_dir / "events.json").write_text(json.dumps(summary, indent=1))
    try:
        write_table_setup(out_dir)
    except NoAreaShown as error:  # the video stands; the app plays it without team areas
        (out_dir / TABLE_SETUP_FILE).unlink(missing_ok=True)  # an earlier video's, written here before
        summary["no_table_setup"] = str(error)
    return summary


def team_areas(frames: list[dict]) -> dict[str, np.ndarray]:
    """Each team's area as players would draw it: around every card the team lays in the hand."""
    return {team: cv2.convexHull(np.array([p for f in frames for c in f["cards"] if c["team"] == team and c["corners"]
                                           for p in c["corners"]], np.float32)).reshape(-1, 2).astype(np.float64)
            for team in TEAMS}



class NoAreaShown(ValueError):
    """A team lays no card where the picture shows it, so players could draw no area for it."""


def players_areas(frames: list[dict]) -> TableSetup:
    """Each team's area as players would drag it: four corners, on the picture, around every card
    the team lays in the hand (the smallest turned rectangle around the part of
    :func:`team_areas` that the picture shows)."""
    width, height = frames[0]["image"]["width"], frames[0]["image"]["height"]
    areas = {}
    for team, hull in team_areas(frames).items():
        shown = in_picture(hull, (width, height))
        if not len(shown):
            raise NoAreaShown(f"team {team} lays no card where the picture shows it: no area to set up")
        corners = cv2.boxPoints(cv2.minAreaRect(shown.astype(np.float32)))
        areas[team] = np.clip(corners, 0, [width, height]).astype(np.float64)
    return TableSetup(areas=areas)


def write_table_setup(out_dir: Path) -> Path:
    """Write :data:`~vision.reader.team_areas.TABLE_SETUP_FILE` beside a hand video: :func:`players_areas` of
    its frames; :class:`NoAreaShown` where a team's cards all lie outside the picture (held-out
    seed 45 at 1920×1080: team A's), and then no file."""
    with gzip.open(out_dir / "frames.jsonl.gz", "rt") as lines:
        frames = [json.loads(line) for line in lines]
    path = out_dir / TABLE_SETUP_FILE
    players_areas(frames).save(path)
    return path


def _sensor_noise(picture: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A webcam never delivers the same frame twice: a little noise, different every frame."""
    grain = rng.normal(0.0, 2.0, picture.shape).astype(np.float32)
    return np.clip(picture.astype(np.float32) + grain, 0, 255).astype(np.uint8)
