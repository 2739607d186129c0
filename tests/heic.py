"""HEIC photos for the tests, written with pillow-heif's encoder (a ``[dev]`` dependency: the app's
pi-heif only decodes). Pillow's own save is not used, so the app's decoder stays the one registered."""

from __future__ import annotations

from pathlib import Path

from PIL import Image


def save_heic(picture: Image.Image, path: Path, quality: int = 90, orientation: int | None = None) -> Path:
    """``picture`` as a HEIC file; with ``orientation`` (an EXIF orientation, 6: "turn 90° clockwise
    to show"), that tag and the HEIF turn boxes for it, as an iPhone writes both."""
    import pillow_heif

    exif = None
    if orientation is not None:
        tag = Image.Exif()
        tag[0x0112] = orientation
        exif = tag.tobytes()
    pillow_heif.from_pillow(picture).save(path, quality=quality, exif=exif)
    return Path(path)
