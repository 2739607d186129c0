"""Frames shown per second by the main window while a video plays, the GUI thread staying free.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/frames.py [VIDEO] [--seconds 10]

Plays the bundled demo (``datasets/demo/``), or a video given on the command line, while the card
reader reads the newest frame on its own thread; prints frames shown and readings made per second.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/frames.py --seconds 600 --every 60

plays for ten minutes and prints, each minute, the frames and readings so far, the process's memory
and how many references Python's ``True`` and ``None`` have: a long game's check. (PySide6 6.12.0
lost one reference to ``True`` at every signal, and the app aborted once the count reached zero.)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from companion.app.main_window import DEMO_VIDEO, MainWindow  # noqa: E402
from companion.app.store import Store  # noqa: E402


def generated_clip(folder: Path) -> Path:
    path = folder / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 30, (1280, 720))
    for i in range(90):
        frame = np.full((720, 1280, 3), (42, 90, 30), np.uint8)
        cv2.rectangle(frame, (100 + 5 * i, 200), (220 + 5 * i, 370), (250, 250, 250), -1)
        writer.write(frame)
    writer.release()
    return path


def progress(elapsed: float, window: MainWindow) -> str:
    """Frames and readings so far, resident memory, and the references held to True and None."""
    try:  # Linux's /proc; elsewhere the memory column says "?"
        with open("/proc/self/status") as status:
            memory = next(f"{int(line.split()[1]) // 1024} MB" for line in status if line.startswith("VmRSS:"))
    except (OSError, StopIteration, ValueError):
        memory = "?"
    return (f"{elapsed:6.0f} s  frames {window.video.frames_shown}  readings {window.readings_taken}  "
            f"memory {memory}  refs True {sys.getrefcount(True)} None {sys.getrefcount(None)}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("video", nargs="?")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--every", type=float, help="print progress, memory and reference counts this often (seconds)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    video = Path(args.video) if args.video else DEMO_VIDEO if DEMO_VIDEO.exists() else generated_clip(folder)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow(Store(folder / "bench.sqlite3"), start_video=False)
    window.resize(1280, 800)
    window.show()
    window.feed.start(str(video), loop=True)
    started = time.monotonic()
    due = args.every
    while time.monotonic() - started < args.seconds:
        app.processEvents()
        time.sleep(0.002)
        if due is not None and time.monotonic() - started >= due:
            print(progress(time.monotonic() - started, window), flush=True)
            due += args.every
    elapsed = time.monotonic() - started
    shown = window.video.frames_shown / elapsed
    read = window.readings_taken / elapsed
    window.close()
    print(f"video: {video}")
    print(f"frames shown per second: {shown:.1f} (target ≥ 25)")
    if window.live is None:
        print("readings per second: not measured: " + (window.statusBar().currentMessage() or "no card reader"))
        return 0 if shown >= 25 else 1
    print(f"readings per second: {read:.1f} (target ≥ 5; the shipped detector and reader, off the GUI thread)")
    return 0 if shown >= 25 and read >= 5 else 1


if __name__ == "__main__":
    sys.exit(main())
