"""Reading a video's frame only where it changed since the last reading.

Between plays a card table lies still: a play changes a card or two, an arm reaching in, the
discard pile. The detector's network costs about in proportion to the pixels it reads (forty-eighth
session, the app's int8 network on two cores of a CPU with AVX2 alone: a 1920×1088 input 210 ms,
960×544 55 ms, 640×640 44 ms, 320×320 13 ms), and its classifier in proportion to the finds it
names. :class:`IncrementalDetector` compares each frame with the picture its last readings saw,
shrunk and in grey (:func:`thumbnail`, where a webcam's noise averages out), reads only the parts
that changed (:func:`changed_areas`), each with a margin of the table around it
(:data:`CONTEXT_SHARE`), and keeps the last reading's finds everywhere else. It reads the whole frame
when no earlier reading is there to keep, when it is narrower than 1920 px (:data:`WHOLE_BELOW`), when more than :data:`MOST_SHARE` of it changed (a camera
moved, the light changed), and at least every :data:`WHOLE_EVERY`-th reading, so that nothing a
part missed stays missed. A part that changed is read again in the next :data:`SETTLE` readings,
though it stays still: the tracker confirms a card added from two readings of three
(:mod:`vision.tracking`), and a find kept unread repeats the one reading it came from, a misread
near the threshold with it.

Measured on two cores of a CPU with AVX2 alone (forty-eighth and forty-ninth sessions, the team
areas set up; ``bench/bench_reader.py --scenes 0 --live --changed-only``): without the settling
re-reads it made 1.6–2 times the readings of whole frames but read fewer plays in order (held-out
hand videos 79 of 107 against 85); with them, read at the machine's pace back to back with whole
frames, the held-out videos 85 of 107 against 76, the choice set 103 of 131 against 97, seeds 43–50
92 of 133 against 91, with 1.5–1.9 times the readings. Every third frame, where pace does not count,
it reads about as whole frames do: 88 of 107 against 90, 110 of 131 against 108. A tracker that
counted only the readings that read a part afresh, tried instead of the settling re-reads, lost
plays (every third frame 82 of 107): a card just laid was confirmed only at the next whole reading.

What it reads is what the detector reads: ``detect(frame_bgr) -> Detections``, the same value, so
the card reader and the tracker take it as they take the detector's (:class:`~vision.card_reader.CardReader`
wraps its trained detector in one). A frame that changed nowhere costs a thumbnail's comparison.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.detections import Detections, iou
from vision.detector import MAX_INPUT_WIDTH

#: The frame's grey is shrunk this many times each way before frames are compared (the mean of each
#: 8×8 block: a webcam's noise, 2 grey levels a pixel in the project's videos, falls to about 0.25).
SHRINK = 8
#: A thumbnail pixel whose grey moved more than this (of 255) since the last reading there changed.
CHANGED_GREY = 10
#: Thumbnail pixels this near a changed one count as changed: a card laid changes its whole face,
#: and a find whose box only touches the changed pixels is read again.
CHANGE_MARGIN = 2
#: A part is read with this share of the frame's height around it on every side (at 1080p 135 px,
#: about a card's height in the project's videos): the detector sees a find's surroundings, and the
#: classifier's neighbour join (:mod:`vision.neighbours`) its card's other corner and its meld's cards.
CONTEXT_SHARE = 0.125
#: Parts that would cover more than this share of the frame are read as the whole frame.
MOST_SHARE = 0.5
#: At least every this many readings, the whole frame is read.
WHOLE_EVERY = 8
#: Frames narrower than this are read whole: the detector reads them at two widths and joins the
#: finds (:func:`vision.detector.input_widths_for`), and read by parts the bundled demo (960×540,
#: indexes 8–11 px tall) lost plays at the pace of a CPU with AVX2 alone: 9, 8, 12, 10, 10 and 11 of
#: 15 in order against 11, 12, 11 and 11 whole (forty-ninth session), though every 3rd to 6th frame
#: it read 12 either way.
WHOLE_BELOW = MAX_INPUT_WIDTH
#: An area that changed is read again in this many readings after, though it stays still (see the
#: module).
SETTLE = 2
#: Parts are rounded out to multiples of this many pixels, so the network sees fewer input shapes
#: (OpenVINO prepares each new shape once, about a third more than a run).
PART_STEP = 64
#: An earlier find overlapping a find read again this much (IoU) is the same index: the new one stays.
SAME_FIND_IOU = 0.3


def thumbnail(frame_bgr: np.ndarray) -> np.ndarray:
    """The frame in grey, shrunk :data:`SHRINK` times each way (each pixel the mean of its block), as
    16-bit integers to subtract."""
    grey = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2GRAY)
    size = (-(-grey.shape[1] // SHRINK), -(-grey.shape[0] // SHRINK))
    return cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype(np.int16)


def changed_areas(before: np.ndarray, now: np.ndarray, threshold: int = CHANGED_GREY,
                  margin: int = CHANGE_MARGIN) -> list[tuple[int, int, int, int]]:
    """The boxes (x1, y1, x2, y2, thumbnail pixels, ends excluded) around each patch of ``now`` that
    differs from ``before`` (two :func:`thumbnail` s of one size) by more than ``threshold`` grey
    levels, grown by ``margin``; none when nothing changed."""
    if before.shape != now.shape:
        raise ValueError(f"thumbnails of different sizes: {before.shape} and {now.shape}")
    changed = (np.abs(now - before) > threshold).astype(np.uint8)
    if not changed.any():
        return []
    if margin:
        changed = cv2.dilate(changed, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * margin + 1, 2 * margin + 1)))
    count, _, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=8)
    return [(int(x), int(y), int(x + w), int(y + h)) for x, y, w, h, _ in stats[1:count]]


class IncrementalDetector:
    """A detector that reads a video's frames only where they changed since its last reading (see
    the module). ``detector``: one with ``detect(frame_bgr, part)`` (a
    :class:`~vision.detector.CardDetector`). Setting its threshold (``conf``, ``reread_from``) or its
    classifier through this one makes the next reading whole; so does :meth:`forget` (another
    video, a photo). Its other attributes are the detector's."""

    def __init__(self, detector, whole_every: int = WHOLE_EVERY, most_share: float = MOST_SHARE,
                 settle: int = SETTLE, whole_below: int = WHOLE_BELOW) -> None:
        if whole_every < 1:
            raise ValueError(f"whole_every must be 1 or more, not {whole_every}")
        self.detector = detector
        self.whole_every, self.most_share, self.settle = whole_every, most_share, settle
        self.whole_below = whole_below
        self._seen: np.ndarray | None = None  #: the thumbnail of the picture the finds were read from
        self._found = Detections.empty()
        self._since_whole = 0
        #: areas (thumbnail pixels) that changed lately, with how many readings more to read them
        self._settling: list[tuple[tuple[int, int, int, int], int]] = []
        #: The share of the last frame read (1.0 whole, 0.0 nothing changed).
        self.last_share = 1.0

    def __getattr__(self, name: str):
        if name == "detector":  # not set yet (being copied or unpickled)
            raise AttributeError(name)
        return getattr(self.detector, name)

    def _setting(name: str):  # noqa: N805 - builds the properties below
        def get(self):
            return getattr(self.detector, name)

        def set_(self, value) -> None:
            setattr(self.detector, name, value)
            self.forget()

        return property(get, set_, doc=f"The detector's ``{name}``; setting it makes the next reading whole.")

    conf = _setting("conf")
    reread_from = _setting("reread_from")
    classifier = _setting("classifier")
    del _setting

    def forget(self) -> None:
        """Read the next frame whole: it is of another video or a photo, or the detector changed."""
        self._seen = None

    def detect(self, frame_bgr: np.ndarray) -> Detections:
        """The corner indexes in the frame: the network's boxes found again where the frame changed
        and kept elsewhere, every box named afresh by the classifier."""
        boxes = self.boxes(frame_bgr)
        if getattr(self.detector, "classifier", None) is None:
            return boxes
        return self.detector.named(boxes, self.detector.read(frame_bgr, boxes))

    def boxes(self, frame_bgr: np.ndarray) -> Detections:
        """The network's finds in the frame (:meth:`vision.detector.CardDetector.boxes`): read again
        where it changed since the last reading, kept elsewhere."""
        now = thumbnail(frame_bgr)
        if (self._seen is None or self._seen.shape != now.shape or self._since_whole + 1 >= self.whole_every
                or frame_bgr.shape[1] < self.whole_below):
            return self._read_whole(frame_bgr, now)
        self._since_whole += 1
        changed = changed_areas(self._seen, now)
        # an area that changed is read again in the next few readings too, though it stays still:
        # the tracker confirms a card added from several readings of it (vision.tracking)
        areas = changed + [area for area, _ in self._settling]
        self._settling = [(area, left - 1) for area, left in self._settling if left > 1] \
            + [(area, self.settle) for area in changed if self.settle]
        parts = self._parts(areas, frame_bgr.shape[:2])
        height, width = frame_bgr.shape[:2]
        share = sum((x2 - x1) * (y2 - y1) for _, _, (x1, y1, x2, y2) in parts) / (width * height)
        if share > self.most_share:
            return self._read_whole(frame_bgr, now)
        found = self._found
        for (tx1, ty1, tx2, ty2), inner, part in parts:
            fresh = self.detector.boxes(frame_bgr, part)
            fresh = fresh[_centred_in(fresh, inner)]
            stale = _centred_in(found, inner)
            if len(fresh) and len(found):
                stale |= iou(found.xyxy, fresh.xyxy).max(axis=1) >= SAME_FIND_IOU
            found = Detections.merge([found[~stale], fresh])
            self._seen[ty1:ty2, tx1:tx2] = now[ty1:ty2, tx1:tx2]
        self._found = found[np.argsort(-found.confidence, kind="stable")]
        self.last_share = share
        return self._found

    def _read_whole(self, frame_bgr: np.ndarray, now: np.ndarray) -> Detections:
        self._found = self.detector.boxes(frame_bgr)
        self._seen, self._since_whole, self.last_share = now, 0, 1.0
        self._settling = []
        return self._found

    def _parts(self, areas: list[tuple[int, int, int, int]], shape: tuple[int, int]):
        """[(area, inner, part)]: each changed area (thumbnail pixels), the same in frame pixels
        (``inner``, whose finds are read again), and the part of the frame read for it (``part``:
        with its context, rounded out to :data:`PART_STEP`); areas whose parts overlap are joined."""
        height, width = shape
        sx, sy = width / self._seen.shape[1], height / self._seen.shape[0]
        context = round(CONTEXT_SHARE * height)

        def in_frame(area):
            x1, y1, x2, y2 = area
            return (int(x1 * sx), int(y1 * sy), min(width, int(np.ceil(x2 * sx))), min(height, int(np.ceil(y2 * sy))))

        areas = list(areas)
        while True:  # join two areas whose parts overlap, until none do
            parts = [_part(in_frame(area), context, width, height) for area in areas]
            pair = next(((i, j) for i in range(len(areas)) for j in range(i + 1, len(areas))
                         if _overlap(parts[i], parts[j])), None)
            if pair is None:
                return [(area, in_frame(area), part) for area, part in zip(areas, parts)]
            a, b = areas[pair[0]], areas.pop(pair[1])
            areas[pair[0]] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))


def _part(inner, context: int, width: int, height: int) -> tuple[int, int, int, int]:
    """The part of the frame read for an area: the area with ``context`` around it, rounded out to
    :data:`PART_STEP` pixels where the frame leaves room, within the frame."""
    x1, y1, x2, y2 = inner[0] - context, inner[1] - context, inner[2] + context, inner[3] + context
    x1, x2 = _rounded_out(x1, x2, width)
    y1, y2 = _rounded_out(y1, y2, height)
    return x1, y1, x2, y2


def _rounded_out(low: int, high: int, size: int) -> tuple[int, int]:
    """``low``..``high`` within 0..``size``, grown to a multiple of :data:`PART_STEP` (or the whole
    ``size``): upwards, or downwards where the frame ends."""
    low, high = max(0, low), min(size, high)
    length = min(size, -(-(high - low) // PART_STEP) * PART_STEP)
    high = min(size, low + length)
    return high - length, high


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _centred_in(found: Detections, box) -> np.ndarray:
    """Which finds' box centres lie in ``box`` (x1, y1, x2, y2)."""
    centres = (found.xyxy[:, :2] + found.xyxy[:, 2:]) / 2
    return ((centres[:, 0] >= box[0]) & (centres[:, 0] < box[2]) & (centres[:, 1] >= box[1])
            & (centres[:, 1] < box[3]))
