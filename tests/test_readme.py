"""The README's commands and tables say what the code does."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

from companion.table_rules import SETTINGS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_exactly_two_setup_commands_both_through_run_sh():
    block = re.search(r"## Set-up.*?```sh\n(.*?)```", README, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["./run.sh app", "./run.sh test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "./run.sh test" in ci


def test_score_command_examples_run():
    for line in re.findall(r"^\.venv/bin/python -m companion score .*$", README, re.M):
        args = shlex.split(line.split("#")[0])[3:]
        result = subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, cwd=ROOT)
        assert result.returncode == 0, (line, result.stderr)


def test_table_rules_table_lists_every_setting_with_its_default():
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \| ([^|]+) \|", README, re.M)}
    assert set(rows) == set(SETTINGS)
    for name, setting in SETTINGS.items():
        shown = rows[name]
        if isinstance(setting.default, tuple):
            assert "all ten" in shown
        elif setting.default is None:
            assert "null" in shown
        else:
            assert str(setting.default).lower() in shown.lower(), name
