"""The app and ``python -m vision read`` without the training stack (pyproject.toml's ``[train]`` extra):
nothing they run loads it, and a command that needs it says how to install it."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


#: The training stack (the ``[train]`` extra): the app and ``python -m vision read`` must run without it.
TRAINING_FRAMEWORKS = ("torch", "torchvision", "ultralytics", "nncf", "albumentations")


def test_reading_a_picture_and_starting_the_app_load_no_training_framework(tmp_path):
    """In a fresh interpreter, so that other tests' imports don't count: the reader on a frame, the
    read command on a picture, then the app's window playing the demo hand for a few seconds."""
    code = (
        "import os, sys, time\n"
        "import cv2, numpy as np\n"
        "from vision.reader.card_reader import CardReader\n"
        "CardReader().read(np.full((720, 1280, 3), 90, np.uint8))\n"
        "from companion.app.main_window import DEMO_VIDEO\n"
        "ok, frame = cv2.VideoCapture(str(DEMO_VIDEO)).read()\n"
        f"cv2.imwrite({str(tmp_path / 'frame.png')!r}, frame)\n"
        "from vision.__main__ import main\n"
        f"assert main(['read', {str(tmp_path / 'frame.png')!r}]) == 0\n"
        "from PySide6.QtWidgets import QApplication\n"
        "app = QApplication([])\n"
        "from companion.app.main import open_store\n"
        "from companion.app.main_window import MainWindow\n"
        "window = MainWindow(open_store(None, lambda error: False))\n"
        "window.show()\n"
        "started = time.monotonic()\n"
        "while time.monotonic() - started < 3 or not window.readings_taken:\n"
        "    app.processEvents()\n"
        "    assert time.monotonic() - started < 120, 'no frame read in two minutes'\n"
        f"loaded = sorted({{name.split('.')[0] for name in sys.modules}} & {set(TRAINING_FRAMEWORKS)!r})\n"
        "print('loaded:', loaded)\n"
        "os._exit(1 if loaded else 0)\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "CANASTA_COMPANION_DATA": str(tmp_path / "data")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                            timeout=300)
    assert result.returncode == 0 and "loaded: []" in result.stdout, result.stdout + result.stderr[-3000:]


def test_a_training_command_without_the_training_stack_says_in_one_line_how_to_install_it(tmp_path):
    """As in an install without the ``[train]`` extra: its modules can't be imported."""
    code = (
        "import sys\n"
        f"for name in {TRAINING_FRAMEWORKS!r}: sys.modules[name] = None  # import fails, as if not installed\n"
        "from vision.__main__ import main\n"
        f"sys.exit(main(['export', '--out', {str(tmp_path / 'cards.onnx')!r}]))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "vision export: needs the training tools (ultralytics is not installed): "
        "pip install 'canasta-companion[train]' (from a checkout: ./run.sh test installs it)"]
