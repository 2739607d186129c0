"""The decoding thread (companion.app.video) over hundreds of frames: what a long game asks of it."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import cv2
import numpy as np

from companion.app.video import VideoFeed

FRAMES = 300
ROOT = Path(__file__).resolve().parents[2]


def _fast_clip(path) -> str:
    """A small video that plays its frames 250 a second, so the feed sends hundreds in a test."""
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 250, (160, 120))
    for i in range(60):
        frame = np.full((120, 160, 3), 40, np.uint8)
        cv2.rectangle(frame, (i, 30), (i + 40, 90), (250, 250, 250), -1)
        writer.write(frame)
    writer.release()
    return str(path)


def test_hundreds_of_frames_leave_pythons_true_and_none_alone(qtbot, tmp_path):
    """Every frame reaches the window through a Qt signal. PySide6 6.12.0 dropped a reference to
    Python's ``True`` at every ``Signal.emit`` (and the frame thread's emits lost references to
    ``None`` too), so after a minute or two of video, when a count reached zero, Python aborted the
    app ("Fatal Python error: bool_dealloc" / "none_dealloc"); pyproject.toml
    keeps PySide6 below 6.12. Playing 300 frames must leave both counts where they were, give or take
    what the interpreter itself holds or lets go meanwhile."""
    feed = VideoFeed()
    shown = []
    feed.frame.connect(lambda image: shown.append(image.width()))
    before = sys.getrefcount(True), sys.getrefcount(None)
    feed.start(_fast_clip(tmp_path / "clip.avi"), loop=True)
    qtbot.waitUntil(lambda: len(shown) >= FRAMES, timeout=20_000)
    feed.stop()
    qtbot.wait(50)  # the frames queued before the stop are delivered
    after = sys.getrefcount(True), sys.getrefcount(None)
    assert shown[0] == 160
    assert after[0] - before[0] > -FRAMES // 10, f"True lost {before[0] - after[0]} references over {len(shown)} frames"
    assert after[1] - before[1] > -FRAMES // 2, f"None lost {before[1] - after[1]} references over {len(shown)} frames"


def test_a_source_that_hangs_is_let_go_without_taking_the_app_down(qtbot, tmp_path, monkeypatch):
    """A webcam pulled out mid-game can hold OpenCV's read for seconds (V4L2 waits up to 10 s).
    Players who pick another source meanwhile get it at once; the hung thread is kept until it
    ends rather than destroyed while it runs, which Qt answers by aborting the app."""
    monkeypatch.setattr("companion.app.video.STOP_WAIT_MS", 200)
    clip = _fast_clip(tmp_path / "clip.avi")
    hung, release = threading.Event(), threading.Event()

    def hang_once(number, frame):
        if not hung.is_set():
            hung.set()
            release.wait(10)

    feed = VideoFeed()
    shown = []
    feed.frame.connect(lambda image: shown.append(image))
    feed.frame_sink = hang_once
    feed.start(clip)
    assert hung.wait(5)
    feed.start(clip)  # the players switch while the first source hangs
    qtbot.waitUntil(lambda: len(shown) >= 20, timeout=5000)  # the new source plays
    assert len(feed._retiring) == 1
    release.set()  # the old source's read returns: its thread ends and is let go
    qtbot.waitUntil(lambda: not feed._retiring, timeout=5000)
    feed.stop()


def test_a_broken_video_is_told_in_the_window_and_ffmpeg_keeps_quiet(tmp_path):
    """FFmpeg writes its own line ("moov atom not found") to stderr as it fails to open a cut video;
    the window says what went wrong, so the terminal gets nothing."""
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(64))
    code = ("import sys\nfrom PySide6.QtCore import QCoreApplication\nfrom companion.app.video import FrameWorker\n"
            "app = QCoreApplication([])\nworker = FrameWorker(sys.argv[1], loop=False)\n"
            "worker.failed.connect(print)\nworker.run()")
    played = subprocess.run([sys.executable, "-c", code, str(cut)], capture_output=True, text=True, cwd=ROOT)
    assert played.stdout == f"can't open {cut}\n" and played.stderr == ""


def test_every_video_the_file_dialog_offers_plays(tmp_path):
    """Each container the dialog's filter offers (a phone's IMG_0001.MOV matched as it is named)
    opens in the app's capture and gives its frames."""
    from fnmatch import fnmatchcase

    from companion.app.video import VIDEO_FILTER, open_capture
    from vision.reader.frame_sources import VIDEO_SUFFIXES, is_video

    patterns = VIDEO_FILTER[VIDEO_FILTER.index("(") + 1:-1].split()
    codecs = {".webm": "VP80", ".avi": "MJPG"}  # the rest hold MPEG-4 part 2 ("mp4v")
    for suffix in VIDEO_SUFFIXES:
        path = tmp_path / f"IMG_0001{suffix.upper()}"
        writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*codecs.get(suffix, "mp4v")), 10, (160, 120))
        for shade in range(0, 250, 50):
            writer.write(np.full((120, 160, 3), shade, np.uint8))
        writer.release()
        assert any(fnmatchcase(path.name, pattern) for pattern in patterns), path.name
        assert is_video(path)
        capture = open_capture(str(path))
        read, frame = capture.read()
        capture.release()
        assert read and frame.shape == (120, 160, 3), f"{path.name} did not play"
    assert not any(fnmatchcase("notes.txt", pattern) for pattern in patterns)


def test_a_video_whose_name_is_not_utf8_is_told_not_crashed_on(tmp_path):
    """OpenCV's decoder crashes the app on a name that is not UTF-8 (an old disk's Latin-1 name)."""
    import os

    from companion.app.video import FrameWorker

    name = os.fsdecode(os.fsencode(tmp_path) + b"/partie\xe9.mp4")
    Path(name).write_bytes((ROOT / "datasets" / "demo" / "hand.mp4").read_bytes())
    worker = FrameWorker(name, loop=False)
    said = []
    worker.failed.connect(said.append)
    worker.run()
    assert said == [f"{tmp_path}/partie\ufffd.mp4: the file's name is not UTF-8 text, which the video decoder "
                    "can't open; rename the file"]


def test_a_video_whose_header_claims_a_crawling_frame_rate_plays_and_stops_at_once(tmp_path):
    """A damaged file's header said 0.05 frames a second: the worker slept 20 s a frame, and closing
    the window froze it, then aborted the app. Such a rate is taken as 30 a second, and a stop is
    heard within a tenth of a second whatever the wait."""
    from companion.app.video import FrameWorker

    path = tmp_path / "crawl.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 0.05, (160, 120))
    for shade in range(0, 250, 10):
        writer.write(np.full((120, 160, 3), shade, np.uint8))
    writer.release()
    assert cv2.VideoCapture(str(path)).get(cv2.CAP_PROP_FPS) < 1  # the header as written
    seen = []
    worker = FrameWorker(str(path), loop=False, sink=lambda number, frame: seen.append(time.monotonic()))
    thread = threading.Thread(target=worker.run)
    thread.start()
    deadline = time.monotonic() + 10
    while len(seen) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(seen) >= 3 and seen[2] - seen[0] < 1.0  # frames a thirtieth of a second apart, not 20 s
    worker.stop()
    stopped = time.monotonic()
    thread.join(5)
    assert not thread.is_alive() and time.monotonic() - stopped < 0.5
