"""A webcam above the table: straight down or tilted up to about 45°, at any turn, any distance.

A pinhole camera looks at a point of the table from a height that makes a card there the wanted
number of pixels tall; table points project to the image through it. Because the table is a plane,
the whole view is also one homography, used to warp the table surface.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

import numpy as np

MAX_TILT_DEGREES = 45.0
#: Card heights, in pixels of a 1080-line frame, that the scenes cover (scaled for other sizes).
CARD_HEIGHT_RANGE_1080 = (25.0, 400.0)
#: The card heights of a close camera (``python -m vision synth --camera close``): a webcam 30–60 cm
#: above the cards, a 4K one, or a phone photo of a few melds, in pixels of a 1080-line frame.
CLOSE_CARD_HEIGHTS_1080 = (200.0, 900.0)


@dataclass(frozen=True)
class Camera:
    image_size: tuple[int, int]  # width, height
    position: np.ndarray  # (3,), table units, z up
    right: np.ndarray
    down: np.ndarray
    forward: np.ndarray
    focal: float
    principal: tuple[float, float]
    tilt_degrees: float
    card_height_px: float

    def project(self, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Image pixels of table points (n, 2), and their depth (n,) (not positive: behind the camera)."""
        rel = np.column_stack([points, np.zeros(len(points))]) - self.position
        depth = rel @ self.forward
        safe = np.where(depth > 1e-6, depth, 1e-6)
        u = self.focal * (rel @ self.right) / safe + self.principal[0]
        v = self.focal * (rel @ self.down) / safe + self.principal[1]
        return np.column_stack([u, v]), depth

    def table_to_image(self) -> np.ndarray:
        """The 3×3 homography from table coordinates to image pixels."""
        # Columns: the image of the x axis, of the y axis, and of the origin, in homogeneous form.
        k = np.array([[self.focal, 0, self.principal[0]], [0, self.focal, self.principal[1]], [0, 0, 1]])
        rotation = np.stack([self.right, self.down, self.forward])
        translation = -rotation @ self.position
        return k @ np.column_stack([rotation[:, 0], rotation[:, 1], translation])

    def to_json(self) -> dict:
        return {"tilt_degrees": round(self.tilt_degrees, 2), "card_height_px": round(self.card_height_px, 1),
                "focal_px": round(self.focal, 1)}


def random_camera(rng: random.Random, image_size: tuple[int, int], look_at: tuple[float, float],
                  card_height_px: float | None = None, card_heights: tuple[float, float] | None = None) -> Camera:
    """A camera looking at ``look_at`` with a random tilt, turn, lens and distance: one that shows a
    card ``card_height_px`` tall, or of a height drawn evenly in log size from ``card_heights``
    (pixels of a 1080-line frame, scaled to the image's height), or by default most often a whole
    table in view (:data:`CARD_HEIGHT_RANGE_1080`)."""
    width, height = image_size
    if card_height_px is None and card_heights is not None:
        low, high = (h * height / 1080 for h in card_heights)
        card_height_px = math.exp(rng.uniform(math.log(low), math.log(high)))
    elif card_height_px is None:
        low, high = (h * height / 1080 for h in CARD_HEIGHT_RANGE_1080)
        # Triangular in log size: every size from far to close-up, most often a whole table in view.
        card_height_px = math.exp(rng.triangular(math.log(low), math.log(high), math.log(low * 4)))
    tilt = math.radians(rng.uniform(0, MAX_TILT_DEGREES) if rng.random() < 0.8 else rng.uniform(0, 8))
    yaw = rng.uniform(-math.pi, math.pi) if rng.random() < 0.5 else rng.gauss(0, 0.25)
    focal = 0.5 * width / math.tan(math.radians(rng.uniform(55, 78)) / 2)
    distance = focal / card_height_px
    behind = np.array([-math.sin(yaw) * math.sin(tilt), math.cos(yaw) * math.sin(tilt), math.cos(tilt)])
    position = np.array([look_at[0], look_at[1], 0.0]) + distance * behind
    forward = -behind
    far = np.array([math.sin(yaw), -math.cos(yaw), 0.0])  # the table direction that is up in the image
    right = np.cross(far, forward)
    right /= np.linalg.norm(right)
    down = np.cross(right, forward)
    principal = (width / 2 + rng.uniform(-0.02, 0.02) * width, height / 2 + rng.uniform(-0.02, 0.02) * height)
    return Camera((width, height), position, right, down, forward, focal, principal, math.degrees(tilt), card_height_px)
