"""What each of the synthetic webcam's faults costs the reader on the held-out decks.

    python bench/camera_faults.py [--scenes datasets/generated/scenes720v2] [--limit N]
                                  [--variants clean,light,blur,colour,noise,jpeg,all]
                                  [--out datasets/generated/camera_faults]

Each test scene of ``--scenes`` is rendered again from the seed its ground truth keeps (the same
tables, decks, camera and occluders; its labels are checked against the stored ones), then
photographed as a variant: ``clean`` (the render alone), ``light`` (the lamp's uneven light and
glare only), one kind of camera fault on top of the light (``blur``, ``colour``, ``noise``,
``jpeg``: :data:`vision.synth.augment.FAULT_KINDS`, each as likely as in a full photograph), or ``all``
(as the dataset was made: the same pictures). Every variant is saved as the dataset is (JPEG at
:data:`vision.synth.dataset.JPEG_QUALITY`) and read by the app's reader (the shipped detector and classifier, the
app's backend), scored as ``python -m vision evaluate`` scores them: mAP50, the share located at
where the app counts a card sure (0.5), and mAP50 on the readable indexes. 1–2.5 minutes a variant on two free cores.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.evaluation.detector import LOW_CONFIDENCE, Frame, readable_only, score, test_frames  # noqa: E402
from vision.reader.detector import SURE_CONFIDENCE, CardDetector  # noqa: E402
from vision.synth.atlas import DEFAULT_ATLAS_DIR, FaceAtlas  # noqa: E402
from vision.synth.augment import FAULT_KINDS, photograph  # noqa: E402
from vision.synth.dataset import JPEG_QUALITY  # noqa: E402
from vision.synth.render import render_scene  # noqa: E402
from vision.synth.scenes import build_scene  # noqa: E402

VARIANTS = ("clean", "light", *FAULT_KINDS, "all")


def faults_of(variant: str) -> tuple[str, ...] | None:
    """The camera faults :func:`~vision.synth.augment.photograph` applies for a variant (None: all)."""
    return None if variant == "all" else () if variant == "light" else (variant,)


def write_variant(scenes: Path, variant: str, out: Path, atlas: FaceAtlas, limit: int | None) -> Path:
    """The test scenes of ``scenes`` photographed as ``variant``, in ``out/variant`` (a synth folder)."""
    folder = out / variant
    (folder / "images" / "test").mkdir(parents=True, exist_ok=True)
    (folder / "labels" / "test").mkdir(parents=True, exist_ok=True)
    for path in sorted((scenes / "images" / "test").glob("*.jpg"))[:limit]:
        truth = json.loads(path.with_suffix(".json").read_text())
        size = (truth["image"]["width"], truth["image"]["height"])
        scene = build_scene(atlas, truth["seed"], size, "test")
        labels = (scenes / "labels" / "test" / f"{path.stem}.txt").read_text()
        if "".join(line + "\n" for line in scene.labels()) != labels:
            raise SystemExit(f"{path.name}: the scene rendered again does not match its labels; was the face "
                             "atlas remade since the scenes were? (python -m vision synth makes them again)")
        image = render_scene(scene, atlas)
        if variant != "clean":
            image = photograph(image, scene.owners, truth["seed"], faults_of(variant))
        cv2.imwrite(str(folder / "images" / "test" / path.name), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        (folder / "labels" / "test" / f"{path.stem}.txt").write_text(labels)
        shutil.copy(path.with_suffix(".json"), folder / "images" / "test")
    return folder


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=Path, default=Path("datasets/generated/scenes720v2"))
    parser.add_argument("--limit", type=int, help="only the first N test scenes")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--out", type=Path, default=Path("datasets/generated/camera_faults"))
    args = parser.parse_args()
    variants = args.variants.split(",")
    if unknown := set(variants) - set(VARIANTS):
        parser.error(f"no such variant: {', '.join(sorted(unknown))} (known: {', '.join(VARIANTS)})")
    atlas = FaceAtlas(DEFAULT_ATLAS_DIR)
    reader = CardDetector(conf=LOW_CONFIDENCE)
    print(f"{'variant':8} {'mAP50':>6} {'located':>8} {'readable mAP50':>15}  "
          f"(located at {SURE_CONFIDENCE}, where a card is sure)")
    for variant in variants:
        started = time.monotonic()
        folder = write_variant(args.scenes, variant, args.out, atlas, args.limit)
        frames = [Frame(truth, reader.detect(image), decks, visible)
                  for image, truth, decks, visible in test_frames(folder, args.limit)]
        report, _ = score(frames, SURE_CONFIDENCE)
        readable, _ = score(readable_only(frames), SURE_CONFIDENCE)
        print(f"{variant:8} {report.map50:6.3f} {report.located:8.3f} {readable.map50:15.3f}  "
              f"({len(frames)} scenes, {time.monotonic() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
