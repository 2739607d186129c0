"""Frames shown per second by the main window while a video plays, the GUI thread staying free.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/frames.py [VIDEO] [--seconds 10]

Plays the bundled demo (``datasets/demo/``), or a video given on the command line, while the card
reader reads the newest frame on its own thread; prints frames shown and readings made per second.
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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("video", nargs="?")
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    video = Path(args.video) if args.video else DEMO_VIDEO if DEMO_VIDEO.exists() else generated_clip(folder)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    window = MainWindow(Store(folder / "bench.sqlite3"), start_video=False)
    window.resize(1280, 800)
    window.show()
    window.feed.start(str(video), loop=True)
    started = time.monotonic()
    while time.monotonic() - started < args.seconds:
        app.processEvents()
        time.sleep(0.002)
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
