"""The game core is pure Python: it must not import Qt, OpenCV, torch or the vision package."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FORBIDDEN = ("PySide6", "shiboken6", "cv2", "torch", "torchvision", "ultralytics", "onnxruntime", "numpy", "vision")


def core_modules():
    return [p for p in (ROOT / "companion").glob("*.py")]


def test_core_source_names_no_forbidden_import():
    offenders = []
    for path in core_modules():
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []


def test_importing_the_whole_core_loads_none_of_them():
    modules = ", ".join(f"'companion.{p.stem}'" for p in core_modules() if p.stem != "__main__")
    code = (
        "import importlib, sys\n"
        f"for m in [{modules}]: importlib.import_module(m)\n"
        f"bad = [m for m in sys.modules if m.split('.')[0] in {FORBIDDEN!r}]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
