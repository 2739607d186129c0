import sqlite3

import pytest
from tests.app.hands import hand_out

from companion import HandFileError, TableRules
from companion.app.game import Game
from companion.app.store import (
    SCHEMA_VERSION, DamagedDatabase, DamagedHandInProgress, ForeignDatabase, NewerDatabase, Store, default_path,
    move_aside,
)


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


AREAS = {"areas": {"A": [[10, 300], [630, 300], [630, 470], [10, 470]], "B": [[10, 10], [630, 10], [630, 180], [10, 180]]}}


def test_table_setups_are_kept_per_video_source(tmp_path):
    store = Store(tmp_path / "s.sqlite3")
    assert store.table_setup("/dev/video0") is None
    store.save_table_setup("/dev/video0", AREAS)
    store.close()
    again = Store(tmp_path / "s.sqlite3")
    assert again.table_setup("/dev/video0") == AREAS and again.table_setup("demo") is None
    again.save_table_setup("/dev/video0", None)  # back to the reader finding the middle itself
    assert again.table_setup("/dev/video0") is None


#: The tables each older version did not have yet.
NOT_YET = {1: ("table_setups", "hand_in_progress", "taught_cards"), 2: ("hand_in_progress", "taught_cards"),
           3: ("taught_cards",)}


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
    old.execute(f"PRAGMA user_version = {version}")
    old.close()

    again = Store(path)
    assert Game.load(again, game.id).hands == [hand_out("A")]
    again.save_table_setup("demo", AREAS)
    assert again.table_setup("demo") == AREAS
    again.save_hand_in_progress(game.id, {"events": []})
    assert again.hand_in_progress(game.id) == {"events": []}
    assert again.add_taught_cards([("KH", b"png")]) == 1
    again.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4


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
    store._db.execute("INSERT INTO hand_in_progress (game_id, hand, saved) VALUES (?, ?, ?)", (game.id, "{not json", "now"))
    with pytest.raises(DamagedHandInProgress, match="not readable"):
        game.hand_in_progress()
    assert Game.load(store, game.id).hands == [hand_out("A")]
