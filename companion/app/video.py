"""Video frames decoded off the GUI thread: a worker in a QThread reads a camera or a file with
OpenCV and emits each frame as a QImage; the window only paints them."""

from __future__ import annotations

import time
from pathlib import Path

import cv2
import numpy as np
from PySide6.QtCore import QObject, QThread, Signal, Slot
from PySide6.QtGui import QImage

from vision.reader.frame_sources import VIDEO_SUFFIXES, FrameSourceError, quiet_video_decoder, video_name

from .words import file_filter

quiet_video_decoder()  # a video that can't be played is told in the window, not by FFmpeg on stderr


def to_qimage(frame_bgr: np.ndarray) -> QImage:
    """The frame as a QImage the window paints without converting it: 32-bit RGB, which in memory
    is OpenCV's BGRA. Painting a 960×540 frame scaled took 0.6–1.0 ms from it, 2.7–2.9 ms from 24-bit
    RGB, which Qt converts at every paint (25 paints a second). OpenCV writes
    the pixels straight into the image's own memory: no Python buffer is lent to Qt."""
    height, width = frame_bgr.shape[:2]
    image = QImage(width, height, QImage.Format_RGB32)
    pixels = np.frombuffer(image.bits(), np.uint8).reshape(height, image.bytesPerLine() // 4, 4)[:, :width]
    cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2BGRA, dst=pixels)
    return image


#: The picture size asked of a camera: the 1080p frame the reader's speed is measured on. OpenCV's
#: own default is often 640×480, where a card's corner index has a third of the pixels' height.
CAMERA_SIZE = (1920, 1080)
#: What the video file dialog offers: the files :func:`open_capture` plays.
VIDEO_FILTER = file_filter("Videos", VIDEO_SUFFIXES)


def open_capture(source: str) -> cv2.VideoCapture:
    """OpenCV's capture of a video file (played at its own size) or a camera, which is asked for
    :data:`CAMERA_SIZE` in MJPG (USB webcams send 1080p at full rate only compressed); a camera
    without that size gives the nearest it has."""
    # A camera's place in the system's list (companion.app.cameras.opencv_cameras) is a number to OpenCV.
    capture = cv2.VideoCapture(int(source) if source.isdigit() else source)
    if capture.isOpened() and not Path(source).is_file():
        capture.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
        capture.set(cv2.CAP_PROP_FRAME_WIDTH, CAMERA_SIZE[0])
        capture.set(cv2.CAP_PROP_FRAME_HEIGHT, CAMERA_SIZE[1])
    return capture


class FrameWorker(QObject):
    frame = Signal(QImage)
    failed = Signal(str)

    def __init__(self, source: str, loop: bool, sink=None):
        super().__init__()
        self.source, self.loop = source, loop
        #: called in this thread with (frame number, BGR frame): the card reader's mailbox
        self.sink = sink
        self._running = True

    @Slot()
    def run(self) -> None:
        if not self.source.isdigit():
            try:
                video_name(self.source)  # OpenCV crashes on a name that is not UTF-8
            except FrameSourceError as error:
                self.failed.emit(str(error))
                return
        capture = open_capture(self.source)
        if not capture.isOpened():
            self.failed.emit(f"can't open {self.source}")
            return
        # A file plays at its own pace; a camera delivers frames as fast as it films them. A header's
        # rate under MIN_FPS (a damaged file's) is taken as 30 frames a second.
        fps = capture.get(cv2.CAP_PROP_FPS)
        delay = 1.0 / (fps if fps >= MIN_FPS else 30.0)
        number = 0
        due = time.monotonic()
        try:
            while self._running:
                ok, frame = capture.read()
                if not self._running:  # stopped while the read waited: this frame is no longer wanted
                    return
                if not ok:
                    if self.loop and capture.set(cv2.CAP_PROP_POS_FRAMES, 0):
                        number = 0  # the demo starts its hand again
                        continue
                    self.failed.emit(f"{self.source} stopped sending pictures")
                    return
                if self.sink is not None:
                    self.sink(number, frame)
                number += 1
                self.frame.emit(to_qimage(frame))
                # Keep to the file's clock: a frame that took longer is made up on the next ones,
                # unless the worker fell a whole frame behind (then it carries on from now).
                due = max(due + delay, time.monotonic() - delay)
                while self._running and time.monotonic() < due:  # stop() is heard within a tenth of a second
                    time.sleep(max(0.0, min(0.1, due - time.monotonic())))
        finally:
            capture.release()

    def stop(self) -> None:
        self._running = False  # read by run() between frames


#: The lowest frame rate a video file's header is believed: a slide show of one picture a second.
MIN_FPS = 1.0
#: How long stopping a source waits for its thread. A webcam pulled out can hold OpenCV's read
#: for up to 10 s (V4L2's timeout); past this the thread is left to end on its own.
STOP_WAIT_MS = 3000


class VideoFeed(QObject):
    """One video source at a time, on its own thread."""

    frame = Signal(QImage)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self._thread: QThread | None = None
        self._worker: FrameWorker | None = None
        #: threads of sources stopped while their read hung, kept until they end: Qt aborts the app
        #: when a thread is destroyed while it runs
        self._retiring: list[tuple[QThread, FrameWorker]] = []
        #: given every frame as (number, BGR array) in the decoding thread, when set
        self.frame_sink = None

    def start(self, source: str, loop: bool = False) -> None:
        self.stop()
        self._thread = QThread()
        self._worker = FrameWorker(source, loop, self.frame_sink)
        self._worker.moveToThread(self._thread)
        self._thread.started.connect(self._worker.run)
        self._worker.frame.connect(self.frame)
        self._worker.failed.connect(self.failed)
        self._thread.start()

    def stop(self) -> None:
        """Stop the source; its frames stop reaching :attr:`frame` at once, even when its thread is
        stuck in a read (then it is kept until the read returns, see :data:`STOP_WAIT_MS`)."""
        if self._worker is None:
            return
        thread, worker = self._thread, self._worker
        self._thread = self._worker = None
        worker.stop()
        worker.frame.disconnect(self.frame)
        worker.failed.disconnect(self.failed)
        thread.finished.connect(self._let_go)  # queued to this (the GUI) thread: runs after the append below
        thread.quit()
        if not thread.wait(STOP_WAIT_MS):
            self._retiring.append((thread, worker))

    @Slot()
    def _let_go(self) -> None:
        self._retiring = [(thread, worker) for thread, worker in self._retiring if not thread.isFinished()]

    def wait_for_retiring(self, milliseconds: int) -> bool:
        """Wait for the threads of hung sources to end (at quitting); whether they all have."""
        ended = all(thread.wait(milliseconds) for thread, _ in self._retiring)
        self._let_go()
        return ended
