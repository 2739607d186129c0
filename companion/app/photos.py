"""Scoring a hand from photos: players without a webcam over the table take a phone photo of the
melds at the end of the hand, one of the whole table or one of each team's cards.

The photos are read on the live reading thread (:meth:`~companion.app.live.LiveReading.read_photo`),
which alone runs the card reader, and come back together as the hands they show, for the
end-of-hand dialog.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote_to_bytes

import numpy as np
from PySide6.QtCore import QObject, QUrl, Signal, Slot
from PySide6.QtWidgets import QComboBox, QDialog, QDialogButtonBox, QFormLayout, QLabel, QVBoxLayout, QWidget

from companion import TEAMS
from vision.reader.frame_sources import ImageFile

from .live import LiveReading
from .words import file_filter

#: What the file dialog offers, and what a file dropped on the window must end with to be read: a
#: phone's photos (JPEG, an iPhone's HEIC, some Android phones' AVIF) and the usual picture files.
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".heic", ".heif", ".avif", ".png", ".webp", ".bmp", ".tif", ".tiff")
PHOTO_FILTER = file_filter("Photos", PHOTO_SUFFIXES)


def is_photo(path: str | Path) -> bool:
    return Path(path).suffix.lower() in PHOTO_SUFFIXES


def local_path(url: QUrl) -> str:
    """The file a dropped ``file:`` URL names, byte for byte: Qt's own ``toLocalFile`` turns bytes of
    a name that are not UTF-8 (an old disk's Latin-1 name) into "�", a file that does not exist.
    Windows names files in Unicode (and a URL's path there starts "/C:"): Qt's own is right there."""
    if os.name != "posix" or url.host():
        return url.toLocalFile()
    return os.fsdecode(unquote_to_bytes(url.path(QUrl.FullyEncoded)))


def default_owners(count: int, before: int = 0) -> list[str | None]:
    """Whose cards photos show unless players say otherwise: one photo on its own, the whole table;
    more, or photos joining ``before`` others being read, each team's in turn.

    >>> default_owners(1), default_owners(3), default_owners(1, before=1)
    ([None], ['A', 'B', 'A'], ['B'])
    """
    if count == 1 and not before:
        return [None]
    return [TEAMS[number % len(TEAMS)] for number in range(before, before + count)]


def joining_words(count: int, before: int) -> str:
    """What the question about ``count`` photos joining ``before`` others first says.

    >>> joining_words(1, 1)
    'This photo joins the photo being read, for one hand. '
    >>> joining_words(2, 3)
    'These photos join the 3 photos being read, for one hand. '
    """
    if not before:
        return ""
    these = "This photo joins" if count == 1 else "These photos join"
    being_read = "the photo" if before == 1 else f"the {before} photos"
    return f"{these} {being_read} being read, for one hand. "


class WhosePhotos(QDialog):
    """Asks which cards each photo shows: the whole table, or one team's."""

    def __init__(self, paths: list[str], team_names: dict[str, str], parent: QWidget | None = None,
                 before: int = 0):
        super().__init__(parent)
        self.setWindowTitle("Score from photos")
        layout = QVBoxLayout(self)
        intro = QLabel(joining_words(len(paths), before) + "Whose cards does each photo show?")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.boxes: list[QComboBox] = []
        for path, owner in zip(paths, default_owners(len(paths), before)):
            box = QComboBox()
            box.addItem("The whole table", None)
            for team in TEAMS:
                box.addItem(f"{team_names[team]}'s cards", team)
            box.setCurrentIndex(box.findData(owner))
            form.addRow(Path(path).name, box)
            self.boxes.append(box)
        layout.addLayout(form)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def owners(self) -> list[str | None]:
        return [box.currentData() for box in self.boxes]


class PhotoReading(QObject):
    """Reads a set of photos on the reading thread and hands back what they show, all together.

    Photos offered while a set is read join it (one team's photo, then the other's): the set's
    hands come back once every photo is read and no more are being asked about (:meth:`held`).
    A photo that can't be read leaves the others' hands to be scored."""

    #: ([(hand, owner)], [why]): the hand of each photo read, as the score command takes it, and
    #: whose cards it shows (``None``: the whole table); then why each photo that could not be read
    #: could not (one line each, naming the file)
    done = Signal(object, object)

    def __init__(self, live: LiveReading, parent: QObject | None = None):
        super().__init__(parent)
        self.live = live
        self._next = 0
        self._waiting: dict[int, int] = {}  #: request number -> place in the set
        self._owners: list[str | None] = []
        self._hands: list[dict | None] | None = None  #: the set's hands as they come; None: no set
        self._unread: list[str] = []  #: why each photo of the set that failed did
        self._held = 0
        live.photo_read.connect(self._read)
        live.photo_failed.connect(self._failed)

    @property
    def busy(self) -> bool:
        """A set is being read (or read, its hands held back while more may join it)."""
        return self._hands is not None

    @property
    def count(self) -> int:
        """How many photos the set being read holds (0: none is)."""
        return len(self._hands or ())

    def read(self, pictures: list[ImageFile | np.ndarray], owners: list[str | None]) -> None:
        """Read these pictures (checked files, decoded on the reading thread, or BGR pixels), whose
        cards each shows beside it: a new set, or more of the one being read."""
        if self._hands is None:
            self._owners, self._hands, self._unread = [], [], []
        for picture, owner in zip(pictures, owners):
            self._next += 1
            self._waiting[self._next] = len(self._hands)
            self._owners.append(owner)
            self._hands.append(None)
            self.live.read_photo(self._next, picture)

    @contextmanager
    def held(self):
        """While players are asked about more photos, the set's hands are not handed back."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
            self._hand_back()

    def _hand_back(self) -> None:
        if self._hands is not None and not self._waiting and not self._held:
            hands = [(hand, owner) for hand, owner in zip(self._hands, self._owners) if hand is not None]
            self._hands = None
            self.done.emit(hands, self._unread)

    @Slot(int, object)
    def _read(self, number: int, reading) -> None:
        place = self._waiting.pop(number, None)
        if place is None:
            return
        self._hands[place] = reading.to_hand_dict()
        self._hand_back()

    @Slot(int, str)
    def _failed(self, number: int, why: str) -> None:
        if self._waiting.pop(number, None) is None:
            return
        self._unread.append(why)  # its place keeps no hand
        self._hand_back()
