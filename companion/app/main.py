"""``canasta-companion``: open the score sheets and show the main window."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from PySide6.QtWidgets import QApplication, QMessageBox

from .store import Store, StoreError, move_aside


def open_store(path: str | None, start_fresh: Callable[[StoreError], bool],
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
    box = QMessageBox(QMessageBox.Warning, "Canasta Companion — the score sheets can't be opened",
                      f"{error}\n\nYou can start a new, empty score-sheet file. The old file is kept "
                      f"beside it, renamed, so nothing is deleted. Or quit and ask for help with the file.")
    fresh = box.addButton("Start a new score-sheet file", QMessageBox.AcceptRole)
    box.addButton("Quit", QMessageBox.RejectRole)
    box.exec()
    return box.clickedButton() is fresh


def tell_cannot_open(error: StoreError) -> None:
    QMessageBox.critical(None, "Canasta Companion — the score sheets can't be opened", str(error))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="canasta-companion", description="Reads a canasta table and keeps the score sheet.")
    parser.add_argument("--database", help="the score-sheet file to use (default: in your data folder)")
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Canasta Companion")
    store = open_store(args.database, ask_start_fresh, tell_cannot_open)
    if store is None:
        return 1
    from .main_window import MainWindow  # after QApplication: widgets need it
    window = MainWindow(store)
    window.show()
    code = app.exec()
    store.close()
    return code
