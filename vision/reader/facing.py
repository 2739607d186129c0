"""Which way each card faces, and from that where the two teams sit, with no set-up.

Players lay their melds, threes and discards the right way up for themselves: a card's top points
away from the partners who laid it, across the table towards the other team (the synthetic tables
lay them so: :func:`vision.synth.layout.lay_out` turns team B's side half round). So without team
areas the reader still finds the teams, wherever the camera stands: each index tells which way its
card's top points; over the table those directions fall in two opposite bunches, one per team, and
their axis is the line from one team to the other.

* :class:`FacingReader` names, for each find, the direction its index's top points in the picture
  (a small :class:`~vision.reader.index_net.IndexNet` of :data:`BINS` direction classes, trained by
  :func:`vision.model.index_training.train_facing` on index contexts of the training decks' scenes,
  :mod:`vision.model.facing_training`).
* :func:`table_turn` turns those directions, with where the finds lie, into a :class:`TableTurn`:
  the table's middle and the turn that puts team A's side below it. :class:`~vision.reader.team_areas.TableFrame`
  turns the picture so, and the reader then reads it as it reads a camera at team A's side (the
  middle line the sparsest row, each side's meld columns straightened).
* :class:`TableFacing` gathers the finds of many readings (the table fills as the hand goes on) and
  gives the turn once enough cards agree.

Which of the two teams is A is a convention when nobody set the areas up: the team whose side is
nearer the bottom of the picture when the reader first finds the turn (the side nearer the camera),
and the team on that side from then on.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from vision.reader.detections import Detections
from vision.reader.index_classifier import CROP, window_crops
from vision.reader.team_areas import MIDDLE, TableFrame, TableSetup
from vision.reader.weights import shipped_file

#: Direction classes the facing network tells apart: the index's top points into one of 24 sectors
#: of 15°, the first centred on the picture's +x axis, counted towards +y (the picture's down).
BINS = 24
#: The window the facing network reads each find through (times its box's longer side), as the
#: classifier's first reading window.
FACING_WINDOW = 1.15
#: The shipped facing network.
DEFAULT_FACING_WEIGHTS = shipped_file("facing.onnx")


def bin_angles() -> np.ndarray:
    """The direction of each class, radians in picture coordinates (y down)."""
    return np.arange(BINS) * (2 * np.pi / BINS)


def direction_bin(up: np.ndarray) -> np.ndarray:
    """The class of each (n, 2) direction in picture coordinates."""
    angle = np.arctan2(up[..., 1], up[..., 0])
    return np.round(angle / (2 * np.pi / BINS)).astype(int) % BINS


class FacingReader:
    """Tells which way the index of each find points: its top's direction in the picture.

    ``weights``: a facing save (``.pt``, torch) or its ONNX export (ONNX Runtime).

    It remembers the last picture's answers, box by box: the detector asks about every find to read
    it upright (:func:`upright_turns`), then the table reader about the sure ones of the same picture,
    which then costs nothing."""

    def __init__(self, weights: Path = DEFAULT_FACING_WEIGHTS, threads: int | None = None) -> None:
        from vision.reader.index_classifier import IndexClassifier

        self.net = IndexClassifier(weights, threads=threads, classes=(BINS,))
        #: The last picture asked about (the same array object), and its answers by box.
        self._picture: np.ndarray | None = None
        self._answers: dict[bytes, tuple[np.ndarray, float]] = {}

    def facing(self, frame_bgr: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For (n, 4) boxes: (n, 2) unit directions of each index's top, and (n,) how sure the network
        is of each (the length of its probabilities' mean direction, 0 to 1)."""
        boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
        if not len(boxes):
            return np.zeros((0, 2)), np.zeros(0)
        if frame_bgr is not self._picture:
            self._picture, self._answers = frame_bgr, {}
        keys = [box.tobytes() for box in boxes]
        new = [k for k, key in enumerate(keys) if key not in self._answers]
        if new:
            crops = window_crops(frame_bgr, boxes[new], CROP, FACING_WINDOW)
            p = self.net.probabilities(crops, both_ways=False)
            angles = bin_angles()
            mean = p @ np.c_[np.cos(angles), np.sin(angles)]
            length = np.linalg.norm(mean, axis=1)
            for k, up, sure in zip(new, mean / np.maximum(length, 1e-9)[:, None], length):
                self._answers[keys[k]] = (up, float(sure))
        answers = [self._answers[key] for key in keys]
        return np.array([up for up, _ in answers]), np.array([sure for _, sure in answers])


@dataclass(frozen=True)
class TableTurn:
    """Where the table's middle is in the picture and which way team A faces."""

    centre: np.ndarray  #: (2,) picture pixels: the middle of the table
    towards_b: np.ndarray  #: (2,) unit vector from team A's side to team B's, in the picture

    @property
    def turn(self) -> float:
        """The angle (radians) that turns the picture so team B's side is up and A's down."""
        return float(np.arctan2(-self.towards_b[0], -self.towards_b[1]))


def table_turn(points: np.ndarray, ups: np.ndarray, towards_b: np.ndarray | None = None) -> TableTurn | None:
    """The table's middle and turn from finds at ``points`` (n, 2) whose tops point along ``ups`` (n, 2).

    The axis is the mean of the directions with their angles doubled, so a card and one turned half
    round pull the same way. Cards pointing along the axis (towards B) are A's, the others B's; the
    middle along the axis is halfway across the band where a line best separates the two (within 2 % of
    the finds of the fewest misplaced), and across it the median of the finds. Team A is the team whose
    side is nearer the picture's bottom, or, given the direction ``towards_b`` an earlier estimate
    found or the players named (:meth:`TableFacing.name_sides`), the team on the same side as then
    (a camera at the side, between the teams, leaves "nearer the bottom" to a few pixels, and the
    teams must not swap names mid-game). ``None`` without finds."""
    points, ups = np.asarray(points, float).reshape(-1, 2), np.asarray(ups, float).reshape(-1, 2)
    if not len(points):
        return None
    doubled = (np.c_[ups[:, 0] ** 2 - ups[:, 1] ** 2, 2 * ups[:, 0] * ups[:, 1]]).sum(axis=0)
    axis = np.arctan2(doubled[1], doubled[0]) / 2
    towards_b = _named_way(np.array([np.cos(axis), np.sin(axis)]), towards_b)
    a_cards = ups @ towards_b > 0
    along = points @ towards_b
    order = np.argsort(along)
    ranked = along[order]
    lines = np.r_[ranked[0] - 1, (ranked[:-1] + ranked[1:]) / 2, ranked[-1] + 1]  # line k has k finds before it
    a_before = np.r_[0, np.cumsum(a_cards[order])]  # after line k: A's finds before it
    misplaced = (a_before[-1] - a_before) + (np.arange(len(lines)) - a_before)  # A's beyond it, B's before it
    good = lines[misplaced <= misplaced.min() + 0.02 * len(points)]
    across = np.array([-towards_b[1], towards_b[0]])
    middle = (good.min() + good.max()) / 2
    centre = middle * towards_b + float(np.median(points @ across)) * across
    return TableTurn(centre, towards_b)


def _named_way(axis: np.ndarray, towards_b: np.ndarray | None) -> np.ndarray:
    """The table's axis (a unit vector, either way along it) pointing from team A's side to team
    B's: the way nearer ``towards_b``, else up the picture (team A's side nearer its bottom)."""
    return -axis if ((axis @ towards_b < 0) if towards_b is not None else (axis[1] > 0)) else axis


class TableFacing:
    """The table's middle and turn as the finds of one view show them, gathered reading after reading
    (the table fills as the hand goes on): a turn once :attr:`ENOUGH` sure finds agree, kept until a
    later estimate turns more than :attr:`MOVED_DEGREES` or moves the middle more than
    :attr:`MOVED_INDEXES` index heights (the reader's view memory starts again with each new turn,
    so it should not change with every reading)."""

    #: The facing network's sureness a find needs to count.
    SURE = 0.6
    #: Sure finds before a turn is given.
    ENOUGH = 20
    #: The newest finds kept (the oldest go first: cards picked up, a camera moved).
    KEEP = 4000
    MOVED_DEGREES = 10.0
    MOVED_INDEXES = 4.0

    def __init__(self, towards_b: np.ndarray | None = None) -> None:
        """``towards_b``: the way from team A's side to team B's in the picture, as players named the
        sides (:attr:`~vision.reader.team_areas.TableSetup.towards_b`); ``None``: team A's side is the one
        nearer the picture's bottom."""
        self._finds: deque[tuple[float, float, float, float, float]] = deque(maxlen=self.KEEP)
        self.turn: TableTurn | None = None  #: the estimate in force (the same object until it moves)
        self._named = None if towards_b is None else np.asarray(towards_b, np.float64)

    def name_sides(self, towards_b: np.ndarray | None) -> None:
        """Name the sides the players' way from now on (``towards_b`` as for the constructor): the
        turn in force, if any, is replaced by one naming its sides so."""
        self._named = None if towards_b is None else np.asarray(towards_b, np.float64)
        if self.turn is not None:
            self.turn = TableTurn(self.turn.centre, _named_way(self.turn.towards_b, self._named))

    def __len__(self) -> int:
        return len(self._finds)

    def add(self, boxes: np.ndarray, ups: np.ndarray, sureness: np.ndarray) -> TableTurn | None:
        """Gather a reading's finds (their boxes, directions and the network's sureness) and return the
        turn in force: ``None`` until there are enough."""
        boxes = np.asarray(boxes, float).reshape(-1, 4)
        for box, up, sure in zip(boxes, np.asarray(ups, float).reshape(-1, 2), np.asarray(sureness, float)):
            if sure >= self.SURE:
                self._finds.append(((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, up[0], up[1], box[3] - box[1]))
        if len(self._finds) < self.ENOUGH:
            return self.turn
        finds = np.array(self._finds)
        named = self._named if self.turn is None else self.turn.towards_b
        estimate = table_turn(finds[:, :2], finds[:, 2:4], towards_b=named)
        if self.turn is None or self._moved(estimate, float(np.median(finds[:, 4]))):
            self.turn = estimate
        return self.turn

    def _moved(self, estimate: TableTurn, index_height: float) -> bool:
        turned = abs((np.degrees(estimate.turn - self.turn.turn) + 180) % 360 - 180)
        shifted = float(np.linalg.norm(estimate.centre - self.turn.centre))
        return turned > self.MOVED_DEGREES or shifted > self.MOVED_INDEXES * index_height


#: A find is turned upright only where its top points at least this many degrees off the picture's
#: up-down axis, nearer sideways than upright or upside down. Nearer that axis the classifier reads it
#: as it lies (it reads each crop both ways up); turning those too by the network's estimate misread
#: more small close-up indexes than it mended (docs/experiments.md, "The classifier").
SIDEWAYS_FROM = 45.0


#: A find whose box is this many times taller than wide lies within about 30° of upright or upside
#: down (a corner index, rank over suit, is about 0.6 times as wide as tall): :func:`upright_turns`
#: would leave it as it lies, so the facing network need not read it for the classifier.
TALL = 1.2


def may_lie_sideways(boxes: np.ndarray) -> np.ndarray:
    """(n,) booleans: the (n, 4) boxes not clearly taller than wide (:data:`TALL`), whose index may lie
    sideways."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    return boxes[:, 3] - boxes[:, 1] < TALL * (boxes[:, 2] - boxes[:, 0])


def upright_turns(ups: np.ndarray, sureness: np.ndarray) -> np.ndarray:
    """(n,) degrees (anticlockwise) that stand each index upright: its top, pointing along ``ups``
    ((n, 2) unit directions in the picture, y down), turned to point up; 0 where the index lies
    nearer upright or upside down (:data:`SIDEWAYS_FROM`) or the facing network is unsure of it
    (under :attr:`TableFacing.SURE`). The classifier reads each find so
    (:meth:`vision.reader.detector.CardDetector.read`): it learnt indexes upright or upside down,
    turned 15° at most, and reads a sideways one worse."""
    ups = np.asarray(ups, np.float64).reshape(-1, 2)
    angles = np.degrees(np.arctan2(ups[:, 1], ups[:, 0])) + 90.0
    off_axis = np.abs((angles + 90.0) % 180.0 - 90.0)
    return np.where((np.asarray(sureness) >= TableFacing.SURE) & (off_axis >= SIDEWAYS_FROM), angles, 0.0)


def face_finds(reader: FacingReader, picture: np.ndarray | None, found: Detections, threshold: float,
               gathered: TableFacing | None = None, among: np.ndarray | None = None) -> Detections:
    """The finds at least ``threshold`` sure (of those ``among`` marks, if given) read by the facing
    network: their directions and sureness gathered into ``gathered`` (a table nobody set up, whose
    turn they give), and ``found`` returned with each such find's direction
    (:attr:`~vision.reader.detections.Detections.up`; zero where the network was unsure or the find weak
    or not asked about), for the reader to tell the sideways turn card
    (:func:`vision.reader.grouping._stock_on_right`)."""
    wanted = found.confidence >= threshold
    if among is not None:
        wanted &= np.asarray(among, bool)
    sure = np.flatnonzero(wanted)
    ups, sureness = reader.facing(picture, found.xyxy[sure])
    if gathered is not None:
        gathered.add(found.xyxy[sure], ups, sureness)
    up = np.zeros((len(found), 2))
    up[sure] = np.where((np.asarray(sureness) >= TableFacing.SURE)[:, None], np.asarray(ups).reshape(-1, 2), 0.0)
    return replace(found, up=up)


def directions_of(found: Detections, among: np.ndarray) -> Detections:
    """``found`` with the directions (:attr:`~vision.reader.detections.Detections.up`) of the finds
    ``among`` marks alone, the others' zero: what :func:`face_finds` with ``among`` gives, from
    directions read for every find."""
    return replace(found, up=np.where(np.asarray(among, bool)[:, None], found.up, 0.0))


def finds_to_face(setup: TableSetup, image_size: tuple[int, int], found: Detections) -> np.ndarray:
    """Which finds the reader asks the facing network about: on a table nobody set up, all (their
    directions give the table's middle and turn); with team areas, those in neither area, the
    middle's (the discard pile and the turn card, which lies sideways: README, "Where the stock
    lies"); with the table's perspective alone, all again (the middle is not known before the cards
    are grouped)."""
    if setup.areas is None:
        return np.ones(len(found), bool)
    return TableFrame(setup, image_size).sides(found.centers) == MIDDLE
