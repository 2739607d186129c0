"""Things between the webcam and the cards: players' hands and arms, cups and glasses.

Each occluder is a few filled shapes in image pixels; the label code treats them as opaque, the
renderer paints them. They reach in from the image edge (arms) or stand on the table (cups).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

_SKIN_TONES = [(180, 200, 235), (140, 170, 215), (110, 140, 190), (70, 95, 140), (45, 65, 100)]  # BGR
_SLEEVES = [(40, 40, 40), (130, 60, 20), (30, 30, 150), (200, 200, 200), (60, 110, 60), (90, 60, 120)]
_CUPS = [(240, 240, 240), (40, 40, 160), (150, 100, 30), (30, 160, 200), (20, 20, 20)]


@dataclass(frozen=True)
class Shape:
    polygon: np.ndarray  # (n, 2) float image pixels
    colour: tuple[int, int, int]  # BGR


def random_occluders(rng: random.Random, image_size: tuple[int, int], card_height_px: float) -> list[list[Shape]]:
    """Zero to three occluders for a scene, each a list of shapes painted in order."""
    occluders = []
    for _ in range(rng.choice((0, 0, 1, 1, 2, 3))):
        maker = _arm if rng.random() < 0.65 else _cup
        occluders.append(maker(rng, image_size, card_height_px))
    return occluders


def _capsule(a: np.ndarray, b: np.ndarray, radius: float, points: int = 10) -> np.ndarray:
    """A rounded bar from a to b: the outline of a forearm or a finger."""
    direction = math.atan2(b[1] - a[1], b[0] - a[0])
    half = [direction + math.pi / 2 + math.pi * i / (points - 1) for i in range(points)]
    around_a = [a + radius * np.array([math.cos(t), math.sin(t)]) for t in half]
    around_b = [b + radius * np.array([math.cos(t + math.pi), math.sin(t + math.pi)]) for t in half]
    return np.array(around_a + around_b)


def _ellipse(centre: np.ndarray, axes: tuple[float, float], angle: float, points: int = 24) -> np.ndarray:
    t = np.linspace(0, 2 * math.pi, points, endpoint=False)
    x, y = axes[0] * np.cos(t), axes[1] * np.sin(t)
    c, s = math.cos(angle), math.sin(angle)
    return np.column_stack([centre[0] + x * c - y * s, centre[1] + x * s + y * c])


def _arm(rng: random.Random, image_size: tuple[int, int], card_height_px: float) -> list[Shape]:
    """A forearm from the image edge ending in a hand with fingers, sized to the cards (a hand is
    about a card and a half long)."""
    width, height = image_size
    edge = rng.choice(("bottom", "top", "left", "right"))
    along = rng.uniform(0.1, 0.9)
    start = {"bottom": (along * width, height * 1.05), "top": (along * width, -0.05 * height),
             "left": (-0.05 * width, along * height), "right": (width * 1.05, along * height)}[edge]
    start = np.array(start)
    target = np.array([rng.uniform(0.2, 0.8) * width, rng.uniform(0.2, 0.8) * height])
    hand_len = 1.5 * card_height_px * rng.uniform(0.85, 1.15)
    direction = (target - start) / max(np.linalg.norm(target - start), 1.0)
    wrist = target - direction * hand_len * 0.5
    skin, sleeve = rng.choice(_SKIN_TONES), rng.choice(_SLEEVES)
    arm_radius = hand_len * 0.36
    shapes = [
        Shape(_capsule(start - direction * hand_len, wrist - direction * hand_len * 0.4, arm_radius * 1.15), sleeve),
        Shape(_capsule(wrist - direction * hand_len * 0.6, wrist, arm_radius), skin),
    ]
    angle = math.atan2(direction[1], direction[0])
    palm = wrist + direction * hand_len * 0.25
    shapes.append(Shape(_ellipse(palm, (hand_len * 0.3, hand_len * 0.26), angle), skin))
    normal = np.array([-direction[1], direction[0]])
    for finger in range(4):
        base = palm + direction * hand_len * 0.2 + normal * hand_len * (finger - 1.5) * 0.11
        curl = rng.uniform(0.25, 0.45)
        shapes.append(Shape(_capsule(base, base + direction * hand_len * curl, hand_len * 0.05, 6), skin))
    thumb_base = palm - normal * hand_len * 0.2
    shapes.append(
        Shape(_capsule(thumb_base, thumb_base + (direction - normal) * hand_len * 0.2, hand_len * 0.06, 6), skin)
    )
    return shapes


def _cup(rng: random.Random, image_size: tuple[int, int], card_height_px: float) -> list[Shape]:
    """A cup or glass seen from above: a rim, and the drink inside."""
    width, height = image_size
    centre = np.array([rng.uniform(0, width), rng.uniform(0, height)])
    radius = card_height_px * rng.uniform(0.45, 0.7)
    squash = rng.uniform(0.75, 1.0)  # a tilted camera sees the rim as an ellipse
    angle = rng.uniform(0, math.pi)
    drink = rng.choice([(30, 50, 80), (20, 30, 45), (200, 220, 230), (60, 140, 190)])
    return [Shape(_ellipse(centre, (radius, radius * squash), angle), rng.choice(_CUPS)),
            Shape(_ellipse(centre, (radius * 0.82, radius * 0.82 * squash), angle), drink)]
