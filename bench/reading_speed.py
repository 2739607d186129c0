"""How long the card reader takes, end to end (BGR picture in, table reading out), at every size.

    python bench/reading_speed.py [--repeats 15] [--atlas datasets/cache/faces] [--against WEIGHTS | --lying | --whole]

Renders held-out-deck scenes of 20 indexes or more (``python -m vision faces`` first): a whole
table seen by a 1080p webcam, a close 1080p webcam (``vision.synth.camera.CLOSE_CARD_HEIGHTS_1080``) and a
12-megapixel phone photo of a few melds (4000×3000, cards as close). Each is read as the app reads it: the live
frames through :meth:`~vision.reader.card_reader.CardReader.read` once the reader knows their index size
(one pass at the scale it chose), the stills through
:meth:`~vision.reader.card_reader.CardReader.read_photo` (the pyramid); the phone photo also as a
HEIC file, decoded (:func:`~vision.reader.frame_sources.read_image`) and read.
The runs are taken in turn ``--repeats`` times, so a slow spell of a shared machine falls on all
alike. Prints a Markdown table of median milliseconds, each against its budget (a live frame 150 ms,
a 12 MP photo 2 s), the mean besides (a live frame's network reads the whole frame every fourth
reading and the cards' part of it in between: ``LiveDetection``), and the CPU's int8 instructions.
``--against`` also reads every picture in the same turns with another detector, and prints its
medians and the ratio of the two: a shared machine's speed drifts by a fifth from run to run, the
ratio much less. It takes an OpenVINO int8
detector as ``models/`` holds one: ``NAME.int8.xml`` with its ``.bin`` and the int8 classifier
beside it (say an earlier commit's, ``git show COMMIT:models/cards.int8.xml > old/cards.int8.xml``, the same for the
``.bin``, and ``models/index_classifier.int8.onnx`` copied beside them), so that both readers
run the same classifier. ``--lying`` instead times, in the same turns, the app's reader with its
classifier reading each find as it lies (not turned upright by the facing network); ``--whole``
the app's reader with every live frame read whole.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pillow_heif
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.reader.card_reader import CardReader  # noqa: E402
from vision.reader.frame_sources import read_image  # noqa: E402
from vision.reader.weights import OPENVINO_INT8  # noqa: E402
from vision.synth.atlas import DEFAULT_ATLAS_DIR, FaceAtlas  # noqa: E402
from vision.synth.augment import photograph  # noqa: E402
from vision.synth.camera import CLOSE_CARD_HEIGHTS_1080  # noqa: E402
from vision.synth.render import render_scene  # noqa: E402
from vision.synth.scenes import build_scene  # noqa: E402

LIVE_BUDGET_MS, PHOTO_BUDGET_MS = 150.0, 2000.0


#: Each picture is the first scene from its seed on that shows at least this many corner indexes.
MIN_INDEXES = 20


def picture(atlas: FaceAtlas, seed: int, size: tuple[int, int], close: bool):
    """(BGR picture, labelled indexes) of the first held-out scene from ``seed`` on with at least
    :data:`MIN_INDEXES` indexes."""
    heights = CLOSE_CARD_HEIGHTS_1080 if close else None
    while len((scene := build_scene(atlas, seed, size, "test", card_heights=heights)).labels()) < MIN_INDEXES:
        seed += 1
    return photograph(render_scene(scene, atlas), scene.owners, seed), len(scene.labels())


def int8_instructions() -> str:
    try:
        flags = Path("/proc/cpuinfo").read_text().split("flags", 2)[1].split("\n", 1)[0].split()
    except (OSError, IndexError):
        return "unknown"
    found = [name for name in ("avx512_vnni", "avx_vnni", "amx_int8") if name in flags]
    return ", ".join(found) or ("AVX2 alone" if "avx2" in flags else "no AVX2")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    parser.add_argument("--against", type=Path, metavar="WEIGHTS",
                        help="another detector's weights to time in the same turns (the ratio is printed)")
    parser.add_argument("--lying", action="store_true",
                        help="also time the reader with each find read as it lies, not turned upright")
    parser.add_argument("--whole", action="store_true",
                        help="also time the reader with every live frame read whole, not the cards' part of it")
    args = parser.parse_args(argv)
    if sum(map(bool, (args.against, args.lying, args.whole))) > 1:
        parser.error("--against, --lying and --whole each time a second reader: give one of them")
    if args.against and not args.against.name.endswith(OPENVINO_INT8):
        parser.error(f"--against takes an OpenVINO int8 detector, NAME{OPENVINO_INT8} (its .bin and the int8 "
                     f"classifier beside it, as models/ holds them), not {args.against.name}")
    # The second reader timed in the same turns, as the table names it.
    second = (args.against.name if args.against else "read as they lie" if args.lying
              else "every frame whole" if args.whole else None)
    atlas = FaceAtlas(args.atlas)
    cases = {}
    for name, seed, size, close, live in (("a whole table, 1080p webcam, live", 3, (1920, 1080), False, True),
                                          ("a close 1080p webcam, live", 5, (1920, 1080), True, True),
                                          ("a close 1080p webcam, still", 5, (1920, 1080), True, False),
                                          ("a 12 MP phone photo, still", 9, (4000, 3000), True, False)):
        frame, indexes = picture(atlas, seed, size, close)
        runs = []
        for number, weights in enumerate((None, args.against) if args.against else (None, None)[:1 + bool(second)]):
            reader = CardReader(weights=weights)  # the app's: the shipped networks on every core
            if number and args.lying:
                reader.detector.facing = None  # the table reader still faces its sure finds
            if number and args.whole:
                reader._live.WHOLE_EVERY = 1  # its network reads every live frame whole
            if live:
                for _ in range(3):  # the first readings measure the view's index size
                    reader.read(frame)
            runs.append(reader.read if live else reader.read_photo)
        cases[name] = (runs, frame, indexes, live)
    # The photo as a HEIC file (pillow-heif's encoder at quality 90, one image where an iPhone
    # writes a grid of 512-px tiles): the file decoded, then read, each time.
    runs, photo, indexes, _ = cases["a 12 MP phone photo, still"]
    folder = tempfile.TemporaryDirectory()
    heic = Path(folder.name) / "IMG_0001.HEIC"
    pillow_heif.from_pillow(Image.fromarray(photo[:, :, ::-1])).save(heic, quality=90)
    cases["the same photo, a HEIC file decoded and read"] = (
        [lambda _, run=run: run(read_image(heic)) for run in runs], photo, indexes, False)
    times: dict[str, list[list[float]]] = {name: [[] for _ in runs] for name, (runs, *_) in cases.items()}
    read: dict[str, int] = {}
    for _ in range(args.repeats):
        for name, (runs, frame, _, _) in cases.items():
            for number, run in enumerate(runs):
                # A fresh copy each time, as a camera gives a new frame: the facing network answers a
                # picture it has just read from memory (FacingReader), which would leave its cost out.
                fresh = frame.copy()
                started = time.perf_counter()
                reading = run(fresh)
                times[name][number].append((time.perf_counter() - started) * 1000)
                if number == 0:
                    read[name] = len(reading.cards())
    print(f"int8 instructions: {int8_instructions()}; median of {args.repeats}\n")
    against = f" | {second}, ms | ratio" if second else ""
    print(f"| picture | labelled indexes | cards read | median ms | mean ms | of its budget{against} |")
    print("|---|---|---|---|---|---|" + ("---|---|" if second else ""))
    for name, (_, frame, indexes, live) in cases.items():
        medians = [statistics.median(taken) for taken in times[name]]
        budget = LIVE_BUDGET_MS if live else PHOTO_BUDGET_MS
        other = f" | {medians[1]:.0f} | {medians[0] / medians[1]:.2f}" if second else ""
        print(f"| {name} ({frame.shape[1]}×{frame.shape[0]}) | {indexes} | {read[name]} | {medians[0]:.0f} "
              f"| {statistics.mean(times[name][0]):.0f} | {medians[0] / budget:.2f} of {budget:.0f} ms{other} |")
    folder.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
