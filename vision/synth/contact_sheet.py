"""A contact sheet: a dozen scenes in one PNG with their index boxes drawn, to judge realism at a glance."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.synth.atlas import FaceAtlas
from vision.synth.augment import photograph
from vision.synth.render import render_scene
from vision.synth.scenes import build_scene, scene_seed

TILE_WIDTH = 640


def contact_sheet(atlas: FaceAtlas, out_path: Path, seed: int, count: int = 12,
                  image_size: tuple[int, int] = (1280, 720), columns: int = 3) -> Path:
    tiles = []
    for number in range(count):
        split = "test" if number % 4 == 3 else "train"  # a quarter from the held-out decks
        scene = build_scene(atlas, scene_seed(seed, split, number), image_size, split)
        image = photograph(render_scene(scene, atlas), scene.owners, scene.seed)
        _draw_boxes(image, scene)
        cv2.putText(image, f"{split} seed {scene.seed}", (10, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2)
        tiles.append(cv2.resize(image, (TILE_WIDTH, TILE_WIDTH * image_size[1] // image_size[0])))
    while len(tiles) % columns:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [np.hstack(tiles[i:i + columns]) for i in range(0, len(tiles), columns)]
    out_path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out_path), np.vstack(rows))
    return out_path


def _draw_boxes(image: np.ndarray, scene) -> None:
    for card in scene.cards:
        for view in card.indexes:
            if view.labelled:
                x0, y0, x1, y1 = (int(round(v)) for v in view.box(scene.image_size))
                cv2.rectangle(image, (x0, y0), (x1, y1), (0, 255, 255), 2)
                cv2.putText(image, card.placed.code, (x0, max(10, y0 - 3)), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                            (0, 255, 255), 1)
