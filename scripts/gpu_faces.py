"""The face atlas for the GPU machine's copy, packed small: ``python scripts/gpu_faces.py pack
ATLAS OUT BUDGET_BYTES [--half]`` writes as many training decks as fit in the budget as lossless WebP
(about two fifths of the PNGs' bytes; ``exact`` keeps even the colour under transparent pixels;
``--half``: each face halved first, about a quarter of that again), and
``unpack OUT ATLAS`` turns them back into the PNG atlas the synth command reads, pixel for pixel.

Decks go in a seeded shuffled order, so both the drawn designs and the packaged ones travel; one
held-out deck (the smallest) goes too, so that the synth command still has decks for its test split.
Needs Pillow and NumPy (the GPU machine has them; it has no ultralytics or PySide6); ``--half`` OpenCV
too, here.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

import numpy as np
from PIL import Image


def pack(atlas: Path, out: Path, budget: int, seed: int = 0, half: bool = False) -> tuple[list[str], list[str]]:
    """Write the decks that fit into ``out`` as WebP; return (decks packed, training decks left out).
    ``half``: each face halved first, as the renderer's pyramid halves it (OpenCV's ``pyrDown``), so a
    card drawn up to two thirds of the stored face's height renders pixel for pixel as from the
    whole face (:class:`vision.synth.render._FacePyramid`); the manifests keep the whole card's size."""
    index = json.loads((atlas / "atlas.json").read_text())
    held_out = sorted(d for d, entry in index["decks"].items() if entry["split"] == "test")
    training = sorted(d for d, entry in index["decks"].items() if entry["split"] != "test")
    random.Random(seed).shuffle(training)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    packed, used = [], 0
    for deck in [min(held_out, key=lambda d: _size(atlas / d))] + training if held_out else training:
        (out / deck).mkdir()
        size = 0
        for file in sorted((atlas / deck).iterdir()):
            face = Image.open(file) if file.suffix == ".png" else None
            if face is not None and face.mode == "RGBA":
                target = out / deck / (file.stem + ".webp")
                if half:
                    face = Image.fromarray(_halved(np.asarray(face)), "RGBA")
                face.save(target, lossless=True, exact=True, quality=100, method=2)
            else:  # the deck's manifest, and any face that is not RGBA, travel as they are
                target = out / deck / file.name
                shutil.copy(file, target)
            size += target.stat().st_size
        if used + size > budget:
            shutil.rmtree(out / deck)
            continue
        packed.append(deck)
        used += size
    index["decks"] = {d: entry for d, entry in index["decks"].items() if d in packed}
    (out / "atlas.json").write_text(json.dumps(index))
    return packed, sorted(set(training) - set(packed))


def unpack(packed: Path, atlas: Path) -> int:
    """The PNG atlas again from a packed one (other files copied); returns the number of faces turned back."""
    atlas.mkdir(parents=True, exist_ok=True)
    shutil.copy(packed / "atlas.json", atlas / "atlas.json")
    faces = 0
    for file in sorted(packed.glob("*/*")):
        (atlas / file.parent.name).mkdir(exist_ok=True)
        if file.suffix == ".webp":  # WebP keeps no alpha channel when every pixel is opaque: RGBA again
            Image.open(file).convert("RGBA").save(atlas / file.parent.name / (file.stem + ".png"))
            faces += 1
        else:
            shutil.copy(file, atlas / file.parent.name / file.name)
    return faces


def _halved(pixels):
    """An RGBA face halved as the renderer's pyramid halves it (OpenCV, imported only for ``--half``:
    the GPU machine unpacks without it)."""
    import cv2

    return cv2.pyrDown(pixels)


def _size(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.glob("*.png"))


if __name__ == "__main__":
    if sys.argv[1:2] == ["pack"] and len(sys.argv) in (5, 6) and sys.argv[5:] in ([], ["--half"]):
        packed, left_out = pack(Path(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4]), half=sys.argv[5:] == ["--half"])
        print(
            f"faces: {len(packed)} decks packed ({packed[0]} held out); left out for room: "
            f"{', '.join(left_out) or 'none'}"
        )
    elif sys.argv[1:2] == ["unpack"] and len(sys.argv) == 4:
        print(f"faces: {unpack(Path(sys.argv[2]), Path(sys.argv[3]))} unpacked")
    else:
        sys.exit(__doc__)
