"""The webcams on this computer, found without opening them.

Qt's camera list (``QMediaDevices``, from QtMultimedia in PySide6-Addons, which the project installs)
is used. Where QtMultimedia can't load (an Essentials-only install, or no ``libpulse0``), Linux
cameras are listed from ``/sys/class/video4linux``, which names every camera.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Camera:
    id: str           #: what OpenCV opens: a device path such as ``/dev/video0``, or an index
    description: str


def list_cameras() -> list[Camera]:
    try:
        from PySide6.QtMultimedia import QMediaDevices
    except ImportError:
        return _linux_cameras()
    return opencv_cameras([(bytes(d.id()).decode(errors="replace"), d.description())
                           for d in QMediaDevices.videoInputs()])


def opencv_cameras(devices: list[tuple[str, str]], platform: str = sys.platform) -> list[Camera]:
    """Qt's cameras, (Qt's id, description) each, as OpenCV opens them. On Linux Qt's id is the
    device's path (``/dev/video0``). On Windows and macOS it is the system's own (a Media Foundation
    link, an AVFoundation id), which OpenCV can't open: there OpenCV opens a camera by its place in
    the system's list, the order Qt lists them in too."""
    if platform.startswith("linux"):
        return [Camera(qt_id, description) for qt_id, description in devices]
    return [Camera(str(place), description) for place, (_, description) in enumerate(devices)]


def _linux_cameras(root: Path = Path("/sys/class/video4linux")) -> list[Camera]:
    cameras = []
    for device in sorted(root.glob("video*")) if root.is_dir() else []:
        name = (device / "name").read_text(errors="replace").strip() if (device / "name").exists() else device.name
        # Many webcams expose a second node for metadata; index 0 is the picture.
        index = device / "index"
        if index.exists() and index.read_text().strip() != "0":
            continue
        cameras.append(Camera(f"/dev/{device.name}", f"{name} ({device.name})"))
    return cameras
