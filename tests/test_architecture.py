"""The code's shape, checked by the tools that state it: import-linter's contracts (pyproject.toml's
``[tool.importlinter]``: which part may import which, no cycles) and ruff's lint rules (``[tool.ruff]``)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_imports_keep_every_contract():
    result = run("-c", "from importlinter.cli import lint_imports_command; lint_imports_command()", "--no-cache")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]


def test_ruff_finds_nothing_to_fix():
    result = run("-m", "ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
