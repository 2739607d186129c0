"""One window per score sheet: a lock held while the app has a score-sheet file open, and a local
socket through which a second copy of the app asks the window that holds it to come forward.

The lock is Qt's :class:`QLockFile`, a file beside the score sheet (``scoresheets.sqlite3.lock``)
naming the process that holds it, which also holds an ``flock`` on it. A lock whose process is gone
(the app was killed) is taken over; one whose process runs is never taken, however old, so a game
played all evening keeps its sheet.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from enum import Enum
from pathlib import Path

from PySide6.QtCore import QLockFile, QObject, QSysInfo, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

#: How long a second copy waits for the window holding the sheet to answer.
ANSWER_MS = 2000
#: What that window answers once it has come forward.
SHOWN = b"shown\n"


class SheetLock(QObject):
    """The lock on one score-sheet file; :meth:`claim` takes it."""

    #: Another copy of the app asked the window that holds the sheet to show itself.
    come_forward = Signal()

    def __init__(self, sheet: Path, parent: QObject | None = None):
        super().__init__(parent)
        self.sheet = Path(sheet)
        self.file = self.sheet.with_name(self.sheet.name + ".lock")
        self._lock = QLockFile(str(self.file))
        self._lock.setStaleLockTime(0)  # stale only when its process is gone, never for its age (Qt's default: 30 s)
        # One name per sheet: the window holding it listens there.
        self.server_name = "canasta-companion-" + hashlib.sha256(os.fsencode(self.sheet.resolve())).hexdigest()[:16]
        self._server: QLocalServer | None = None

    def claim(self) -> bool:
        """Hold the sheet; ``False`` when another running copy of the app holds it. Where no lock
        file can be made (a read-only folder) there is nothing to hold, and the store, opening the
        file, says what is wrong."""
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            pass  # the store names the folder that can't be made
        if not self._lock.tryLock(0):
            return self._lock.error() != QLockFile.LockError.LockFailedError
        self._server = QLocalServer(self)
        QLocalServer.removeServer(self.server_name)  # a socket left by a copy that was killed
        self._server.newConnection.connect(self._answer)
        self._server.listen(self.server_name)
        return True

    def holder(self) -> tuple[int, bool] | None:
        """The process holding the sheet, and whether it runs on this computer; ``None`` if unknown."""
        info = self._lock.getLockInfo()
        if not info or not info[0]:
            return None
        pid, host = info[0], info[1]
        return pid, host in ("", QSysInfo.machineHostName())

    def ask_to_come_forward(self) -> bool:
        """Ask the window holding the sheet to show itself; whether it answered."""
        socket = QLocalSocket()
        socket.connectToServer(self.server_name)
        answered = socket.waitForConnected(ANSWER_MS) and socket.waitForReadyRead(ANSWER_MS)
        answered = answered and bytes(socket.readAll()).startswith(SHOWN)
        socket.abort()
        return answered

    def release(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        self._lock.unlock()

    def _answer(self) -> None:
        """A second copy connected: it asks this window to come forward, and hears that it did."""
        while self._server is not None and self._server.hasPendingConnections():
            connection = self._server.nextPendingConnection()
            self.come_forward.emit()
            connection.disconnected.connect(connection.deleteLater)
            connection.write(SHOWN)
            connection.flush()
            connection.disconnectFromServer()  # once what was written is sent


class HeldElsewhere(Enum):
    """What players choose when the score sheet is open in another window."""

    SHOW_THAT_WINDOW = "show"
    OPEN_ANOTHER_FILE = "other"
    QUIT = "quit"


def claim_sheet(sheet: Path, choose: Callable[[SheetLock], HeldElsewhere],
                pick_file: Callable[[Path], Path | None],
                tell: Callable[[str], None] = lambda message: None) -> SheetLock | None:
    """The lock on ``sheet``; when another window holds it, ``choose`` asks the players what to do:
    bring that window forward (``None`` returned: this copy closes), or open another file
    (``pick_file``; its lock returned), or quit (``None``)."""
    while True:
        lock = SheetLock(sheet)
        if lock.claim():
            return lock
        choice = choose(lock)
        if choice is HeldElsewhere.SHOW_THAT_WINDOW:
            if not lock.ask_to_come_forward():
                tell(f"The window that has {sheet} open did not answer. Switch to it, or close it and start "
                     "Canasta Companion again.")
            return None
        if choice is not HeldElsewhere.OPEN_ANOTHER_FILE:
            return None
        picked = pick_file(sheet)
        if picked is None:
            return None
        sheet = picked
