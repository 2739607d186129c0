"""The score sheet as a table of plain values: what the sheet view, the CSV and the PDF all show."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from html import escape
from pathlib import Path

from companion import TEAMS
from companion.variant import get_variant

from .game import Game


@dataclass(frozen=True)
class SheetTable:
    title: str
    header: list[str]
    rows: list[list[int]]          #: hand number, then per team: hand score, running total, next minimum
    banner: str
    after_game_end: list[bool]     #: per row: played after the game had already ended


def sheet_table(game: Game) -> SheetTable:
    names = game.team_names
    header = ["Hand"] + [f"{names[t]}: {what}" for t in TEAMS for what in ("hand", "total", "next minimum")]
    rows = game.sheet.rows()
    values = [
        [row.number] + [v for t in TEAMS for v in (row.scores[t], row.totals[t], row.next_minimums[t])] for row in rows
    ]
    title = f"{get_variant(game.variant).title} canasta — {isolated(names['A'])} v {isolated(names['B'])}"
    return SheetTable(title, header, values, banner(game), [row.after_game_end for row in rows])


def banner(game: Game) -> str:
    """The sheet's headline: the target and the score, or the result, with the totals when the game
    ended (hands entered after it change nothing)."""
    totals, names = game.sheet.final_totals or game.sheet.totals, game.team_names
    score = f"{isolated(names['A'])} {totals['A']:,}, {isolated(names['B'])} {totals['B']:,}"
    if not game.sheet.game_over:
        return f"First to {game.sheet.target:,} wins. Now: {score}."
    if game.sheet.winner is None:
        return f"Game over at {game.sheet.target:,}: a tie, {score}."
    return f"Game over: {isolated(names[game.sheet.winner])} win! {score}."


def isolated(name: str) -> str:
    """A team's name set apart from the text around it (Unicode's first-strong isolate), so a name
    in Hebrew or Arabic does not pull the score beside it inside itself."""
    return f"\u2068{name}\u2069"


def write_csv(table: SheetTable, path: Path) -> None:
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(table.header)
        writer.writerows(table.rows)


def sheet_html(table: SheetTable) -> str:
    """A printable page: the title, the sheet with a grid, and the banner."""
    head = "".join(f"<th>{escape(h)}</th>" for h in table.header)
    body = "".join(
        "<tr>" + "".join(f"<td align='right'>{v:,}</td>" for v in row) + "</tr>" for row in table.rows
    )
    return (
        f"<h2>{escape(table.title)}</h2>"
        f"<table border='1' cellspacing='0' cellpadding='4' width='100%'><tr>{head}</tr>{body}</table>"
        f"<p><b>{escape(table.banner)}</b></p>"
    )
