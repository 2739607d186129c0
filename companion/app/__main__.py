"""Placeholder entry point until the desktop app lands (issue 6): explains and shows the score command."""

import sys

from companion.cli import build_parser

print("Canasta Companion: the desktop app is not built yet. Meanwhile, score a hand with:\n", file=sys.stderr)
build_parser().print_help()
