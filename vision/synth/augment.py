"""Photographic effects of a cheap webcam over a kitchen table: uneven light, glare on glossy
cards, colour casts, blur, sensor noise and JPEG artefacts. Pixel-level only: labels do not move.

Lighting and glare are drawn here (they depend on where the cards are); the camera's own faults
come from albumentations.
"""

from __future__ import annotations

import random

import albumentations as A
import cv2
import numpy as np

_CAMERA_FAULTS = A.Compose([
    A.OneOf([
        A.MotionBlur(blur_limit=(3, 9)),
        A.GaussianBlur(blur_limit=(3, 5)),
        A.Defocus(radius=(1, 3), alias_blur=(0.1, 0.3)),
    ], p=0.45),
    A.OneOf([
        A.RGBShift(r_shift_limit=18, g_shift_limit=12, b_shift_limit=18),
        A.HueSaturationValue(hue_shift_limit=6, sat_shift_limit=20, val_shift_limit=10),
        A.RandomBrightnessContrast(brightness_limit=0.2, contrast_limit=0.2),
    ], p=0.7),
    A.OneOf([
        A.GaussNoise(std_range=(0.01, 0.05)),
        A.ISONoise(color_shift=(0.01, 0.04), intensity=(0.1, 0.4)),
    ], p=0.6),
    A.ImageCompression(quality_range=(35, 92), p=0.7),
])


#: The camera's faults by kind, as :data:`_CAMERA_FAULTS` lists them.
FAULT_KINDS = ("blur", "colour", "noise", "jpeg")


def photograph(image: np.ndarray, owners: np.ndarray, seed: int, faults: tuple[str, ...] | None = None) -> np.ndarray:
    """The image as the webcam would deliver it (a new array). ``faults``: only these kinds of
    :data:`FAULT_KINDS`, each as likely as in a full photograph (the light and glare always), to
    measure what each costs the reader (``bench/camera_faults.py``); ``None``, all of them, as the
    datasets are made."""
    rng = random.Random(seed ^ 0xCA3E7A)
    lit = _uneven_light(image, rng)
    _glare(lit, owners, rng)
    camera = _CAMERA_FAULTS
    if faults is not None:
        if unknown := set(faults) - set(FAULT_KINDS):
            raise ValueError(f"no such camera fault: {', '.join(sorted(unknown))} (known: {', '.join(FAULT_KINDS)})")
        camera = A.Compose([step for kind, step in zip(FAULT_KINDS, _CAMERA_FAULTS.transforms) if kind in faults])
    camera.set_random_seed(seed)
    return camera(image=lit)["image"]


def _uneven_light(image: np.ndarray, rng: random.Random) -> np.ndarray:
    """A lamp to one side: brightness varying smoothly over the frame."""
    height, width = image.shape[:2]
    field = np.array([[rng.uniform(0.6, 1.15) for _ in range(3)] for _ in range(3)], np.float32)
    gain = cv2.resize(field, (width, height), interpolation=cv2.INTER_CUBIC)
    return np.clip(image * gain[..., None], 0, 255).astype(np.uint8)


def _glare(image: np.ndarray, owners: np.ndarray, rng: random.Random) -> None:
    """A soft white highlight where a lamp reflects on the glossy cards (only on cards)."""
    if rng.random() < 0.5:
        return
    height, width = image.shape[:2]
    centre = (rng.uniform(0, width), rng.uniform(0, height))
    radius = rng.uniform(0.08, 0.3) * max(width, height)
    yy, xx = np.ogrid[:height, :width]
    falloff = np.exp(-((xx - centre[0]) ** 2 + (yy - centre[1]) ** 2) / (2 * radius**2)).astype(np.float32)
    on_cards = ((owners >= 0) & (owners < 30000)).astype(np.float32)
    strength = rng.uniform(0.3, 0.8) * falloff * on_cards
    image[:] = (image + (255 - image.astype(np.float32)) * strength[..., None]).astype(np.uint8)
