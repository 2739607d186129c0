"""One synthetic scene: a legal table, laid out, seen by a random webcam, with labels and ground truth.

:func:`build_scene` does everything but the pixels (layout, camera, occluders, visibility, labels),
so tests can check labels on thousands of scenes quickly; :func:`vision.synth.render.render_scene` paints
the same scene. The same seed always gives the same scene.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import cv2
import numpy as np

from companion.handfile import score_report
from vision.reader.classes import class_id
from vision.synth.atlas import FaceAtlas
from vision.synth.camera import Camera, random_camera
from vision.synth.labels import IndexView, id_map, index_views, yolo_line
from vision.synth.layout import LayoutStyle, PlacedCard, lay_out, random_style
from vision.synth.occluders import Shape, random_occluders
from vision.synth.table_state import TableState, random_table

SPLITS = ("train", "val", "test")


@dataclass
class SceneCard:
    """A placed card with the face it shows and where that lands in the image."""

    placed: PlacedCard
    deck: str
    face_name: str | None  # atlas face name; None when the card lies face down
    quad: np.ndarray | None  # (4, 2) image pixels of the face corners; None if behind the camera
    face_to_image: np.ndarray | None
    indexes: list[IndexView]
    visible: float


@dataclass
class Scene:
    seed: int
    split: str
    image_size: tuple[int, int]
    state: TableState
    style: LayoutStyle
    camera: Camera
    cards: list[SceneCard]
    occluders: list[list[Shape]]
    owners: np.ndarray

    def labels(self) -> list[str]:
        """YOLO lines: one per labelled corner index."""
        return [yolo_line(class_id(card.placed.code), view.box(self.image_size), self.image_size)
                for card in self.cards for view in card.indexes if view.labelled]

    def ground_truth(self) -> dict:
        hand = self.state.hand_input()
        report = score_report(hand)
        return {
            "seed": self.seed, "split": self.split,
            "image": {"width": self.image_size[0], "height": self.image_size[1]},
            "camera": self.camera.to_json(),
            "cards": [_card_json(card) for card in self.cards],
            "hand": hand,
            "scores": {team: report["teams"][team]["total"] for team in ("A", "B")},
            "stock_size": self.state.stock_size,
        }


def scene_seed(dataset_seed: int, split: str, number: int) -> int:
    """The seed of one image of a dataset: stable, and different across splits and images."""
    return (dataset_seed * 1_000_003 + SPLITS.index(split) * 100_000_007 + number) % (2**31)


def build_scene(atlas: FaceAtlas, seed: int, image_size: tuple[int, int], split: str = "train",
                state: TableState | None = None, style: LayoutStyle | None = None,
                camera: Camera | None = None, occluders: list[list[Shape]] | None = None,
                stock_on_right: bool = False, card_heights: tuple[float, float] | None = None) -> Scene:
    """Everything about a scene except its pixels. ``state``, ``style``, ``camera`` and ``occluders``
    may be given (the video keeps them across frames); otherwise they are drawn from ``seed``.
    ``stock_on_right`` lays the draw pile right of the discard pile as team A sees the table, the
    scene otherwise the same (:attr:`~vision.synth.layout.LayoutStyle.stock_on_right`). ``card_heights``:
    the range the camera's card height is drawn from (:func:`~vision.synth.camera.random_camera`)."""
    rng = random.Random(seed)
    state = state or random_table(rng)
    style = style or random_style(rng)
    if stock_on_right:
        style = replace(style, stock_on_right=True)
    decks = _scene_decks(atlas, rng, split)
    joker_deck = next((d for d in decks if atlas.joker_names(d)), None) or rng.choice(
        [d for d in atlas.decks(_deck_split(split)) if atlas.joker_names(d)])
    aspect = float(np.mean([w / h for w, h in (atlas.card_size(d) for d in decks)]))
    placed = lay_out(state, rng, aspect, style)
    if camera is None:
        camera = random_camera(rng, image_size, _look_at(rng, placed), card_heights=card_heights)
    if occluders is None:
        occluders = random_occluders(rng, image_size, camera.card_height_px)
    cards = [_face_for(atlas, rng, card, decks, joker_deck, camera) for card in placed]
    owners = id_map(image_size, [c.quad for c in cards], [shape.polygon for occ in occluders for shape in occ])
    for number, card in enumerate(cards):
        if card.quad is None:
            continue
        card.visible = float((owners == number).sum()) / max(1.0, abs(cv2.contourArea(card.quad.astype(np.float32))))
        if card.face_name is not None:
            boxes = atlas.face(card.deck, card.face_name).index_boxes
            card.indexes = index_views(owners, number, card.face_to_image, boxes)
    return Scene(seed, split, image_size, state, style, camera, cards, occluders, owners)


def _deck_split(split: str) -> str:
    return "test" if split == "test" else "train"


def _scene_decks(atlas: FaceAtlas, rng: random.Random, split: str) -> list[str]:
    """One deck, or two (a canasta pack is two decks, often of different designs)."""
    available = atlas.decks(_deck_split(split))
    return rng.sample(available, min(len(available), rng.choice((1, 2))))


def _look_at(rng: random.Random, placed: list[PlacedCard]) -> tuple[float, float]:
    anchor = rng.choice(placed)
    return (anchor.x * rng.uniform(0, 1), anchor.y * rng.uniform(0, 1))


def _face_for(atlas: FaceAtlas, rng: random.Random, card: PlacedCard, decks: list[str], joker_deck: str,
              camera: Camera) -> SceneCard:
    deck = decks[card.copy % len(decks)]
    if card.code is None:
        face_name = None
    elif card.code == "JK":
        deck = joker_deck
        face_name = rng.choice(atlas.joker_names(deck))
    else:
        face_name = card.code
    width, height = atlas.card_size(deck)
    quad, depth = camera.project(np.array(card.corners(width / height)))
    if (depth <= 0.05).any() or np.abs(quad).max() > 8 * max(camera.image_size):
        return SceneCard(card, deck, face_name, None, None, [], 0.0)
    face_corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    face_to_image = cv2.getPerspectiveTransform(face_corners, quad.astype(np.float32))
    return SceneCard(card, deck, face_name, quad, face_to_image, [], 0.0)


def _card_json(card: SceneCard) -> dict:
    placed = card.placed
    return {
        "code": placed.code,
        "face_up": placed.code is not None,
        "deck": card.deck,
        "corners": None if card.quad is None else np.round(card.quad, 2).tolist(),
        "visible": round(min(card.visible, 1.0), 3),
        "indexes": [{"corner": v.corner, "polygon": np.round(v.polygon, 2).tolist(),
                     "visible": round(min(v.visible, 1.0), 3), "labelled": v.labelled} for v in card.indexes],
        **placed.group.to_json(),
    }


