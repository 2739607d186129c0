"""The score-sheet database: games, their confirmed hands, the hand in progress on the table, the
app's settings, each video's table set-up (the team areas players drew) and the cards players taught
the card reader (crops of their deck's corners with the names they gave), in SQLite.

The file lives in the user's data directory (``platformdirs.user_data_dir("canasta-companion")``);
the environment variable ``CANASTA_COMPANION_DATA`` or the ``path`` argument points elsewhere (tests,
a second table). Every change to a game is one transaction, so a confirmed hand is either on disk in
full or not at all, and killing the app never loses one (WAL journal, ``synchronous=FULL``). The hand
in progress is saved the same way at each change on the table; scoring it clears it in the scored
hand's own transaction, so a restart never shows a hand that is already on the sheet.

A file that is damaged, belongs to another program, or was written by a newer version of the app
raises a :class:`StoreError` subclass with a message for players; it is never reset silently.
:func:`move_aside` renames such a file so a fresh database can be started while keeping the old one.
A file that is sound but can't be written (read-only, a folder that can't be made, another program
holding it) raises :class:`UnusableStore`: nothing is wrong with it, so nothing is put aside. A game
whose record can't be read raises :class:`DamagedGame` and leaves the other games usable.
A file written by an older version is brought up to date when opened (:data:`MIGRATIONS`), in one
transaction, so it keeps every game.

Two programs may write one file (two copies of the app, though the app's lock keeps a second copy
away). Every change to a game names the game's version as the writer last read it and counts it
up in the same transaction; a change made from an older version raises :class:`GameChanged` and
writes nothing, so no writer removes or moves a hand it has not seen.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import platformdirs

DATA_DIR_VARIABLE = "CANASTA_COMPANION_DATA"
FILE_NAME = "scoresheets.sqlite3"
#: Marks the file as ours in the SQLite header (``PRAGMA application_id``): "CnCo".
APPLICATION_ID = 0x436E436F
SCHEMA_VERSION = 5

SCHEMA = """
CREATE TABLE games (
    id INTEGER PRIMARY KEY,
    variant TEXT NOT NULL,
    table_rules TEXT NOT NULL,          -- JSON: TableRules.to_dict()
    team_a TEXT NOT NULL,
    team_b TEXT NOT NULL,
    created TEXT NOT NULL,
    finished TEXT                       -- set when the game reaches its target
);
CREATE TABLE hands (
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,          -- 0-based order on the sheet
    hand TEXT NOT NULL,                 -- JSON hand file without score_before
    confirmed TEXT NOT NULL
);
CREATE INDEX hands_by_game ON hands (game_id, position);
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);  -- JSON values
"""

#: What turns a file of version ``n - 1`` into version ``n``; a new file gets every step after SCHEMA.
MIGRATIONS = {
    2: """
CREATE TABLE table_setups (
    source TEXT PRIMARY KEY,            -- the video the areas were drawn on: a camera's id, a file, "demo"
    setup TEXT NOT NULL,                -- JSON: vision.reader.team_areas.TableSetup.to_json()
    saved TEXT NOT NULL
);
""",
    3: """
CREATE TABLE hand_in_progress (         -- at most one row: the hand on the table of the game played
    game_id INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    hand TEXT NOT NULL,                 -- JSON: the events applied so far (companion.handlog) and more
    saved TEXT NOT NULL
);
""",
    4: """
CREATE TABLE taught_cards (             -- the table's own deck, as players named it (vision.reader.deck_learning)
    id INTEGER PRIMARY KEY,
    code TEXT NOT NULL,                 -- a card code such as KH or JK, or "none": no card's corner
    crop BLOB NOT NULL,                 -- PNG: the corner index and its surroundings, as the reader saw it
    picture INTEGER NOT NULL,           -- the cards named on one picture share a number, counted from 1
    taught TEXT NOT NULL
);
""",
    5: """
-- counted up by every change to the game (a comment after the column would end up inside the table's SQL)
ALTER TABLE games ADD COLUMN version INTEGER NOT NULL DEFAULT 0
""",
}

#: Leave the hand in progress as it is (the default of the hand changes).
UNCHANGED = object()


class StoreError(Exception):
    """The database can't be used; ``str()`` is a message for players. ``can_start_fresh``: a new
    file may be started, the old one put aside (:func:`move_aside`)."""

    can_start_fresh = True

    def __init__(self, path: Path, message: str):
        super().__init__(message)
        self.path = path


class DamagedDatabase(StoreError):
    pass


class UnusableStore(StoreError):
    """A sound file (or folder) the app can't write now: players fix the cause, the file stays."""

    can_start_fresh = False


class DamagedGame(StoreError):
    """One game's record can't be read; the file and its other games are usable."""


class GameChanged(StoreError):
    """Another program changed the game since this one read it: nothing was written."""

    can_start_fresh = False


class ForeignDatabase(StoreError):
    pass


class NewerDatabase(StoreError):
    pass


class DamagedHandInProgress(StoreError):
    """The saved hand in progress can't be read; the games are not affected."""


class DamagedSetup(StoreError):
    """A video's saved team areas can't be read; they are set up again."""


@dataclass(frozen=True)
class GameRecord:
    id: int
    variant: str
    table_rules: dict[str, Any]
    team_names: dict[str, str]
    created: str
    finished: str | None
    hands: list[dict[str, Any]]
    version: int = 0  #: what a change to the game names (see :meth:`Store.insert_hand`)


@dataclass(frozen=True)
class GameSummary:
    """One line of the past-games list."""

    id: int
    variant: str
    team_names: dict[str, str]
    created: str
    finished: str | None
    hand_count: int


def default_path() -> Path:
    folder = os.environ.get(DATA_DIR_VARIABLE) or platformdirs.user_data_dir("canasta-companion")
    return Path(folder) / FILE_NAME


def _now() -> str:
    return datetime.now().isoformat(timespec="seconds")


def move_aside(path: Path) -> Path:
    """Rename a database the app can't use (and its journal files) so a fresh one can start."""
    aside = path.with_name(f"{path.name}.unreadable-{datetime.now():%Y%m%d-%H%M%S}")
    for suffix in ("-wal", "-shm"):
        extra = Path(str(path) + suffix)
        if extra.exists():
            extra.rename(Path(str(aside) + suffix))
    path.rename(aside)
    return aside


#: SQLite's errors for a file that is sound but can't be used now (``sqlite3.Error.sqlite_errorname``).
NOT_NOW = ("SQLITE_READONLY", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_CANTOPEN", "SQLITE_PERM", "SQLITE_IOERR",
           "SQLITE_FULL", "SQLITE_AUTH")
#: Why a file can't be written, when it or its folder is read-only.
READ_ONLY = (f"the file or its folder is read-only: make both writable, or choose another file (--database FILE) "
             f"or folder ({DATA_DIR_VARIABLE})")


def cannot_write(path: Path, cause: str, why: str) -> UnusableStore:
    return UnusableStore(
        path, f"The score-sheet file {path} can't be written ({cause}): {why}. Nothing in it was changed."
    )


def not_now(error: BaseException) -> str | None:
    """Why SQLite can't use a sound file now, from its error code: ``"in use"``, ``"read-only"``,
    ``"full"`` or ``"other"`` (its folder, the disk); ``None`` when the error says otherwise (a
    damaged file, or not SQLite's)."""
    name = getattr(error, "sqlite_errorname", "")
    if not name.startswith(NOT_NOW):
        return None
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        return "in use"
    if name.startswith(("SQLITE_READONLY", "SQLITE_PERM", "SQLITE_AUTH")):
        return "read-only"
    return "full" if name.startswith("SQLITE_FULL") else "other"


def unusable(path: Path, error: sqlite3.Error) -> UnusableStore | None:
    """The message for a sound file SQLite can't use now, or ``None`` when the error says otherwise."""
    kind = not_now(error)
    if kind is None:
        return None
    if kind == "in use":
        why = "another program is using it: is Canasta Companion already open? Close it and start again"
    elif kind == "read-only":
        why = READ_ONLY
    elif kind == "full":
        why = "the disk is full: free some space and start again"
    else:
        why = (f"check that its folder can be written, or choose another file (--database FILE) or folder "
               f"({DATA_DIR_VARIABLE})")
    return cannot_write(path, str(error), why)


class Store:
    #: Seconds to wait for another program's write to the file to finish before saying it is in use.
    busy_timeout = 5.0

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else default_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise UnusableStore(self.path, f"The folder for the score sheets, {self.path.parent}, can't be made "
                                           f"({error.strerror}): choose another file (--database FILE) or folder "
                                           f"({DATA_DIR_VARIABLE}).") from None
        self._check_permissions()
        try:
            self._db = sqlite3.connect(
                self.path, isolation_level=None, timeout=self.busy_timeout
            )  # transactions are explicit
            # Text the file holds that is not UTF-8 reads with a stand-in character, never an error.
            self._db.text_factory = lambda data: data.decode("utf-8", "replace")
            self._check_and_create()
            self._check_writable()
        except sqlite3.DatabaseError as error:
            self._close_quietly()
            raise unusable(self.path, error) or DamagedDatabase(
                self.path, f"{self.path} is damaged or is not a score-sheet file, and can't be read ({error})."
            ) from None

    def _check_permissions(self) -> None:
        """Refuse a file this user can't write before SQLite opens it: SQLite would open it read-only
        and leave its journal files (``-wal``, ``-shm``) beside it with the file's read-only mode,
        so the file would still be refused once made writable. Journal files left read-only so
        beside a writable file are given the file's own mode."""
        if not self.path.exists():
            return
        if not os.access(self.path, os.W_OK):
            raise cannot_write(self.path, "no permission to write it", READ_ONLY)
        for suffix in ("-wal", "-shm"):
            journal = Path(str(self.path) + suffix)
            if journal.exists() and not os.access(journal, os.W_OK):
                try:
                    journal.chmod(self.path.stat().st_mode & 0o777)
                except OSError:
                    pass  # another user's: SQLite finds it read-only, and the app says so

    def _check_writable(self) -> None:
        """Write to the file once (its version, unchanged), so a file the app can't write says so
        at the start, not when the first hand is confirmed."""
        with self._transaction():
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    # -------------------------------------------------------------------------------- opening
    def _check_and_create(self) -> None:
        app_id = self._db.execute("PRAGMA application_id").fetchone()[0]
        version = self._db.execute("PRAGMA user_version").fetchone()[0]
        tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id != APPLICATION_ID and (tables or version):
            self._close_quietly()
            raise ForeignDatabase(
                self.path, f"{self.path} is not a Canasta Companion score sheet (another program's database)."
            )
        if version > SCHEMA_VERSION:
            self._close_quietly()
            raise NewerDatabase(
                self.path, f"{self.path} was written by a newer Canasta Companion; update the app to open it."
            )
        problems = self._db.execute("PRAGMA quick_check").fetchone()[0]
        if problems != "ok":
            self._close_quietly()
            raise DamagedDatabase(self.path, f"The score-sheet file {self.path} is damaged ({problems}).")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        if version < SCHEMA_VERSION:
            with self._transaction():
                if version == 0:
                    self._run(SCHEMA)
                    self._db.execute(f"PRAGMA application_id={APPLICATION_ID}")
                    version = 1
                for step in range(version + 1, SCHEMA_VERSION + 1):
                    self._run(MIGRATIONS[step])
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")

    def _run(self, script: str) -> None:
        for statement in script.split(";"):
            if statement.strip():
                self._db.execute(statement)

    def _close_quietly(self) -> None:
        try:
            self._db.close()
        except Exception:  # the connection may never have opened
            pass

    def close(self) -> None:
        self._db.close()

    # ---------------------------------------------------------------------------- transactions
    class _Transaction:
        def __init__(self, db: sqlite3.Connection):
            self.db = db

        def __enter__(self):
            self.db.execute("BEGIN IMMEDIATE")

        def __exit__(self, kind, error, trace):
            if kind is None:
                self.db.execute("COMMIT")
            elif self.db.in_transaction:  # SQLite rolls back itself on some errors (a full disk's)
                self.db.execute("ROLLBACK")

    def _transaction(self) -> Store._Transaction:
        return Store._Transaction(self._db)

    class _Reading(_Transaction):
        def __enter__(self):
            self.db.execute("BEGIN")  # deferred: a read lock only

    def _reading(self) -> Store._Reading:
        """A read transaction: what it reads is one state of the file."""
        return Store._Reading(self._db)

    # ----------------------------------------------------------------------------------- games
    def new_game(self, variant: str, table_rules: dict[str, Any], team_names: dict[str, str]) -> int:
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO games (variant, table_rules, team_a, team_b, created) VALUES (?, ?, ?, ?, ?)",
                (variant, json.dumps(table_rules), team_names["A"], team_names["B"], _now()),
            )
        return cursor.lastrowid

    def game(self, game_id: int) -> GameRecord:
        # One read transaction: the version read is the one the hands read were at.
        with self._reading():
            row = self._db.execute(
                "SELECT id, variant, table_rules, team_a, team_b, created, finished, version FROM games WHERE id = ?",
                (game_id,)).fetchone()
            if row is None:
                raise KeyError(f"there is no game {game_id} in {self.path}")
            texts = [text for (text,) in self._db.execute(
                "SELECT hand FROM hands WHERE game_id = ? ORDER BY position", (game_id,))]
        try:
            hands = [json.loads(text) for text in texts]
            rules = json.loads(row[2])
        except (TypeError, ValueError) as error:
            raise DamagedGame(self.path, f"game {game_id} can't be read back ({error})") from None
        return GameRecord(row[0], row[1], rules, {"A": row[3], "B": row[4]}, row[5], row[6], hands, row[7])

    def games(self) -> list[GameSummary]:
        """Every game, newest first."""
        rows = self._db.execute(
            "SELECT g.id, g.variant, g.team_a, g.team_b, g.created, g.finished, count(h.id) "
            "FROM games g LEFT JOIN hands h ON h.game_id = g.id GROUP BY g.id ORDER BY g.id DESC"
        )
        return [GameSummary(r[0], r[1], {"A": r[2], "B": r[3]}, r[4], r[5], r[6]) for r in rows]

    # Each change to a game names the version it was made from (``version``, as read with the game
    # or returned by the last change) and returns the game's new one; :class:`GameChanged` when the
    # game is at another version (another program changed it), and nothing is written.
    def update_game(self, game_id: int, version: int, *, variant: str, table_rules: dict[str, Any],
                    team_names: dict[str, str]) -> int:
        with self._transaction():
            version = self._next_version(game_id, version)
            self._db.execute(
                "UPDATE games SET variant = ?, table_rules = ?, team_a = ?, team_b = ? WHERE id = ?",
                (variant, json.dumps(table_rules), team_names["A"], team_names["B"], game_id),
            )
        return version

    # ----------------------------------------------------------------------------------- hands
    # Each change also records whether the game is over, in the same transaction, and may set the
    # hand in progress (``None`` clears it): a hand scored from the table leaves it in that commit.
    def insert_hand(self, game_id: int, version: int, position: int, hand: dict[str, Any], game_over: bool,
                    hand_in_progress: Any = UNCHANGED) -> int:
        with self._transaction():
            version = self._next_version(game_id, version)
            self._db.execute(
                "UPDATE hands SET position = position + 1 WHERE game_id = ? AND position >= ?", (game_id, position)
            )
            self._db.execute(
                "INSERT INTO hands (game_id, position, hand, confirmed) VALUES (?, ?, ?, ?)",
                (game_id, position, json.dumps(hand), _now()),
            )
            self._set_finished(game_id, game_over)
            self._put_hand_in_progress(game_id, hand_in_progress)
        return version

    def replace_hand(self, game_id: int, version: int, position: int, hand: dict[str, Any], game_over: bool) -> int:
        with self._transaction():
            version = self._next_version(game_id, version)
            self._db.execute(
                "UPDATE hands SET hand = ?, confirmed = ? WHERE game_id = ? AND position = ?",
                (json.dumps(hand), _now(), game_id, position),
            )
            self._set_finished(game_id, game_over)
        return version

    def delete_hand(self, game_id: int, version: int, position: int, game_over: bool,
                    hand_in_progress: Any = UNCHANGED) -> int:
        with self._transaction():
            version = self._next_version(game_id, version)
            self._db.execute("DELETE FROM hands WHERE game_id = ? AND position = ?", (game_id, position))
            self._db.execute(
                "UPDATE hands SET position = position - 1 WHERE game_id = ? AND position > ?", (game_id, position)
            )
            self._set_finished(game_id, game_over)
            self._put_hand_in_progress(game_id, hand_in_progress)
        return version

    def _next_version(self, game_id: int, version: int) -> int:
        """Count the game's version up from ``version`` (inside the change's transaction), or raise
        :class:`GameChanged`, which rolls the transaction back."""
        counted = self._db.execute("UPDATE games SET version = version + 1 WHERE id = ? AND version = ?",
                                   (game_id, version)).rowcount
        if not counted:
            raise GameChanged(self.path, "the score sheet was changed in another window since this one read it")
        return version + 1

    def _set_finished(self, game_id: int, game_over: bool) -> None:
        self._db.execute(
            "UPDATE games SET finished = CASE WHEN ? THEN coalesce(finished, ?) END WHERE id = ?",
            (game_over, _now(), game_id),
        )

    # ------------------------------------------------------------------------ the hand in progress
    def hand_in_progress(self, game_id: int) -> dict[str, Any] | None:
        """The hand on the table of ``game_id`` when it was last saved, or ``None`` (a new hand, or
        the hand saved belongs to another game). Raises :class:`DamagedHandInProgress`."""
        row = self._db.execute("SELECT hand FROM hand_in_progress WHERE game_id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        try:
            hand = json.loads(row[0])
        except (TypeError, ValueError) as error:
            raise DamagedHandInProgress(self.path, f"the saved hand is not readable: {error}") from None
        if not isinstance(hand, dict):
            raise DamagedHandInProgress(self.path, f"the saved hand is a {type(hand).__name__}, not a hand")
        return hand

    def keep_unreadable_hand_in_progress(self) -> Path | None:
        """Copy the saved hand in progress, as it is on disk, to a file beside the database (its
        name returned; ``None`` when there is none), before a new hand replaces it: what can't be
        read now may be mended by hand, so it is never only deleted."""
        row = self._db.execute("SELECT game_id, hand FROM hand_in_progress").fetchone()
        if row is None:
            return None
        kept = self.path.with_name(f"{self.path.name}.hand-in-progress-{datetime.now():%Y%m%d-%H%M%S}.txt")
        kept.write_text(f"game {row[0]}\n{row[1]}", encoding="utf-8", errors="replace")
        return kept

    def save_hand_in_progress(self, game_id: int, hand: dict[str, Any] | None) -> None:
        """Keep the hand on the table of ``game_id`` (``None``: no hand under way). It replaces the
        one kept before, of whichever game: only the game being played has a hand on the table."""
        with self._transaction():
            self._put_hand_in_progress(game_id, hand)

    def _put_hand_in_progress(self, game_id: int, hand: Any) -> None:
        if hand is UNCHANGED:
            return
        self._db.execute("DELETE FROM hand_in_progress")
        if hand is not None:
            self._db.execute("INSERT INTO hand_in_progress (game_id, hand, saved) VALUES (?, ?, ?)",
                             (game_id, json.dumps(hand), _now()))

    # -------------------------------------------------------------------------------- settings
    def setting(self, key: str, default: Any = None) -> Any:
        """A setting's value; ``default`` when it was never set or can't be read back (a setting is
        the app's, not the players' work: its default is always safe)."""
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        try:
            return default if row is None else json.loads(row[0])
        except (TypeError, ValueError):
            return default

    def set_settings(self, values: dict[str, Any]) -> None:
        with self._transaction():
            self._db.executemany(
                "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [(key, json.dumps(value)) for key, value in values.items()],
            )

    # ---------------------------------------------------------------------------- table set-ups
    # The team areas are drawn on a video's picture, in its pixels: each camera (and each video file)
    # keeps its own, so switching source never puts one table's areas on another's picture.
    def table_setup(self, source: str) -> dict[str, Any] | None:
        """The set-up saved for a video source (JSON, as ``TableSetup.to_json()``), or ``None``."""
        row = self._db.execute("SELECT setup FROM table_setups WHERE source = ?", (source,)).fetchone()
        try:
            return None if row is None else json.loads(row[0])
        except (TypeError, ValueError) as error:
            raise DamagedSetup(self.path, f"the team areas kept for {source} can't be read back ({error})") from None

    def save_table_setup(self, source: str, setup: dict[str, Any] | None) -> None:
        """Keep a source's set-up; ``None`` forgets it (the reader then tells the teams' sides apart by
        which way the cards face, :mod:`vision.reader.facing`)."""
        with self._transaction():
            if setup is None:
                self._db.execute("DELETE FROM table_setups WHERE source = ?", (source,))
                return
            self._db.execute(
                "INSERT INTO table_setups (source, setup, saved) VALUES (?, ?, ?) "
                "ON CONFLICT(source) DO UPDATE SET setup = excluded.setup, saved = excluded.saved",
                (source, json.dumps(setup), _now()),
            )

    # ---------------------------------------------------------------------------- taught cards
    def add_taught_cards(self, cards: list[tuple[str, bytes]]) -> int:
        """Keep cards players named on one picture, as (code, PNG crop), in one transaction, under a
        new picture number; the count kept in all."""
        with self._transaction():
            picture = self._db.execute("SELECT coalesce(max(picture), 0) + 1 FROM taught_cards").fetchone()[0]
            now = _now()
            self._db.executemany("INSERT INTO taught_cards (code, crop, picture, taught) VALUES (?, ?, ?, ?)",
                                 [(code, crop, picture, now) for code, crop in cards])
        return self.taught_card_count()

    def taught_cards(self) -> list[tuple[str, bytes, int]]:
        """Every taught card as (code, PNG crop, picture number), in the order taught."""
        return [(code, crop if isinstance(crop, bytes) else str(crop).encode(), picture) for code, crop, picture
                in self._db.execute("SELECT code, crop, picture FROM taught_cards ORDER BY id")]

    def taught_card_count(self) -> int:
        return self._db.execute("SELECT count(*) FROM taught_cards").fetchone()[0]

    def forget_taught_cards(self) -> None:
        with self._transaction():
            self._db.execute("DELETE FROM taught_cards")
