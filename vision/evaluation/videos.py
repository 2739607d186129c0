"""The tracker on a simulated hand video (``python -m vision video``): do the events derived from
the readings match the hand's own events, in order, and are dead ranks and the turn card right at
the end?

Frames are read from their ground-truth index boxes (a perfect detector), or, given a detector, from
the video's pictures (``hand.mp4``) as the app reads them. The team areas are drawn as players would draw them once for
the table: around all the
cards each team lays during the hand. Going out is not compared: it does not show on the table
(players tell the app who went out); nor is the spreading of hands when the camera sees none of them.
"""

from __future__ import annotations

import gzip
import json
import math
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.evaluation.tables import Noise, detections_from_truth, noisy
from vision.reader.card_reader import LiveDetection, read_table
from vision.reader.facing import TableFacing, face_finds, finds_to_face
from vision.reader.physical_cards import ViewMemory, one_find_per_index
from vision.reader.team_areas import TEAMS, TableSetup
from vision.reader.tracking import TableTracker, meld_key
from vision.synth.video import team_areas

COMPARED = ("turn_card_taken", "three_laid_out", "opened", "meld", "added_to_meld", "canasta", "hands_spread")


@dataclass(frozen=True)
class VideoResult:
    truth_events: list[tuple]
    read_events: list[tuple]  #: in the order they were played (each first read), see :attr:`TableEvent.frame`
    dead_ranks: tuple[set, set]  #: (truth, read)
    turn_card_drawn: tuple[bool, bool]  #: (truth, read)
    #: cards laid in melds or threes that show no index when an event's filming ends (its clear
    #: view), as ``team + code``: no reader can count them, so the video is not readable
    hidden: tuple[str, ...] = ()
    #: cards per team and meld rank (``"A 9"``) at the hand's end: (truth, read), what the score
    #: sheet gets before the players correct it
    meld_cards: tuple[dict[str, int], dict[str, int]] = ({}, {})
    #: the read events in the order the tracker reported them (each once its change had held)
    reported_events: list[tuple] | None = None
    #: the frame the turn card was drawn in, and the frame whose reading the tracker reported it
    #: drawn at (``None``: not drawn, not reported)
    turn_card_taken_at: tuple[int | None, int | None] = (None, None)
    #: how often the tracker took back a draw it had reported (the turn card read again where it
    #: lay): the players saw the turn card drawn for a while; the draw is in neither event list
    turn_card_taken_back: int = 0
    #: how often a player swapped the sides' names (``evaluate_video``'s ``swap_after``)
    swaps: int = 0
    #: how many frames were read
    readings: int = 0

    @property
    def readable(self) -> bool:
        return not self.hidden

    @property
    def events_match(self) -> bool:
        return self.truth_events == self.read_events

    @property
    def events_in_order(self) -> int:
        """How many truth events the reading has in the same order, as played."""
        return _in_order(self.truth_events, self.read_events)

    @property
    def events_in_order_as_reported(self) -> int:
        """How many truth events the reading has in the same order, as the tracker reported them."""
        return _in_order(self.truth_events, self.read_events if self.reported_events is None else self.reported_events)

    @property
    def events_extra(self) -> int:
        """Read events beyond those in order: made up, misread, or out of order."""
        return len(self.read_events) - self.events_in_order

    @property
    def turn_card_lag(self) -> int | None:
        """Frames from the turn card's draw to the tracker's report of it (negative: reported before
        it was drawn); ``None`` unless it was both drawn and reported."""
        drawn, reported = self.turn_card_taken_at
        return None if drawn is None or reported is None else reported - drawn

    @property
    def meld_cards_extra(self) -> int:
        """Cards the hand's melds were read with beyond what they held at the end."""
        return sum((Counter(self.meld_cards[1]) - Counter(self.meld_cards[0])).values())

    @property
    def meld_cards_missing(self) -> int:
        """Cards the hand's melds held at the end that the reading lacks."""
        return sum((Counter(self.meld_cards[0]) - Counter(self.meld_cards[1])).values())

    def summary(self) -> dict:
        return {"events": len(self.truth_events), "read_events": len(self.read_events),
                "in_order": self.events_in_order, "in_order_as_reported": self.events_in_order_as_reported,
                "events_extra": self.events_extra, "all_match": self.events_match,
                "meld_cards_extra": self.meld_cards_extra, "meld_cards_missing": self.meld_cards_missing,
                "readable": self.readable,
                "dead_ranks_right": self.dead_ranks[0] == self.dead_ranks[1],
                "turn_card_right": self.turn_card_drawn[0] == self.turn_card_drawn[1],
                "turn_card_lag": self.turn_card_lag, "turn_card_taken_back": self.turn_card_taken_back,
                "swaps": self.swaps, "readings": self.readings}


def _in_order(truth: list[tuple], read: list[tuple]) -> int:
    """How many of ``truth`` ``read`` has in the same order (longest common subsequence)."""
    table = np.zeros((len(truth) + 1, len(read) + 1), int)
    for i, x in enumerate(truth):
        for j, y in enumerate(read):
            table[i + 1, j + 1] = table[i, j] + 1 if x == y else max(table[i, j + 1], table[i + 1, j])
    return int(table[-1, -1])


def evaluate_video(video_dir: Path, noise: Noise | None = None, seed: int = 0, confirm: int = 2,
                   detector=None, every: int = 1, wait_frames: int | None = None,
                   threshold: float = 0.0, areas: bool = True, facing=None,
                   swap_after: int | None = None, live: bool = False) -> VideoResult:
    """The tracker's events over a hand video, read from its labelled boxes, or with a ``detector``
    (anything with ``detect(frame_bgr) -> Detections``) from its pictures, ``hand.mp4``; every
    ``every``-th frame only (the app reads at most 8 of a camera's 25 frames a second: 3), the
    tracker waiting ``wait_frames`` (:attr:`~vision.reader.tracking.TableTracker.wait_frames`). Finds under
    ``threshold`` only continue meld columns (:func:`vision.reader.card_reader.read_table`), as the app's
    reader reads a detector run at :data:`~vision.reader.reading.COLUMN_SHARE` of it. ``facing`` (a
    :class:`~vision.reader.facing.FacingReader`) tells which way the cards point, as the app's reader does:
    with the team areas, the middle's (:func:`~vision.reader.facing.finds_to_face`); ``areas=False`` reads
    the video as a table nobody set up, without team areas, all the cards' directions giving the
    table's middle and turn (:class:`~vision.reader.facing.TableFacing`). ``swap_after``, with
    ``facing``: a player watching presses "Swap the sides" once the reader has named the sides the
    wrong way round (the filmed hand's team A on the side it calls B's) for this many frames: the
    reader names them the other way from then on, and the tracker takes the hand so far as each
    team's play the other's (:meth:`~vision.reader.tracking.TableTracker.swap_teams`). ``live``: read at this
    machine's pace, as the app's reading thread reads a playing video (:mod:`companion.app.live`):
    each reading takes the first frame shown after the last one ended (the detector, the facing,
    the table and the tracker, timed), but not sooner than ``every`` frames after it; the readings
    made are counted (:attr:`VideoResult.readings`)."""
    summary = json.loads((Path(video_dir) / "events.json").read_text())
    with gzip.open(Path(video_dir) / "frames.jsonl.gz", "rt") as lines:
        frames = [json.loads(line) for line in lines]
    setup = TableSetup(areas=team_areas(frames)) if areas else TableSetup()
    table_facing = TableFacing() if facing is not None and not areas else None
    rng = np.random.default_rng(seed)
    tracker = TableTracker(confirm=confirm, wait_frames=wait_frames)
    memory, memory_turn = ViewMemory(), None
    pictures = _pictures(Path(video_dir) / "hand.mp4", len(frames)) if detector is not None else None
    finder = LiveDetection(detector) if detector is not None else None
    reported_drawn, taken_back = None, 0
    true_areas = team_areas(frames) if swap_after is not None else None
    true_way = None if true_areas is None else true_areas["B"].mean(axis=0) - true_areas["A"].mean(axis=0)
    named_wrong_since, swaps = None, 0
    fps, next_reading, readings = summary.get("fps", 25), 0, 0
    for number, truth in enumerate(frames):
        picture = next(pictures) if pictures is not None else None
        if (number < next_reading) if live else number % every:
            continue
        started, readings = time.perf_counter(), readings + 1
        detections = finder.detect(picture) if picture is not None else detections_from_truth(truth)
        if noise is not None:
            detections = noisy(detections, noise, rng)
        if finder is not None:  # as the app's reader (CardReader.read), which reads the next frame at their size
            detections = one_find_per_index(detections)
            finder.saw(detections[detections.confidence >= threshold])
        if facing is not None:  # as the app's reader (CardReader.read)
            detections = one_find_per_index(detections)
            detections = face_finds(facing, picture, detections, threshold, table_facing, among=finds_to_face(
                setup, (truth["image"]["width"], truth["image"]["height"]), detections))
        if table_facing is not None:
            if true_way is not None and table_facing.turn is not None:
                if table_facing.turn.towards_b @ true_way >= 0:
                    named_wrong_since = None
                elif named_wrong_since is None:
                    named_wrong_since = number
                elif number - named_wrong_since >= swap_after:  # the player swaps the sides
                    table_facing.name_sides(-table_facing.turn.towards_b)
                    tracker.swap_teams()
                    named_wrong_since, swaps = None, swaps + 1
            if table_facing.turn is not memory_turn:  # as the app's reader: a new turn, a new view
                memory, memory_turn = ViewMemory(), table_facing.turn
        events = tracker.update(read_table(detections, (truth["image"]["width"], truth["image"]["height"]),
                                           setup, memory, threshold, memory_turn), frame=number)
        if any(event.kind == "turn_card_back" for event in events):
            reported_drawn, taken_back = None, taken_back + 1
        if reported_drawn is None and any(event.kind == "turn_card_taken" for event in events):
            reported_drawn = number
        next_reading = number + max(every, math.ceil((time.perf_counter() - started) * fps))
    # In the order they were played (the tracker reports each once it has held, an opening only
    # once its melds have settled, so a three laid after an opening may be reported first).
    read = [read_event(e) for e in sorted(tracker.events, key=lambda e: e.frame)]
    truth = truth_events(summary["events"])
    if not any(i["labelled"] for c in frames[-1]["cards"] if c["area"] == "hand" for i in c["indexes"]):
        truth = [e for e in truth if e != ("hands_spread",)]  # the camera never sees the spread hands
    return VideoResult(truth, read,
                       (_truth_dead_ranks(frames[-1]), set(tracker.state.dead_ranks.ranks)),
                       (any(e["event"] == "turn_card_taken" for e in summary["events"]), tracker.state.turn_card.drawn),
                       hidden_cards(frames),
                       (_meld_cards({team: final["melds"] for team, final in frames[-1]["hand"]["teams"].items()}),
                        _meld_cards({team: [[c.code for c in m.cards] for m in tracker.state.teams[team].melds]
                                     for team in TEAMS})),
                       [read_event(e) for e in tracker.events],
                       (next((e["frame"] for e in summary["events"] if e["event"] == "turn_card_taken"), None),
                        reported_drawn), taken_back, swaps, readings)


def _pictures(path: Path, count: int):
    """The video's ``count`` frames (BGR), one per labelled frame; ValueError when it has fewer."""
    capture = cv2.VideoCapture(str(path))
    try:
        for number in range(count):
            ok, frame = capture.read()
            if not ok:
                raise ValueError(f"{path} has {number} frames where its labels describe {count}")
            yield frame
    finally:
        capture.release()


def hidden_cards(frames: list[dict]) -> tuple[str, ...]:
    """Cards of melds and threes without a visible index in the last frame of an event's filming."""
    last = {frame["event"]: frame for frame in frames}
    return tuple(sorted({card["team"] + card["code"] for frame in last.values() for card in frame["cards"]
                         if card["area"] in ("meld", "threes") and not any(i["labelled"] for i in card["indexes"])}))


def truth_events(events: list[dict]) -> list[tuple]:
    """A filmed hand's events (``events.json``'s) as the reader's are compared with them
    (:func:`read_event`), in the order played."""
    melds: dict[tuple, list[str]] = {}
    out = []
    for e in events:
        if e["event"] not in COMPARED:
            continue
        if e["event"] == "opened":
            for number, meld in enumerate(e["melds"]):
                melds[(e["team"], number)] = list(meld)
            out.append(_opening(e["team"], e["melds"]))
            continue
        if e["event"] in ("meld", "added_to_meld", "canasta"):
            melds.setdefault((e["team"], e["meld"]), []).extend(e["cards"])
        if e["event"] == "canasta":
            out.append(("canasta", e["team"], meld_key(melds[(e["team"], e["meld"])])))
        elif e["event"] in ("meld", "added_to_meld"):
            out.append((e["event"], e["team"], tuple(sorted(e["cards"]))))
        elif e["event"] == "three_laid_out":
            out.append((e["event"], e["team"], (e["card"],)))
        else:
            out.append((e["event"],))
    return out


def _opening(team: str, melds) -> tuple:
    """An opening by its melds' ranks and sizes: a canasta in it may already be squared, showing
    only its top card."""
    return ("opened", team, tuple(sorted((meld_key(m), len(m)) for m in melds)))


def read_event(event) -> tuple:
    """A :class:`~vision.reader.tracking.TableEvent` as it is compared with the filmed hand's
    (:func:`truth_events`): an opening by its melds' ranks and sizes, a card event by its cards."""
    if event.kind == "opened":
        return _opening(event.team, event.melds)
    if event.kind == "canasta":
        return ("canasta", event.team, event.meld)
    if event.kind in ("meld", "added_to_meld", "three_laid_out"):
        return (event.kind, event.team, tuple(sorted(event.cards)))
    return (event.kind,)


def _meld_cards(melds: dict[str, list[list[str]]]) -> dict[str, int]:
    """Each team's melds as cards per rank (``"A 9": 7``)."""
    cards = Counter()
    for team, side in melds.items():
        for codes in side:
            cards[f"{team} {meld_key(codes)}"] += len(codes)
    return dict(cards)


def _truth_dead_ranks(final: dict) -> set:
    """Ranks of the finished canastas (the table rule's default: any canasta kills its rank)."""
    return {meld_key(m) for team in TEAMS for m in final["hand"]["teams"][team]["melds"]
            if len(m) >= 7 and meld_key(m) != "wild"}
