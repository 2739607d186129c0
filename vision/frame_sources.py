"""Frames from image and video files, with one clear line for every file that cannot give them.

An empty, truncated, unreadable or enormous image raises :class:`FrameSourceError` before any
pixels are decoded where the header already tells (so a forged 100,000-pixel-wide PNG costs
nothing); a video that cannot be opened, or that breaks or ends before the frames its header
promised, says so after the frames it did give.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

VIDEO_SUFFIXES = {".mp4", ".avi", ".mov", ".mkv", ".webm", ".m4v"}
#: Largest frame read: a 4K webcam frame has 8.3 megapixels.
MAX_PIXELS = 40_000_000
MAX_SIDE = 16_384


class FrameSourceError(Exception):
    """A file that gives no frame (or no more frames): the message is one line naming it."""


def is_video(path: Path) -> bool:
    return Path(path).suffix.lower() in VIDEO_SUFFIXES


def read_image(path: Path) -> np.ndarray:
    """A BGR image, or :class:`FrameSourceError` saying why there is none."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise FrameSourceError(f"{path}: cannot read ({error.strerror or error})") from None
    if not data:
        raise FrameSourceError(f"{path}: empty file")
    size = _header_size(data)
    if size is not None:
        _check_size(path, *size)
    if data[:2] == b"\xff\xd8" and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        raise FrameSourceError(f"{path}: truncated JPEG (no end-of-image marker)")
    if data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" not in data[-16:]:
        raise FrameSourceError(f"{path}: truncated PNG (no IEND chunk)")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise FrameSourceError(f"{path}: not an image OpenCV can decode")
    _check_size(path, image.shape[1], image.shape[0])
    return image


def video_frames(path: Path, every: int = 1) -> Iterator[tuple[int, np.ndarray]]:
    """(frame number, BGR frame) for every ``every``-th frame; :class:`FrameSourceError` when the
    video cannot be opened or stops before the frame count its header gives."""
    capture = cv2.VideoCapture(str(path))
    if not capture.isOpened():
        raise FrameSourceError(f"{path}: cannot open as a video")
    promised = int(capture.get(cv2.CAP_PROP_FRAME_COUNT))
    number = 0
    try:
        while True:
            ok, frame = capture.read()
            if not ok or frame is None:
                break
            if number == 0:
                _check_size(Path(path), frame.shape[1], frame.shape[0])
            if number % every == 0:
                yield number, frame
            number += 1
    finally:
        capture.release()
    if number == 0:
        raise FrameSourceError(f"{path}: no frame could be decoded")
    if promised > 0 and number < promised:
        raise FrameSourceError(f"{path}: video broke off after {number} of its {promised} frames")


def _check_size(path: Path, width: int, height: int) -> None:
    if width <= 0 or height <= 0:
        raise FrameSourceError(f"{path}: image has no pixels ({width}x{height})")
    if width > MAX_SIDE or height > MAX_SIDE or width * height > MAX_PIXELS:
        raise FrameSourceError(f"{path}: image too large ({width}x{height}; at most {MAX_PIXELS // 1_000_000} megapixels)")


def _header_size(data: bytes) -> tuple[int, int] | None:
    """Width and height from a PNG or JPEG header, without decoding; ``None`` for other formats."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:2] != b"\xff\xd8":
        return None
    offset = 2
    while offset + 9 < len(data):
        if data[offset] != 0xFF:
            return None
        marker = data[offset + 1]
        length = struct.unpack(">H", data[offset + 2:offset + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # start of frame
            height, width = struct.unpack(">HH", data[offset + 5:offset + 9])
            return width, height
        offset += 2 + length
    return None
