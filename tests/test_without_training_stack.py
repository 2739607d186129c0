"""The app and ``python -m vision read`` as players install them (``./run.sh app``: the project and
its own dependencies, without the ``[train]`` and ``[dev]`` extras): nothing they run loads a package
that install lacks, and a command that needs the training stack says how to install it."""

import importlib.metadata
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import cv2
from packaging.requirements import Requirement
from PIL import Image

ROOT = Path(__file__).resolve().parents[1]


#: The training stack (the ``[train]`` extra): the app and ``python -m vision read`` must run without it.
TRAINING_FRAMEWORKS = ("torch", "torchvision", "ultralytics", "nncf", "albumentations")


def app_install(project: str = "canasta-companion") -> set[str]:
    """The distributions ``pip install`` of the project without extras brings (normalised names):
    the project's requirements without an extra marker, and theirs, as this environment holds them."""
    found, todo = set(), [project]
    while todo:
        name = todo.pop().lower().replace("_", "-")
        if name in found:
            continue
        found.add(name)
        for line in importlib.metadata.requires(name) or []:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return found


def test_the_app_install_is_worked_out_from_the_project_metadata():
    """The closure the test below checks against: the app's own requirements are in it, the extras'
    are not (a check that named nothing would pass anything); and the installed metadata it starts
    from lists pyproject.toml's dependencies (an install older than them would be checked instead)."""
    install = app_install()
    assert {"pyside6", "openvino", "opencv-python-headless", "pillow", "pi-heif"} <= install
    assert not install & {"torch", "ultralytics", "pytest", "matplotlib", "albumentations", "pillow-heif"}
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    installed = [Requirement(line) for line in importlib.metadata.requires("canasta-companion") or []]
    assert sorted(str(Requirement(line)) for line in declared) == sorted(
        str(req) for req in installed if req.marker is None), "reinstall the project: pip install -e ."


#: Run first in the interpreter below: every top-level module that only distributions outside the
#: app's install provide fails to import, as on a player's machine (an optional import, such as
#: numpy's of charset_normalizer, then goes without, as it does there).
AS_INSTALLED = """
import importlib.abc, importlib.metadata, sys
INSTALL = set({install!r})
OUTSIDE = {{top for top, owners in importlib.metadata.packages_distributions().items()
           if not any(owner.lower().replace('_', '-') in INSTALL for owner in owners)}}
class NotInstalled(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in OUTSIDE:
            raise ModuleNotFoundError(f"No module named {{name!r}} (not in the app's install)", name=name)
        return None
sys.meta_path.insert(0, NotInstalled())
print('left out:', len(OUTSIDE), 'top-level modules, torch among them:', 'torch' in OUTSIDE)
"""


def test_reading_a_picture_and_starting_the_app_need_only_what_the_app_install_holds(tmp_path):
    """In a fresh interpreter that can import only what the app's install holds (:func:`app_install`,
    :data:`AS_INSTALLED`): the reader on a frame, the read command on a picture and on an iPhone's
    HEIC photo, then the app's window playing the demo hand for a few seconds. A module of the
    extras alone (Pillow, once) fails there, as on a player's machine, where the tests' environment
    has it."""
    from companion.app.main_window import DEMO_VIDEO
    from tests.heic import save_heic

    ok, frame = cv2.VideoCapture(str(DEMO_VIDEO)).read()
    assert ok
    cv2.imwrite(str(tmp_path / "frame.png"), frame)
    save_heic(Image.fromarray(frame[:, :, ::-1]), tmp_path / "frame.heic")  # as an iPhone's photo
    code = AS_INSTALLED.format(install=sorted(app_install())) + (
        "import os, time\n"
        "import numpy as np\n"
        "from vision.reader.card_reader import CardReader\n"
        "CardReader().read(np.full((720, 1280, 3), 90, np.uint8))\n"
        "from vision.__main__ import main\n"
        f"assert main(['read', {str(tmp_path / 'frame.png')!r}]) == 0\n"
        f"assert main(['read', {str(tmp_path / 'frame.heic')!r}]) == 0\n"
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
        "print('training frameworks loaded:', loaded)\n"
        "os._exit(1 if loaded else 0)\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "CANASTA_COMPANION_DATA": str(tmp_path / "data")}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env,
                            timeout=300)
    assert "torch among them: True" in result.stdout, result.stdout + result.stderr[-3000:]
    assert result.returncode == 0 and "training frameworks loaded: []" in result.stdout, \
        result.stdout + result.stderr[-3000:]


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
