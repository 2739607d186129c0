"""The documents say what the code does: every command the README and the model card name starts,
the set-up is the two commands of run.sh, the rules table lists every table rule, links lead to
files that exist, and no document counts the periods of work it was written in (dates instead)."""

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from companion.table_rules import SETTINGS

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
#: The documents whose commands must start (each is run with --help; the bench scripts import the
#: training stack, a few seconds each, so the developers' list of them is only checked to exist).
COMMAND_DOCS = ("README.md", "models/MODEL_CARD.md")
#: Every document a player or a model user reads.
DOCUMENTS = ("README.md", "CHANGELOG.md", "models/MODEL_CARD.md", *sorted(
    str(path.relative_to(ROOT)) for path in (ROOT / "docs").glob("*.md")))

#: ``python -m vision CMD``, ``python -m companion CMD`` (not ``companion.app.…``), an installed
#: command, or a script of bench/ or docs/.
COMMAND = re.compile(r"python -m (vision|companion)(?![.\w])(?:\s+([a-z][\w-]*))?"
                     r"|(?<![\w/-])(canasta-companion|canasta-score)(?![\w.-])"
                     r"|(?<![\w/])((?:bench|docs)/\w+\.py)")


def named_commands() -> list[tuple[str, ...]]:
    """Each distinct command the documents name, as the words that start it."""
    found = set()
    for name in COMMAND_DOCS:
        for module, sub, installed, script in COMMAND.findall((ROOT / name).read_text()):
            if module:
                found.add(("-m", module, sub) if sub else ("-m", module))
            else:
                found.add((installed or script,))
    return sorted(found)


def argv_for(command: tuple[str, ...]) -> list[str]:
    """The same Python running ``command --help``; an installed command through its entry point."""
    if command[0] == "-m":
        return [sys.executable, *command, "--help"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    if command[0] in scripts:
        module, function = scripts[command[0]].split(":")
        return [sys.executable, "-c", f"import sys; from {module} import {function}; "
                f"sys.argv = [{command[0]!r}, '--help']; sys.exit({function}())"]
    return [sys.executable, *command, "--help"]


COMMANDS = named_commands()


def test_the_documents_name_the_commands_that_make_their_figures():
    assert ("-m", "vision", "evaluate") in COMMANDS and ("-m", "vision", "synth") in COMMANDS
    assert {("bench/real_photos.py",), ("bench/reading_speed.py",), ("canasta-companion",)} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_named_command_starts(command):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(argv_for(command), capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert result.returncode == 0, (command, result.stderr[-2000:])
    assert "usage" in result.stdout.lower(), command


def test_exactly_two_setup_commands_both_through_run_sh():
    block = re.search(r"## Set-up.*?```sh\n(.*?)```", README, re.S).group(1)
    commands = [line.split("#")[0].strip() for line in block.splitlines() if line.strip()]
    assert commands == ["./run.sh app", "./run.sh test"]
    assert "./run.sh test" in (ROOT / ".ci" / "run").read_text()


def test_scripts_the_documents_name_exist():
    for name in DOCUMENTS:
        for script in re.findall(r"(?<![\w/])((?:bench|docs|scripts)/\w+\.(?:py|sh))", (ROOT / name).read_text()):
            assert (ROOT / script).is_file(), (name, script)


def test_score_command_examples_run():
    example = re.compile(r"^(?:\.venv/bin/)?python -m companion score .*$", re.M)
    examples = [line for name in (*COMMAND_DOCS, "docs/developers.md")
                for line in example.findall((ROOT / name).read_text())]
    assert examples
    for line in examples:
        args = shlex.split(line.split("#")[0])[3:]
        result = subprocess.run([sys.executable, "-m", "companion", *args], capture_output=True, text=True, cwd=ROOT)
        assert result.returncode == 0, (line, result.stderr)


def test_table_rules_table_lists_every_setting_with_its_default():
    rules = (ROOT / "docs" / "rules.md").read_text()
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| `(\w+)` \| ([^|]+) \|", rules, re.M)}
    assert set(rows) == set(SETTINGS)
    for name, setting in SETTINGS.items():
        shown = rows[name]
        if isinstance(setting.default, tuple):
            assert "all ten" in shown
        elif setting.default is None:
            assert "null" in shown
        else:
            assert str(setting.default).lower() in shown.lower(), name


@pytest.mark.parametrize("name", DOCUMENTS)
def test_links_lead_to_files_that_exist(name):
    path = ROOT / name
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", path.read_text()):
        if "://" not in target:
            assert (path.parent / target).exists(), (name, target)


@pytest.mark.parametrize("name", DOCUMENTS)
def test_documents_give_dates_not_periods_of_work(name):
    assert not re.search(r"\bsess(ion|ions)\b", (ROOT / name).read_text(), re.I), name
