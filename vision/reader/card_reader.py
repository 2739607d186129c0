"""The card reader: a webcam frame in, a :class:`~vision.reader.reading.TableReading` out.

    reader = CardReader()                  # the shipped detector (models/)
    reading = reader.read(frame_bgr)
    reading = reader.read_detections(detections, (width, height))   # the geometry alone

Detection is the detector's job; everything after it (cards from indexes, melds, piles, threes,
hands, the middle) is pure geometry on :class:`~vision.reader.detections.Detections`, so it runs and is
tested without any model.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.reader.detections import Detections
from vision.reader.facing import TableFacing, TableTurn, face_finds, finds_to_face
from vision.reader.focus import index_sharpness
from vision.reader.grouping import group_cards
from vision.reader.physical_cards import ViewMemory, one_find_per_index, see_cards
from vision.reader.reading import COLUMN_SHARE, READING_THRESHOLD, TableReading
from vision.reader.scales import live_scale, long_sides
from vision.reader.team_areas import TableFrame, TableSetup


class DetectorMissing(RuntimeError):
    """No card detector to run on frames: its runtime or its weights can't be loaded."""


class CardReader:
    """Reads tables. ``detector`` is anything with ``detect(frame_bgr) -> Detections``; by default
    the project's trained :class:`vision.reader.detector.CardDetector`. ``setup`` holds the table's team
    areas and perspective, if the players set them."""

    def __init__(self, detector=None, setup: TableSetup | None = None, weights: Path | None = None, facing=None):
        """``facing``: a :class:`~vision.reader.facing.FacingReader` that finds the table's middle and turn
        while the set-up has neither team areas nor a perspective, and otherwise tells which way the
        middle's cards lie (:func:`~vision.reader.facing.finds_to_face`: the turn card lies sideways); by
        default the shipped one with the trained detector, which reads sideways finds upright by it too;
        none with a detector given."""
        trained = detector is None
        if trained:
            facing = facing if facing is not None else shipped_facing()
            detector = trained_detector(weights, facing)
        self.detector = detector
        self._setup = setup or TableSetup()
        self.facing = facing
        self._table_facing = TableFacing(self._setup.towards_b)
        self._live = LiveDetection(self.detector)
        #: (set-up, table turn, frame size, the view measured with them)
        self._memory: tuple[TableSetup, TableTurn | None, tuple[int, int], ViewMemory] | None = None
        #: Finds under it only continue meld columns; ``None``: every find counts (a detector given
        #: with its own cut-off, until a threshold is set).
        self._threshold: float | None = None
        if trained:
            self.threshold = READING_THRESHOLD

    @property
    def setup(self) -> TableSetup:
        """The table's set-up: its team areas and perspective, or how players named the sides the
        cards' facing shows (:attr:`~vision.reader.team_areas.TableSetup.towards_b`)."""
        return self._setup

    @setup.setter
    def setup(self, setup: TableSetup) -> None:
        self._setup = setup
        self._table_facing.name_sides(setup.towards_b)

    @property
    def threshold(self) -> float | None:
        """The confidence a find needs to count on its own (``None`` for a detector without a
        cut-off). The detector runs lower, at :data:`~vision.reader.reading.COLUMN_SHARE` of it, for the
        weak finds that continue a meld column."""
        return self._threshold if self._threshold is not None else getattr(self.detector, "conf", None)

    @threshold.setter
    def threshold(self, value: float) -> None:
        if not 0 < value < 1:
            raise ValueError(f"a detection threshold lies between 0 and 1, not {value}")
        self._threshold = value
        read_at(self.detector, value)

    def read(self, frame_bgr: np.ndarray) -> TableReading:
        """The table a live frame shows, read in one pass at the scale the last readings' index sizes
        call for, the network reading the part of the frame their cards lie in and now and then the
        whole (:class:`LiveDetection`); while those are unknown, now and then as a still picture, to
        measure them. With how sharp each corner found looks (where it can be judged): each corner
        once, an index found twice by nested boxes judged as the one find the reading counts
        (:func:`~vision.reader.physical_cards.one_find_per_index`)."""
        return self._read_found(frame_bgr, self._live.detect(frame_bgr), live=True)

    def read_still(self, frame_bgr: np.ndarray) -> TableReading:
        """The table a still picture shows (a photo, a frozen frame), its corner indexes found
        whatever their size in it (:meth:`~vision.reader.detector.CardDetector.detect_still`)."""
        detect = getattr(self.detector, "detect_still", self.detector.detect)
        return self._read_found(frame_bgr, detect(frame_bgr), live=False)

    def read_photo(self, picture_bgr: np.ndarray) -> TableReading:
        """A photo of a table read as a still picture (:meth:`read_still`) with this reader's networks
        and threshold but nothing of the view it has measured: a phone photo is another camera, and
        the live view goes on as it was. No table areas: the photo's sides come from the cards'
        facing, or its halves."""
        other = CardReader(detector=self.detector, facing=self.facing)
        other._threshold = self._threshold
        return other.read_still(picture_bgr)

    def _read_found(self, frame_bgr: np.ndarray, detections: Detections, live: bool) -> TableReading:
        height, width = frame_bgr.shape[:2]
        found = one_find_per_index(detections)
        sure = found[found.confidence >= (self._threshold or 0.0)]
        if live:
            self._live.saw(sure)
        sharpness = index_sharpness(frame_bgr, sure.xyxy)
        if self.facing is not None:  # a table set up gives its own turn: its finds tell the turn card alone
            found = face_finds(self.facing, frame_bgr, found, self._threshold or 0.0,
                               None if self.setup.set_up else self._table_facing,
                               among=finds_to_face(self.setup, (width, height), found))
        reading = self.read_detections(found, (width, height))
        return replace(reading, index_sharpness=tuple(round(float(s), 3) for s in sharpness[np.isfinite(sharpness)]))

    @property
    def table_turn(self) -> TableTurn | None:
        """The table's middle and turn the cards' facing gave, while it is in use (no set-up)."""
        return self._table_facing.turn if self._facing_in_use else None

    @property
    def _facing_in_use(self) -> bool:
        return self.facing is not None and not self.setup.set_up

    def new_view(self) -> None:
        """Forget the view measured so far: the next frame is of another video, or a photo."""
        self._memory = None
        self._table_facing = TableFacing(self.setup.towards_b)
        self._live = LiveDetection(self.detector)

    def new_hand(self) -> None:
        """Forget the last hand's turn card; the view measured so far still serves (one camera)."""
        if self._memory is not None:
            self._memory[3].new_hand()

    def read_detections(self, detections: Detections, image_size: tuple[int, int]) -> TableReading:
        """Successive frames are taken as one video's: the view measured on a frame that shows
        enough of it serves a frame that shows too little (see :class:`ViewMemory`), until the set-up,
        the table's turn by the cards' facing or the frame size changes."""
        turn = self.table_turn
        if (self._memory is None or self._memory[0] is not self.setup or self._memory[1] is not turn
                or self._memory[2] != image_size):
            self._memory = (self.setup, turn, image_size, ViewMemory())
        return read_table(detections, image_size, self.setup, self._memory[3], self._threshold or 0.0, turn)


class LiveDetection:
    """A live video's corner indexes, each frame read in one pass at the scale the index sizes of the
    last readings call for (:func:`vision.reader.scales.live_scale`): the median longer side of the sure
    finds of the last :data:`READINGS` readings that found at least :data:`ENOUGH`. While that size is
    unknown (a new view, or the last readings found too few), every :data:`PROBE_EVERY`-th frame is
    read as a still picture (``detect_still``), which finds indexes of every size. A detector without
    ``detect_still`` (a stand-in) reads every frame its own way.

    Once the cards' place is known, the network reads only the part of the frame they lie in
    (:meth:`region`): the box round the sure finds of the last :data:`READINGS` readings, widened by
    :data:`MARGIN` index sizes each way for cards laid beside them. Every :data:`WHOLE_EVERY`-th
    frame, and whenever that part is most of the frame anyway (:data:`MOST_OF_THE_FRAME`), the whole
    frame is read, so cards laid anywhere else are found within that many readings; so is the frame
    after one whose sure finds reach within :data:`NEAR_THE_EDGE` index sizes of the part's edge
    (a meld laid across it, read in part). A frame whose picture changed outside the part since the
    last reading (:func:`changed_outside`: an arm reaching in, a card laid far from the others) is
    read whole, and so is the one after it, so such a card is found as soon as it shows. The cards
    and the table around them usually fill a fraction of a webcam's frame, and the network's time
    goes with the pixels it reads."""

    READINGS = 5
    ENOUGH = 3
    PROBE_EVERY = 10
    #: How far beyond the sure finds the part read reaches, in their median index sizes (longer
    #: sides; a card is about six of them tall): more than a card's height, so a card laid
    #: beside a meld or a pile is inside it.
    MARGIN = 8.0
    WHOLE_EVERY = 4
    #: A part at least this share of the frame's pixels: the whole frame is read.
    MOST_OF_THE_FRAME = 0.8
    NEAR_THE_EDGE = 3.0

    def __init__(self, detector) -> None:
        self.detector = detector
        self._sides: deque[np.ndarray] = deque(maxlen=self.READINGS)
        self._extents: deque[np.ndarray] = deque(maxlen=self.READINGS)
        self._misses = 0
        self._frames = 0
        self._read: tuple[int, int, int, int] | None = None  #: the part the last frame was read in
        self._shape: tuple[int, ...] = (0, 0)  #: the frames' height and width
        self._whole_next = False
        self._thumbnail: np.ndarray | None = None  #: the last frame detected, in grey cells (changed_outside)

    def detect(self, frame_bgr: np.ndarray) -> Detections:
        self._read = None
        if frame_bgr.shape[:2] != self._shape:  # another camera mode: its sizes and places are new
            self._sides.clear()
            self._extents.clear()
            self._shape = frame_bgr.shape[:2]
            self._thumbnail = None
        if not hasattr(self.detector, "detect_still"):
            return self.detector.detect(frame_bgr)
        before, self._thumbnail = self._thumbnail, thumbnail(frame_bgr)
        if not self._sides and self._misses % self.PROBE_EVERY == 0:
            return self.detector.detect_still(frame_bgr)
        scale = live_scale(self.median, self.detector.default_scale(frame_bgr.shape[1]))
        self._frames += 1
        # A frame read at two views (a narrow one at its default views) is read whole: their finds are joined.
        one_view = getattr(self.detector, "one_view", lambda width, scale: width)(frame_bgr.shape[1], scale)
        whole = self._whole_next or self._frames % self.WHOLE_EVERY == 0 or one_view is None
        self._read = None if whole else self.region(frame_bgr.shape[:2])
        self._whole_next = False
        if (self._read is not None and before is not None and self._thumbnail is not None
                and changed_outside(before, self._thumbnail, self._read, frame_bgr.shape[:2])):
            self._read, self._whole_next = None, True
        return self.detector.detect(frame_bgr, scale, self._read)

    def region(self, frame_shape: tuple[int, int]) -> tuple[int, int, int, int] | None:
        """(x0, y0, x1, y1): the part of a frame (``frame_shape``: its height and width) the cards of
        the last readings lie in, with the margin; ``None`` (the whole frame) where they are not
        known or fill most of it (see the class)."""
        if not self._extents:  # (known extents come with known index sizes: saw() takes both)
            return None
        height, width = frame_shape
        margin = self.MARGIN * float(self.median)
        extents = np.array(self._extents)
        x0, y0 = np.maximum(extents[:, :2].min(axis=0) - margin, 0)
        x1, y1 = np.minimum(extents[:, 2:].max(axis=0) + margin, (width, height))
        if (x1 - x0) * (y1 - y0) >= self.MOST_OF_THE_FRAME * width * height:
            return None
        return int(x0), int(y0), int(math.ceil(x1)), int(math.ceil(y1))

    def saw(self, sure: Detections) -> None:
        """Take the sure finds of the reading of the last frame detected."""
        if self._read is not None and len(sure) and self._sides:
            x0, y0, x1, y1 = self._read
            near = self.NEAR_THE_EDGE * float(self.median)
            reach = np.r_[sure.xyxy[:, :2].min(axis=0) - (x0, y0), (x1, y1) - sure.xyxy[:, 2:].max(axis=0)]
            height, width = self._shape  # a part's edge on the frame's own leaves nothing out
            inner = np.array([x0 > 0, y0 > 0, x1 < width, y1 < height])
            self._whole_next = bool(((reach < near) & inner).any())
        if len(sure) >= self.ENOUGH:
            self._sides.append(long_sides(sure))
            self._extents.append(np.r_[sure.xyxy[:, :2].min(axis=0), sure.xyxy[:, 2:].max(axis=0)])
            self._misses = 0
        else:
            self._misses += 1
            self._extents.clear()  # too few to say where the cards lie: the whole frame until they show
            if self._misses >= self.READINGS:
                self._sides.clear()

    @property
    def median(self) -> float | None:
        """The median longer side of the indexes of the last readings (frame pixels), if known."""
        return float(np.median(np.concatenate(self._sides))) if self._sides else None


#: A frame is compared with the last one read in cells of about this many pixels across its width
#: (:func:`thumbnail`): a 1080p frame's cells are 12 px, a far table's card spans several of them.
THUMBNAIL_WIDTH = 160
#: A cell changed: its mean grey level moved by more than this once the whole frame's move is taken
#: out (the camera's exposure or the room's light scaling every level alike is no change)...
CELL_CHANGE = 24.0
#: ...and a change outside the part read: at least this many such cells (one is a flicker).
CHANGED_CELLS = 2


def thumbnail(frame_bgr: np.ndarray) -> np.ndarray | None:
    """The frame's grey levels averaged over cells, :data:`THUMBNAIL_WIDTH` across (float32; at most
    one a pixel); ``None`` for what is no BGR picture, which the detector then names."""
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3 or not frame_bgr.size:
        return None
    height, width = frame_bgr.shape[:2]
    cells = (min(THUMBNAIL_WIDTH, width), min(max(round(THUMBNAIL_WIDTH * height / width), 1), height))
    small = cv2.resize(frame_bgr, cells, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY).astype(np.float32)


def changed_outside(before: np.ndarray, now: np.ndarray, part: tuple[int, int, int, int],
                    frame_shape: tuple[int, int]) -> bool:
    """Whether two thumbnails (:func:`thumbnail`) of frames of ``frame_shape`` (height, width) differ
    outside ``part`` (x0, y0, x1, y1, frame pixels): at least :data:`CHANGED_CELLS` cells whose centre
    lies outside it moved by :data:`CELL_CHANGE` grey levels, ``before`` first scaled by the frames'
    median ratio of levels (an exposure step) and the median move left taken out."""
    gain = float(np.median(now)) / max(float(np.median(before)), 1.0)
    move = now - before * gain
    changed = np.abs(move - np.median(move)) > CELL_CHANGE
    rows, columns = now.shape
    height, width = frame_shape
    x = (np.arange(columns) + 0.5) * width / columns
    y = (np.arange(rows) + 0.5) * height / rows
    x0, y0, x1, y1 = part
    inside = ((y >= y0) & (y < y1))[:, None] & ((x >= x0) & (x < x1))[None, :]
    return int((changed & ~inside).sum()) >= CHANGED_CELLS


def read_table(detections: Detections, image_size: tuple[int, int], setup: TableSetup | None = None,
               memory: ViewMemory | None = None, threshold: float = 0.0, turn: TableTurn | None = None) -> TableReading:
    """The table a frame's corner-index detections show (``memory``: the view as measured in the
    same video's earlier frames, see :class:`ViewMemory`). Finds under ``threshold`` are weak: they
    only continue meld columns (:data:`vision.reader.reading.COLUMN_SHARE`). An index found twice, one box
    inside the other, counts once (:func:`~vision.reader.physical_cards.one_find_per_index`). ``turn``: the
    table's middle and turn by the cards' facing (:mod:`vision.reader.facing`), for a table not set up."""
    frame = TableFrame(setup or TableSetup(), image_size, turn)
    detections = one_find_per_index(detections)
    reading = group_cards(see_cards(detections, frame, memory, threshold), image_size, frame.has_areas)
    if memory is not None and reading.turn_card is not None:
        memory.saw_turn_card(reading.turn_card.code, reading.turn_card.centre)
    sure = detections.xyxy[detections.confidence >= threshold]
    heights = sure[:, 3] - sure[:, 1]
    sides = towards_b = None
    if turn is not None and not frame.set_up:
        sides = {team: tuple((round(float(x), 1), round(float(y), 1)) for x, y in outline)
                 for team, outline in frame.area_outlines(image_size).items() if len(outline)}
        towards_b = (round(float(turn.towards_b[0]), 4), round(float(turn.towards_b[1]), 4))
    return replace(reading, index_heights=tuple(round(float(h), 1) for h in heights), team_sides=sides,
                   towards_b=towards_b)


def read_at(detector, threshold: float, share: float = COLUMN_SHARE) -> None:
    """Set a detector (one with ``conf``, and ``reread_from`` for a two-stage one) to read for a
    table reader whose threshold is ``threshold``: it keeps finds down to ``share`` of it, the weak
    finds that continue meld columns, and its classifier reads those once."""
    if hasattr(detector, "conf"):
        detector.conf = threshold * share
    if hasattr(detector, "reread_from"):
        detector.reread_from = threshold


def shipped_facing():
    """The shipped facing network (:data:`~vision.reader.facing.DEFAULT_FACING_WEIGHTS`); ``None`` where the
    file is missing (the reader then takes the picture's lower half for team A)."""
    from vision.reader.facing import DEFAULT_FACING_WEIGHTS, FacingReader
    from vision.reader.weights import WeightsError

    if not DEFAULT_FACING_WEIGHTS.is_file():
        return None
    try:
        return FacingReader(DEFAULT_FACING_WEIGHTS)
    except WeightsError as error:
        raise DetectorMissing(f"the facing network {DEFAULT_FACING_WEIGHTS} cannot be loaded ({error}); "
                              "rebuild it: python -m vision facing (see models/MODEL_CARD.md)") from None


def trained_detector(weights: Path | None, facing=None):
    """The shipped detector (or the one at ``weights``) as the table reader runs it: finds named by
    score, kept down to the reader's weak threshold; its classifier reads each sideways find turned
    upright by ``facing`` (a :class:`~vision.reader.facing.FacingReader`), as it lies without one."""
    try:
        from vision.reader.detector import CardDetector
    except ImportError as error:
        raise DetectorMissing(f"the card detector's runtime is not installed ({error}); "
                              "run ./run.sh app again to install it") from None
    unloadable: tuple[type[Exception], ...] = (OSError,)
    try:  # the detector's own error for missing or damaged weights
        from vision.reader.weights import WeightsError
        unloadable += (WeightsError,)
    except ImportError:
        pass
    try:
        # Whole tables read best from finds judged by what the score needs, kept down to a lower
        # threshold than a single corner's (READING_THRESHOLD's measurements), and lower still for
        # the weak finds that continue meld columns (the reader sets both: read_at).
        # The facing network turns sideways finds upright for the classifier (and the reader shares it).
        return CardDetector(weights, naming="score", facing=facing)
    except unloadable as error:
        raise DetectorMissing(f"the card detector's weights cannot be loaded: {error}") from None
