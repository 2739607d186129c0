"""Frames from image and video files, with one clear line for every file that cannot give them.

An empty, truncated, unreadable or enormous image raises :class:`FrameSourceError` before any
pixels are decoded: its size is read from its header, for every format OpenCV decodes (so a
1.8 MB TIFF of 20,000×20,000 pixels costs nothing); a video that cannot be opened, or that breaks
or ends before the frames its header promised, says so after the frames it did give.

Phone photos come as JPEG, or as HEIC (an iPhone's camera by default) or AVIF (some Android
phones). OpenCV's wheels decode no HEIC, and an AVIF without turning it upright, so Pillow decodes
both, HEIC with the pi-heif plugin (libheif's decoder alone). Each comes out upright as the phone
said, once: libheif applies a HEIC's own turn (its ``irot``/``imir`` boxes, which an iPhone writes
beside the EXIF orientation tag, which the plugin then sets to 1), and Pillow turns an AVIF's into
the tag, which :func:`_pillow_decoded` applies (as OpenCV applies a JPEG's).
"""

from __future__ import annotations

import io
import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import pi_heif
from PIL import Image, ImageOps

# Pillow's own plugins first, so that its AVIF reader, not libheif (built here without an AV1
# decoder), opens an AVIF whose brand is the generic HEIF one; then HEIC/HEIF.
Image.init()
pi_heif.register_heif_opener()

#: Video files the app plays and the reader reads (OpenCV's FFmpeg opens each of these containers).
VIDEO_SUFFIXES = (".mp4", ".mov", ".m4v", ".avi", ".mkv", ".webm")
#: Pictures this many pixels or more are refused: a phone's largest photos (an iPhone's 48 MP, 8064×6048;
#: another phone's 50 MP mode, 8160×6120) are read, a 4K webcam frame has 8.3 megapixels.
MAX_PIXELS = 50_000_000
MAX_SIDE = 16_384
LIMITS = f"at most {MAX_SIDE:,} px a side and under {MAX_PIXELS // 1_000_000} megapixels"
#: A picture's longer side may be at most this many times its shorter: a phone's photo is 4:3 to
#: 20:9, a webcam's 16:9. A narrow picture is enlarged until it is as wide as the network reads (a
#: 200×4000 strip to 1920×38400, 3 GB), and one a few pixels across has no card to read.
MAX_ELONGATION = 4


def quiet_video_decoder() -> None:
    """Keep FFmpeg's own lines (such as "moov atom not found") off stderr, so that a video that
    can't be read is told once, in the project's words. OpenCV reads the setting when it opens its
    first video, so this runs on import, before any; one set already (to debug) is kept."""
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # FFmpeg's AV_LOG_QUIET


quiet_video_decoder()


class FrameSourceError(Exception):
    """A file that gives no frame (or no more frames): the message is one line naming it."""


def first_line(error: BaseException) -> str:
    """An error told in one line: its message's first line, or its type's name where it has none
    (a decoder's or a library's own error, quoted inside a message of the project's)."""
    message = str(error).strip()
    return message.splitlines()[0] if message else type(error).__name__


def is_video(path: Path) -> bool:
    return Path(path).suffix.lower() in VIDEO_SUFFIXES


def read_image(path: Path) -> np.ndarray:
    """A BGR image, or :class:`FrameSourceError` saying why there is none."""
    return open_image(path).decode()


@dataclass(frozen=True)
class ImageFile:
    """A picture file whose header :func:`open_image` checked, its pixels not yet decoded: the app
    checks a photo at once (a few milliseconds) and decodes it on its reading thread (a 48 MP HEIC
    about 1.8 s on two cores)."""

    path: Path
    data: bytes = field(repr=False, compare=False)  #: the file's bytes (megabytes: kept out of its repr)
    pillow_format: str | None = None  #: the format Pillow named from the header; ``None`` where it knows none

    def decode(self) -> np.ndarray:
        """The BGR image, or :class:`FrameSourceError` where its pixels can't be decoded."""
        if self.pillow_format in PHONE_FORMATS:
            image = _pillow_decoded(self.path, self.data, self.pillow_format)
        else:
            image = cv2.imdecode(np.frombuffer(self.data, np.uint8), cv2.IMREAD_COLOR)
        if image is None:
            raise FrameSourceError(f"{self.path}: not an image OpenCV can decode")
        _check_size(self.path, image.shape[1], image.shape[0])
        return image


def open_image(path: Path) -> ImageFile:
    """The picture file read and its header checked (a format known, its size within
    :data:`LIMITS`, a JPEG or PNG not cut short), or :class:`FrameSourceError` saying what is wrong."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as error:
        raise FrameSourceError(f"{path}: cannot read ({error.strerror or error})") from None
    if not data:
        raise FrameSourceError(f"{path}: empty file")
    size, pillow_format = _header_size(path, data)
    if size is None and (said := _phone_format(data)):
        raise FrameSourceError(f"{path}: a damaged or truncated {said} photo")
    if size is None:
        raise FrameSourceError(f"{path}: not an image OpenCV can decode")
    _check_size(path, *size)
    if data[:2] == b"\xff\xd8" and not data.rstrip(b"\x00").endswith(b"\xff\xd9"):
        raise FrameSourceError(f"{path}: truncated JPEG (no end-of-image marker)")
    if data[:8] == b"\x89PNG\r\n\x1a\n" and b"IEND" not in data[-16:]:
        raise FrameSourceError(f"{path}: truncated PNG (no IEND chunk)")
    return ImageFile(path, data, pillow_format)


#: The formats Pillow names from a phone photo's header that it decodes here (see the module), and
#: what a player calls them.
PHONE_FORMATS = {"HEIF": "HEIC", "AVIF": "AVIF"}


def _phone_format(data: bytes) -> str | None:
    """``"HEIC"`` or ``"AVIF"`` for a file that says it is one (an ISO base media file, its ``ftyp``
    box's brand one of those), whose header Pillow could not read: a damaged or cut-short photo."""
    if data[4:8] != b"ftyp":
        return None
    brand = data[8:12]
    return "AVIF" if brand.startswith(b"avi") else "HEIC" if brand[:3] in (b"hei", b"hev", b"mif", b"msf") else None


def _pillow_decoded(path: Path, data: bytes, pillow_format: str) -> np.ndarray:
    """A HEIC or AVIF photo (the format Pillow named from its header, a key of :data:`PHONE_FORMATS`)
    as a BGR image, upright (see the module); a file that stops short or is damaged is a
    :class:`FrameSourceError`."""
    try:
        with Image.open(io.BytesIO(data), formats=[pillow_format]) as opened:
            picture = ImageOps.exif_transpose(opened).convert("RGB")
    except Exception as error:  # libheif's and libavif's own errors, among others
        raise FrameSourceError(f"{path}: a damaged or truncated {PHONE_FORMATS[pillow_format]} photo "
                               f"({first_line(error)})") from None
    return cv2.cvtColor(np.asarray(picture), cv2.COLOR_RGB2BGR)


def shown_name(path: Path | str) -> str:
    """A file's name as text that can be shown: bytes of a name that are not UTF-8 (a Latin-1 name
    from an old disk) as "�"."""
    return os.fsencode(path).decode("utf-8", "replace")


def is_utf8_name(path: Path | str) -> bool:
    """Whether a file's name is UTF-8 text. Python keeps the other bytes of a name that is not (a
    Latin-1 name from an old disk) as lone surrogates, which no UTF-8 text holds."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def video_name(path: Path | str) -> str:
    """The name OpenCV's video decoder is given: :class:`FrameSourceError` for a name that is not
    UTF-8 text, which the decoder cannot take (it crashes on one)."""
    if not is_utf8_name(path):
        raise FrameSourceError(f"{shown_name(path)}: the file's name is not UTF-8 text, which the video decoder "
                               "can't open; rename the file")
    return str(path)


def video_frames(path: Path, every: int = 1) -> Iterator[tuple[int, np.ndarray]]:
    """(frame number, BGR frame) for every ``every``-th frame; :class:`FrameSourceError` when the
    video cannot be opened or stops before the frame count its header gives."""
    capture = cv2.VideoCapture(video_name(path))
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
    if width > MAX_SIDE or height > MAX_SIDE or width * height >= MAX_PIXELS:
        raise FrameSourceError(f"{path}: image too large ({width}x{height}; {LIMITS})")
    if max(width, height) > MAX_ELONGATION * min(width, height):
        raise FrameSourceError(f"{path}: image too long and narrow for a picture of cards ({width}x{height}; "
                               f"its longer side may be at most {MAX_ELONGATION} times its shorter)")


def _header_size(path: Path, data: bytes) -> tuple[tuple[int, int] | None, str | None]:
    """Width and height from the image's header, without decoding its pixels, and the format Pillow
    names it (``None`` where Pillow does not know it); ``None`` for the size of a file no reader
    below knows. Pillow's ``Image.open`` reads only the header, of every format OpenCV decodes but
    three, read here: Radiance HDR, PAM and colour PFM; and of HEIC and AVIF."""
    with warnings.catch_warnings():
        # Pillow warns of images over its own limit (89 megapixels) and refuses twice that; both
        # are over this module's, so the size check below or the refusal here says it once.
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        try:
            with Image.open(io.BytesIO(data)) as image:
                return image.size, image.format
        except Image.DecompressionBombError as error:
            counted = re.search(r"\((\d+) pixels\)", str(error))  # Pillow names the count, not the sides
            pixels = f"{int(counted[1]):,}" if counted else f"over {2 * Image.MAX_IMAGE_PIXELS:,}"
            raise FrameSourceError(f"{path}: image too large ({pixels} pixels; {LIMITS})") from None
        except Exception:  # a header Pillow does not know, or can't make sense of
            pass
    return _radiance_size(data) or _netpbm_size(data), None


def _radiance_size(data: bytes) -> tuple[int, int] | None:
    """A Radiance HDR header: text lines, a blank one, then e.g. ``-Y 1080 +X 1920``."""
    if not data.startswith(b"#?"):
        return None
    found = re.search(rb"\n\n([-+])([XY]) (\d+) ([-+])([XY]) (\d+)\n", data[:4096])
    if found is None:
        return None
    sides = {found[2]: int(found[3]), found[5]: int(found[6])}
    return (sides[b"X"], sides[b"Y"]) if set(sides) == {b"X", b"Y"} else None


def _netpbm_size(data: bytes) -> tuple[int, int] | None:
    """A PAM header (``P7`` then ``WIDTH w`` and ``HEIGHT h`` lines) or a PFM one (``PF``/``Pf``, then
    width and height)."""
    head = data[:4096]
    if head[:3] == b"P7\n":
        width, height = re.search(rb"\nWIDTH\s+(\d+)", head), re.search(rb"\nHEIGHT\s+(\d+)", head)
        return (int(width[1]), int(height[1])) if width and height else None
    if head[:2] in (b"PF", b"Pf"):
        found = re.match(rb"P[Ff]\s+(\d+)\s+(\d+)\s", head)
        return (int(found[1]), int(found[2])) if found else None
    return None
