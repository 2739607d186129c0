"""The webcams on this computer, found without opening them.

Qt's camera list (``QMediaDevices``, from QtMultimedia in PySide6-Addons, which the project installs)
is used. Where QtMultimedia can't load (an Essentials-only install, or no ``libpulse0``), Linux
cameras are listed from ``/sys/class/video4linux``, which names every camera.
"""

from __future__ import annotations

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
    return [Camera(bytes(d.id()).decode(errors="replace"), d.description()) for d in QMediaDevices.videoInputs()]


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
