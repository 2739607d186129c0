"""The score sheet: hands in order, running totals, next opening minimums, the end of the game.

Each hand is kept as its hand file (the score command's input, without ``score_before``), so the
sheet can always rescore it: editing or deleting a past hand recomputes every later one.

>>> sheet = ScoreSheet()
>>> sheet.add({"went_out": "A", "teams": {"A": {"melds": [["KH","KS","KD","KC","KH","KS","KD"]]}, "B": {}}})
>>> sheet.totals, sheet.next_minimum("A")
({'A': 670, 'B': 0}, 125)

Seed 000 §Winning the game: the game ends after the hand in which one or both teams reach the target
(8,500; table rule ``game_target``), and the higher score wins. Equal scores at the end are a tie.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from .end_of_hand import TEAMS
from .handfile import HandFileError, score_report
from .table_rules import TableRules
from .variant import get_variant


@dataclass(frozen=True)
class SheetRow:
    """One hand on the sheet: each team's hand score and running total after it."""

    number: int
    scores: dict[str, int]
    totals: dict[str, int]
    next_minimums: dict[str, int]
    lines: dict[str, list[dict[str, Any]]]
    after_game_end: bool = False  #: the game had already ended before this hand


@dataclass
class ScoreSheet:
    variant: str = "modern"
    table_rules: TableRules = field(default_factory=TableRules)
    hands: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        get_variant(self.variant)  # fail early on an unknown variant

    # ------------------------------------------------------------------------------- editing
    def add(self, hand: dict[str, Any]) -> None:
        """Add the next hand (checked first: an invalid hand never joins the sheet)."""
        self._check(hand, len(self.hands))
        self.hands.append(copy.deepcopy(hand))

    def replace(self, index: int, hand: dict[str, Any]) -> None:
        """Correct hand ``index`` (0-based); every later hand is rescored from it."""
        self._index(index)
        self._check(hand, index)
        self.hands[index] = copy.deepcopy(hand)

    def delete(self, index: int) -> None:
        self._index(index)
        del self.hands[index]

    # ------------------------------------------------------------------------------- reading
    def rows(self) -> list[SheetRow]:
        totals = {t: 0 for t in TEAMS}
        rows: list[SheetRow] = []
        ended = False
        for number, hand in enumerate(self.hands, start=1):
            report = score_report(self._with_context(hand, totals))
            scores = {t: report["teams"][t]["total"] for t in TEAMS}
            totals = {t: report["teams"][t]["score_after"] for t in TEAMS}
            rows.append(SheetRow(
                number=number, scores=scores, totals=dict(totals),
                next_minimums={t: report["teams"][t]["next_minimum"] for t in TEAMS},
                lines={t: report["teams"][t]["lines"] for t in TEAMS},
                after_game_end=ended,
            ))
            ended = ended or report["game_over"]
        return rows

    @property
    def totals(self) -> dict[str, int]:
        rows = self.rows()
        return rows[-1].totals if rows else {t: 0 for t in TEAMS}

    def next_minimum(self, team: str) -> int:
        return get_variant(self.variant).opening_minimum(self.totals[team])

    @property
    def target(self) -> int:
        return get_variant(self.variant).game_target(self.table_rules)

    @property
    def final_totals(self) -> dict[str, int] | None:
        """Each team's total after the hand that ended the game, ``None`` while it goes on (seed 000
        §Winning the game: it ends after the hand in which a team reaches the target). Hands entered
        after it stay on the sheet, marked, and change neither the result nor who won."""
        for row in self.rows():
            if any(total >= self.target for total in row.totals.values()):
                return dict(row.totals)
        return None

    @property
    def game_over(self) -> bool:
        return self.final_totals is not None

    @property
    def winner(self) -> str | None:
        """The team with the higher total when the game ended; ``None`` before, or on a tie."""
        totals = self.final_totals
        if totals is None or totals["A"] == totals["B"]:
            return None
        return max(totals, key=totals.get)

    # ------------------------------------------------------------------------------- helpers
    def _with_context(self, hand: dict[str, Any], totals: dict[str, int]) -> dict[str, Any]:
        data = copy.deepcopy(hand)
        data["variant"] = self.variant
        data["table_rules"] = self.table_rules.to_dict()
        teams = data.setdefault("teams", {})
        for t in TEAMS:
            if isinstance(teams.get(t, {}), dict):
                teams.setdefault(t, {})["score_before"] = totals[t]
        return data

    def _check(self, hand: dict[str, Any], index: int) -> None:
        try:
            score_report(self._with_context(hand, {t: 0 for t in TEAMS}))
        except HandFileError as error:
            raise HandFileError(f"hand {index + 1}: {error}") from None

    def _index(self, index: int) -> None:
        if not 0 <= index < len(self.hands):
            raise IndexError(f"there is no hand {index + 1} on the sheet (it has {len(self.hands)})")
