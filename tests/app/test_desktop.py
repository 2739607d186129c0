"""The real app on an X display through Qt's xcb platform plugin, as on a Debian desktop (the other
app tests run offscreen, which needs none of the X libraries)."""

import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import PySide6
import pytest

ROOT = Path(__file__).resolve().parents[2]
QT = Path(PySide6.__file__).parent / "Qt"
XCB_LIBRARIES = (QT / "plugins" / "platforms" / "libqxcb.so", QT / "lib" / "libQt6XcbQpa.so.6")
DEMO_VIDEO = ROOT / "datasets" / "demo" / "hand.mp4"
#: How long the app may take to show its window on a busy two-core machine (it loads the card reader).
START_S = 120


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Qt's xcb platform is the Linux desktop's")
def test_the_xcb_platform_plugin_finds_every_library_it_needs():
    missing = set()
    for library in XCB_LIBRARIES:
        listed = subprocess.run(["ldd", str(library)], capture_output=True, text=True, check=True).stdout
        missing |= {line.split()[0] for line in listed.splitlines() if "not found" in line}
    assert not missing, f"add the Debian packages of {sorted(missing)} to run.sh's DEBIAN_PACKAGES"


@pytest.fixture
def x_display():
    """A display of an X server without a screen (Xvfb), as ``:N``."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("Xvfb is not installed: ./run.sh test installs Debian's xvfb; elsewhere install your system's")
    read, write = os.pipe()
    server = subprocess.Popen([xvfb, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    os.close(write)
    try:
        ready, _, _ = select.select([read], [], [], 30)
        number = os.read(read, 32).decode().strip() if ready else ""
        assert number, (
            f"Xvfb did not start: {server.stderr.read1().decode(errors='replace') if server.poll() else 'no answer'}"
        )
        yield f":{number}"
    finally:
        os.close(read)
        server.terminate()
        server.wait(10)


def window_shown(display: str, title: str) -> bool:
    """Whether a window of that title is mapped on the display (xwininfo, from Debian's x11-utils)."""
    seen = subprocess.run(["xwininfo", "-display", display, "-name", title], capture_output=True, text=True)
    return seen.returncode == 0 and "IsViewable" in seen.stdout


def test_the_app_shows_its_window_on_an_x_desktop(x_display, tmp_path):
    if shutil.which("xwininfo") is None:
        pytest.skip("xwininfo is not installed: ./run.sh test installs Debian's x11-utils")
    environment = {**os.environ, "DISPLAY": x_display, "QT_QPA_PLATFORM": "xcb",
                   "CANASTA_COMPANION_DATA": str(tmp_path)}
    video = ["--video", str(DEMO_VIDEO)] if DEMO_VIDEO.is_file() else []
    app = subprocess.Popen([sys.executable, "-m", "companion.app", *video], cwd=ROOT, env=environment,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + START_S
        while not window_shown(x_display, "Canasta Companion"):
            assert app.poll() is None, f"the app ended (status {app.returncode}):\n{app.stdout.read()[-3000:]}"
            assert time.monotonic() < deadline, f"no window after {START_S} s"
            time.sleep(0.5)
    finally:
        app.kill()
        app.wait(10)
    assert (tmp_path / "scoresheets.sqlite3").exists()
