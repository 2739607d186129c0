"""``canasta-companion``: open the score sheets and show the main window."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QLoggingCategory
from PySide6.QtWidgets import QApplication, QFileDialog, QMessageBox

from vision.reader.frame_sources import FrameSourceError, is_utf8_name, shown_name, video_name

from .cameras import list_cameras
from .sheet_lock import HeldElsewhere, SheetLock, claim_sheet
from .store import DATA_DIR_VARIABLE, Store, StoreError, default_path, move_aside

TITLE = "Canasta Companion"


def open_store(path: str | Path | None, start_fresh: Callable[[StoreError], bool],
               tell: Callable[[StoreError], None] = lambda error: None) -> Store | None:
    """The store, or ``None`` when the players chose to quit or can't go on. A file the app can't
    read is never reset: ``start_fresh`` asks whether to put it aside (renamed, kept) and start a
    new one. A sound file the app can't write now (read-only, in use) is left as it is: ``tell``
    says why, and the app quits."""
    try:
        return Store(path)
    except StoreError as error:
        if not error.can_start_fresh:
            tell(error)
            return None
        if not start_fresh(error):
            return None
        try:
            move_aside(error.path)
            return Store(path)
        except (OSError, StoreError) as again:
            tell(again if isinstance(again, StoreError) else StoreError(
                error.path, f"{error.path} could not be put aside to start a new file ({again.strerror}); "
                            "it is left as it was."))
            return None


def ask_start_fresh(error: StoreError) -> bool:
    box = QMessageBox(QMessageBox.Warning, f"{TITLE} — the score sheets can't be opened",
                      f"{error}\n\nYou can start a new, empty score-sheet file. The old file is kept "
                      f"beside it, renamed, so nothing is deleted. Or quit and ask for help with the file.")
    fresh = box.addButton("Start a new score-sheet file", QMessageBox.AcceptRole)
    box.addButton("Quit", QMessageBox.RejectRole)
    box.exec()
    return box.clickedButton() is fresh


def tell_cannot_open(error: StoreError) -> None:
    QMessageBox.critical(None, f"{TITLE} — the score sheets can't be opened", str(error))


def ask_when_held(lock: SheetLock) -> HeldElsewhere:
    """The score sheet is open in another window: bring that one forward (when it runs on this
    computer), open another file here, or quit."""
    holder = lock.holder()
    process = f" (process {holder[0]})" if holder else ""
    box = QMessageBox(QMessageBox.Information, f"{TITLE} — the score sheet is open in another window",
                      f"The score sheet {lock.sheet} is open in another {TITLE} window{process}. One window at "
                      "a time keeps a score sheet, so that no hand is lost.")
    choices = {}
    if holder is None or holder[1]:
        choices[box.addButton("Show that window", QMessageBox.AcceptRole)] = HeldElsewhere.SHOW_THAT_WINDOW
    choices[box.addButton("Open another score-sheet file…", QMessageBox.ActionRole)] = HeldElsewhere.OPEN_ANOTHER_FILE
    box.addButton("Quit", QMessageBox.RejectRole)
    box.exec()
    return choices.get(box.clickedButton(), HeldElsewhere.QUIT)


def pick_another_file(sheet: Path) -> Path | None:
    """A score-sheet file to open (or start: a new name makes a new file)."""
    chosen, _ = QFileDialog.getSaveFileName(None, f"{TITLE} — open or start a score-sheet file", str(sheet.parent),
                                            "Score sheets (*.sqlite3);;All files (*)",
                                            options=QFileDialog.DontConfirmOverwrite)
    return Path(chosen) if chosen else None


def tell(message: str) -> None:
    QMessageBox.information(None, TITLE, message)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="canasta-companion", description="Reads a canasta table and keeps the score sheet."
    )
    parser.add_argument("--database", metavar="FILE", help="the score-sheet file to use (default: in your data folder)")
    video = parser.add_mutually_exclusive_group()
    video.add_argument("--video", metavar="FILE", help="play this video file (default: what played last)")
    video.add_argument("--camera", metavar="N", type=int,
                       help="play camera N of the toolbar's Video list, counted from 1 (with two cameras: 1 or 2)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    video = Path(args.video).resolve() if args.video is not None else None
    if video is not None and not video.is_file():
        return refuse(f"--video {shown_name(args.video)}: no such file")
    if video is not None:
        try:
            video_name(video)
        except FrameSourceError as error:
            return refuse(f"--video {error}")
    # Qt's lock on the score sheet names its file as text: a name that is not UTF-8 would lose its
    # odd bytes there, and two sheets would share one lock.
    for option, name in (("--database", args.database), (DATA_DIR_VARIABLE, os.environ.get(DATA_DIR_VARIABLE))):
        if name is not None and not is_utf8_name(name):
            return refuse(f"{option} {shown_name(name)}: the name is not UTF-8 text; rename it or choose another")
    # Qt Multimedia's notes on the libraries it looks for (VA-API, PipeWire) as it lists the cameras
    # say nothing to players; QT_LOGGING_RULES still shows them to whoever asks.
    QLoggingCategory.setFilterRules("qt.multimedia.symbolsresolver=false\nqt.multimedia.ffmpeg.info=false")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName(TITLE)
    camera = None
    if args.camera is not None:
        cameras = list_cameras()
        if not 1 <= args.camera <= len(cameras):
            found = "; ".join(f"{n}: {c.description}" for n, c in enumerate(cameras, start=1)) or "none"
            return refuse(f"--camera {args.camera}: there is no camera {args.camera} (cameras found: {found})")
        camera = cameras[args.camera - 1].id
    lock = claim_sheet(Path(args.database) if args.database else default_path(), ask_when_held, pick_another_file, tell)
    if lock is None:  # left to the window that has the sheet open, or the players quit
        return 0
    store = open_store(lock.sheet, ask_start_fresh, tell_cannot_open)
    if store is None:
        lock.release()
        return 1
    from .main_window import MainWindow  # after QApplication: widgets need it
    window = MainWindow(store, start_video=False)
    lock.come_forward.connect(lambda: show_in_front(window))
    window.play_at_start(video_file=str(video) if video else None, camera=camera)
    window.show()
    code = app.exec()
    store.close()
    lock.release()
    return code


def refuse(message: str) -> int:
    """A command-line option that can't be used: one line on stderr, exit status 2."""
    print(f"canasta-companion: {message}", file=sys.stderr)
    return 2


def show_in_front(window) -> None:
    """Bring the window in front of the others (asked by a second copy of the app)."""
    if window.isMinimized():
        window.showNormal()
    window.raise_()
    window.activateWindow()
    QApplication.alert(window)
