"""Painting a :class:`~vision.synth.scenes.Scene`: the table surface through the camera, soft shadows,
each card warped into place, occluders on top. Photographic effects follow in :mod:`vision.synth.augment`.

Cards are warped only inside their own bounding box, from a face already shrunk near the size it
will have (an image pyramid), which keeps a 1280×720 scene to tens of milliseconds and small cards
free of aliasing.
"""

from __future__ import annotations

import math
import random

import cv2
import numpy as np

from vision.synth.atlas import FaceAtlas
from vision.synth.scenes import Scene, SceneCard
from vision.synth.surfaces import KINDS, TILE, TILE_SPAN, VARIANTS_PER_KIND, surface_tile


def render_scene(scene: Scene, atlas: FaceAtlas) -> np.ndarray:
    """The scene's pixels (BGR uint8) before photographic effects."""
    rng = random.Random(scene.seed ^ 0x5EED)
    image = _table_surface(scene, rng)
    _cast_shadows(image, scene, rng)
    pyramid = _FacePyramid(atlas)
    for card in scene.cards:
        if card.quad is not None:
            _paint_card(image, card, pyramid, scene.camera.card_height_px, rng)
    for occluder in scene.occluders:
        _paint_occluder(image, occluder, rng)
    return image


def _table_surface(scene: Scene, rng: random.Random) -> np.ndarray:
    kind = rng.choice(KINDS)
    tile = surface_tile(kind, rng.randrange(VARIANTS_PER_KIND))
    span = TILE_SPAN[kind] * rng.uniform(0.7, 1.4)
    turn = rng.uniform(0, 2 * math.pi)
    cos, sin = math.cos(turn) * span / TILE, math.sin(turn) * span / TILE
    tile_to_table = np.array([[cos, -sin, rng.uniform(-5, 5)], [sin, cos, rng.uniform(-5, 5)], [0, 0, 1]])
    tile_to_image = scene.camera.table_to_image() @ tile_to_table
    return cv2.warpPerspective(tile, tile_to_image, scene.image_size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)  # mirrored tiles hide seams


def _cast_shadows(image: np.ndarray, scene: Scene, rng: random.Random) -> None:
    """Darken the table under the cards, offset towards one side: the room light is above, not on the lens."""
    width, height = scene.image_size
    small = 4
    mask = np.zeros((height // small + 1, width // small + 1), np.uint8)
    offset = np.array([rng.uniform(-1, 1), rng.uniform(-1, 1)]) * scene.camera.card_height_px * 0.04
    for card in scene.cards:
        if card.quad is not None:
            cv2.fillConvexPoly(mask, np.round((card.quad + offset) * 16 / small).astype(np.int32), 255, shift=4)
    blur = max(3, int(scene.camera.card_height_px * 0.05 / small) * 2 + 1)
    mask = cv2.GaussianBlur(mask, (blur, blur), 0)
    shade = 1 - rng.uniform(0.25, 0.5) * cv2.resize(mask, (width, height)).astype(np.float32) / 255
    image[:] = (image * shade[..., None]).astype(np.uint8)


class _FacePyramid:
    """Faces halved as often as useful for the size they are drawn at, cached per scene."""

    def __init__(self, atlas: FaceAtlas):
        self.atlas = atlas
        self.cache: dict[tuple[str, str | None, int], np.ndarray] = {}

    def face(self, deck: str, face_name: str | None, drawn_height: float) -> tuple[np.ndarray, float]:
        """The face image at the chosen level, and its scale relative to the deck's card size (its
        manifest's, in which its index boxes are given): an atlas may store its faces smaller, halved
        as this pyramid halves them (``scripts/gpu_faces.py pack --half``, for the GPU carry)."""
        full = self.atlas.back(deck) if face_name is None else self.atlas.face(deck, face_name).image
        if full is None:
            full = _plain_back(self.atlas.card_size(deck))
        level = max(0, int(math.log2(max(1.0, full.shape[0] / (1.5 * max(drawn_height, 1.0))))))
        key = (deck, face_name, level)
        if key not in self.cache:
            image = full
            for _ in range(level):
                image = cv2.pyrDown(image)
            self.cache[key] = image
        return self.cache[key], self.cache[key].shape[0] / self.atlas.card_size(deck)[1]


def _plain_back(card_size: tuple[int, int]) -> np.ndarray:
    width, height = card_size
    back = np.zeros((height, width, 4), np.uint8)
    cv2.rectangle(back, (0, 0), (width - 1, height - 1), (150, 60, 30, 255), -1)
    cv2.rectangle(
        back, (width // 12, width // 12), (width - width // 12, height - width // 12), (230, 230, 230, 255), 3
    )
    return back


def _paint_card(
    image: np.ndarray, card: SceneCard, pyramid: _FacePyramid, card_height_px: float, rng: random.Random
) -> None:
    height, width = image.shape[:2]
    x0, y0 = np.floor(card.quad.min(axis=0)).astype(int)
    x1, y1 = np.ceil(card.quad.max(axis=0)).astype(int) + 1
    cx0, cy0, cx1, cy1 = max(x0, 0), max(y0, 0), min(x1, width), min(y1, height)
    if cx0 >= cx1 or cy0 >= cy1:
        return
    drawn_height = float(np.linalg.norm(card.quad[3] - card.quad[0]))
    face, scale = pyramid.face(card.deck, card.face_name, drawn_height)
    shrink = np.diag([1 / scale, 1 / scale, 1.0])
    to_roi = np.array([[1, 0, -cx0], [0, 1, -cy0], [0, 0, 1]], np.float64) @ card.face_to_image @ shrink
    warped = cv2.warpPerspective(face, to_roi, (cx1 - cx0, cy1 - cy0), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3:].astype(np.float32) / 255
    colour = warped[..., :3].astype(np.float32) * _wear(rng, warped.shape[:2])
    roi = image[cy0:cy1, cx0:cx1]
    # clip before the cast: a brightened white (255 × 1.1) would wrap around to near black
    roi[:] = np.clip(colour * alpha + roi * (1 - alpha), 0, 255).astype(np.uint8)


def _wear(rng: random.Random, shape: tuple[int, int]) -> np.ndarray:
    """A gentle brightness ramp across the card: a bent or curled card catches the light unevenly."""
    h, w = shape
    strength = rng.uniform(0, 0.12)
    ramp = np.linspace(-strength, strength, w if rng.random() < 0.5 else h, dtype=np.float32)
    ramp = ramp[None, :] if ramp.size == w else ramp[:, None]
    return (1 + np.broadcast_to(ramp, (h, w)))[..., None]


def _paint_occluder(image: np.ndarray, shapes: list, rng: random.Random) -> None:
    """Fill each shape, shaded darker towards its edge so arms and cups look round, edges softened."""
    height, width = image.shape[:2]
    for shape in shapes:
        layer = np.zeros((height, width), np.uint8)
        cv2.fillPoly(layer, [np.round(shape.polygon * 16).astype(np.int32)], 255, lineType=cv2.LINE_AA, shift=4)
        x, y, w, h = cv2.boundingRect(np.round(shape.polygon).astype(np.int32))
        x0, y0, x1, y1 = max(x, 0), max(y, 0), min(x + w, width), min(y + h, height)
        if x0 >= x1 or y0 >= y1:
            continue
        mask = layer[y0:y1, x0:x1]
        inside = cv2.distanceTransform((mask > 0).astype(np.uint8), cv2.DIST_L2, 3)
        roundness = np.clip(inside / max(1.0, 0.25 * min(w, h)), 0, 1)
        shade = (0.65 + 0.35 * np.sqrt(roundness))[..., None]
        colour = np.array(shape.colour, np.float32) * rng.uniform(0.85, 1.1) * shade
        alpha = (mask.astype(np.float32) / 255)[..., None]
        roi = image[y0:y1, x0:x1]
        roi[:] = np.clip(colour * alpha + roi * (1 - alpha), 0, 255).astype(np.uint8)
