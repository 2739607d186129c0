"""Kill the app's saving code at random moments: every hand it reported confirmed must be on disk, and
the hand in progress saved with it must be readable and never one already on the sheet."""

import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from companion.app.game import Game
from companion.app.store import Store

# Saves hands in a loop, like players playing and confirming hands: the hand in progress is saved at
# each play, and scoring clears it; prints each hand once its commit returned.
SAVER = """
import sys
from companion import TableRules
from companion.app.game import Game
from companion.app.store import Store

store = Store(sys.argv[1])
games = store.games()
game = Game.load(store, games[0].id) if games else Game.start(store, "modern", TableRules(), {"A": "A", "B": "B"})
n = len(game.hands)
while True:
    for plays in range(1, 4):
        game.save_hand_in_progress({"hand": n, "events": [{"event": "TurnCardDrawn"}] * plays})
    left = ["4C", "5C", "6C", "7C", "8C", "9C"][n % 6]
    game.add({"went_out": "A", "teams": {"A": {"melds": [["KH","KS","KD","KC","KH","KS","KD"]]},
                                          "B": {"hands": [[left], [str(n % 7 + 4) + "D"]]}}}, hand_in_progress=None)
    if n % 5 == 4:  # edits and deletes too: a deleted hand is gone, the rest stay in order
        game.replace(n - 1, game.hands[n - 1])
    print(n, flush=True)
    n += 1
"""


def expected_hand(n):
    left = ["4C", "5C", "6C", "7C", "8C", "9C"][n % 6]
    return {"went_out": "A", "teams": {"A": {"melds": [["KH", "KS", "KD", "KC", "KH", "KS", "KD"]]},
                                       "B": {"hands": [[left], [str(n % 7 + 4) + "D"]]}}}


def test_killing_the_app_during_saves_loses_no_confirmed_hand(tmp_path):
    path = tmp_path / "sheet.sqlite3"
    rng = random.Random(6)
    root = Path(__file__).resolve().parents[2]
    confirmed = -1
    for _ in range(6):
        saver = subprocess.Popen([sys.executable, "-c", SAVER, str(path)], cwd=root, stdout=subprocess.PIPE, text=True)
        first = saver.stdout.readline()  # wait until it is saving
        assert first, "the saver did not start"
        time.sleep(rng.uniform(0.0, 0.4))
        saver.send_signal(signal.SIGKILL)
        out = first + saver.stdout.read()
        saver.wait()
        confirmed = max([confirmed, *(int(line) for line in out.split())])

        store = Store(path)  # reopens without complaint
        game = Game.load(store, store.games()[0].id)
        hands, on_table = game.hands, game.hand_in_progress()
        store.close()
        # Every reported hand is there, intact; at most one more was committed but not yet reported.
        assert confirmed + 1 <= len(hands) <= confirmed + 2
        assert hands == [expected_hand(n) for n in range(len(hands))]
        # The hand on the table is the next one, whole, or none yet: a scored hand is never resumed.
        assert on_table is None or (on_table["hand"] == len(hands) and 1 <= len(on_table["events"]) <= 3)
    assert confirmed > 10
