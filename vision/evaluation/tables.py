"""How well the reader reads held-out-deck synthetic scenes: from their ground-truth index boxes, or
from what the shipped detector finds in their pictures.

Fed the scenes' labelled index boxes, the reader sees what a perfect detector would give; :func:`noisy`
then spoils them the way a real detector would (boxes missed, boxes jittered, a few wrong classes,
confidences below 1) to show how the reading holds up. :func:`dataset_scenes` gives the pictures of a
``python -m vision synth`` folder's test split, and :func:`evaluate` given a ``detector`` reads each
picture end to end, as the app does. Measures:

- meld exact: share of the ground truth's column and fan melds that the reading has, for the same
  team, with exactly the same cards (count and composition);
- meld ranks right: the same, but a card counts by its rank alone (a two, a joker or the meld's
  rank), as the score does: a natural's suit scores nothing, so a meld read with a wrong suit but
  the right cards in number and rank scores as it should;
- cards missed and cards extra: of the cards laid in melds and threes (not squared into piles), the
  share the reading lacks, and the share it has too many, counted by score name: what players add
  and remove when they check a reading;
- pile right: share of squared canasta piles read as a pile of the right rank and kind;
- score equal: share of scenes whose hand score from the reading equals the ground truth for both
  teams, the team that went out being told (as players tell the app); piles' contents either told
  by the players (``told``) or assumed from the top card (``assumed``).

"Readable" scenes are those where every card the score needs shows a labelled index (no card off
the frame or under an arm): the ceiling for any reader of a single photo.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.handfile import HandFileError, score_report
from vision.reader.card_reader import read_table
from vision.reader.classes import class_id, score_name
from vision.reader.detections import Detections
from vision.reader.reading import TableReading
from vision.reader.team_areas import TableSetup

SCORED_AREAS = ("meld", "threes", "hand", "canasta_pile")


def detections_from_truth(truth: dict) -> Detections:
    """A scene's labelled index boxes, as a perfect detector would give them (confidence 1)."""
    width, height = truth["image"]["width"], truth["image"]["height"]
    boxes, classes = [], []
    for card in truth["cards"]:
        for index in card["indexes"]:
            if index["labelled"]:
                polygon = np.array(index["polygon"])
                x0, y0 = np.maximum(polygon.min(axis=0), 0)
                x1, y1 = np.minimum(polygon.max(axis=0), (width, height))
                boxes.append((x0, y0, x1, y1))
                classes.append(class_id(card["code"]))
    if not boxes:
        return Detections.empty()
    return Detections(np.array(boxes), np.ones(len(boxes)), np.array(classes))


@dataclass(frozen=True)
class Noise:
    """What a real detector gets wrong, per box."""

    missed: float = 0.05  #: share of boxes not found
    jitter: float = 0.08  #: box edges move by this share of the box size (standard deviation)
    wrong_class: float = 0.01  #: share of boxes given another class
    low_confidence: float = 0.5  #: confidences drawn uniformly from here to 1


def noisy(detections: Detections, noise: Noise, rng: np.random.Generator) -> Detections:
    kept = detections[rng.random(len(detections)) >= noise.missed]
    sizes = np.repeat(kept.sizes, 2, axis=0).reshape(-1, 4) if len(kept) else np.zeros((0, 4))
    xyxy = kept.xyxy + rng.normal(0, noise.jitter, kept.xyxy.shape) * sizes
    classes = kept.class_id.copy()
    wrong = rng.random(len(classes)) < noise.wrong_class
    classes[wrong] = rng.integers(0, 53, wrong.sum())
    confidence = rng.uniform(noise.low_confidence, 1.0, len(classes))
    return Detections(xyxy, confidence, classes)


@dataclass
class Tally:
    melds: int = 0
    melds_exact: int = 0
    melds_ranks_right: int = 0
    cards_laid: int = 0  #: in melds and threes, not squared into piles
    cards_missed: int = 0
    cards_extra: int = 0
    piles: int = 0
    piles_right: int = 0
    scenes: int = 0
    score_told: int = 0
    score_assumed: int = 0
    turn_card_right: int = 0  #: whether the sideways turn card shows, read right

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def summary(self) -> dict:
        share = lambda a, b: round(100.0 * a / b, 1) if b else None  # noqa: E731
        return {"scenes": self.scenes, "melds": self.melds, "meld_exact_%": share(self.melds_exact, self.melds),
                "meld_ranks_right_%": share(self.melds_ranks_right, self.melds),
                "cards_missed_%": share(self.cards_missed, self.cards_laid),
                "cards_extra_%": share(self.cards_extra, self.cards_laid),
                "piles": self.piles, "pile_right_%": share(self.piles_right, self.piles),
                "score_equal_told_%": share(self.score_told, self.scenes),
                "score_equal_assumed_%": share(self.score_assumed, self.scenes),
                "turn_card_right_%": share(self.turn_card_right, self.scenes)}


def judge(reading: TableReading, truth: dict) -> Tally:
    """Compare one reading with its scene's ground truth."""
    tally = Tally(scenes=1)
    piles_told = {}
    for team in ("A", "B"):
        side = reading.teams[team]
        read_melds = [Counter(m.codes) for m in side.melds]
        read_ranks = [_ranks(m.codes) for m in side.melds]
        truth_piles = _truth_piles(truth, team)
        pile_cards = [Counter(p) for p in truth_piles]
        laid = _ranks(truth["hand"]["teams"][team]["threes"])
        read = _ranks(c.code for c in side.threes) + sum(read_ranks, Counter())
        for meld in truth["hand"]["teams"][team]["melds"]:
            cards, ranks = Counter(meld), _ranks(meld)
            if cards in pile_cards:
                continue
            laid += ranks
            tally.melds += 1
            if cards in read_melds:
                read_melds.remove(cards)
                tally.melds_exact += 1
            if ranks in read_ranks:
                read_ranks.remove(ranks)
                tally.melds_ranks_right += 1
        tally.cards_laid += laid.total()
        tally.cards_missed += (laid - read).total()
        tally.cards_extra += (read - laid).total()
        tops = {_telling(truth, team, pile): pile for pile in truth_piles}
        for pile in side.piles:
            if pile.top.code in tops:
                piles_told[(team, pile.rank or "wild")] = tops.pop(pile.top.code)
                tally.piles_right += 1
        tally.piles += len(truth_piles)
    tally.turn_card_right = int((turn_card_shown(truth) is not None) == (reading.turn_card is not None))
    went_out = truth["hand"]["went_out"]
    tally.score_told = int(_score(reading.to_hand_dict(went_out, piles_told)) == truth["scores"])
    tally.score_assumed = int(_score(reading.to_hand_dict(went_out)) == truth["scores"])
    return tally


def turn_card_shown(truth: dict) -> str | None:
    """The code of the turn card where a scene shows one of its indexes, else ``None``."""
    return next((card["code"] for card in truth["cards"]
                 if card["area"] == "turn_card" and any(index["labelled"] for index in card["indexes"])), None)


def _ranks(codes) -> Counter:
    """Cards by score name (:func:`vision.reader.classes.score_name`: rank, a three's colour, two or
    joker): what their score depends on."""
    return Counter(score_name(code) for code in codes)


def _truth_piles(truth: dict, team: str) -> list[list[str]]:
    """The team's melds the scene shows squared into a pile."""
    numbers = {card["group"] for card in truth["cards"] if card["team"] == team and card["area"] == "canasta_pile"}
    return [truth["hand"]["teams"][team]["melds"][n] for n in sorted(numbers)]


def _telling(truth: dict, team: str, pile: list[str]) -> str:
    """The code of the card on top of a squared pile (drawn last among its cards)."""
    cards = [c for c in truth["cards"] if c["team"] == team and c["area"] == "canasta_pile"
             and truth["hand"]["teams"][team]["melds"][c["group"]] == pile]
    return cards[-1]["code"]


def _score(hand: dict) -> dict | None:
    try:
        report = score_report(hand)
    except HandFileError:
        return None
    return {team: report["teams"][team]["total"] for team in ("A", "B")}


def readable(truth: dict) -> bool:
    """Every card the score needs shows a labelled index (for a pile: its top card)."""
    piles: dict[tuple, list[dict]] = {}
    for card in truth["cards"]:
        if card["area"] == "canasta_pile":
            piles.setdefault((card["team"], card["group"]), []).append(card)
        elif card["area"] in SCORED_AREAS and card["code"] and not any(i["labelled"] for i in card["indexes"]):
            return False
    return all(any(i["labelled"] for i in cards[-1]["indexes"]) for cards in piles.values())


def evaluate(scenes, noise: Noise | None = None, seed: int = 0, detector=None,
             threshold: float = 0.0, facing=None) -> dict[str, dict]:
    """Tallies over ``scenes`` (pairs of ground truth and the table set-up players would give) for
    every scene and for readable ones, read with and without the set-up. With a ``detector``
    (anything with ``detect(frame_bgr) -> Detections``) each scene is read from its picture instead
    of its labelled boxes: ``scenes`` are then :func:`dataset_scenes`' triples. Finds under
    ``threshold`` only continue meld columns (:func:`vision.reader.card_reader.read_table`). With ``facing``
    (a :class:`~vision.reader.facing.FacingReader`; pictures needed) the set-up is read as the app reads it,
    with the directions of the cards :func:`~vision.reader.facing.finds_to_face` names, and each scene is
    also read without a set-up as the app reads one, turned as the picture's cards face
    (``facing/``), and so with the teams' names swapped where that reads its melds better
    (``facing named/``: which team the reader calls A is a convention, the side nearer the
    picture's bottom)."""
    from vision.reader.facing import TableFacing, directions_of, face_finds, finds_to_face
    from vision.reader.physical_cards import one_find_per_index

    rng = np.random.default_rng(seed)
    modes = ("set-up", "default") + (("facing", "facing named") if facing is not None else ())
    tallies = {f"{mode}/{which}": Tally() for mode in modes for which in ("all", "readable")}
    for truth, setup, *picture in scenes:
        image = cv2.imread(str(picture[0])) if detector is not None or facing is not None else None
        if detector is not None:
            detections = detector.detect(image)
        else:
            detections = detections_from_truth(truth)
        if noise is not None:
            detections = noisy(detections, noise, rng)
        size = (truth["image"]["width"], truth["image"]["height"])
        readings = {"set-up": read_table(detections, size, setup, threshold=threshold),
                    "default": read_table(detections, size, None, threshold=threshold)}
        if facing is not None:
            gathered = TableFacing()
            faced = face_finds(facing, image, one_find_per_index(detections), threshold, gathered)
            # the set-up read as the app reads it, with the directions of the finds it asks about
            readings["set-up"] = read_table(directions_of(faced, finds_to_face(setup, size, faced)), size, setup,
                                            threshold=threshold)
            readings["facing"] = read_table(faced, size, None, threshold=threshold, turn=gathered.turn)
            readings["facing named"] = max((readings["facing"], readings["facing"].with_teams_swapped()),
                                           key=lambda r: _named_right(r, truth))
        for mode, reading in readings.items():
            tally = judge(reading, truth)
            tallies[f"{mode}/all"].add(tally)
            if readable(truth):
                tallies[f"{mode}/readable"].add(tally)
                if mode == "set-up" and "meld_layout" in truth:
                    tallies.setdefault(f"set-up/readable/{truth['meld_layout']}", Tally()).add(tally)
                if mode == "default" and truth.get("camera_from_a"):
                    tallies.setdefault("default/readable/camera from A", Tally()).add(tally)
    return {key: tally.summary() for key, tally in tallies.items()}


def _named_right(reading: TableReading, truth: dict) -> tuple[int, int]:
    """How well a reading's team names fit the truth: melds with their ranks right, then cards laid
    read."""
    tally = judge(reading, truth)
    return tally.melds_ranks_right, tally.cards_laid - tally.cards_missed


def camera_setup(camera) -> TableSetup:
    """The table perspective players would set, from a synthetic scene's camera (table units)."""
    return TableSetup(perspective=np.linalg.inv(camera.table_to_image()))


def synthetic_scenes(atlas, count: int, seed: int, image_size: tuple[int, int], stock_on_right: bool = False):
    """Held-out-deck test scenes (no pixels needed): (ground truth, table set-up) pairs; with
    ``stock_on_right`` the same scenes with the draw pile right of the discard pile."""
    from vision.synth.scenes import build_scene, scene_seed

    for number in range(count):
        scene = build_scene(atlas, scene_seed(seed, "test", number), image_size, "test",
                            stock_on_right=stock_on_right)
        # How the scene's players lay melds, and whether the camera faces the table from team A's
        # side (turned less than 30°: the default reading's premise), to break the figures down;
        # neither is in the dataset's JSON.
        forward = scene.camera.forward
        turn = np.degrees(np.arctan2(forward[0], -forward[1]))
        extra = {"meld_layout": "fans" if scene.style.fan_melds else "columns", "camera_from_a": bool(abs(turn) < 30)}
        yield {**scene.ground_truth(), **extra}, camera_setup(scene.camera)


class SceneMismatch(ValueError):
    """A saved scene that the face atlas no longer builds as it was made."""


def dataset_scenes(folder: Path, atlas, limit: int | None = None, split: str = "test"):
    """(ground truth, table set-up, picture path) of a ``python -m vision synth`` folder's split, in
    name order. The set-up comes from the scene's camera, which the saved description does not hold:
    the scene is built again from its seed, and :class:`SceneMismatch` raised when that no longer
    gives the saved cards (the face atlas changed since the pictures were made)."""
    from vision.synth.scenes import build_scene

    described = sorted((Path(folder) / "images" / split).glob("*.json"))[:limit]
    if not described:
        raise FileNotFoundError(
            f"no {split} scenes in {Path(folder) / 'images' / split}: run python -m vision synth first"
        )
    for path in described:
        truth = json.loads(path.read_text())
        size = (truth["image"]["width"], truth["image"]["height"])
        scene = build_scene(atlas, truth["seed"], size, split)
        if [card["code"] for card in scene.ground_truth()["cards"]] != [card["code"] for card in truth["cards"]]:
            raise SceneMismatch(f"{path} is no longer the scene its seed builds: the face atlas has changed since "
                                f"it was made; make the scenes again with python -m vision synth")
        yield truth, camera_setup(scene.camera), path.with_suffix(".jpg")


__all__ = [
    "Noise",
    "SceneMismatch",
    "Tally",
    "dataset_scenes",
    "detections_from_truth",
    "evaluate",
    "judge",
    "noisy",
    "readable",
    "synthetic_scenes",
]
