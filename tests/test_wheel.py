"""The wheel players install: ``python -m build`` puts the shipped weights and the demo hand in it,
and leaves the training stack to the ``[train]`` extra."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: What the app, ``python -m vision read`` and ``canasta-score`` open from the installed package.
RUNTIME_FILES = [
    "vision/models/cards.int8.xml", "vision/models/cards.int8.bin", "vision/models/cards.int8.onnx",
    "vision/models/cards.onnx", "vision/models/index_classifier.int8.onnx", "vision/models/index_classifier.onnx",
    "vision/models/facing.onnx", "vision/models/evaluation/metrics.json",
    "companion/app/demo/hand.mp4", "companion/app/demo/table_setup.json", "companion/schemas/hand.schema.json",
]
TRAINING_STACK = ("torch", "torchvision", "ultralytics", "nncf", "albumentations")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    """The wheel ``python -m build`` makes (through the sdist, as a release is built), with this
    environment's setuptools: no download."""
    out = tmp_path_factory.mktemp("dist")
    result = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (path,) = out.glob("*.whl")
    with zipfile.ZipFile(path) as opened:
        yield opened


def test_the_wheel_holds_what_the_runtime_opens_and_no_training_checkpoint(wheel):
    names = set(wheel.namelist())
    assert [name for name in RUNTIME_FILES if name not in names] == []
    assert [name for name in names if name.endswith(".pt")] == []
    shipped = ROOT / "models" / "cards.int8.bin"
    assert wheel.read("vision/models/cards.int8.bin") == shipped.read_bytes()


def test_the_wheel_holds_every_module_of_the_project(wheel):
    """pyproject.toml lists the packages one by one: a package left off it would be missing from
    the installed app."""
    modules = {path.relative_to(ROOT).as_posix() for package in ("companion", "vision")
               for path in (ROOT / package).rglob("*.py")}
    assert sorted(modules - set(wheel.namelist())) == []


def test_the_training_stack_is_only_in_the_train_extra(wheel):
    from packaging.requirements import Requirement

    (metadata,) = [name for name in wheel.namelist() if name.endswith(".dist-info/METADATA")]
    requires = [Requirement(line.removeprefix("Requires-Dist: "))
                for line in wheel.read(metadata).decode().splitlines() if line.startswith("Requires-Dist: ")]
    runtime = {req.name.lower() for req in requires if req.marker is None}
    train = {req.name.lower() for req in requires if req.marker and req.marker.evaluate({"extra": "train"})}
    assert runtime >= {"pyside6", "openvino", "onnxruntime", "numpy", "scipy", "opencv-python-headless"}
    assert set(TRAINING_STACK) <= train and not runtime & set(TRAINING_STACK)
