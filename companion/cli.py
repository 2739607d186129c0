"""``python -m companion score HAND.json [--json]`` (installed as ``canasta-score``).

Exit status 0 with the breakdown (or one JSON object with ``--json``); 2 with a one-line message on
stderr for a hand that can't be scored: malformed JSON, an unknown card, a meld that isn't one, more
cards than the pack holds.
"""

from __future__ import annotations

import argparse
import codecs
import json
import sys
from pathlib import Path

from .end_of_hand import TEAMS
from .handfile import HandFileError, hand_warnings, load_hand, score_report
from .variant import get_variant

#: The most of a hand file that is read: a hand written out in full, indented, is a few kB.
MAX_HAND_FILE_BYTES = 2_000_000
#: Byte-order marks some editors (Windows Notepad) write first, and the text's encoding after each.
BYTE_ORDER_MARKS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"), (codecs.BOM_UTF8, "utf-8-sig"),
                    (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _read(path: str):
    try:
        if path == "-":
            data = sys.stdin.buffer.read(MAX_HAND_FILE_BYTES + 1)
        else:
            with open(path, "rb") as file:
                data = file.read(MAX_HAND_FILE_BYTES + 1)
    except OSError as error:
        raise HandFileError(f"{path}: can't read the file ({error.strerror})") from None
    if len(data) > MAX_HAND_FILE_BYTES:
        raise HandFileError(f"{path}: too large for a hand file (over {MAX_HAND_FILE_BYTES // 1_000_000} MB; "
                            "a hand is a few kB)")
    encoding = next((name for mark, name in BYTE_ORDER_MARKS if data.startswith(mark)), "utf-8")
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError:
        raise HandFileError(f"{path}: not a text file (expected JSON)") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise HandFileError(
            f"{path}: not valid JSON (line {error.lineno}, column {error.colno}: {error.msg})"
        ) from None
    except RecursionError:
        raise HandFileError(f"{path}: nested too deeply to be a hand file") from None
    except ValueError as error:  # a number too long to read, for one
        raise HandFileError(f"{path}: not a hand file ({error})") from None


def _readable(report: dict, data: dict) -> str:
    title = get_variant(report["variant"]).title
    out = [f"{title} canasta — hand score"]
    for team in TEAMS:
        t = report["teams"][team]
        out.append(f"\nTeam {team}")
        width = max((len(line["item"]) for line in t["lines"]), default=10)
        out += [f"  {line['item']:<{width}}  {line['points']:>+8,}" for line in t["lines"]]
        out.append(f"  {'hand total':<{width}}  {t['total']:>+8,}")
        out.append(f"  score {t['score_before']:,} → {t['score_after']:,}; next opening needs {t['next_minimum']}")
    if report["game_over"]:
        out.append(f"\nGame over: team {report['winner']} wins." if report["winner"] else "\nGame over: a tie.")
    return "\n".join(out)


def score_command(args: argparse.Namespace) -> int:
    try:
        data = _read(args.hand)
        report = score_report(data)
    except HandFileError as error:
        print(f"canasta-score: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(report))
    else:
        print(_readable(report, data))
        for warning in hand_warnings(load_hand(data)):
            print(f"warning: {warning}", file=sys.stderr)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m companion", description="Canasta Companion: the game core's commands."
    )
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="score one hand from a hand file (JSON; '-' reads stdin)")
    score.add_argument("hand", help="the hand file (see README, 'The hand file')")
    score.add_argument("--json", action="store_true", help="print one JSON object instead of the breakdown")
    score.set_defaults(run=score_command)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if sys.argv and Path(sys.argv[0]).name == "canasta-score" and argv[:1] != ["score"]:
        argv.insert(0, "score")  # the installed canasta-score command is the score subcommand
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
