"""The score sheet tab: hands × teams with running totals, edit / delete with undo, export."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QUndoCommand, QUndoStack
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from companion import HandFileError

from .draft import HandDraft
from .end_of_hand import EndOfHandDialog
from .export import write_pdf
from .game import Game
from .sheet_table import sheet_table, write_csv
from .store import UNCHANGED, GameChanged, not_now
from .words import hand_problem

#: What can go wrong while a change is committed: the core refuses the hand, or the disk fails.
COMMIT_ERRORS = (HandFileError, sqlite3.Error, OSError)


def not_written_advice(error: Exception) -> str:
    """What players can do about a write to the score-sheet file that failed (:func:`store.not_now`)."""
    kind = not_now(error)
    if kind == "in use":
        return "Another program is writing to it: try again in a moment"
    if kind == "read-only":
        return "It or its folder is read-only now: make both writable, then try again"
    return "Check that the disk has room and can be written, then try again"


class SheetChange(QUndoCommand):
    """A change already made to the game (pushed only once it is committed), undone and redone
    through the game, so each step is its own transaction."""

    def __init__(self, text: str, redo: Callable[[], None], undo: Callable[[], None], view: SheetView):
        super().__init__(text)
        self._redo, self._undo, self._view = redo, undo, view
        self._first = True

    def redo(self) -> None:
        if self._first:  # QUndoStack.push calls redo; the change is already made
            self._first = False
            return
        self._view.commit(self._redo)

    def undo(self) -> None:
        self._view.commit(self._undo)


class SheetView(QWidget):
    def __init__(self, game: Game, parent: QWidget | None = None):
        super().__init__(parent)
        self.game = game
        self.undo_stack = QUndoStack(self)
        self.undo_stack.indexChanged.connect(self.refresh)
        self.open_dialog = lambda dialog: dialog.exec()  # tests drive the dialog instead

        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.PlainText)
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.doubleClicked.connect(lambda index: self.edit_hand(index.row()))

        buttons = QHBoxLayout()
        for text, slot in (
            ("Edit hand…", lambda: self.edit_hand(self.selected())),
            ("Delete hand", lambda: self.delete_hand(self.selected())),
            ("Export PDF…", lambda: self._export("PDF", "pdf", write_pdf)),
            ("Export CSV…", lambda: self._export("CSV", "csv", write_csv)),
        ):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        self.undo_button = QPushButton("Undo")
        self.undo_button.clicked.connect(self.undo_stack.undo)
        self.redo_button = QPushButton("Redo")
        self.redo_button.clicked.connect(self.undo_stack.redo)
        buttons.insertWidget(2, self.undo_button)
        buttons.insertWidget(3, self.redo_button)
        buttons.addStretch(1)

        layout = QVBoxLayout(self)
        layout.addWidget(self.banner)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self.refresh()

    # --------------------------------------------------------------------------------- showing
    def set_game(self, game: Game) -> None:
        self.game = game
        self.undo_stack.clear()
        self.refresh()

    def refresh(self, _index: int | None = None) -> None:
        table = sheet_table(self.game)
        over = self.game.sheet.game_over
        self.banner.setText(table.banner)
        self.banner.setStyleSheet(
            "font-size: 17px; font-weight: bold; padding: 6px;"
            + (" background: #ffe9a8; border: 1px solid #c9a227;" if over else "")
        )
        self.table.setColumnCount(len(table.header))
        # "Ann & Bob: total" on two lines (the name's own ": " stays on its line)
        self.table.setHorizontalHeaderLabels(["\n".join(h.rsplit(": ", 1)) for h in table.header])
        self.table.setRowCount(len(table.rows))
        for r, (values, late) in enumerate(zip(table.rows, table.after_game_end)):
            for c, value in enumerate(values):
                item = QTableWidgetItem(f"{value:,}")
                item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                if c % 3 == 2:  # running totals stand out
                    item.setFont(self._bold())
                if late:
                    item.setForeground(QColor("#999"))
                    item.setToolTip("played after the game had already ended")
                self.table.setItem(r, c, item)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.Stretch)
        self.undo_button.setEnabled(self.undo_stack.canUndo())
        self.undo_button.setToolTip(self.undo_stack.undoText())
        self.redo_button.setEnabled(self.undo_stack.canRedo())

    def _bold(self):
        font = self.table.font()
        font.setBold(True)
        return font

    def selected(self) -> int | None:
        rows = self.table.selectionModel().selectedRows()
        return rows[0].row() if rows else None

    # ---------------------------------------------------------------------------- player intent
    def add_hand(self, hand: dict[str, Any], from_table: dict[str, Any] | None = None,
                 table_shows: Callable[[dict[str, Any] | None], None] | None = None) -> bool:
        """Add a hand at the end of the sheet. A hand scored from the table (``table_shows`` given)
        clears the table's hand in progress in the same transaction, and undoing it puts the hand it
        came from (``from_table``, the store's hand log) back; ``table_shows`` is told which hand
        the table now shows: ``None`` (the next) or ``from_table``. Where another window added
        hands meanwhile, the hand goes after them, and undo takes back this one."""
        game = self.game
        expected = len(game.hands)
        added: list[int] = []  # where the hand went, each time it is added (undo, redo)

        def add() -> None:
            added.append(game.add(hand, hand_in_progress=None if table_shows else UNCHANGED))
            if table_shows:
                table_shows(None)

        def take_back() -> None:
            game.delete(added[-1], hand_in_progress=from_table if table_shows else UNCHANGED)
            if table_shows:
                table_shows(from_table)

        if not self._change(f"add hand {expected + 1}", add, take_back):
            return False
        if added[-1] != expected:
            self._tell(f"The score sheet had been changed in another window: this hand is added after the hands "
                       f"saved there, as hand {added[-1] + 1}.")
        return True

    def edit_hand(self, position: int | None) -> None:
        if position is None:
            self._tell("Choose the hand to edit: click its row first.")
            return
        old = self.game.hands[position]
        dialog = EndOfHandDialog(self.game, HandDraft.from_hand(old), position, self)
        if self.open_dialog(dialog) != QDialog.Accepted:
            return
        new, game = dialog.hand(), self.game
        self._change(
            f"edit hand {position + 1}", lambda: game.replace(position, new), lambda: game.replace(position, old)
        )

    def delete_hand(self, position: int | None) -> None:
        if position is None:
            self._tell("Choose the hand to delete: click its row first.")
            return
        old, game = self.game.hands[position], self.game
        self._change(f"delete hand {position + 1}", lambda: game.delete(position), lambda: game.insert(position, old))

    def _change(self, text: str, redo: Callable[[], None], undo: Callable[[], None]) -> bool:
        if not self.commit(redo):
            return False
        self.undo_stack.push(SheetChange(text, redo, undo, self))
        return True

    def commit(self, change: Callable[[], None]) -> bool:
        """Make one change to the game; a failure is told to the players, and nothing changes. When
        another window changed the game first, the sheet shows it as saved there, and the undo
        history (of the sheet as it was) is cleared."""
        try:
            change()
        except GameChanged as error:
            self._tell(f"The score sheet was not changed: {error}. It now shows the hands as saved; make the "
                       "change again if it is still wanted.")
            QTimer.singleShot(0, self.undo_stack.clear)  # not while the stack runs one of its commands
            self.refresh()
            return False
        except HandFileError as error:
            self._tell(f"The score sheet was not changed: {hand_problem(str(error), self.game.team_names)}")
            return False
        except COMMIT_ERRORS as error:  # the file: in use, read-only, its disk full or gone
            self._tell(f"The score sheet was not changed: its file could not be written ({error}). "
                       f"{not_written_advice(error)}; the hands saved before are kept.")
            return False
        self.refresh()
        return True

    def _export(self, kind: str, suffix: str, write: Callable[[Any, Path], None]) -> None:
        path, _ = QFileDialog.getSaveFileName(
            self, f"Export the score sheet as {kind}", f"score-sheet.{suffix}", f"{kind} (*.{suffix})"
        )
        if not path:
            return
        try:
            write(sheet_table(self.game), Path(path))
        except OSError as error:
            self._tell(f"Could not write {path}: {error.strerror}")

    def _tell(self, message: str) -> None:
        QMessageBox.information(self, "Score sheet", message)
