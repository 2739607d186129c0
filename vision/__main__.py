"""Command line of the vision tools: ``python -m vision <command> ...``.

    faces   render every installed deck (and the project's own) into the face atlas
    synth   write a YOLO dataset of synthetic table scenes with scene ground truth
    sheet   write a contact sheet (a dozen scenes with their boxes) to judge realism
    video   play a simulated hand forward and write it as a video with per-frame ground truth
    read    read tables from images or videos: each team's melds, piles and threes
    learn-deck  fine-tune the classifier on the cards players taught it (the app runs it)
    tiles, train, classifier, recalibrate, export, evaluate: the card detector (vision.cli.detector)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from vision.cli import detector as detector_cli
from vision.synth.atlas import DEFAULT_ATLAS_DIR, AtlasError

#: The modules of the ``[train]`` extra (pyproject.toml): what making data, training, exporting and
#: evaluating import, and reading tables does not. A command that misses one says how to install them.
TRAINING_MODULES = frozenset({"torch", "torchvision", "ultralytics", "nncf", "albumentations", "tqdm",
                              "matplotlib", "PIL", "fontTools"})
INSTALL_TRAINING = "pip install 'canasta-companion[train]' (from a checkout: ./run.sh test installs it)"


class UsageError(Exception):
    """Bad input from the command line: reported as one line, without a traceback."""


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (UsageError, AtlasError, OSError, *detector_cli.ERRORS) as error:
        print(f"vision {args.command}: {error}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in TRAINING_MODULES:
            raise
        print(f"vision {args.command}: needs the training tools ({error.name} is not installed): "
              f"{INSTALL_TRAINING}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    faces = commands.add_parser("faces", help="build the face atlas from the installed SVG decks")
    faces.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR, help="atlas folder (default %(default)s)")
    faces.add_argument("--card-height", type=detector_cli.at_least(1), default=400,
                       help="face height in pixels (default %(default)s)")
    faces.add_argument(
        "--decks", help="comma-separated deck ids to render, kept with the atlas's others (default: all)"
    )
    faces.add_argument(
        "--random-decks",
        type=int,
        default=None,
        metavar="N",
        help="how many of the project's random decks to draw (default: vision.synth.drawn_deck.RANDOM_DECKS; "
        "96 adds the third generation, project-random-64..95)",
    )
    faces.set_defaults(run=_run_faces)

    synth = commands.add_parser("synth", help="write a dataset of synthetic scenes")
    synth.add_argument("--out", type=Path, required=True, help="dataset folder")
    synth.add_argument("--images", type=int, required=True, help="number of images (all splits)")
    synth.add_argument("--seed", type=int, default=0)
    synth.add_argument("--size", default="1920x1080", help="WIDTHxHEIGHT (default %(default)s)")
    synth.add_argument("--workers", type=detector_cli.at_least(1), default=None,
                       help="processes (default: one per core)")
    synth.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    synth.add_argument("--camera", choices=("table", "close"), default="table",
                       help="table: most often a whole table in view, every size from far to close (default); "
                            "close: a camera 30-60 cm above the cards, a 4K one or a phone photo "
                            "(vision.synth.camera.CLOSE_CARD_HEIGHTS_1080)")
    synth.add_argument("--splits", default="train,val,test",
                       help="comma-separated splits to write, each scene as in the whole set (default %(default)s)")
    synth.set_defaults(run=_run_synth)

    sheet = commands.add_parser("sheet", help="write a contact sheet PNG")
    sheet.add_argument("--out", type=Path, default=Path("datasets/generated/contact_sheet.png"))
    sheet.add_argument("--seed", type=int, default=0)
    sheet.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    sheet.set_defaults(run=_run_sheet)

    video = commands.add_parser("video", help="film a simulated hand with per-frame ground truth")
    video.add_argument("--out", type=Path, default=Path("datasets/demo"))
    video.add_argument("--seed", type=int, default=0)
    video.add_argument("--size", default="960x540", help="WIDTHxHEIGHT (default %(default)s)")
    video.add_argument("--split", choices=("train", "val", "test"), default="train",
                       help="whose decks the cards are: the training ones (default) or the held-out test ones")
    video.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR)
    video.add_argument("--pause", type=detector_cli.seconds, default=0.0, metavar="SECONDS",
                       help="hold the table still this long after each play, as between turns at a real table "
                            "(default %(default)s: a play a second)")
    video.add_argument("--stock-right", action="store_true",
                       help="lay the draw pile and the turn card right of the discard pile as team A sees the "
                            "table (by default left of it)")
    video.set_defaults(run=_run_video)
    read = commands.add_parser("read", help="read tables from images or videos")
    read.add_argument("paths", type=Path, nargs="+", metavar="IMAGE_OR_VIDEO")
    read.add_argument("--json", action="store_true", help="one JSON object per image or frame")
    read.add_argument("--annotate", type=Path, metavar="DIR", help="write each image with its reading drawn")
    read.add_argument("--every", type=int, default=1, metavar="N", help="read every N-th video frame")
    read.add_argument("--setup", type=Path, help="the table's saved set-up (team areas, perspective) as JSON")
    read.add_argument("--weights", type=Path, help="detector weights (default: the detector's own)")
    read.add_argument("--labels", action="store_true", help="use the YOLO labels beside each image, not the detector")
    read.set_defaults(run=_run_read)

    learn = commands.add_parser("learn-deck", help="learn the table's deck from the cards players taught")
    learn.add_argument("folder", type=Path, help="the deck folder the app wrote (its taught cards, cards.npz)")
    learn.add_argument("--minutes", type=float, default=None,
                       help="most fine-tuning time (default: vision.reader.deck_learning.LESSON_MINUTES)")
    learn.add_argument("--passes", type=float, default=None,
                       help="times the fine-tuning sees each taught card (default: vision.reader.deck_learning.PASSES)")
    learn.add_argument("--threads", type=int, default=1, help="threads (default %(default)s: the app keeps a core)")
    learn.add_argument("--stop-with-parent", type=int, metavar="PID",
                       help="end when process PID, which started it, ends (the app passes its own)")
    learn.set_defaults(run=_run_learn_deck)

    detector_cli.add_commands(commands)
    return parser


def stop_with_parent(parent: int, every: float = 1.0) -> None:
    """End this process when process ``parent`` (the app that started it, which passes its own id)
    is no longer its parent: at once if it died before this was called (while Python and numpy were
    loading), else within ``every`` seconds. The app runs a lesson as a child process and stops it
    when it closes; killed, it can't, and the lesson would go on writing into the deck folder after
    players had moved on (a new lesson, the deck forgotten). POSIX: a child whose parent dies is
    given another."""
    import threading

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(3)

    if os.getppid() != parent:
        os._exit(3)
    threading.Thread(target=watch, daemon=True, name="stop-with-parent").start()


def _run_learn_deck(args: argparse.Namespace) -> int:
    """Prints the lesson as one JSON line (``lesson {...}``) for the app, after the training's progress."""
    if args.stop_with_parent is not None:
        stop_with_parent(args.stop_with_parent)
    from threadpoolctl import threadpool_limits

    from vision.reader.deck_learning import LESSON_MINUTES, PASSES, DeckLearningError, learn_deck

    minutes = LESSON_MINUTES if args.minutes is None else args.minutes
    passes = PASSES if args.passes is None else args.passes
    if not 0 < minutes <= 60:
        raise UsageError(f"--minutes must be above 0 and at most 60, not {minutes:g}")
    if not 0 < passes <= 1000:
        raise UsageError(f"--passes must be above 0 and at most 1000, not {passes:g}")
    if args.threads < 1:
        raise UsageError("--threads must be at least 1")
    threadpool_limits(args.threads)
    try:
        lesson = learn_deck(args.folder, minutes, log=lambda line: print(line, flush=True), passes=passes)
    except DeckLearningError as error:
        raise UsageError(str(error)) from None
    print(lesson.summary())
    print("lesson " + json.dumps(lesson.to_json()), flush=True)
    return 0


def _run_read(args: argparse.Namespace) -> int:
    from vision.cli.read import run_read

    if args.every < 1:
        raise UsageError("--every must be at least 1")
    annotate_dir = _writable_dir(args.annotate) if args.annotate else None
    return run_read(args.paths, args.json, annotate_dir, args.every, args.setup, args.weights, args.labels)


def parse_size(text: str) -> tuple[int, int]:
    """``1280x720`` -> (1280, 720); frames from 64×64 up to 1920×1080."""
    try:
        width, height = (int(part) for part in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--size must be WIDTHxHEIGHT like 1280x720, not '{text}'") from None
    if not (64 <= width <= 1920 and 64 <= height <= 1080):
        raise UsageError(f"--size {text}: frames go from 64x64 up to 1920x1080")
    return width, height


def _writable_dir(path: Path) -> Path:
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise UsageError(f"cannot write to {path}: {error.strerror or error}") from None
    return path


def _run_synth(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vision.synth.atlas import FaceAtlas
    from vision.synth.camera import CLOSE_CARD_HEIGHTS_1080
    from vision.synth.dataset import SPLITS, plan, write_dataset

    size = parse_size(args.size)
    FaceAtlas(args.atlas)
    if args.images < 1:
        raise UsageError("--images must be at least 1")
    splits = tuple(split.strip() for split in args.splits.split(",") if split.strip())
    unknown = sorted(set(splits) - set(SPLITS))
    if unknown or not splits:
        raise UsageError(f"--splits takes {', '.join(SPLITS)}, not {args.splits!r}")
    count = sum(split in splits for split, _ in plan(args.images))
    out = _writable_dir(args.out)
    started = time.perf_counter()
    card_heights = CLOSE_CARD_HEIGHTS_1080 if args.camera == "close" else None
    for _ in tqdm(write_dataset(out, args.atlas, args.images, args.seed, size, args.workers, splits, card_heights),
                  total=count, unit="img"):
        pass
    elapsed = time.perf_counter() - started
    print(f"{count} images in {out} ({count / elapsed:.1f} images/s); data.yaml written")
    return 0


def _run_sheet(args: argparse.Namespace) -> int:
    from vision.synth.atlas import FaceAtlas
    from vision.synth.contact_sheet import contact_sheet

    _writable_dir(args.out.parent)
    print(contact_sheet(FaceAtlas(args.atlas), args.out, args.seed))
    return 0


def _run_faces(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vision.synth.atlas import ATLAS_INDEX_NAME
    from vision.synth.decks import installed_decks
    from vision.synth.drawn_deck import RANDOM_DECKS, all_styles, write_drawn_decks
    from vision.synth.faces import build_atlas

    if args.random_decks is not None and args.random_decks < 0:
        raise UsageError("--random-decks must be 0 or more")
    styles = all_styles(RANDOM_DECKS if args.random_decks is None else args.random_decks)
    decks = installed_decks() + write_drawn_decks(args.atlas / "drawn-svg", styles)
    if args.decks:
        wanted = set(args.decks.split(","))
        unknown = wanted - {deck.deck_id for deck in decks}
        if unknown:
            raise UsageError(f"unknown deck(s): {', '.join(sorted(unknown))}")
        decks = [deck for deck in decks if deck.deck_id in wanted]
    index_path = args.atlas / ATLAS_INDEX_NAME
    kept = json.loads(index_path.read_text()) if args.decks and index_path.exists() else None
    started = time.perf_counter()
    with tqdm(total=len(decks), unit="deck") as progress:
        index = build_atlas(decks, args.atlas, args.card_height, lambda deck_id: progress.update())
    if kept is not None and kept.get("card_height") == args.card_height:
        # Rendering some decks adds them to the atlas and keeps the others.
        for key in ("decks", "rejected"):
            index[key] = {**{d: v for d, v in kept.get(key, {}).items() if d not in wanted}, **index[key]}
        index_path.write_text(json.dumps(index, indent=1))
    for deck_id, reason in index["rejected"].items():
        print(f"not used: {deck_id}: {reason}")
    print(f"{len(index['decks'])} decks in {args.atlas} ({time.perf_counter() - started:.0f} s)")
    return 0


def _run_video(args: argparse.Namespace) -> int:
    from vision.synth.atlas import FaceAtlas
    from vision.synth.video import write_hand_video

    size = parse_size(args.size)
    atlas = FaceAtlas(args.atlas)
    summary = write_hand_video(atlas, _writable_dir(args.out), args.seed, size, args.split, args.pause,
                               args.stock_right)
    print(f"{summary['frames']} frames, {len(summary['events'])} events in {args.out}")
    if "no_table_setup" in summary:
        print(f"no table set-up written beside it ({summary['no_table_setup']}): the app plays it without team "
              "areas, and evaluations draw theirs from the labels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
