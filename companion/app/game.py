"""One game being played: the core's :class:`ScoreSheet` kept in step with the database.

Every change is checked by the game core first, then committed to the store in one transaction, and
only then applied in memory, so what the players see is always what is on disk. The hand in progress
on the table is kept with the game: adding a hand scored from the table clears it in the same
transaction, and taking that hand back off the sheet can put it back.

Each change names the game's version as last read (:class:`~companion.app.store.GameChanged` when
another window changed it since). The game is then read again, and a hand added at the end goes
after the hands saved there, so it is kept; any other change is refused, as it was meant for a
sheet that is no longer there.
"""

from __future__ import annotations

import copy
from typing import Any

from companion import TEAMS, HandFileError, ScoreSheet, TableRules, Violation, load_hand, score_report
from companion.handfile import hand_warnings

from .store import UNCHANGED, DamagedGame, GameChanged, GameRecord, Store

DEFAULT_TEAM_NAMES = {"A": "Team A", "B": "Team B"}


class Game:
    def __init__(self, store: Store, record: GameRecord):
        self.store = store
        self.id = record.id
        self._take(record)

    def _take(self, record: GameRecord) -> None:
        """The game as ``record`` holds it."""
        self.team_names = dict(record.team_names)
        self.sheet = ScoreSheet(record.variant, TableRules.from_dict(record.table_rules), list(record.hands))
        self.version = record.version  #: the game's version in the store, as last read or written here

    @classmethod
    def start(cls, store: Store, variant: str, rules: TableRules, team_names: dict[str, str]) -> Game:
        game_id = store.new_game(variant, rules.to_dict(), team_names)
        return cls(store, store.game(game_id))

    @classmethod
    def load(cls, store: Store, game_id: int) -> Game:
        """Game ``game_id`` as saved; raises :class:`DamagedGame` when its record can't be read back
        or scored (a rule this version does not know: a newer app saved it), leaving it as it is."""
        record = store.game(game_id)
        try:
            game = cls(store, record)
            game.sheet.rows()  # every hand scored now, not when the sheet is first drawn
        except (ValueError, TypeError, KeyError, AttributeError) as error:
            why = str(error).split("; known:")[0]  # a rule this version does not know: not the list it knows
            raise DamagedGame(store.path, f"game {game_id} can't be read back ({why})") from None
        return game

    # --------------------------------------------------------------------------------- reading
    @property
    def variant(self) -> str:
        return self.sheet.variant

    @property
    def rules(self) -> TableRules:
        return self.sheet.table_rules

    @property
    def hands(self) -> list[dict[str, Any]]:
        return self.sheet.hands

    def totals_before(self, position: int) -> dict[str, int]:
        """Each team's score before hand ``position`` (0-based): what its opening minimum comes from."""
        rows = self.sheet.rows()[:position]
        return dict(rows[-1].totals) if rows else {t: 0 for t in TEAMS}

    def report(self, hand: dict[str, Any], position: int) -> dict[str, Any]:
        """The core's score report for ``hand`` played at ``position``; raises ``HandFileError``."""
        return score_report(self._in_context(hand, position))

    def warnings(self, hand: dict[str, Any], position: int) -> list[Violation]:
        """Rules the finished hand seems to break that don't stop it being scored (e.g. going out
        without two canastas); raises ``HandFileError`` like :meth:`report`."""
        return hand_warnings(load_hand(self._in_context(hand, position)))

    def _in_context(self, hand: dict[str, Any], position: int) -> dict[str, Any]:
        """The hand file as the core scores it: this game's variant and rules, the scores before it."""
        data = copy.deepcopy(hand)
        data["variant"] = self.variant
        data["table_rules"] = self.rules.to_dict()
        totals = self.totals_before(position)
        for team in TEAMS:
            data.setdefault("teams", {}).setdefault(team, {})["score_before"] = totals[team]
        return data

    # --------------------------------------------------------------------------------- changes
    #: How often adding a hand reads the game again when other windows keep changing it.
    ADD_TRIES = 5

    def add(self, hand: dict[str, Any], hand_in_progress: Any = UNCHANGED) -> int:
        """Add a hand at the end of the sheet and return its position; ``hand_in_progress=None`` also
        clears the table's. Where another window added hands meanwhile, this one goes after them."""
        for _ in range(self.ADD_TRIES - 1):
            try:
                return self._add_at_end(hand, hand_in_progress)
            except GameChanged:
                pass  # the game was read again: add at its end as it is now
        return self._add_at_end(hand, hand_in_progress)

    def _add_at_end(self, hand: dict[str, Any], hand_in_progress: Any) -> int:
        position = len(self.hands)
        self.insert(position, hand, hand_in_progress)
        return position

    def insert(self, position: int, hand: dict[str, Any], hand_in_progress: Any = UNCHANGED) -> None:
        after = self._sheet_with(lambda s: s.hands.insert(position, self._checked(hand)))
        self._commit(lambda: self.store.insert_hand(self.id, self.version, position, hand, after.game_over,
                                                    hand_in_progress))
        self.sheet = after

    def replace(self, position: int, hand: dict[str, Any]) -> None:
        after = self._sheet_with(lambda s: s.replace(position, hand))
        self._commit(lambda: self.store.replace_hand(self.id, self.version, position, hand, after.game_over))
        self.sheet = after

    def delete(self, position: int, hand_in_progress: Any = UNCHANGED) -> dict[str, Any]:
        """Delete hand ``position`` and return it (for undo); ``hand_in_progress`` puts a hand on the
        table in the same transaction (the hand taken back off the sheet)."""
        hand = copy.deepcopy(self.hands[position])
        after = self._sheet_with(lambda s: s.delete(position))
        self._commit(lambda: self.store.delete_hand(self.id, self.version, position, after.game_over, hand_in_progress))
        self.sheet = after
        return hand

    def hand_in_progress(self) -> dict[str, Any] | None:
        """The hand on this game's table when it was last saved (``None``: none under way)."""
        return self.store.hand_in_progress(self.id)

    def save_hand_in_progress(self, hand: dict[str, Any] | None) -> None:
        self.store.save_hand_in_progress(self.id, hand)

    def set_team_names(self, names: dict[str, str]) -> None:
        self._commit(lambda: self.store.update_game(self.id, self.version, variant=self.variant,
                                                    table_rules=self.rules.to_dict(), team_names=names))
        self.team_names = dict(names)

    def set_rules(self, variant: str, rules: TableRules) -> None:
        """Change variant or table rules: only before the first hand, when nothing needs rescoring."""
        if self.hands:
            raise ValueError("the table rules of a game are fixed once its first hand is on the sheet")
        self._commit(lambda: self.store.update_game(self.id, self.version, variant=variant,
                                                    table_rules=rules.to_dict(), team_names=self.team_names))
        self.sheet = ScoreSheet(variant, rules, [])

    # --------------------------------------------------------------------------------- helpers
    def _commit(self, write) -> None:
        """Run a change to the store (it returns the game's new version). When another window
        changed the game first, read it again as saved and raise :class:`GameChanged`."""
        try:
            self.version = write()
        except GameChanged:
            self._take(self.store.game(self.id))
            raise

    def _sheet_with(self, change) -> ScoreSheet:
        """A copy of the sheet with ``change`` applied; the live sheet changes only after the commit."""
        sheet = ScoreSheet(self.variant, self.rules, copy.deepcopy(self.hands))
        change(sheet)
        return sheet

    def _checked(self, hand: dict[str, Any]) -> dict[str, Any]:
        """``hand`` once the core accepts it (``ScoreSheet.add`` checks; it has no ``insert``)."""
        try:
            ScoreSheet(self.variant, self.rules).add(hand)
        except HandFileError as error:  # the one hand of a sheet made to check it: "hand 1" would mislead
            raise HandFileError(str(error).removeprefix("hand 1: ")) from None
        return copy.deepcopy(hand)
