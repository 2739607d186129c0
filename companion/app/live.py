"""Reading the table while the video plays, off the GUI thread.

The frame thread hands every decoded frame to :meth:`LiveReading.offer`; a reading thread reads the
newest one and emits the :class:`~vision.reader.reading.TableReading`. Frames that arrive while a reading
is under way replace each other, so a slow reader (a detector takes tens of milliseconds a frame)
reads as often as it can and never falls behind the picture.

When the video source or the table set-up changes, readings still under way are dropped
(:meth:`LiveReading.new_source`, :meth:`LiveReading.use_setup`): a frame of the old camera, or one
read with the old team areas, never reaches the window after the change.
"""

from __future__ import annotations

import threading
import time

import numpy as np
from PySide6.QtCore import QObject, QThread, Signal, Slot

from vision.reader.frame_sources import FrameSourceError, ImageFile, first_line

#: Readings a second at most: the table changes at the pace of play, and the picture (25 frames a
#: second on two cores) needs the rest of the machine.
MAX_READINGS_PER_SECOND = 8


class ReadingWorker(QObject):
    reading = Signal(int, int, object)  #: take (see start_over), frame number, TableReading
    failed = Signal(str)
    photo_read = Signal(int, object)  #: the photo's number (see offer_photo), TableReading
    photo_failed = Signal(int, str)  #: the photo's number, why it could not be read

    def __init__(self, reader):
        super().__init__()
        self.reader = reader
        self._newest: tuple[int, int, np.ndarray] | None = None
        self._running = True
        self._wake = threading.Condition()
        self._next_due = 0.0
        self._take = 0
        self._setup = None  #: a table set-up the reader takes up before its next reading
        self._threshold: float | None = None  #: a detection threshold it takes up likewise
        self._classifier = None  #: an index classifier it names the detector's finds with, likewise
        self._new_view = False  #: the next frame is another video's: the reader forgets the view it measured
        self._new_hand = False  #: the next frame is of a new hand: the reader forgets the last one's turn card
        self._photos: list[tuple[int, ImageFile | np.ndarray]] = []  #: photos to read before the next frame

    def offer_photo(self, number: int, picture: ImageFile | np.ndarray) -> None:
        """Decode this photo (a checked file, or BGR pixels) and read it
        (:meth:`~vision.reader.card_reader.CardReader.read_photo`) before the next frame, on this
        thread, which alone runs the reader; the answer comes as :attr:`photo_read` or
        :attr:`photo_failed` with ``number``."""
        with self._wake:
            self._photos.append((number, picture))
            self._wake.notify()

    def offer(self, number: int, frame_bgr: np.ndarray) -> None:
        """Called from the frame thread: keep only the newest frame."""
        with self._wake:
            self._newest = (self._take, number, frame_bgr)
            self._wake.notify()

    def start_over(self, setup=None, new_view: bool = True) -> int:
        """Forget the frame waiting to be read; readings of earlier frames are marked stale by the take
        returned. ``setup``, when given, is the table set-up for the frames from now on. With
        ``new_view`` the reader forgets the view it measured on the earlier frames (another camera
        sees the table otherwise)."""
        with self._wake:
            self._take += 1
            self._newest = None
            self._new_view = self._new_view or new_view
            if setup is not None:
                self._setup = setup
            return self._take

    def new_hand(self) -> None:
        """The next frames show a new hand: the reader forgets the turn card it read in the last."""
        with self._wake:
            self._new_hand = True

    def use_threshold(self, threshold: float) -> None:
        """The reader keeps detections at least this sure from its next reading on."""
        with self._wake:
            self._threshold = threshold

    def use_classifier(self, classifier) -> None:
        """The reader names what its detector finds with this classifier from its next reading on
        (the table's deck learnt, or forgotten)."""
        with self._wake:
            self._classifier = classifier

    @Slot()
    def run(self) -> None:
        while True:
            self._pace()
            with self._wake:
                while self._running and self._newest is None and not self._photos:
                    self._wake.wait()
                if not self._running:
                    return
                photo = self._photos.pop(0) if self._photos else None
            if photo is not None:
                self._read_photo(*photo)
                continue
            with self._wake:
                if self._newest is None:
                    continue
                take, number, frame = self._newest
                self._newest = None
                setup, self._setup = self._setup, None
                threshold, self._threshold = self._threshold, None
                classifier, self._classifier = self._classifier, None
                new_view, self._new_view = self._new_view, False
                new_hand, self._new_hand = self._new_hand, False
            if setup is not None:
                self.reader.setup = setup  # only this thread touches the reader
            if classifier is not None and hasattr(getattr(self.reader, "detector", None), "classifier"):
                self.reader.detector.classifier = classifier
            if new_view and hasattr(self.reader, "new_view"):
                self.reader.new_view()
            elif new_hand and hasattr(self.reader, "new_hand"):
                self.reader.new_hand()
            try:
                if threshold is not None:  # a bad one (a hand-edited settings file) is reported, not fatal
                    self.reader.threshold = threshold
                reading = self.reader.read(frame)
            except Exception as error:  # a reader failure must not take the video down with it
                self.failed.emit(str(error))
                continue
            self.reading.emit(take, number, reading)

    def _read_photo(self, number: int, picture: ImageFile | np.ndarray) -> None:
        try:
            # A 12 MP HEIC photo takes about a second to decode: here, not on the window's thread.
            picture_bgr = picture.decode() if isinstance(picture, ImageFile) else picture
            reading = self.reader.read_photo(picture_bgr)
        except FrameSourceError as error:  # one line, naming the file
            self.photo_failed.emit(number, str(error))
            return
        except Exception as error:  # a reader failure is the photo's, not the app's
            named = f"{picture.path}: " if isinstance(picture, ImageFile) else ""
            self.photo_failed.emit(number, f"{named}the card reader failed ({first_line(error)})")
            return
        self.photo_read.emit(number, reading)

    def stop(self) -> None:
        with self._wake:
            self._running = False
            self._wake.notify()

    def _pace(self) -> None:
        """Wait out the rest of this reading's share of a second (woken early by stop)."""
        with self._wake:
            while self._running and time.monotonic() < self._next_due:
                self._wake.wait(self._next_due - time.monotonic())
        self._next_due = time.monotonic() + 1.0 / MAX_READINGS_PER_SECOND


class LiveReading(QObject):
    """One reading thread for the window's lifetime."""

    reading = Signal(int, object)  #: frame number, TableReading
    failed = Signal(str)
    photo_read = Signal(int, object)  #: the photo's number (see read_photo), TableReading
    photo_failed = Signal(int, str)  #: the photo's number, why it could not be read

    def __init__(self, reader, parent: QObject | None = None):
        super().__init__(parent)
        self._thread = QThread()
        self._worker = ReadingWorker(reader)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        self._worker.reading.connect(self._deliver)  # queued: runs in this (the GUI) thread
        self._worker.failed.connect(self.failed)
        self._worker.photo_read.connect(self.photo_read)
        self._worker.photo_failed.connect(self.photo_failed)
        self._take = 0
        self._thread.start()

    def offer(self, number: int, frame_bgr: np.ndarray) -> None:
        self._worker.offer(number, frame_bgr)

    def read_photo(self, number: int, picture: ImageFile | np.ndarray) -> None:
        """Decode and read a still photo (a checked file, or BGR pixels) on the reading thread, before
        its next frame; the reading comes back as :attr:`photo_read` (or :attr:`photo_failed`) with
        ``number``."""
        self._worker.offer_photo(number, picture)

    def new_source(self) -> None:
        """Another video plays from now on (its frames numbered from 0): drop the old one's readings.
        Call it once the old source has stopped sending frames."""
        self._take = self._worker.start_over()

    def use_setup(self, setup, new_view: bool = True) -> None:
        """Read the frames from now on with this :class:`~vision.reader.team_areas.TableSetup`; ``new_view``
        False keeps what the reader measured of the view (the same camera, the sides' names swapped)."""
        self._take = self._worker.start_over(setup, new_view)

    def new_hand(self) -> None:
        """A new hand is dealt: its turn card is not the last hand's."""
        self._worker.new_hand()

    def use_threshold(self, threshold: float) -> None:
        """The players' detection threshold (Settings), for the readings from now on."""
        self._worker.use_threshold(threshold)

    def use_classifier(self, classifier) -> None:
        """Name the detector's finds with this index classifier from the next reading on."""
        self._worker.use_classifier(classifier)

    @Slot(int, int, object)
    def _deliver(self, take: int, number: int, reading) -> None:
        if take == self._take:  # else it was read before the source or the set-up changed
            self.reading.emit(number, reading)

    def stop(self) -> None:
        """Stop reading (the window is closing) once the reading under way ends: Qt aborts the app
        when a thread is destroyed while it runs, and a first reading, which loads and compiles the
        models, can take seconds on a slow machine."""
        self._worker.stop()
        self._thread.quit()
        self._thread.wait(30_000)
