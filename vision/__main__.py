"""Command line of the vision tools: ``python -m vision <command> ...``.

    faces   render every installed deck (and the project's own) into the face atlas
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from vision.atlas import DEFAULT_ATLAS_DIR, AtlasError


class UsageError(Exception):
    """Bad input from the command line: reported as one line, without a traceback."""


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (UsageError, AtlasError, OSError) as error:
        print(f"vision {args.command}: {error}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m vision", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    faces = commands.add_parser("faces", help="build the face atlas from the installed SVG decks")
    faces.add_argument("--atlas", type=Path, default=DEFAULT_ATLAS_DIR, help="atlas folder (default %(default)s)")
    faces.add_argument("--card-height", type=int, default=400, help="face height in pixels (default %(default)s)")
    faces.add_argument("--decks", help="comma-separated deck ids to render (default: all)")
    faces.set_defaults(run=_run_faces)
    return parser


def _run_faces(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from vision.decks import installed_decks
    from vision.drawn_deck import write_drawn_decks
    from vision.faces import build_atlas

    decks = installed_decks() + write_drawn_decks(args.atlas / "drawn-svg")
    if args.decks:
        wanted = set(args.decks.split(","))
        unknown = wanted - {deck.deck_id for deck in decks}
        if unknown:
            raise UsageError(f"unknown deck(s): {', '.join(sorted(unknown))}")
        decks = [deck for deck in decks if deck.deck_id in wanted]
    started = time.perf_counter()
    with tqdm(total=len(decks), unit="deck") as progress:
        index = build_atlas(decks, args.atlas, args.card_height, lambda deck_id: progress.update())
    for deck_id, reason in index["rejected"].items():
        print(f"not used: {deck_id}: {reason}")
    print(f"{len(index['decks'])} decks in {args.atlas} ({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
