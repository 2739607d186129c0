import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from companion import HandFileError, TableRules
from companion.app.game import Game
from companion.app.settings import AppSettings
from companion.app.store import (
    SCHEMA_VERSION,
    DamagedDatabase,
    DamagedGame,
    DamagedHandInProgress,
    DamagedSetup,
    ForeignDatabase,
    GameChanged,
    NewerDatabase,
    Store,
    UnusableStore,
    default_path,
    move_aside,
    unusable,
)
from tests.app.hands import hand_out

ROOT = Path(__file__).resolve().parents[2]


def new_game(store):
    return Game.start(store, "modern", TableRules(), {"A": "Ann & Bob", "B": "Cy & Di"})


def test_default_path_follows_the_environment(tmp_path):
    assert default_path() == tmp_path / "data" / "scoresheets.sqlite3"


def test_a_reopened_database_resumes_the_game(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    game = new_game(store)
    game.add(hand_out("A"))
    game.add(hand_out("B", left=("KC", "JK")))
    store.close()

    again = Store(tmp_path / "s.sqlite3")
    resumed = Game.load(again, game.id)
    assert resumed.hands == [hand_out("A"), hand_out("B", left=("KC", "JK"))]
    assert resumed.sheet.totals == game.sheet.totals
    assert resumed.team_names == {"A": "Ann & Bob", "B": "Cy & Di"}
    assert [g.hand_count for g in again.games()] == [2]
    assert sqlite3.connect(tmp_path / "s.sqlite3").execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_edit_and_delete_keep_the_order(store):
    game = new_game(store)
    for left in (("4C",), ("5C",), ("6C",)):
        game.add(hand_out("A", left))
    game.replace(1, hand_out("B"))
    assert game.delete(0) == hand_out("A", ("4C",))
    game.insert(0, hand_out("A", ("7C",)))
    assert Game.load(store, game.id).hands == [hand_out("A", ("7C",)), hand_out("B"), hand_out("A", ("6C",))]


def test_an_invalid_hand_is_refused_and_nothing_is_saved(store):
    game = new_game(store)
    with pytest.raises(HandFileError, match="teams.A.melds"):
        game.add({"teams": {"A": {"melds": [["KH", "QH", "JH"]]}, "B": {}}})
    assert game.hands == [] and store.game(game.id).hands == []


def test_the_game_is_marked_finished_at_the_target(store):
    game = new_game(store)
    for _ in range(13):  # 670 a hand: 8,710 after the 13th, past the 8,500 target
        game.add(hand_out("A"))
    assert game.sheet.game_over and store.games()[0].finished
    game.delete(12)
    assert store.games()[0].finished is None


def test_settings_round_trip(store):
    store.set_settings({"camera": "/dev/video0", "threshold": 0.4})
    assert store.setting("camera") == "/dev/video0" and store.setting("threshold") == 0.4
    assert store.setting("missing", "default") == "default"


def test_a_threshold_left_at_its_default_follows_a_new_default(store):
    from companion.app.settings import DEFAULT_THRESHOLD, FIRST_DEFAULT_THRESHOLD, AppSettings

    assert DEFAULT_THRESHOLD != FIRST_DEFAULT_THRESHOLD
    store.set_settings({"threshold": FIRST_DEFAULT_THRESHOLD, "source": "demo"})  # as the first versions saved it
    assert AppSettings.load(store).threshold == DEFAULT_THRESHOLD
    chosen = AppSettings(threshold=0.35)
    chosen.save(store)
    assert AppSettings.load(store).threshold == 0.35  # the players' own choice stays
    AppSettings(threshold=FIRST_DEFAULT_THRESHOLD).save(store)  # chosen on purpose since the default moved
    assert AppSettings.load(store).threshold == FIRST_DEFAULT_THRESHOLD
    AppSettings().save(store)
    assert AppSettings.load(store).threshold == DEFAULT_THRESHOLD


def test_a_damaged_file_is_reported_not_reset(tmp_path):
    path = tmp_path / "s.sqlite3"
    path.write_bytes(b"these are not the scores you are looking for" * 100)
    with pytest.raises(DamagedDatabase, match="damaged"):
        Store(path)
    assert path.read_bytes().startswith(b"these are not")  # untouched


def test_a_foreign_database_is_reported(tmp_path):
    path = tmp_path / "s.sqlite3"
    other = sqlite3.connect(path)
    other.execute("CREATE TABLE recipes (name TEXT)")
    other.commit()
    other.close()
    with pytest.raises(ForeignDatabase, match="not a Canasta Companion score sheet"):
        Store(path)


def test_a_newer_database_is_reported(tmp_path):
    path = tmp_path / "s.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()
    with pytest.raises(NewerDatabase, match="newer"):
        Store(path)


def test_move_aside_keeps_the_old_file_and_allows_a_fresh_start(tmp_path):
    path = tmp_path / "s.sqlite3"
    path.write_bytes(b"garbage" * 1000)
    with pytest.raises(DamagedDatabase) as error:
        Store(path)
    aside = move_aside(error.value.path)
    assert aside.read_bytes() == b"garbage" * 1000 and not path.exists()
    assert Store(path).games() == []


AREAS = {
    "areas": {"A": [[10, 300], [630, 300], [630, 470], [10, 470]], "B": [[10, 10], [630, 10], [630, 180], [10, 180]]}
}


def test_table_setups_are_kept_per_video_source(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    assert store.table_setup("/dev/video0") is None
    store.save_table_setup("/dev/video0", AREAS)
    store.close()
    again = Store(tmp_path / "s.sqlite3")
    assert again.table_setup("/dev/video0") == AREAS and again.table_setup("demo") is None
    again.save_table_setup("/dev/video0", None)  # back to the reader finding the middle itself
    assert again.table_setup("/dev/video0") is None


#: The tables each older version did not have yet (and none had the games' version column).
NOT_YET = {1: ("table_setups", "hand_in_progress", "taught_cards"), 2: ("hand_in_progress", "taught_cards"),
           3: ("taught_cards",), 4: ()}


@pytest.mark.parametrize("version", sorted(NOT_YET))
def test_a_database_from_an_older_version_opens_and_keeps_its_games(tmp_path, version):
    path = tmp_path / "s.sqlite3"
    store = Store(path)
    game = new_game(store)
    game.add(hand_out("A"))
    store.close()
    old = sqlite3.connect(path)  # as that version wrote it
    for table in NOT_YET[version]:
        old.execute(f"DROP TABLE {table}")
    old.execute("ALTER TABLE games DROP COLUMN version")
    old.execute(f"PRAGMA user_version = {version}")
    old.close()

    again = Store(path)
    resumed = Game.load(again, game.id)
    assert resumed.hands == [hand_out("A")]
    resumed.add(hand_out("B"))
    assert Game.load(again, game.id).hands == [hand_out("A"), hand_out("B")]
    again.save_table_setup("demo", AREAS)
    assert again.table_setup("demo") == AREAS
    again.save_hand_in_progress(game.id, {"events": []})
    assert again.hand_in_progress(game.id) == {"events": []}
    assert again.add_taught_cards([("KH", b"png")]) == 1
    again.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 5


def test_taught_cards_are_kept_in_order_by_picture_across_a_restart_until_forgotten(tmp_path):
    path = tmp_path / "s.sqlite3"
    store = Store(path)
    assert store.taught_cards() == [] and store.taught_card_count() == 0
    assert store.add_taught_cards([("KH", b"\x89PNG one"), ("none", b"\x89PNG two")]) == 2
    assert store.add_taught_cards([("JK", b"\x89PNG three")]) == 3
    store.close()
    store = Store(path)
    assert store.taught_cards() == [("KH", b"\x89PNG one", 1), ("none", b"\x89PNG two", 1), ("JK", b"\x89PNG three", 2)]
    store.forget_taught_cards()
    assert store.taught_card_count() == 0
    store.close()


def test_the_hand_in_progress_is_kept_for_its_game_and_cleared_by_scoring_it(tmp_path):
    path = tmp_path / "s.sqlite3"
    store = Store(path)
    game, other = new_game(store), new_game(store)
    table = {"events": [{"event": "TurnCardDrawn"}]}
    game.save_hand_in_progress(table)
    store.close()
    store = Store(path)
    game = Game.load(store, game.id)
    assert game.hand_in_progress() == table
    assert Game.load(store, other.id).hand_in_progress() is None  # another game's table is not this one's
    game.add(hand_out("A"), hand_in_progress=None)  # scored: the hand leaves the table in the same commit
    assert game.hand_in_progress() is None and len(store.game(game.id).hands) == 1
    game.delete(0, hand_in_progress=table)  # taken back off the sheet: on the table again
    assert game.hand_in_progress() == table and store.game(game.id).hands == []
    game.add(hand_out("B"))  # a hand entered on the sheet only leaves the table as it is
    assert game.hand_in_progress() == table


def test_a_damaged_hand_in_progress_is_reported_and_the_games_are_kept(store):
    game = new_game(store)
    game.add(hand_out("A"))
    store._db.execute(
        "INSERT INTO hand_in_progress (game_id, hand, saved) VALUES (?, ?, ?)", (game.id, "{not json", "now")
    )
    with pytest.raises(DamagedHandInProgress, match="not readable"):
        game.hand_in_progress()
    assert Game.load(store, game.id).hands == [hand_out("A")]


def test_a_file_another_program_is_writing_is_in_use_not_damaged(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite3"
    Store(path).close()
    monkeypatch.setattr(Store, "busy_timeout", 0.2)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another Canasta Companion, mid-write
    with pytest.raises(UnusableStore, match="another program is using it") as error:
        Store(path)
    assert not error.value.can_start_fresh and "Nothing in it was changed" in str(error.value)
    other.execute("ROLLBACK")
    other.close()
    assert Store(path).games() == []


def test_a_read_only_file_is_told_apart_from_a_damaged_one(tmp_path):
    path = tmp_path / "s.sqlite3"
    Store(path).close()
    read_only = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    with pytest.raises(sqlite3.OperationalError) as error:
        read_only.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    read_only.close()
    told = unusable(path, error.value)
    assert isinstance(told, UnusableStore) and "read-only" in str(told) and "--database" in str(told)
    with pytest.raises(sqlite3.DatabaseError) as garbage:
        sqlite3.connect(":memory:").execute("SELECT * FROM no_such_table")
    assert unusable(path, garbage.value) is None  # not a reason to leave a file be: judged damaged


def test_a_data_folder_that_cannot_be_made_is_named(tmp_path):
    blocking = tmp_path / "a file, not a folder"
    blocking.write_text("x")
    with pytest.raises(UnusableStore, match="can't be made") as error:
        Store(blocking / "s.sqlite3")
    assert str(blocking) in str(error.value) and blocking.read_text() == "x"


def test_one_game_that_cannot_be_read_leaves_the_others_usable(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    good, bad = new_game(store), new_game(store)
    good.add(hand_out("A"))
    bad.add(hand_out("B"))
    store._db.execute("UPDATE hands SET hand = '[1, 2' WHERE game_id = ?", (bad.id,))
    with pytest.raises(DamagedGame, match=f"game {bad.id} can't be read back"):
        Game.load(store, bad.id)
    store._db.execute("UPDATE hands SET hand = '[1, 2]' WHERE game_id = ?", (bad.id,))  # JSON, not a hand
    with pytest.raises(DamagedGame):
        Game.load(store, bad.id)
    store._db.execute("UPDATE games SET team_a = CAST(x'416e6e20ff' AS TEXT) WHERE id = ?", (good.id,))
    assert Game.load(store, good.id).hands == [hand_out("A")]
    assert {g.id: g.team_names["A"] for g in store.games()}[good.id] == "Ann \ufffd"


def test_settings_that_cannot_be_used_fall_back_to_their_defaults(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    store.set_settings({"variant": "bogus", "table_rules": {"nope": 1}, "team_names": ["A"], "video_file": 12,
                        "threshold": "high", "source": "demo"})
    store._db.execute("UPDATE settings SET value = 'not json' WHERE key = 'source'")
    settings = AppSettings.load(store)
    assert settings == AppSettings()
    store.set_settings({"variant": "classic", "team_names": {"A": "Ann", "B": "Bob"}, "threshold": 0.3})
    assert (AppSettings.load(store).variant, AppSettings.load(store).team_names["B"]) == ("classic", "Bob")


def test_team_areas_that_cannot_be_read_back_say_so(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    store.save_table_setup("demo", AREAS)
    store._db.execute("UPDATE table_setups SET setup = '{' WHERE source = 'demo'")
    with pytest.raises(DamagedSetup, match="team areas kept for demo"):
        store.table_setup("demo")


def test_two_windows_on_one_file_lose_no_confirmed_hand(tmp_path):
    """Two copies of the app on one file (the lock keeps a second one away; this is without it)."""
    path = tmp_path / "s.sqlite3"
    first, second = Store(path), Store(path)
    game_id = new_game(first).id
    g1, g2 = Game.load(first, game_id), Game.load(second, game_id)
    g1.add(hand_out("A", ("4C",)))
    assert g2.add(hand_out("B", ("5C",))) == 1  # after the hand the first window added
    with pytest.raises(GameChanged, match="changed in another window"):
        g1.delete(len(g1.hands) - 1)  # "its" last hand is no longer the sheet's last
    both = [hand_out("A", ("4C",)), hand_out("B", ("5C",))]
    assert g1.hands == both and Game.load(Store(path), game_id).hands == both
    g1.set_team_names({"A": "Al", "B": "Bea"})
    with pytest.raises(GameChanged):
        g2.replace(0, hand_out("B", ("6C",)))  # made from the game as it was before the new names
    assert g2.team_names == {"A": "Al", "B": "Bea"} and Game.load(Store(path), game_id).hands == both
    assert g2.delete(1) == hand_out("B", ("5C",))  # once it has seen the sheet as saved, it may change it
    assert Game.load(Store(path), game_id).hands == [hand_out("A", ("4C",))]


@pytest.mark.parametrize("seed", range(3))
def test_windows_writing_in_turn_change_only_the_sheet_they_saw(tmp_path, seed):
    """Three stores on one file add, correct and delete hands in a random order: every hand added is
    kept, and a correction or a deletion is made only by a window that saw the sheet as it was."""
    path = tmp_path / "s.sqlite3"
    stores = [Store(path) for _ in range(3)]
    game_id = new_game(stores[0]).id
    games = [Game.load(store, game_id) for store in stores]
    truth = Store(path)
    rng = random.Random(seed)
    refused = 0
    hands = iter([hand_out(team, (card,)) for card in ("4C", "5C", "6C", "7C", "8C", "9C", "10C", "QC", "JC", "AC")
                  for team in "AB"])
    for _ in range(40):
        game = rng.choice(games)
        seen = list(game.hands)
        on_file = truth.game(game_id).hands
        action = rng.choice(("add", "add", "delete", "replace")) if seen else "add"
        try:
            if action == "add":
                hand = next(hands, None) or hand_out("A", ("KC",))
                position = game.add(hand)
                assert truth.game(game_id).hands == on_file + [hand] and position == len(on_file)
            elif action == "delete":
                at = rng.randrange(len(seen))
                game.delete(at)
                assert seen == on_file and truth.game(game_id).hands == seen[:at] + seen[at + 1:]
            else:
                at = rng.randrange(len(seen))
                game.replace(at, hand_out("B", ("3S",)))
                assert seen == on_file
        except GameChanged:  # made from an older version of the game (whose hands may read the same)
            refused += 1
            assert action != "add"
            assert truth.game(game_id).hands == on_file and game.hands == on_file  # nothing written; read again
    assert refused


@pytest.fixture
def player_folder():
    """A folder any user may write (``tmp_path`` lies in a folder only its owner may enter)."""
    folder = Path(tempfile.mkdtemp(prefix="canasta-test-"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder)


def as_a_player(code: str, folder: Path) -> str:
    """What ``code`` (Python, with ``folder`` as ``FOLDER``) prints, run as an ordinary user: root
    writes read-only files, so where the tests run as root the code runs as user nobody."""
    program = f"from pathlib import Path\nFOLDER = Path({str(folder)!r})\n{code}"
    command = [sys.executable, "-c", program]
    if os.geteuid() == 0:
        command[:0] = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]  # util-linux's
        probe = subprocess.run([*command[:-1], "import companion.app.store"], capture_output=True, text=True, cwd=ROOT)
        if probe.returncode:
            pytest.skip(f"the tests run as root, and user nobody can't run the project's Python here "
                        f"({(probe.stderr.strip().splitlines() or ['no message'])[-1]})")
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout


READ_ONLY_SHEET = """
import os, sqlite3
from companion.app.store import Store, UnusableStore
path = FOLDER / "s.sqlite3"
Store(path).close()
path.chmod(0o444)
{refuse}
print(sorted(p.name for p in FOLDER.iterdir()))
path.chmod(0o644)
Store(path).close()
print("opened once writable")
"""


def test_a_read_only_sheet_is_refused_and_opens_once_made_writable(player_folder):
    refuse = "try:\n    Store(path)\nexcept UnusableStore as error:\n    print(error)"
    said, files, opened = as_a_player(READ_ONLY_SHEET.format(refuse=refuse), player_folder).splitlines()
    assert "read-only" in said and "Nothing in it was changed" in said
    assert files == "['s.sqlite3']"  # no journal files left beside it
    assert opened == "opened once writable"


def test_journal_files_left_read_only_beside_a_sheet_are_mended(player_folder):
    # What versions before the check left: SQLite opened the file read-only and made its journal files so.
    leave = "reading = sqlite3.connect(path)\nreading.execute('SELECT count(*) FROM games').fetchone()\nreading.close()"
    files, opened = as_a_player(READ_ONLY_SHEET.format(refuse=leave), player_folder).splitlines()
    assert files == "['s.sqlite3', 's.sqlite3-shm', 's.sqlite3-wal']"
    assert opened == "opened once writable"
