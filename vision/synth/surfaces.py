"""Table surfaces made procedurally: felt, wood, woven cloth and patterned tablecloths.

No installed package ships photographs of tables, so each surface is drawn from a seed. A small
set of variants per kind is made once per process and reused; scenes then vary them by scale,
turn and colour through the camera and the photographic effects.
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

TILE = 512
KINDS = ("felt", "wood", "cloth", "gingham", "stripes", "dots")
VARIANTS_PER_KIND = 6


@functools.lru_cache(maxsize=len(KINDS) * VARIANTS_PER_KIND)
def surface_tile(kind: str, variant: int) -> np.ndarray:
    """A square BGR tile of the surface (made once per process, then cached)."""
    rng = np.random.default_rng(KINDS.index(kind) * 1000 + variant)
    return _MAKERS[kind](rng)


def _noise(rng: np.random.Generator, scale: float) -> np.ndarray:
    """Smooth random field in [-1, 1] whose features are about ``scale`` pixels big."""
    cells = max(2, int(TILE / scale))
    field = cv2.resize(
        rng.standard_normal((cells, cells)).astype(np.float32), (TILE, TILE), interpolation=cv2.INTER_CUBIC
    )
    return np.clip(field / 2.5, -1, 1)


def _tint(base: np.ndarray, shade: np.ndarray) -> np.ndarray:
    return np.clip(base[None, None, :] * (1 + shade[..., None]), 0, 255).astype(np.uint8)


def _felt(rng: np.random.Generator) -> np.ndarray:
    colours = [(40, 110, 30), (90, 60, 20), (30, 30, 120), (70, 70, 70), (40, 90, 90), (20, 60, 40)]
    base = np.array(colours[rng.integers(len(colours))], np.float32) * rng.uniform(0.8, 1.3)
    shade = 0.08 * _noise(rng, 60) + 0.06 * rng.standard_normal((TILE, TILE)).astype(np.float32)
    return _tint(base, shade)


def _wood(rng: np.random.Generator) -> np.ndarray:
    base = np.array([rng.uniform(30, 90), rng.uniform(70, 120), rng.uniform(120, 190)], np.float32)
    y = np.linspace(0, rng.uniform(20, 45), TILE, dtype=np.float32)[:, None]
    warp = 3 * _noise(rng, 120)
    grain = (
        np.sin(y + warp) * 0.12 + 0.05 * _noise(rng, 8) + 0.03 * rng.standard_normal((TILE, TILE)).astype(np.float32)
    )
    planks = (np.floor(np.linspace(0, rng.integers(3, 6), TILE))[:, None] % 2) * rng.uniform(-0.1, 0.1)
    return _tint(base, grain + planks)


def _cloth(rng: np.random.Generator) -> np.ndarray:
    base = np.array(rng.uniform(120, 235, 3), np.float32)
    period = rng.integers(3, 6)
    yy, xx = np.mgrid[0:TILE, 0:TILE]
    weave = (((xx // period) + (yy // period)) % 2).astype(np.float32) * 0.08 - 0.04
    return _tint(base, weave + 0.05 * _noise(rng, 40))


def _gingham(rng: np.random.Generator) -> np.ndarray:
    colour = np.array(rng.uniform(20, 200, 3), np.float32)
    white = np.array([235, 235, 235], np.float32)
    period = int(rng.integers(24, 64))
    yy, xx = np.mgrid[0:TILE, 0:TILE]
    bands = ((xx // period) % 2).astype(np.float32) + ((yy // period) % 2)
    mix = (bands / 2)[..., None]
    image = white * (1 - mix) + colour * mix
    return np.clip(image * (1 + 0.05 * _noise(rng, 30))[..., None], 0, 255).astype(np.uint8)


def _stripes(rng: np.random.Generator) -> np.ndarray:
    colours = rng.uniform(30, 230, (3, 3)).astype(np.float32)
    widths = rng.integers(8, 40, 3)
    x = np.arange(TILE) % int(widths.sum())
    which = np.searchsorted(np.cumsum(widths), x, side="right")
    row = colours[which]
    image = np.repeat(row[None], TILE, axis=0)
    return np.clip(image * (1 + 0.05 * _noise(rng, 30))[..., None], 0, 255).astype(np.uint8)


def _dots(rng: np.random.Generator) -> np.ndarray:
    ground = np.array(rng.uniform(60, 230, 3), np.float32)
    dot = np.array(rng.uniform(20, 240, 3), np.float32)
    image = np.repeat(np.repeat(ground[None, None], TILE, 0), TILE, 1)
    spacing = int(rng.integers(28, 70))
    radius = int(spacing * rng.uniform(0.15, 0.35))
    for row, y in enumerate(range(0, TILE + spacing, spacing)):
        for x in range((row % 2) * spacing // 2, TILE + spacing, spacing):
            cv2.circle(image, (x, y), radius, dot.tolist(), -1, lineType=cv2.LINE_AA)
    angle = rng.uniform(0, 360)
    turn = cv2.getRotationMatrix2D((TILE / 2, TILE / 2), angle, 1.0)
    image = cv2.warpAffine(image, turn, (TILE, TILE), borderMode=cv2.BORDER_REFLECT)
    return np.clip(image * (1 + 0.04 * _noise(rng, 30))[..., None], 0, 255).astype(np.uint8)


_MAKERS = {"felt": _felt, "wood": _wood, "cloth": _cloth, "gingham": _gingham, "stripes": _stripes, "dots": _dots}

#: Table units (card heights) one tile covers: felt and cloth weave are fine, tablecloth patterns big.
TILE_SPAN = {"felt": 3.0, "wood": 6.0, "cloth": 1.5, "gingham": 5.0, "stripes": 6.0, "dots": 5.0}
