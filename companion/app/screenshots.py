"""``python -m companion.app.screenshots docs/``: pictures of the main window, the end-of-hand dialog
and the score sheet for the README, from an example game in a temporary database.

The hand in progress is entered as table events (what the card reader will report); the video area
shows what players see today while the demo video and the reader are still missing.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

from companion import CardsAdded, MeldStarted, Opened, ThreesLaidOut, TurnCardDrawn, parse_cards  # noqa: E402

from .draft import HandDraft  # noqa: E402
from .end_of_hand import EndOfHandDialog  # noqa: E402
from .settings import AppSettings  # noqa: E402
from .store import Store  # noqa: E402

KINGS = "KH KS KD KC KH KS KD"
EARLIER_HANDS = [
    {"went_out": "A", "teams": {"A": {"melds": [KINGS.split(), ["8H", "8S", "8D", "8C", "2D"]], "threes": ["3H"], "hands": [[], ["5C"]]},
                                "B": {"melds": [["QH", "QS", "QD"]], "hands": [["7C", "AS"], ["JK"]]}}},
    {"went_out": "B", "teams": {"A": {"melds": [["9H", "9S", "9D", "JK"]], "hands": [["4D"], ["KC", "KC"]]},
                                "B": {"melds": [["JH", "JS", "JD", "JC", "JH", "JS", "JD"], ["10H", "10S", "10D", "10C", "10H", "10S", "2C"]], "hands": [[], []]}}},
]
TABLE_EVENTS = [  # the hand in progress, as the reader would report it
    Opened("A", (parse_cards("AH AS AD"), parse_cards("KH KS KD KC 2H JK")), stock_left=70),
    ThreesLaidOut("A", parse_cards("3D")),
    Opened("B", (parse_cards("QH QS QD QC QH QS QD"), parse_cards("AC AH AS")), stock_left=60),
    MeldStarted("B", parse_cards("7H 7S 7D")),
    TurnCardDrawn(),
    CardsAdded("A", 1, parse_cards("KH")),
    MeldStarted("B", parse_cards("6H 6S 2C")),  # a wild card on a meld of two naturals: shown as not allowed
]


def take(out: Path) -> list[Path]:
    from .main_window import MainWindow

    store = Store(Path(tempfile.mkdtemp()) / "example.sqlite3")
    AppSettings(team_names={"A": "Ann & Bob", "B": "Carol & Dev"}).save(store)
    window = MainWindow(store, start_video=False)
    window.start_source("demo")
    for hand in EARLIER_HANDS:
        window.sheet_view.add_hand(hand)
    for event in TABLE_EVENTS:
        window.apply_event(event)
    window.resize(1360, 860)
    window.show()
    shots = [out / "main-window.png", out / "end-of-hand.png", out / "score-sheet.png"]
    QApplication.processEvents()
    window.grab().save(str(shots[0]))

    draft = HandDraft.from_state(window.state)
    draft.went_out = "B"
    draft.teams["A"]["hands"] = [["5C", "9D", "JK"], ["AC"]]
    dialog = EndOfHandDialog(window.game, draft, len(window.game.hands), window)
    dialog.show()
    QApplication.processEvents()
    dialog.grab().save(str(shots[1]))
    dialog.close()

    window.tabs.setCurrentWidget(window.sheet_view)
    QApplication.processEvents()
    window.grab().save(str(shots[2]))
    window.close()
    return shots


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs")
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841 (keeps Qt alive)
    for path in take(out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
