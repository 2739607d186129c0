"""One window per score sheet: the lock, the second copy's choices, the window brought forward."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from companion.app import main as app_main
from companion.app.sheet_lock import HeldElsewhere, SheetLock, claim_sheet

ROOT = Path(__file__).resolve().parents[2]

#: A second copy of the app, as far as the lock goes: it tries the sheet and asks its window forward.
SECOND_COPY = """
import sys
from PySide6.QtCore import QCoreApplication
from companion.app.sheet_lock import SheetLock
app = QCoreApplication([])
lock = SheetLock(sys.argv[1])
print(lock.claim(), lock.holder(), flush=True)
print(lock.ask_to_come_forward(), flush=True)
"""

#: A copy of the app that takes the sheet and is killed.
KILLED_COPY = """
import os, signal, sys
from PySide6.QtCore import QCoreApplication
from companion.app.sheet_lock import SheetLock
app = QCoreApplication([])
lock = SheetLock(sys.argv[1])
print(lock.claim(), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""


def run_python(code, *args, **popen):
    return subprocess.Popen([sys.executable, "-c", code, *map(str, args)], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen)


def test_a_second_copy_finds_the_sheet_held_and_brings_that_window_forward(qtbot, tmp_path):
    sheet = tmp_path / "s.sqlite3"
    lock = SheetLock(sheet)
    assert lock.claim()
    with qtbot.waitSignal(lock.come_forward, timeout=30_000):
        second = run_python(SECOND_COPY, sheet)
        qtbot.waitUntil(lambda: second.poll() is not None, timeout=30_000)  # this window answers meanwhile
    out, err = second.communicate()
    claimed, asked = out.splitlines()
    assert claimed == f"False ({os.getpid()}, True)", err  # held by this process, on this computer
    assert asked == "True"
    lock.release()
    assert SheetLock(sheet).claim()  # free again once the window closes


def test_a_sheet_held_by_a_copy_that_was_killed_is_free(tmp_path):
    sheet = tmp_path / "s.sqlite3"
    killed = run_python(KILLED_COPY, sheet)
    out, _ = killed.communicate(timeout=60)
    assert killed.returncode == -signal.SIGKILL and out.strip() == "True"
    assert (tmp_path / "s.sqlite3.lock").exists()  # left behind, naming a process that is gone
    assert SheetLock(sheet).claim()


def test_a_sheet_held_all_evening_stays_held(tmp_path):
    sheet = tmp_path / "s.sqlite3"
    holding = SheetLock(sheet)
    assert holding.claim()
    evening = time.time() - 5 * 3600
    os.utime(holding.file, (evening, evening))  # Qt takes a lock this old by default (30 s)
    assert not SheetLock(sheet).claim()


def test_the_players_open_another_file_or_leave_the_sheet_to_the_other_window(tmp_path):
    sheet, other = tmp_path / "s.sqlite3", tmp_path / "other.sqlite3"
    holding = SheetLock(sheet)
    assert holding.claim()
    asked = []

    def choose(answer):
        return lambda lock: asked.append(lock.sheet) or answer

    lock = claim_sheet(sheet, choose(HeldElsewhere.OPEN_ANOTHER_FILE), lambda _: other)
    assert asked == [sheet] and lock.sheet == other and not SheetLock(other).claim()
    assert claim_sheet(sheet, choose(HeldElsewhere.QUIT), lambda _: other) is None
    told = []
    holding.release()
    gone = SheetLock(sheet)
    assert gone.claim()
    gone._server.close()  # holds the sheet, but its window does not answer
    assert claim_sheet(sheet, choose(HeldElsewhere.SHOW_THAT_WINDOW), lambda _: other, told.append) is None
    assert "did not answer" in told[0]


def test_the_app_leaves_a_sheet_open_in_another_window_alone(qtbot, tmp_path, monkeypatch):
    sheet = tmp_path / "s.sqlite3"
    holding = SheetLock(sheet)
    assert holding.claim()
    asked = []
    monkeypatch.setattr(app_main, "ask_when_held", lambda lock: asked.append(lock.holder()) or HeldElsewhere.QUIT)
    assert app_main.main(["--database", str(sheet)]) == 0
    assert asked == [(os.getpid(), True)] and not sheet.exists()  # the sheet was not even opened


def latin1_video(folder: Path) -> bytes:
    """The demo hand copied under a name that is not UTF-8; that name, as bytes."""
    name = os.fsencode(folder) + b"/game\xe9.mp4"
    with open(name, "wb") as copy:
        copy.write((ROOT / "datasets" / "demo" / "hand.mp4").read_bytes())
    return name


def test_video_and_camera_options_refuse_what_is_not_there_in_one_line(tmp_path):
    for option, said in (
        (["--video", str(tmp_path / "nothing.mp4")], f"--video {tmp_path / 'nothing.mp4'}: no such file"),
        (["--camera", "7"], "--camera 7: there is no camera 7 (cameras found: "),
        # a Latin-1 name from an old disk (é as one byte): OpenCV's decoder crashes on such a name
        ([b"--video", latin1_video(tmp_path)], f"--video {tmp_path}/game\ufffd.mp4: the file's name is not UTF-8"),
        ([b"--database", os.fsencode(tmp_path) + b"/feuille\xe9"], f"--database {tmp_path}/feuille\ufffd: the name is "
                                                                   "not UTF-8 text"),
    ):
        database = [] if b"--database" in option else ["--database", str(tmp_path / "s")]
        started = subprocess.run([sys.executable, "-m", "companion.app", *option, *database],
                                 capture_output=True, text=True, cwd=ROOT, errors="replace")
        assert started.returncode == 2 and started.stderr.startswith(f"canasta-companion: {said}")
        assert len(started.stderr.splitlines()) == 1, started.stderr
    assert not (tmp_path / "s").exists()


def test_help_lists_the_video_options(capsys):
    try:
        app_main.main(["--help"])
    except SystemExit:
        pass
    shown = capsys.readouterr().out
    assert "--video FILE" in shown and "--camera N" in shown and "--database FILE" in shown
