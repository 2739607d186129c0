"""``python -m companion.app.screenshots docs/``: pictures of the main window, the team areas being
set up, the end-of-hand dialog, the score sheet and the reader being taught the table's cards for
the README, from an example game in a temporary database.

The main window shows the bundled demo hand part-way through, its side panel driven by the demo's
recorded table events (``datasets/demo/events.json``: what the card reader reports once it is
trained), so the picture and the panel tell the same story.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication  # noqa: E402

from .deck import TeachDialog  # noqa: E402
from .draft import HandDraft  # noqa: E402
from .end_of_hand import EndOfHandDialog  # noqa: E402
from .settings import DEMO, AppSettings  # noqa: E402
from .store import Store  # noqa: E402

KINGS = "KH KS KD KC KH KS KD"
EARLIER_HANDS = [
    {
        "went_out": "A",
        "teams": {
            "A": {"melds": [KINGS.split(), ["8H", "8S", "8D", "8C", "2D"]], "threes": ["3H"], "hands": [[], ["5C"]]},
            "B": {"melds": [["QH", "QS", "QD"]], "hands": [["7C", "AS"], ["JK"]]},
        },
    },
    {
        "went_out": "B",
        "teams": {
            "A": {"melds": [["9H", "9S", "9D", "JK"]], "hands": [["4D"], ["KC", "KC"]]},
            "B": {
                "melds": [["JH", "JS", "JD", "JC", "JH", "JS", "JD"], ["10H", "10S", "10D", "10C", "10H", "10S", "2C"]],
                "hands": [[], []],
            },
        },
    },
]
#: The demo's events shown in the main window: up to its second canasta, before anyone goes out.
DEMO_EVENTS_SHOWN = 14


def play_demo_until(window, events_shown: int) -> None:
    """Apply the demo hand's first events to the window and show the video frame that follows them."""
    from vision.synth.video import FRAMES_PER_STILL, STILLS_PER_EVENT, as_hand_event

    from .main_window import DEMO_VIDEO
    from .video import to_qimage

    events = json.loads((DEMO_VIDEO.parent / "events.json").read_text())["events"][:events_shown]
    for event in events:
        hand_event = as_hand_event(event)
        if hand_event is not None:
            window.apply_event(hand_event)
    frame = demo_frame(events[-1]["frame"] + STILLS_PER_EVENT * FRAMES_PER_STILL - 1)
    if frame is not None:
        window.video.show_frame(to_qimage(frame))


def demo_frame(number: int):
    """A frame of the demo video (BGR; ``-1``: the last), or ``None`` if it can't be read."""
    import cv2

    from .main_window import DEMO_VIDEO

    video = cv2.VideoCapture(str(DEMO_VIDEO))
    video.set(cv2.CAP_PROP_POS_FRAMES, number if number >= 0 else video.get(cv2.CAP_PROP_FRAME_COUNT) - 1)
    ok, frame = video.read()
    video.release()
    return frame if ok else None


def take(out: Path) -> list[Path]:
    from .main_window import MainWindow

    store = Store(Path(tempfile.mkdtemp()) / "example.sqlite3")
    AppSettings(team_names={"A": "Ann & Bob", "B": "Carol & Dev"}).save(store)
    window = MainWindow(store, start_video=False)
    for hand in EARLIER_HANDS:
        window.sheet_view.add_hand(hand)
    window.resize(1360, 860)
    window.show()
    QApplication.processEvents()  # lay the window out so the frame is scaled to the video area
    window.playing = DEMO
    window.use_table_setup(window._saved_setup(DEMO))  # the demo's own team areas, as the app plays it
    play_demo_until(window, DEMO_EVENTS_SHOWN)
    shots = [out / "main-window.png", out / "table-areas.png", out / "end-of-hand.png", out / "score-sheet.png",
             out / "teach-cards.png"]
    QApplication.processEvents()
    window.grab().save(str(shots[0]))

    window.set_up_action.trigger()  # the team areas as first offered, ready to drag
    QApplication.processEvents()
    window.grab().save(str(shots[1]))
    window.cancel_set_up()

    draft = HandDraft.from_state(window.state)
    draft.went_out = "B"
    draft.teams["A"]["hands"] = [["5C", "7D", "JK"], ["AC"]]
    dialog = EndOfHandDialog(window.game, draft, len(window.game.hands), window)
    dialog.show()
    QApplication.processEvents()
    dialog.grab().save(str(shots[2]))
    dialog.close()

    window.tabs.setCurrentWidget(window.sheet_view)
    QApplication.processEvents()
    window.grab().save(str(shots[3]))

    frame = demo_frame(-1)  # the demo's fullest table, as the reader finds its corners
    teach = TeachDialog(frame, window.teacher.finds(frame), 0, window)
    teach.show()
    QApplication.processEvents()
    teach.grab().save(str(shots[4]))
    teach.close()
    window.close()
    return shots


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m companion.app.screenshots",
                                     description="Remake the README's screenshots of the app.")
    parser.add_argument("out", nargs="?", type=Path, default=Path("docs"), help="folder for the PNGs (default: docs)")
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv[:1])  # noqa: F841 (keeps Qt alive)
    for path in take(out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
