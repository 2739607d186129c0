"""The device machine's carry: the face atlas packed as WebP comes back pixel for pixel, within budget."""

import importlib.util
import json
from pathlib import Path

import numpy as np
from PIL import Image

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gpu_faces.py"


def gpu_faces():
    spec = importlib.util.spec_from_file_location("gpu_faces", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def small_atlas(root: Path) -> Path:
    """Three training decks and two held-out ones of two RGBA faces each, with noise (hard to
    compress) and colour under fully transparent pixels."""
    rng = np.random.default_rng(0)
    decks = {"a": "train", "b": "train", "c": "train", "x": "test", "y": "test"}
    for deck in decks:
        (root / deck).mkdir(parents=True)
        for face in ("AS", "10H"):
            pixels = rng.integers(0, 256, (40, 28, 4), dtype=np.uint8)
            pixels[:3, :3, 3] = 0
            Image.fromarray(pixels, "RGBA").save(root / deck / f"{face}.png")
    (root / "x" / "extra.png").write_bytes((root / "x" / "AS.png").read_bytes())  # x is the larger held-out deck
    opaque = rng.integers(0, 256, (40, 28, 4), dtype=np.uint8)
    opaque[..., 3] = 255  # WebP drops an alpha channel with nothing in it
    Image.fromarray(opaque, "RGBA").save(root / "a" / "JK.png")
    Image.fromarray(opaque[..., :3], "RGB").save(root / "b" / "JK.png")  # not RGBA: travels as it is
    for deck in decks:
        (root / deck / "manifest.json").write_text(json.dumps({"deck": deck}))
    (root / "atlas.json").write_text(
        json.dumps({"card_height": 40, "decks": {d: {"split": s} for d, s in decks.items()}})
    )
    return root


def test_packed_faces_come_back_pixel_for_pixel_and_the_budget_leaves_decks_out(tmp_path):
    module, atlas = gpu_faces(), small_atlas(tmp_path / "atlas")
    packed, left_out = module.pack(atlas, tmp_path / "packed", budget=10**9)
    assert packed[0] == "y" and sorted(packed) == ["a", "b", "c", "y"] and left_out == []
    assert module.unpack(tmp_path / "packed", tmp_path / "again") == 9
    assert (tmp_path / "packed" / "b" / "JK.png").is_file()
    again = sorted(str(f.relative_to(tmp_path / "again")) for f in (tmp_path / "again").glob("*/*"))
    assert again == sorted(str(f.relative_to(atlas)) for f in atlas.glob("*/*") if f.parent.name != "x")
    for face in (tmp_path / "again").glob("*/*.png"):
        original = Image.open(atlas / face.parent.name / face.name)
        assert Image.open(face).mode == original.mode and np.array_equal(np.asarray(Image.open(face)), original), face
    assert json.loads((tmp_path / "again" / "a" / "manifest.json").read_text()) == {"deck": "a"}
    index = json.loads((tmp_path / "again" / "atlas.json").read_text())
    assert index["card_height"] == 40 and set(index["decks"]) == {"a", "b", "c", "y"}
    # Room for the held-out deck and one training deck; the others are named as left out.
    size = {deck: sum(f.stat().st_size for f in (tmp_path / "packed" / deck).iterdir()) for deck in packed}
    budget = size["y"] + int(1.5 * min(size[deck] for deck in "abc"))
    packed, left_out = module.pack(atlas, tmp_path / "packed", budget=budget)
    assert len(packed) == 2 and packed[0] == "y" and len(left_out) == 2
    assert sorted(p.name for p in (tmp_path / "packed").iterdir()) == sorted(packed + ["atlas.json"])


def test_faces_packed_at_half_size_render_as_the_whole_faces_do_where_cards_are_small(tmp_path, small_atlas_dir):
    # The GPU carry holds every training design once the faces travel halved as the renderer's own
    # pyramid halves them: a card drawn small enough renders from the halved face pixel for pixel.
    import cv2

    from vision.synth.atlas import FaceAtlas
    from vision.synth.render import render_scene
    from vision.synth.scenes import build_scene

    module = gpu_faces()
    packed, _ = module.pack(small_atlas_dir, tmp_path / "packed", budget=10**9, half=True)
    module.unpack(tmp_path / "packed", tmp_path / "half")
    whole, half = FaceAtlas(small_atlas_dir), FaceAtlas(tmp_path / "half")
    face = cv2.imread(str(small_atlas_dir / "gnome-anglo" / "AS.png"), cv2.IMREAD_UNCHANGED)
    halved = cv2.imread(str(tmp_path / "half" / "gnome-anglo" / "AS.png"), cv2.IMREAD_UNCHANGED)
    assert np.array_equal(halved, cv2.pyrDown(face))
    assert half.card_size("gnome-anglo") == whole.card_size("gnome-anglo")  # the manifest keeps the whole size
    for size, most in (((640, 360), 0.0), ((1920, 1080), 2.0)):
        scene = build_scene(whole, 5, size, "train")
        assert [c.face_name for c in build_scene(half, 5, size, "train").cards] == [c.face_name for c in scene.cards]
        difference = np.abs(render_scene(scene, whole).astype(int) - render_scene(scene, half).astype(int)).mean()
        assert difference <= most, (size, difference)
