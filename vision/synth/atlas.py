"""Reading the face atlas (written by :mod:`vision.synth.faces`) with OpenCV alone.

Faces are loaded on first use and kept, so a worker that makes many scenes reads each PNG once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

MANIFEST_NAME = "manifest.json"
ATLAS_INDEX_NAME = "atlas.json"
#: Where ``python -m vision faces`` writes the atlas unless told otherwise (git-ignored).
DEFAULT_ATLAS_DIR = Path("datasets/cache/faces")


class AtlasError(RuntimeError):
    """A face atlas that is missing or incomplete."""


@dataclass(frozen=True)
class Face:
    """One card face of one deck: its pixels (BGRA) and its index boxes in those pixels."""

    code: str
    image: np.ndarray
    index_boxes: dict[str, tuple[int, int, int, int]]


class FaceAtlas:
    """The decks of an atlas, by split, with their faces loaded lazily."""

    def __init__(self, atlas_dir: Path):
        self.atlas_dir = Path(atlas_dir)
        index_path = self.atlas_dir / ATLAS_INDEX_NAME
        if not index_path.is_file():
            raise AtlasError(f"no face atlas at {self.atlas_dir}: run 'python -m vision faces' first")
        self._splits = {deck: entry["split"] for deck, entry in json.loads(index_path.read_text())["decks"].items()}
        if not self._splits:
            raise AtlasError(f"the face atlas at {self.atlas_dir} holds no usable deck")
        self._manifests = {deck: json.loads((self.atlas_dir / deck / MANIFEST_NAME).read_text())
                           for deck in self._splits}
        self._images: dict[tuple[str, str], np.ndarray] = {}

    def decks(self, split: str) -> list[str]:
        """Deck ids of a split: ``"train"`` (train and val scenes) or ``"test"`` (held-out decks)."""
        return sorted(deck for deck, deck_split in self._splits.items() if deck_split == split)

    def card_size(self, deck: str) -> tuple[int, int]:
        width, height = self._manifests[deck]["card_size"]
        return width, height

    def joker_names(self, deck: str) -> list[str]:
        return sorted(name for name, face in self._manifests[deck]["faces"].items() if face["code"] == "JK")

    def face(self, deck: str, name: str) -> Face:
        """A face by its atlas name: a card code (``KH``) or a joker (``JK-1``)."""
        entry = self._manifests[deck]["faces"][name]
        boxes = {corner: tuple(box) for corner, box in entry["index_boxes"].items()}
        return Face(entry["code"], self._image(deck, entry["file"]), boxes)

    def back(self, deck: str) -> np.ndarray | None:
        back_file = self._manifests[deck]["back"]
        return None if back_file is None else self._image(deck, back_file)

    def _image(self, deck: str, file_name: str) -> np.ndarray:
        key = (deck, file_name)
        if key not in self._images:
            image = cv2.imread(str(self.atlas_dir / deck / file_name), cv2.IMREAD_UNCHANGED)
            if image is None or image.ndim != 3 or image.shape[2] != 4:
                raise AtlasError(f"the face atlas is damaged: cannot read {deck}/{file_name}")
            self._images[key] = image
        return self._images[key]
