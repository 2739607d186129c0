"""Physical cards from corner-index detections: the indexes of one card become one card.

A card shows its index in two corners (top left and bottom right, the second turned half round) or
in all four. Read in the team's upright frame (:class:`~vision.reader.team_areas.TableFrame`, team B's side
turned half round), the top-left index of a card lies up and left of its bottom-right one, at the
card's index diagonal. The diagonal is measured on the frame itself, as an offset same-class pairs
agree on that the deck's own corner pairs (at the diagonal, down the side) back most (one per deck
design in view; per side when the view is not top-down, as the far side looks smaller), with a
prior from the index sizes when no pair fits.

Two detections of one class are one card when they lie at one of the card's corner-to-corner
offsets (diagonal, across the top, down the side), are about one size (decks print indexes in
different sizes) and no other card's index lies between them: in a column of cards the next card
covers the previous one's lower corners, so two identical cards of one meld (one from each deck)
always have another card between them and stay two cards; in a fan, the next cards' indexes lie
between twins side by side. A fanned card is turned, so its indexes pair more loosely. Without a
set-up the sides are split at the table's middle line, found as the sparsest row between the
teams' indexes, and each side is turned so its meld columns run straight down.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np

from companion.cards import Card
from vision.reader.classes import CLASS_NAMES
from vision.reader.detections import Detections, inside_share, union_box
from vision.reader.team_areas import MIDDLE, TableFrame

#: The view of a video's table is the median of its measurements over this many recent frames.
VIEW_FRAMES = 25
#: Degrees the view's turn of a side may move before the index diagonals measured in the frame
#: turned as before are forgotten.
TURN_MOVED = 4.0
#: The turn card's place is remembered once read in this many of the recent frames; an index of its
#: code within the second number of index sizes of it is the turn card (its place is the middle of
#: the indexes it was read by: the two at its end lie about 1.15 index sizes either side of it, its
#: twin's on the discard pile about 2.4 away).
MIN_TURN_CARD_READS = 3
TURN_CARD_NEAR = 1.25
#: An index box this many times as wide as tall lies sideways (the turn card's, 28 × 15 pixels at
#: 1080p, where the discard pile's stand 19 × 29; at 540p both are about 11 × 10).
SIDEWAYS_BOX = 1.3
#: Indexes within this many card heights of the table's middle line are the middle's (the discard
#: pile and turn card): a team's nearest, the tops of its meld columns, lie about 0.6 heights out.
MIDDLE_HALF_BAND = 0.5
#: Two indexes of one code either side of a middle line guessed without a set-up are one card's
#: (the discard pile's top card, lying across the line) when they lie this many index diagonals
#: apart (:func:`_cards_across_the_line`): about 0.9–1.0 for a card lying across the line, half
#: that for two cards of a meld.
ACROSS_THE_LINE = (0.75, 1.25)
#: Index diagonal (top-left index centre to bottom-right index centre) in index sizes (square root
#: of the index box's area), when a frame shows no card with both indexes: typical of the decks.
PRIOR_DIAGONAL = np.array([3.0, 4.2])
#: A pair of indexes matches a corner-to-corner offset when its length is within this share of it
#: and its direction within this many degrees; loosely (any direction: a fanned card is turned)
#: for indexes no strict pair took.
STRICT = (0.15, 15.0)
LOOSE = (0.25, 60.0)
#: The slope of a card's index diagonal, in degrees: the decks' lie between 48° and 58° seen from
#: above; a tilted camera flattens it when the table's perspective is not set.
DIAGONAL_SLOPE = {"top-down": (40.0, 65.0), "camera": (30.0, 70.0)}
#: Without a set-up, each team holds at least this share of the indexes in view.
MIN_TEAM_SHARE = 1 / 6
#: At most this many index diagonals (deck designs) in one frame, each backed by this many pairs.
MAX_DESIGNS = 3
MIN_SUPPORT = 2
#: Offsets that pairs agree on, weighed as possible index diagonals.
MAX_CANDIDATES = 6
#: A pair of indexes lies closely at a corner-to-corner offset: length and direction (degrees).
TIGHT = (0.06, 6.0)
#: Deck designs' index diagonals differ in height, but in width by at most this share.
DESIGN_WIDTHS = 0.15
#: Down a card's side, an index of its meld within this share of the way from either end is the
#: next fanned card's, turned about the same point.
TURNED_ENDS = 0.2
#: Across a card, the next cards of a fan show their indexes within this many index diagonals of
#: the card's top edge (they rise towards the middle).
FANNED_BAND = 0.18
#: The indexes of one card are one size: two indexes more than a factor apart in size are two
#: decks' (decks print theirs up to 2.5 times as big as others). The factor lies in this range,
#: set by how much the boxes of the frame's likely cards (same-class pairs at a corner-to-corner
#: offset, strictly) differ in size: some 10% from a detector, far less from labelled boxes, which lets the
#: twins of two decks whose indexes differ by 1.2 times or more stay two cards.
SAME_DECK_SIZES = (1.2, 1.45)
#: The factor is this many times the median size difference (logarithm of the ratio) of those
#: pairs, from at least this many pairs (about four standard deviations of a normal spread).
SIZE_SPREADS = 6.0
MIN_SIZE_PAIRS = 8
#: Two indexes of one card never have another card's index on the way between them, within this
#: share of the index diagonal.
BETWEEN_MARGIN = 0.12
#: A card seen at four corners: its diagonals' middles as near as the first share of the longer;
#: its index rectangle between these many times as tall as wide (the decks' lie about 1.4 to 1.5).
FOUR_CORNERS = (0.1, (1.15, 2.0))
#: ... and its diagonals as long as each other within this share of the longer: a card the camera
#: sees obliquely is a skewed rectangle in the side's upright frame, a turn and no more, whose
#: diagonals differ (by a sixth for a card at a meld's end seen from a low camera, whose two
#: diagonals would otherwise read as two cards).
FOUR_CORNERS_LENGTHS = 0.3
#: Ranks that read as each other on a card's bottom-right corner: a reader blind to which way up an
#: index lies (the classifier reads each both ways up) takes a 6 printed upright there for a turned
#: 9, and a 9 for a 6. Some decks print the bottom index upright (the held-out kde-ancient-
#: egyptians), and their bottom-right 6s and 9s all read as each other; top-left ones read right.
TURNED_TWINS = {"6": "9", "9": "6"}
#: A find lying at least this share inside a surer find (of its box's area, or the other's where
#: that is the smaller) is that find's index found again, which the detector's overlap test (IoU 0.5)
#: lets through when the boxes differ in size: :func:`one_find_per_index`.
NESTED = 0.8
#: How long a step down a meld column may be, in index sizes (the square root of an index box's area
#: in the frame), for :func:`_column_turn`. From a low camera the hand-drawn areas' frame shortens
#: the steps below one size (to about 0.9), so the shortest is 0.6; a shorter upper end reads still
#: tables without a set-up a little worse.
COLUMN_STEPS = (0.6, 4.0)
#: The most a side's frame is turned (degrees) to make its meld columns run straight down.
COLUMN_TURN_LIMIT = 30.0


@dataclass(frozen=True)
class SeenCard:
    """One physical card, from one to four of its corner indexes."""

    code: str
    detections: tuple[int, ...]  #: positions in the frame's :class:`Detections`
    confidence: float
    box: tuple[float, float, float, float]  #: union of its index boxes, image pixels
    side: str  #: the team side of the frame it lies on ("A" or "B")
    top_left: tuple[float, float]  #: its top-left index in the side's upright frame
    centre: tuple[float, float]  #: estimated card centre in the side's upright frame
    index_y: float  #: mean distance of its indexes from the table's middle line, upright frame
    index_size: float = 0.0  #: mean size of its indexes in the upright frame (0: unknown)
    #: mean height over width of its index boxes in the frame: rank over suit stands tall, so below
    #: 1 the card lies sideways (the turn card); 0: unknown
    index_aspect: float = 0.0
    index_boxes: tuple[tuple[float, float, float, float], ...] = ()  #: each index's box, image pixels
    index_xs: tuple[float, ...] = ()  #: each index's x in the side's upright frame
    #: seen only by finds less sure than the reading's threshold: kept only where it continues a
    #: meld column of its rank (:func:`vision.reader.grouping.group_cards`)
    weak: bool = False
    #: how far its indexes' tops turn from the table's axis in the reader's frame, as the facing
    #: network read them (:attr:`Detections.up`): 0 along the axis, as players lay their cards, 1
    #: across it, as the turn card lies; NaN where not read
    across: float = float("nan")


@dataclass
class ViewMemory:
    """The view of one video's table as measured over its recent frames: per side, the turn that
    straightens the meld columns and the index diagonals. A fixed camera sees the table alike in
    every frame, but a frame with an arm across the melds shows too few column steps and card
    corners to measure it, or measures it wrong; so each frame reads with the median of the recent
    measurements (the frame's own among them), and one that measures nothing with the last median.
    Recent frames only (:data:`VIEW_FRAMES`), so a camera nudged mid-hand is followed. It also keeps
    where the turn card was read: it lies still under the draw pile until it is drawn."""

    turns: dict[str, deque] = field(default_factory=dict)  #: side -> recent turns (degrees)
    diagonals: dict[str, deque] = field(default_factory=dict)  #: side -> recent index diagonal lists
    turn_cards: deque = field(default_factory=lambda: deque(maxlen=VIEW_FRAMES))  #: (code, image point) read

    def turn(self, side: str, measured: float | None) -> float | None:
        """The side's turn as recently measured. Where it moves by more than :data:`TURN_MOVED` (the
        first meld column shows a table turned askew, read unturned until then), the index diagonals
        measured before are forgotten: they were measured in a frame turned otherwise."""
        recent = self.turns.setdefault(side, deque(maxlen=VIEW_FRAMES))
        before = float(np.median(recent)) if recent else 0.0
        if measured is not None:
            recent.append(measured)
        now = float(np.median(recent)) if recent else None
        if abs((now or 0.0) - before) > TURN_MOVED:
            self.diagonals.pop(side, None)
        return now

    def saw_turn_card(self, code: str, point: np.ndarray) -> None:
        self.turn_cards.append((code, np.asarray(point, float)))

    def new_hand(self) -> None:
        """Forget the turn card: each hand has its own (seed 000, the deal: a card laid sideways
        across the bottom eight of the draw pile). The camera's view of the table is kept."""
        self.turn_cards.clear()

    def turn_card(self) -> tuple[str, np.ndarray] | None:
        """Where the turn card lies, as the recent readings that found it put it (the code read most
        often, at the median of its points), once read in a few frames: it never moves."""
        codes = Counter(code for code, _ in self.turn_cards)
        if not codes or codes.most_common(1)[0][1] < MIN_TURN_CARD_READS:
            return None
        code = codes.most_common(1)[0][0]
        return code, np.median([point for seen, point in self.turn_cards if seen == code], axis=0)

    def diagonal(self, side: str, measured: list[np.ndarray] | None) -> list[np.ndarray] | None:
        """The recent diagonal list whose first (the likeliest design's) is nearest their median."""
        recent = self.diagonals.setdefault(side, deque(maxlen=VIEW_FRAMES))
        if measured:
            recent.append(measured)
        if not recent:
            return None
        median = np.median([found[0] for found in recent], axis=0)
        return min(reversed(recent), key=lambda found: float(np.linalg.norm(found[0] - median)))


@dataclass(frozen=True)
class CardsSeen:
    """Every physical card of one frame, with the index diagonal each side was read with (without
    the table's perspective the far side looks smaller)."""

    cards: tuple[SeenCard, ...]
    diagonals: dict[str, tuple[float, float]]  #: side -> typical top-left to bottom-right index offset
    top_down: bool = False  #: read in the table's top-down view (its perspective set): one card size everywhere
    same_deck: float = SAME_DECK_SIZES[1]  #: how many times bigger one index of a card may be than another
    turn_card: str | None = None  #: the turn card's code as the video's earlier frames read it
    #: where those frames read it (image pixels; ``None``: unknown)
    turn_card_at: tuple[float, float] | None = None

    def one_deck(self, card: SeenCard, other: SeenCard) -> bool:
        """Whether two cards' indexes are about one size, as one deck prints them (unknown sizes are)."""
        small, big = sorted((card.index_size, other.index_size))
        return not small or big <= self.same_deck * small

    def card_size(self, side: str) -> tuple[float, float]:
        """Typical card width and height on a side, in upright frame units, from the diagonal's
        width: decks inset their indexes from the sides alike, far more than from top and bottom."""
        across = self.diagonals.get(side, next(iter(self.diagonals.values()), (1.0, 1.0)))[0]
        return across / 0.74, across / 0.52


def one_find_per_index(detections: Detections) -> Detections:
    """The finds less those lying :data:`NESTED` inside a surer one: the same corner index found
    twice, which would read as two cards a few pixels apart (a far side's index found by a box and
    a larger one around it, IoU 0.44, read as two cards of one column). Whatever each is read as:
    one corner index is one card, as the detector's overlap test takes it. Done here, not in the
    detector, whose evaluation scores the smaller box, often the labelled one (docs/experiments.md,
    "The table reader and tracker")."""
    if len(detections) < 2:
        return detections
    inside = inside_share(detections.xyxy, detections.xyxy) > NESTED
    order = np.argsort(-detections.confidence, kind="stable")
    keep = np.ones(len(detections), bool)
    for place, i in enumerate(order):
        if keep[i]:
            later = order[place + 1:]
            keep[later[inside[i, later]]] = False
    return detections[np.flatnonzero(keep)]


def see_cards(detections: Detections, frame: TableFrame, memory: ViewMemory | None = None,
              sure: float = 0.0) -> CardsSeen:
    """The physical cards of one frame. ``memory`` (one per video and table set-up) lends the view
    measured in earlier frames to a frame that shows too little of it, and learns from one that
    shows enough. Finds less confident than ``sure`` (weak finds, see
    :data:`vision.reader.reading.COLUMN_SHARE`) become cards too, marked weak, but measure nothing of the
    view: the middle line, the sides' turns and the index diagonals come from the sure finds."""
    if not len(detections):
        return CardsSeen((), {})
    weak = detections.confidence < sure
    if weak.all():
        return CardsSeen((), {})
    upright = frame.to_frame(detections.centers)
    sizes, aspects = _index_shapes(detections, frame)
    if frame.set_up:
        sides = frame.sides(detections.centers)
        if frame.setup.perspective is None and (sides == MIDDLE).any():
            # Hand-drawn areas say little of where the middle line runs (an area may hold only a
            # team's spread hands); the discard pile and the turn card lie on it.
            upright[:, 1] -= float(np.median(upright[sides == MIDDLE, 1]))
    else:
        upright[:, 1] -= _middle_line(upright[~weak, 1], sizes[~weak])
        sides = np.where(upright[:, 1] >= 0, "A", "B")
    upright[sides == "B"] *= -1  # team B's cards stand upright once its side is turned half round
    slopes = DIAGONAL_SLOPE["top-down" if frame.setup.perspective is not None else "camera"]
    if frame.setup.perspective is not None and not frame.has_areas:  # the middle line is known
        _middle_band(upright, sides, detections.class_id, sizes, slopes, ~weak)
    elif not frame.set_up:
        _cards_across_the_line(upright, sides, detections.class_id, sizes, slopes, ~weak)
    _corners_split_by_a_line(detections, upright, sides, ~weak, sizes, slopes)
    turns = []
    if frame.setup.perspective is None:
        for side in ("A", "B"):
            mine = sides == side
            measured = mine & ~weak
            turn = _column_turn(upright[measured], detections.class_id[measured], sizes[measured])
            if memory is not None:
                turn = memory.turn(side, turn)
            upright[mine] = _turned(upright[mine], turn)
            if turn is not None:
                turns.append(turn)
    across = _across(detections, frame, float(np.mean(turns)) if turns else None)
    cards, typical = [], {}
    # In the top-down view a card is one size everywhere, so every pair helps measure it; otherwise
    # each side is measured on its own (the far side looks smaller) when it shows enough pairs.
    # The middle's cards lie askew (the discard pile is a heap), so they measure nothing.
    laid = (sides != MIDDLE if ((sides != MIDDLE) & ~weak).any() else np.ones(len(sides), bool)) & ~weak
    shared = _diagonals(detections.class_id[laid], upright[laid], sizes[laid], sides[laid], slopes)
    same_deck = _same_deck_sizes(detections.class_id[laid], upright[laid], sizes[laid], sides[laid], shared[0])
    shared_backed = None  #: whether pairs back the shared diagonal (measured once, when a side lacks its own)
    for side in np.unique(sides):
        sure_mine = np.flatnonzero((sides == side) & ~weak)
        own = [] if frame.setup.perspective is not None or side == MIDDLE else \
            _diagonals(detections.class_id[sure_mine], upright[sure_mine], sizes[sure_mine], sides[sure_mine], slopes,
                       MIN_SUPPORT)
        diagonals = own or shared
        if memory is not None:
            if not own and shared_backed is None:
                shared_backed = bool(_diagonals(detections.class_id[laid], upright[laid], sizes[laid], sides[laid],
                                                slopes, MIN_SUPPORT))
            diagonals = memory.diagonal(str(side), diagonals if own or shared_backed else None) or diagonals
        typical[str(side)] = tuple(map(float, diagonals[0]))
        # The sure finds make cards as if alone; the weak ones make cards of their own, apart.
        for mine in (sure_mine, np.flatnonzero((sides == side) & weak)):
            if not len(mine):
                continue
            twins = _turned_twins(detections.class_id[mine], upright[mine], diagonals, sizes[mine], same_deck)
            if (twins != detections.class_id[mine]).any():
                class_id = detections.class_id.copy()
                class_id[mine] = twins
                detections = Detections(detections.xyxy, detections.confidence, class_id, detections.up)
            found = _pair(detections.class_id[mine], upright[mine], sides[mine], diagonals, sizes[mine], same_deck,
                          slopes)
            if mine is sure_mine and side != MIDDLE:  # the middle's heap lies askew: its own rules
                found = _join_faced_corners(found, _faced_corners(detections, upright, sides, mine,
                                                                  float(diagonals[0][0])))
            if side == MIDDLE and memory is not None and mine is sure_mine:
                found = _turn_card_apart(found, mine, detections, memory.turn_card())
            for members in found:
                cards.append(_card(detections, [int(mine[k]) for k in members], upright, sides, diagonals[0], sizes,
                                   aspects, weak, across))
    known = memory.turn_card() if memory is not None else None
    return CardsSeen(tuple(cards), typical, frame.setup.perspective is not None, same_deck,
                     known[0] if known else None, tuple(float(v) for v in known[1]) if known else None)


def _middle_band(upright: np.ndarray, sides: np.ndarray, class_id, sizes, slopes, measure: np.ndarray) -> None:
    """Give the indexes along the middle line to the middle (in place), turned back if they were
    team B's. The discard pile lies across the line, so its top card's two indexes fall on either
    side of it: split between the teams they would pair as two cards, a heap apart (which reads as
    a turn card beside the discard pile)."""
    height = float(_diagonals(class_id[measure], upright[measure], sizes[measure], sides[measure], slopes)[0][0]) / 0.52
    near = np.abs(upright[:, 1]) < MIDDLE_HALF_BAND * height
    upright[near & (sides == "B")] *= -1
    sides[near] = MIDDLE


def _cards_across_the_line(upright: np.ndarray, sides: np.ndarray, class_id, sizes, slopes,
                           measure: np.ndarray) -> None:
    """Give the middle (in place, turned back) the two indexes of a card lying across the middle
    line as guessed without a set-up: the discard pile's top card. Its two corners fall on either
    side of the line, and in team B's frame, turned half round, its bottom corner's index stands
    upright like a top-left one: split so, the card read as two cards of its code a heap apart,
    and the one beside the discard pile was taken for the turn card. Only such pairs move: one
    code, one index either side within :data:`MIDDLE_HALF_BAND` of the line, an index diagonal
    apart (:data:`ACROSS_THE_LINE`), each the other's only such partner, and at most two pairs (more
    say the guessed line runs through a team's melds). A band around the guessed line, as with a
    set-up's perspective (:func:`_middle_band`), took the tops of meld columns from their melds."""
    diagonal = _diagonals(class_id[measure], upright[measure], sizes[measure], sides[measure], slopes)[0]
    height, reach = float(diagonal[0]) / 0.52, float(np.hypot(*diagonal))
    near = np.abs(upright[:, 1]) < MIDDLE_HALF_BAND * height
    pairs = []
    for i in np.flatnonzero(near & (sides == "A")):
        for j in np.flatnonzero(near & (sides == "B") & (class_id == class_id[i])):
            apart = np.linalg.norm(upright[i] + upright[j]) / reach  # team B's turned back
            if ACROSS_THE_LINE[0] <= apart <= ACROSS_THE_LINE[1]:
                pairs.append((int(i), int(j)))
    ends = [k for pair in pairs for k in pair]
    pairs = [(i, j) for i, j in pairs if ends.count(i) == 1 and ends.count(j) == 1]
    if len(pairs) > 2:
        return
    for i, j in pairs:
        upright[j] *= -1
        sides[[i, j]] = MIDDLE


#: Two indexes' tops (the facing network's :attr:`Detections.up`) at least this many degrees apart
#: point opposite ways, as a card's top-left and bottom-right indexes do (:func:`_corners_split_by_a_line`).
OPPOSITE_TOPS = 150.0


def _corners_split_by_a_line(detections: Detections, upright: np.ndarray, sides: np.ndarray,
                             measure: np.ndarray, sizes: np.ndarray | None = None,
                             slopes: tuple[float, float] = DIAGONAL_SLOPE["camera"]) -> None:
    """Give one side (in place) both corners of a card that the line between the sides split: two
    sure indexes (``measure``) of one code on two sides, their tops pointing opposite ways, the second
    down and right of the first in their card's own frame (:func:`_opposite_corners`), each the
    other's only such index; given the index ``sizes`` (frame units) and the diagonal's ``slopes``,
    also a four-index card's two top (or bottom) indexes, their tops one way across the step between
    them, as wide apart as the frame's index diagonal (:func:`_across_the_top`). Both go to the middle
    where one lies there, else to the side of the card's centre. Left apart, each would make a card
    of its own: a card lying across the middle line, or turned across a team's side, would count for
    both teams. Only the faced finds have tops (:func:`vision.reader.facing.finds_to_face`): every
    find without a set-up or with a perspective alone, the middle's alone with team areas, where no
    pair lies on two sides."""
    if detections.up is None:
        return
    faced = measure & (np.linalg.norm(detections.up, axis=1) > 0.5)
    if faced.sum() < 2:
        return
    # Middle and team A share one frame; team B's is turned half round: every point in the first.
    common = np.where((sides == "B")[:, None], -upright, upright)
    across = None
    straddling = any(len(set(sides[faced & (detections.class_id == cls)])) > 1
                     for cls in np.unique(detections.class_id[faced]))
    if sizes is not None and straddling:  # a four-index card's two top indexes too, at the diagonal's width
        width = float(_diagonals(detections.class_id[measure], upright[measure], sizes[measure], sides[measure],
                                 slopes)[0][0])
        across = (common, width)
    for i, j in _corners_by_tops(detections, faced, lambda i, j: sides[i] != sides[j], across):
        side = MIDDLE if MIDDLE in (sides[i], sides[j]) else "A" if common[i][1] + common[j][1] >= 0 else "B"
        for k in (i, j):
            upright[k] = -common[k] if side == "B" else common[k]
            sides[k] = side


def _opposite_corners(p: np.ndarray, q: np.ndarray, up_p: np.ndarray, up_q: np.ndarray, size: float,
                      slopes: tuple[float, float] = DIAGONAL_SLOPE["camera"]) -> bool:
    """Whether indexes at picture points ``p`` and ``q``, their tops pointing along ``up_p`` and
    ``up_q``, are one card's top-left and bottom-right indexes: the tops at least
    :data:`OPPOSITE_TOPS` apart, and the step between them, in the card's frame (its top along the
    tops' mean axis), down and right at an index diagonal's slope, 2 to 12 index sizes long (as
    :func:`_only_two` takes a card's two corners), whichever way the card lies in the picture."""
    up_p, up_q = up_p / np.linalg.norm(up_p), up_q / np.linalg.norm(up_q)
    if float(up_p @ up_q) > math.cos(math.radians(OPPOSITE_TOPS)):
        return False
    top = (up_p - up_q) / np.linalg.norm(up_p - up_q)  # the card's top, seen from p's index
    step = q - p
    across, down = float(step @ np.array([-top[1], top[0]])), float(-(step @ top))
    slope = math.degrees(math.atan2(down, across))
    return slopes[0] <= slope <= slopes[1] and 2.0 <= math.hypot(across, down) / size <= 12.0


#: Two indexes' tops at most this many degrees apart point one way, as a card's two top indexes do.
SAME_TOPS = 20.0
#: A card's two top indexes: the step between them across the card's top, within the first share of
#: the frame's top-left to top-right index step, and along its top by at most the second share of it.
ACROSS_THE_TOP = (0.25, 0.35)


def _across_the_top(step: np.ndarray, up_p: np.ndarray, up_q: np.ndarray, in_frame: np.ndarray, across: float) -> bool:
    """Whether two indexes, their tops pointing along ``up_p`` and ``up_q`` and the second a picture
    ``step`` from the first (``in_frame`` in the reader's frame), are one card's two top (or two
    bottom) indexes, a deck that prints one in every corner: the tops within :data:`SAME_TOPS` of one
    way, and the step across the card's top as long as a card's top-left to top-right index step
    in the frame (``across``, :data:`ACROSS_THE_TOP`), whichever way the card lies. A card turned
    off the frame's axis pairs no other way."""
    up_p, up_q = up_p / np.linalg.norm(up_p), up_q / np.linalg.norm(up_q)
    if float(up_p @ up_q) < math.cos(math.radians(SAME_TOPS)):
        return False
    top = (up_p + up_q) / np.linalg.norm(up_p + up_q)
    length = float(np.linalg.norm(in_frame))
    along = abs(float(step @ top)) / max(float(np.linalg.norm(step)), 1e-9) * length
    return abs(length - across) <= ACROSS_THE_TOP[0] * across and along <= ACROSS_THE_TOP[1] * across


#: Another index within this share of the way's length of the line between two faced corners
#: (:func:`_faced_corners`) lies between them: another card lies over this one.
FACED_BETWEEN = 0.12
#: Only indexes whose box's longer side is at least this many pixels are joined by their tops: a
#: close-up's. On a far table's small indexes the tops are less sure, and pairing by the frame's
#: diagonal, measured on its many upright cards, serves.
FACED_FROM = 24.0


def _faced_corners(detections: Detections, upright: np.ndarray, sides: np.ndarray,
                   mine: np.ndarray, across: float | None = None) -> list[tuple[int, int]]:
    """Pairs (indexes into ``mine``, one side's sure finds) that are one card's top-left and
    bottom-right indexes by their tops (:func:`_corners_by_tops`), the boxes at least
    :data:`FACED_FROM` pixels, no index of another code among the side's sure finds between them.
    Pairing by the frame's index diagonal misses a card turned well off the table's axis, whose
    index boxes the turn widens (a card 45° round has boxes about 1.4 times as wide, so its corners
    lie fewer "sizes" apart than any diagonal the frame measures): each corner would be a card. The
    tops tell such a card in any turn; a column's twins stand alike and never pair so. With
    ``across`` (the side's top-left to top-right index step, frame units), also a four-index card's
    two top or two bottom indexes (:func:`_corners_by_tops`); twins side by side a card's width or
    more apart stay two, but two such finds a fan's step apart may join, as pairing joins them too
    on an upright fan."""
    if detections.up is None or len(mine) < 2:
        return []
    x0, y0, x1, y1 = detections.xyxy[mine].T
    faced = (np.linalg.norm(detections.up[mine], axis=1) > 0.5) & (np.maximum(x1 - x0, y1 - y0) >= FACED_FROM)
    if faced.sum() < 2:  # most frames of a set-up table: its sides' finds are not faced
        return []
    own = detections[mine]
    points, class_id, side = upright[mine], own.class_id, sides[mine]
    return [(i, j) for i, j in _corners_by_tops(own, faced, across=None if across is None else (points, across))
            if not _on_the_way(points[i], points[j], i, FACED_BETWEEN * float(np.linalg.norm(points[j] - points[i])),
                               points, class_id, side, down_a_side=False)]


def _corners_by_tops(detections: Detections, faced: np.ndarray, allowed=None, across=None) -> list[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, of the ``faced`` finds (their tops known) that are one card's
    top-left and bottom-right indexes (:func:`_opposite_corners`): one class, about one size, each the
    other's only such find; ``allowed(i, j)``, where given, must hold too. With ``across`` (the finds'
    points in a frame, and a card's top-left to top-right index step there), then, among the finds
    left, the two top or two bottom indexes of a deck that prints one in every corner
    (:func:`_across_the_top`), both boxes at least :data:`FACED_FROM` pixels, each the other's only
    such find."""
    ups, centres = detections.up, detections.centers
    x0, y0, x1, y1 = detections.xyxy.T
    pixels = np.sqrt(np.maximum((x1 - x0) * (y1 - y0), 1e-9))  # the index sizes in the picture
    large = np.maximum(x1 - x0, y1 - y0) >= FACED_FROM
    opposite: dict[int, list[int]] = {}
    alike: dict[int, list[int]] = {}
    for cls in np.unique(detections.class_id[faced]):
        members = np.flatnonzero(faced & (detections.class_id == cls))
        for a, i in enumerate(members):
            for j in members[a + 1:]:
                if (allowed is not None and not allowed(i, j)) or not _like_sized(pixels[i], pixels[j],
                                                                                  SAME_DECK_SIZES[1]):
                    continue
                if _opposite_corners(centres[i], centres[j], ups[i], ups[j], (pixels[i] + pixels[j]) / 2):
                    found = opposite
                elif across is not None and large[i] and large[j] and _across_the_top(
                        centres[j] - centres[i], ups[i], ups[j], across[0][j] - across[0][i], across[1]):
                    found = alike
                else:
                    continue
                found.setdefault(int(i), []).append(int(j))
                found.setdefault(int(j), []).append(int(i))
    pairs = _each_others_only(opposite)
    taken = {k for pair in pairs for k in pair}
    return pairs + _each_others_only({i: [j for j in found if j not in taken]
                                      for i, found in alike.items() if i not in taken})


def _each_others_only(partners: dict[int, list[int]]) -> list[tuple[int, int]]:
    """``(i, j)``, ``i < j``, for each two finds that are each other's only partner."""
    return [(i, found[0]) for i, found in partners.items()
            if len(found) == 1 and partners[found[0]] == [i] and i < found[0]]


def _join_faced_corners(cards: list[list[int]], pairs: list[tuple[int, int]]) -> list[list[int]]:
    """``cards`` (lists of indexes of one side's finds) with each of the ``pairs``
    (:func:`_faced_corners`) whose two indexes pairing left as lone cards joined into one card."""
    lone = {card[0]: card for card in cards if len(card) == 1}
    for i, j in pairs:
        if i in lone and j in lone:
            lone[i].append(j)
            lone[j].clear()
    return [card for card in cards if card]


def _index_shapes(detections: Detections, frame: TableFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each index box mapped into the frame: its size (the square root of its area) and its height
    over its width."""
    x0, y0, x1, y1 = detections.xyxy.T.astype(np.float64)
    quads = np.stack([np.stack([x0, y0], 1), np.stack([x1, y0], 1), np.stack([x1, y1], 1), np.stack([x0, y1], 1)], 1)
    mapped = frame.to_frame(quads.reshape(-1, 2)).reshape(-1, 4, 2)
    x, y = mapped[..., 0], mapped[..., 1]
    area = 0.5 * np.abs((x * np.roll(y, -1, 1) - np.roll(x, -1, 1) * y).sum(1))
    return np.sqrt(np.maximum(area, 1e-9)), np.ptp(y, axis=1) / np.maximum(np.ptp(x, axis=1), 1e-9)


def _same_deck_sizes(class_id, upright, sizes, sides, diagonal) -> float:
    """How many times bigger one index of a card may be than another: from the size differences of
    the pairs that lie closely at one of the card's corner-to-corner offsets (mostly one card's)."""
    offsets = _corner_offsets(diagonal)
    differences = [abs(np.log(sizes[i] / sizes[j])) for i, j in _candidate_pairs(class_id, sides)
                   if _misfit(upright[i], upright[j], offsets, STRICT) < np.inf]
    if len(differences) < MIN_SIZE_PAIRS:
        return SAME_DECK_SIZES[1]
    return float(np.clip(np.exp(SIZE_SPREADS * np.median(differences)), *SAME_DECK_SIZES))


def _middle_line(heights: np.ndarray, sizes: np.ndarray) -> float:
    """Where the table's middle line crosses the frame when nobody set the table up: the sparsest
    row between the two teams' cards (only the discard pile and turn card lie there), nearest the
    frame's middle (``heights`` are measured from it), with at least a sixth of the indexes on
    either side; the frame's middle when it shows only one team."""
    bandwidth = 1.5 * float(np.median(sizes))
    grid = np.linspace(heights.min(), heights.max(), 200)
    density = np.exp(-0.5 * ((grid[:, None] - heights[None, :]) / bandwidth) ** 2).sum(axis=1)
    below = (heights[None, :] < grid[:, None]).mean(axis=1)
    allowed = (below >= MIN_TEAM_SHARE) & (below <= 1 - MIN_TEAM_SHARE)
    if not allowed.any():
        return 0.0
    # Players point the camera at the table, so of rows about as sparse the one nearer the frame's
    # middle is likelier (the gap between a team's melds and its spread hands is sparse too).
    cost = density / density.max() + np.abs(grid) / max(float(np.ptp(heights)), 1e-9)
    return float(grid[allowed][np.argmin(cost[allowed])])


def _column_turn(points: np.ndarray, class_id: np.ndarray, sizes: np.ndarray) -> float | None:
    """The turn (degrees) that makes a side's meld columns run straight down, or ``None`` when the
    side shows too few column steps to tell. Without the table's perspective the frame is a guess
    (hand-drawn team areas, or the image itself) and may be turned; the steps down a column between
    natural cards of one rank show by how much (:data:`COLUMN_STEPS`). Each index is measured by its
    nearest like-ranked index, so a card's own two corners count only for a column's last card."""
    ranks = np.array([_natural_rank(c) for c in class_id])
    turns = []
    for i in range(len(points)):
        if not ranks[i]:
            continue
        same = np.flatnonzero((ranks == ranks[i]) & (np.arange(len(points)) != i))
        if not len(same):
            continue
        steps = points[same] - points[i]
        lengths = np.hypot(steps[:, 0], steps[:, 1]) / sizes[i]
        nearest = same[np.argmin(lengths)]
        step = points[nearest] - points[i]
        if step[1] < 0:
            step = -step
        turn = np.degrees(np.arctan2(step[0], step[1]))  # 0 when straight down
        if COLUMN_STEPS[0] <= np.min(lengths) <= COLUMN_STEPS[1] and abs(turn) <= COLUMN_TURN_LIMIT:
            turns.append(turn)
    return float(np.median(turns)) if len(turns) >= 4 else None


def _turned(points: np.ndarray, turn: float | None) -> np.ndarray:
    if not turn:
        return points
    angle = np.radians(turn)
    cos, sin = np.cos(angle), np.sin(angle)
    return points @ np.array([[cos, -sin], [sin, cos]]).T


#: Each class's twin in colour as one class (a ♣ as its ♠, a ♦ as its ♥; the joker itself).
_SUIT_TWIN = np.array([CLASS_NAMES.index(code.replace("C", "S").replace("D", "H")) if code != "JK" else k
                       for k, code in enumerate(CLASS_NAMES)])


#: Each class's card (:meth:`companion.cards.Card.parse` of its code), parsed once.
_CARDS = tuple(Card.parse(code) for code in CLASS_NAMES)


def _natural_rank(class_id: int) -> str:
    card = _CARDS[class_id]
    return card.rank if card.is_natural else ""


def _candidate_pairs(class_id: np.ndarray, sides: np.ndarray):
    """(i, j) for every two detections of one class on one side."""
    for cls in np.unique(class_id):
        members = np.flatnonzero(class_id == cls)
        for a in range(len(members)):
            for b in range(a + 1, len(members)):
                i, j = members[a], members[b]
                if sides[i] == sides[j]:
                    yield i, j


def _diagonals(class_id, upright, sizes, sides, slopes, min_support: int = 1) -> list[np.ndarray]:
    """The index diagonals of the deck designs in view (a pack is often two decks, and jokers come
    from a third), in frame units, the likeliest first; from the decks' typical index size when no
    pair fits (none when fewer than ``min_support`` pairs back the best).

    Candidates are the offsets same-class pairs agree on (pairs of two different cards, scattered,
    support none). Identical cards side by side agree on one too: a fan of a deck with indexes in
    all four corners shows each card's top-left and bottom-left index, and one twin's top-left and
    the other's bottom-left lie at a steep diagonal as high as the card's but only a fan step wide.
    So the first design is the candidate whose card shows its own corners most: pairs at its
    diagonal or down its side (:func:`_backing`); and the others must be about as wide
    (decks inset their indexes from the sides alike)."""
    pairs = list(_candidate_pairs(class_id, sides))
    offsets, agreeing = [], []
    for i, j in pairs:
        first, second = (i, j) if upright[i].sum() <= upright[j].sum() else (j, i)
        offset = upright[second] - upright[first]
        angle = np.degrees(np.arctan2(offset[1], offset[0]))
        in_sizes = np.hypot(*offset) / ((sizes[i] + sizes[j]) / 2)
        if slopes[0] <= angle <= slopes[1] and 2.0 <= in_sizes <= 12.0:
            offsets.append(offset)
            agreeing.append((i, j))
    if not offsets:  # no pair to measure: the decks' typical diagonal, where sizes give one
        return [PRIOR_DIAGONAL * float(np.median(sizes))] if min_support <= 1 and len(sizes) else []
    prior = PRIOR_DIAGONAL * float(np.median(sizes))
    offsets = np.array(offsets)
    close = np.linalg.norm(offsets[:, None] - offsets[None], axis=2) < 0.12 * np.linalg.norm(offsets, axis=1)[:, None]
    if close.sum(axis=1).max() < min_support:
        return []
    candidates, free = [], np.ones(len(offsets), bool)
    while free.any() and len(candidates) < MAX_CANDIDATES:
        support = np.where(free, (close & free[None]).sum(axis=1), -1)
        best = int(np.argmax(support - 1e-3 * np.linalg.norm(offsets - prior, axis=1) / np.linalg.norm(prior)))
        members = [agreeing[k] for k in np.flatnonzero(close[best] & free)]
        candidates.append((np.median(offsets[close[best] & free], axis=0), members))
        free &= ~close[best]
    steps = _steps(pairs, upright)
    candidates.sort(key=lambda c: _backing(c[0], len(c[1]), steps), reverse=True)
    first = candidates[0][0]
    sided = _down_a_side(first, pairs, steps)
    return [first] + [diagonal for diagonal, members in candidates[1:MAX_DESIGNS]
                      if sum(not {i, j} <= sided for i, j in members) >= MIN_SUPPORT
                      and abs(diagonal[0] - first[0]) <= DESIGN_WIDTHS * first[0]]


def _down_a_side(diagonal: np.ndarray, pairs, steps: tuple[np.ndarray, np.ndarray]) -> set[int]:
    """The indexes with one of their class down a side of the card (fanned cards turned), by
    ``diagonal``: two indexes of one card, which no other design is needed for (twins two cards
    apart in a fan, one's top-left and the other's bottom-left, agree on a flat diagonal).
    ``steps``: the pairs' :func:`_steps`."""
    down = _fitting(steps, [(90.0, float(diagonal[1]))], (STRICT[0], 2 * STRICT[1]))
    return {k for (i, j), fits in zip(pairs, down) if fits for k in (i, j)}


def _backing(diagonal: np.ndarray, support: int, steps: tuple[np.ndarray, np.ndarray]) -> tuple[int, int]:
    """How well pairs of indexes (their :func:`_steps`) back a candidate diagonal: those that agree
    on it, plus those that lie closely at it or down its side (the steps that tell designs apart);
    then those that lie closely across its top (which decks share)."""
    slope, length = np.degrees(np.arctan2(diagonal[1], diagonal[0])), float(np.hypot(*diagonal))
    telling, shared = [(slope, length), (90.0, float(diagonal[1]))], [(0.0, float(diagonal[0]))]
    return support + int(_fitting(steps, telling, TIGHT).sum()), int(_fitting(steps, shared, TIGHT).sum())


def _steps(pairs, upright) -> tuple[np.ndarray, np.ndarray]:
    """(lengths, directions in degrees) of the steps between the indexes of each pair, as
    :func:`_misfit` measures them, for :func:`_fitting` to judge many pairs at once."""
    moves = [(float(upright[j][0] - upright[i][0]), float(upright[j][1] - upright[i][1])) for i, j in pairs]
    return (np.array([math.hypot(dx, dy) for dx, dy in moves], float),
            np.array([math.degrees(math.atan2(dy, dx)) for dx, dy in moves], float))


def _fitting(steps: tuple[np.ndarray, np.ndarray], offsets, tolerance: tuple[float, float]) -> np.ndarray:
    """Booleans: the :func:`_steps` within the tolerances of one of a card's corner-to-corner steps
    (those whose :func:`_misfit` is finite)."""
    lengths, angles = steps
    fits = np.zeros(len(lengths), bool)
    for direction, expected in offsets:
        turn = np.abs((angles - direction + 90.0) % 180.0 - 90.0)
        fits |= (np.abs(lengths - expected) <= tolerance[0] * expected) & (turn <= tolerance[1])
    return fits


def _corner_offsets(diagonal: np.ndarray) -> list[tuple[float, float]]:
    """(direction in degrees, length) from one index of a card to another: along the top, down the
    side, and the two diagonals."""
    slope = float(np.degrees(np.arctan2(diagonal[1], diagonal[0])))
    length = float(np.hypot(*diagonal))
    return [(0.0, float(diagonal[0])), (90.0, float(diagonal[1])), (slope, length), (180.0 - slope, length)]


def _pair(class_id, upright, sides, diagonals, sizes, same_deck: float = SAME_DECK_SIZES[1],
          slopes: tuple[float, float] = DIAGONAL_SLOPE["top-down"]) -> list[list[int]]:
    """Detections grouped into cards, best-fitting pairs first. Two part-cards join only if every
    index of one fits every index of the other (two identical cards of a column, each showing two
    corners, would otherwise join through the one pair that happens to fit). Then, more loosely,
    lone indexes pair with lone ones and part-cards with part-cards (a fanned card is turned, a
    card of another deck, as jokers often are, has its indexes elsewhere); a lone index never joins
    a card already seen by two, which is how an identical neighbour would be swallowed, unless it
    lies at the one corner a card seen by three misses (:func:`_fourth_corners`). Last, two lone
    indexes read as other cards at one card's corners are that card (:func:`_corners_read_apart`)."""
    card_of = {k: [k] for k in range(len(class_id))}
    _join(card_of, class_id, upright, sides, diagonals, sizes, STRICT, same_deck)
    _join(card_of, class_id, upright, sides, diagonals, sizes, LOOSE, same_deck, like_with_like=True)
    _fourth_corners(card_of, class_id, upright, sides, diagonals[0])
    _four_corners_of_one_card(card_of, class_id, upright, sides)
    _only_two(card_of, class_id, upright, sides, diagonals[0], sizes, same_deck, slopes)
    _corners_read_apart(card_of, class_id, upright, sides, diagonals, sizes, same_deck)
    return list({id(card): card for card in card_of.values()}.values())


def _turned_twins(class_id: np.ndarray, upright: np.ndarray, diagonals: list[np.ndarray], sizes: np.ndarray,
                  same_deck: float) -> np.ndarray:
    """The class ids with each bottom-right index read as its :data:`TURNED_TWINS` rank named as
    its card's top-left index reads: a 6 and a 9 of one colour and size one card's diagonal apart,
    down and right, where neither has an index of its own class there (its own card's other
    corner, read alike). The top-left index is the one to trust: it lies upright on its card."""
    codes = [CLASS_NAMES[c] for c in class_id]
    ranks = [code[:-1] for code in codes]
    named = class_id.copy()

    def at_diagonal(i: int, j: int) -> bool:
        return _at_diagonal(upright[j] - upright[i], diagonals)

    for i in np.flatnonzero([rank in TURNED_TWINS for rank in ranks]):
        for j in np.flatnonzero([rank == TURNED_TWINS[ranks[i]] for rank in ranks]):
            if _CARDS[class_id[i]].is_red != _CARDS[class_id[j]].is_red or not at_diagonal(i, j) \
                    or not _like_sized(sizes[i], sizes[j], same_deck):
                continue
            if any(class_id[k] == class_id[i] and at_diagonal(i, k) or class_id[k] == class_id[j] and
                   at_diagonal(j, k) for k in range(len(class_id)) if k not in (i, j)):
                continue
            named[j] = class_id[i]
    return named


#: A lone three and a lone index of its colour this many index sizes apart (between the first and
#: second numbers), with no other index within the second number of sizes of either, are the
#: three's two corners whatever way it lies (:func:`_corners_read_apart`).
THREE_CORNERS = (2.0, 6.0)


def _like_sized(size: float, other: float, same_deck: float) -> bool:
    """Whether two indexes are about one size, as one deck prints them: the bigger at most
    ``same_deck`` times the smaller."""
    return max(size, other) <= same_deck * min(size, other)


def _at_diagonal(step: np.ndarray, diagonals: list[np.ndarray]) -> bool:
    """Whether a step from one index to another is, closely (:data:`TIGHT`), one of the diagonals:
    the second lies at the first's card's bottom-right corner."""
    for d in diagonals:
        turn = abs((np.degrees(np.arctan2(step[1], step[0]) - np.arctan2(d[1], d[0])) + 180.0) % 360.0 - 180.0)
        if abs(np.hypot(*step) - np.hypot(*d)) <= TIGHT[0] * np.hypot(*d) and turn <= TIGHT[1]:
            return True
    return False


def _corners_read_apart(card_of: dict[int, list[int]], class_id, upright, sides, diagonals, sizes,
                        same_deck: float) -> None:
    """Two lone indexes of one colour, of one rank in two suits or a three and another rank, one
    closely at the other's card's bottom-right corner (:func:`_at_diagonal`), or, of one rank, at
    its top-right corner (decks with an index in every corner show both top ones down a column) but
    not in a row of the rank (a fan, whose cards step across as far), each the other's only such
    index, with nothing between, are one card's two corners, one of them misread (the card's code
    is the surer one's, :func:`_card`). Alone, each made a card: a meld's card read in two suits
    (Q♦ and Q♥) counted twice, and a three's other corner read as another rank made a canasta pile
    beside the threes, which the team's opening then took in. A three lying turned, its other
    corner read as another rank of its colour, is joined too where the two lie alone
    (:data:`THREE_CORNERS`). Not two ranks otherwise: a fan's card and the next meld's card lie so
    on still tables, where threes lie alone in their row. Nor two of a fan. Not in the middle,
    where the discard pile heaps cards askew."""
    lone = [k for k in range(len(class_id)) if len(card_of[k]) == 1 and sides[k] != MIDDLE]
    parsed = [_CARDS[c] for c in class_id]
    tops = [(0.0, float(d[0])) for d in diagonals]

    def in_a_row(i: int, j: int) -> bool:
        """Whether another index of their rank lies level with one of the two, a step or two beside it."""
        return any(k not in (i, j) and sides[k] == sides[i] and parsed[k].rank == parsed[i].rank
                   and abs(upright[k][1] - upright[m][1]) < 0.5 * sizes[m]
                   and abs(upright[k][0] - upright[m][0]) < 2.0 * diagonals[0][0]
                   for m in (i, j) for k in range(len(class_id)))

    def at_a_corner(i: int, j: int) -> bool:
        if _at_diagonal(upright[j] - upright[i], diagonals):
            return True
        return parsed[i].rank == parsed[j].rank and _misfit(upright[i], upright[j], tops, TIGHT) < np.inf \
            and not in_a_row(i, j)

    def may_be_one(i: int, j: int) -> bool:  # two codes of one colour, about one size, on one side
        return sides[i] == sides[j] and class_id[i] != class_id[j] and parsed[i].is_red == parsed[j].is_red \
            and _like_sized(sizes[i], sizes[j], same_deck)

    partners: dict[int, set[int]] = {k: set() for k in lone}
    for i in lone:
        for j in lone:
            if may_be_one(i, j) and (parsed[i].rank == parsed[j].rank or parsed[i].is_three or parsed[j].is_three) \
                    and at_a_corner(i, j) and not _anything_between(i, j, upright, diagonals[0], class_id, sides):
                partners[i].add(j)
                partners[j].add(i)
    # A three lies alone in its row, often turned on its own: its other corner, read as another
    # rank, is the one index in reach of it whatever way it lies.
    for i in lone:
        for j in lone:
            if i < j and not partners[i] and not partners[j] and may_be_one(i, j) \
                    and (parsed[i].is_three or parsed[j].is_three) \
                    and THREE_CORNERS[0] <= np.hypot(*(upright[j] - upright[i])) / ((sizes[i] + sizes[j]) / 2) \
                    <= THREE_CORNERS[1] \
                    and not any(np.hypot(*(upright[k] - upright[m])) < THREE_CORNERS[1] * sizes[m]
                                for k in range(len(class_id)) if k not in (i, j) for m in (i, j)):
                partners[i].add(j)
                partners[j].add(i)
    for i in lone:
        if len(partners[i]) == 1:
            j = next(iter(partners[i]))
            if partners[j] == {i} and i < j:
                card_of[i] = card_of[j] = [i, j]


def _turn_card_apart(found: list[list[int]], mine: np.ndarray, detections: Detections,
                     turn_card: tuple[str, np.ndarray] | None) -> list[list[int]]:
    """The middle's cards with the turn card a card of its own: where earlier frames read the turn
    card, an index of its code is it, whatever it paired with (its twin from the other deck on the
    discard pile lies close by, and may take it for one of its corners). The turn card's other
    index at its end goes with it: of its code and turned as it is, sideways, where the discard
    pile's cards stand upright (else the turn card can be split in two and lost)."""
    if turn_card is None:
        return found
    code, point = turn_card
    for members in found:
        if len(members) < 2:
            continue
        for k in members:
            box = detections.xyxy[mine[k]]
            centre, size = (box[:2] + box[2:]) / 2, float(max(box[2] - box[0], box[3] - box[1]))
            near = np.linalg.norm(centre - point) < TURN_CARD_NEAR * size
            if CLASS_NAMES[detections.class_id[mine[k]]] == code and near:
                apart = [m for m in members if m == k or CLASS_NAMES[detections.class_id[mine[m]]] == code
                         and _sideways(box) and _sideways(detections.xyxy[mine[m]])]
                if len(apart) == len(members):
                    return found  # the whole card is the turn card's
                members[:] = [m for m in members if m not in apart]
                return found + [apart]
    return found


def _sideways(box: np.ndarray) -> bool:
    """Whether an index box is clearly wider than tall (:data:`SIDEWAYS_BOX`): its card lies
    across the frame. Small boxes are about square either way."""
    return bool(box[2] - box[0] > SIDEWAYS_BOX * (box[3] - box[1]))


def _only_two(card_of: dict[int, list[int]], class_id, upright, sides, diagonal, sizes, same_deck: float,
              slopes: tuple[float, float]) -> None:
    """The only two indexes of a class on a side, both lone, are one card when they lie as a card's
    two corners may (down and right, at a diagonal's slope, 2 to 12 index sizes apart) with nothing
    between: while a frame shows few cards (the first threes), the diagonal measured on another
    card, or on the far side where cards look smaller, may not fit this one. Not in the middle: the
    discard pile is a heap, and the turn card's index is no corner of its twin's."""
    if not len(sides) or sides[0] == MIDDLE:
        return
    for cls in np.unique(class_id):
        members = np.flatnonzero((class_id == cls) & (sides == sides[0]))
        if len(members) != 2 or any(len(card_of[k]) > 1 for k in members):
            continue
        i, j = sorted(members, key=lambda k: upright[k].sum())
        offset = upright[j] - upright[i]
        angle = float(np.degrees(np.arctan2(offset[1], offset[0])))
        in_sizes = float(np.hypot(*offset)) / ((sizes[i] + sizes[j]) / 2)
        if slopes[0] <= angle <= slopes[1] and 2.0 <= in_sizes <= 12.0 \
                and _like_sized(sizes[i], sizes[j], same_deck) \
                and not _anything_between(i, j, upright, diagonal, class_id, sides):
            card_of[i] += card_of[j]
            card_of[j] = card_of[i]


def _fourth_corners(card_of: dict[int, list[int]], class_id, upright, sides, diagonal) -> None:
    """Lone indexes join the card seen by three indexes whose fourth corner they lie at: three
    corners of a card fix the fourth, however far it is turned (the top-left index of a fan's last
    card, turned further than pairing allows). Only where the card is turned: an upright card's
    fourth index would have paired strictly, unless another card lies between them."""
    near = BETWEEN_MARGIN * float(np.hypot(*diagonal))
    offsets = _corner_offsets(diagonal)
    for card in {id(card): card for card in card_of.values() if len(card) == 3}.values():
        points = upright[card]
        fourth = [points[(k + 1) % 3] + points[(k + 2) % 3] - points[k] for k in range(3)]
        lone = [k for k, other in card_of.items() if len(other) == 1 and class_id[k] == class_id[card[0]]
                and sides[k] == sides[card[0]]
                and any(_misfit(upright[k], upright[m], offsets, STRICT) == np.inf for m in card)]
        distance = {k: min(float(np.linalg.norm(upright[k] - corner)) for corner in fourth) for k in lone}
        if distance and min(distance.values()) < near:
            k = min(distance, key=distance.get)
            card.append(k)
            card_of[k] = card


def _four_corners_of_one_card(card_of: dict[int, list[int]], class_id, upright, sides) -> None:
    """Two cards of one class, each seen by two opposite corners, are one card seen at all four
    where their diagonals make an upright card's index rectangle (:func:`_crossing_diagonals`): a
    card of a deck with indexes in all four corners lying alone (a canasta pile, a three), turned
    further than pairing allows, as a frame with no meld column to measure the table's turn reads
    it. Likewise a card seen by two opposite corners and two lone indexes of its rank and colour
    along the other diagonal, its suits read apart (a 3♠ laid askew read 3♣ at one diagonal's
    corners and 3♣ and 3♠ at the other's, which did not pair, so two 3♣ were laid that never were).
    :func:`_card` names such a card by the suit read surest over its indexes."""
    parts = [card for card in {id(card): card for card in card_of.values()}.values() if len(card) == 2]
    for number, a in enumerate(parts):
        for b in parts[number + 1:]:
            if len(a) != 2 or len(b) != 2 or class_id[a[0]] != class_id[b[0]] or sides[a[0]] != sides[b[0]] \
                    or sides[a[0]] == MIDDLE or not _crossing_diagonals(*upright[a], *upright[b]):
                continue
            a += b
            for k in b:
                card_of[k] = a
            b.clear()
    lone = [k for k, card in card_of.items() if len(card) == 1 and sides[k] != MIDDLE]
    for a in parts:
        if len(a) != 2 or sides[a[0]] == MIDDLE:
            continue
        like = [k for k in lone if len(card_of[k]) == 1 and sides[k] == sides[a[0]]
                and _SUIT_TWIN[class_id[k]] == _SUIT_TWIN[class_id[a[0]]]]
        for number, k in enumerate(like):
            other = next(
                (m for m in like[number + 1 :] if _crossing_diagonals(*upright[a], upright[k], upright[m])), None
            )
            if other is not None:
                a += [k, other]
                card_of[k] = card_of[other] = a
                break


def _crossing_diagonals(p: np.ndarray, q: np.ndarray, r: np.ndarray, t: np.ndarray) -> bool:
    """Whether ``p``–``q`` and ``r``–``t`` are the two diagonals of a card's index rectangle: about as
    long as each other (:data:`FOUR_CORNERS_LENGTHS`) and crossing at their middles, the rectangle between
    :data:`FOUR_CORNERS` times as tall as wide and standing up in the frame. Twins two cards apart
    in a column, each seen at two opposite corners, cross nowhere near their middles."""
    tolerance, (low, high) = FOUR_CORNERS
    first, second = float(np.linalg.norm(q - p)), float(np.linalg.norm(t - r))
    longer = max(first, second)
    if (
        abs(first - second) > FOUR_CORNERS_LENGTHS * longer
        or np.linalg.norm((p + q) / 2 - (r + t) / 2) > tolerance * longer
    ):
        return False
    (short, _), (long, down) = sorted(((float(np.linalg.norm(side)), side) for side in (r - p, t - p)),
                                      key=lambda item: item[0])
    return short > 0 and low <= long / short <= high and abs(down[1]) > abs(down[0])


def _join(card_of: dict[int, list[int]], class_id, upright, sides, diagonals, sizes, tolerance, same_deck: float,
          like_with_like=False) -> None:
    offsets = [offset for diagonal in diagonals for offset in _corner_offsets(diagonal)]
    fits = {}
    for i, j in _candidate_pairs(class_id, sides):
        if like_with_like and (len(card_of[i]) > 1) != (len(card_of[j]) > 1):
            continue
        if not _like_sized(sizes[i], sizes[j], same_deck):
            continue  # two decks' indexes (twins of two decks), not one card's
        misfit = _misfit(upright[i], upright[j], offsets, tolerance)
        turned = _misfit(upright[i], upright[j], offsets, (tolerance[0], STRICT[1])) == np.inf
        if misfit < np.inf and not _anything_between(i, j, upright, diagonals[0], class_id, sides, turned):
            fits[(i, j)] = fits[(j, i)] = misfit
    for (i, j), _ in sorted(fits.items(), key=lambda item: item[1]):
        a, b = card_of[i], card_of[j]
        if a is b or len(a) + len(b) > 4 or not all((m, n) in fits for m in a for n in b):
            continue
        a += b
        for k in b:
            card_of[k] = a


def _misfit(p: np.ndarray, q: np.ndarray, offsets, tolerance: tuple[float, float]) -> float:
    """How far the step between two indexes is from the nearest of a card's corner-to-corner steps
    (infinite when beyond the tolerances)."""
    # Python floats and math: pairing calls this for every pair of like finds, where numpy's
    # per-call cost on two numbers would be about a fifth of a table's geometry.
    dx, dy = float(q[0] - p[0]), float(q[1] - p[1])
    length, angle = math.hypot(dx, dy), math.degrees(math.atan2(dy, dx))
    best = math.inf
    for direction, expected in offsets:
        # Which index comes first is unknown, so directions are compared as lines (modulo 180°).
        turn, off = abs((angle - direction + 90.0) % 180.0 - 90.0), abs(length - expected)
        if off <= tolerance[0] * expected and turn <= tolerance[1]:
            best = min(best, off / expected + turn / 180.0)
    return best


def _anything_between(i: int, j: int, upright, diagonal, class_id, sides, turned: bool = False) -> bool:
    """Whether another card's index lies on the way from index ``i`` to index ``j`` (a card between
    two identical ones of a column or row); for indexes at a card's opposite corners, also down the
    card's sides: in a column of a deck with indexes in all four corners, the top-right index of one
    card and the top-left index of its twin two cards further down lie at the card's cross-diagonal,
    with the card between them showing its indexes on both sides. Along the edge of a ``turned``
    (fanned) card a neighbouring fan's index may lie just beside the way: only one right on it
    counts, or one of the card's own meld. Down any card's side only an index away from the ends
    counts (a fan's cards turn about their bottoms, so the next card's bottom index lies close to
    this one's, even below a card the fan left upright; a column's cards lie well between). Across a
    card, a card of its meld whose index lies about level between the two (the next cards of a fan,
    rising a little) would cover the far corner: twins of a fan a card's width apart stay two."""
    near = BETWEEN_MARGIN * float(np.hypot(*diagonal))
    start, end = upright[i], upright[j]
    along_a_side = abs(end[1] - start[1]) > abs(end[0] - start[0])
    if _on_the_way(start, end, i, near / 2 if turned else near, upright, class_id, sides, along_a_side,
                   ends=TURNED_ENDS if along_a_side else 0.05):
        return True
    if turned and _on_the_way(start, end, i, near, upright, class_id, sides, down_a_side=True,
                              ends=TURNED_ENDS if along_a_side else 0.05):
        return True
    if not along_a_side and _on_the_way(start, end, i, FANNED_BAND * float(np.hypot(*diagonal)), upright, class_id,
                                        sides, down_a_side=True, ends=TURNED_ENDS):
        return True
    if abs(end[0] - start[0]) < 0.5 * abs(diagonal[0]) or abs(end[1] - start[1]) < 0.5 * abs(diagonal[1]):
        return False
    # A card of the column lies square with the others, its indexes right on both sides' lines (one
    # index beside one side is a fan's card reaching past a turned card's corner, as wild cards do).
    below, beside, near = np.array([start[0], end[1]]), np.array([end[0], start[1]]), near / 2
    return (_on_the_way(start, below, i, near, upright, class_id, sides, down_a_side=True)
            and _on_the_way(beside, end, i, near, upright, class_id, sides, down_a_side=True)) \
        or _on_the_way(below, end, i, near, upright, class_id, sides, down_a_side=True)


def _on_the_way(
    start, end, i: int, near: float, upright, class_id, sides, down_a_side: bool, ends: float = 0.05
) -> bool:
    """Whether another card's index lies on the segment from ``start`` to ``end`` (within ``near``,
    and further than the share ``ends`` of the way from either end); down a card's side, only one
    that may be in the meld of index ``i``, as a neighbouring fan may reach across a fanned card's
    side."""
    way = end - start
    along = np.clip(((upright - start) @ way) / max(float(way @ way), 1e-12), 0.0, 1.0)
    gap = upright - (start + along[:, None] * way)
    distance = np.sqrt(gap[:, 0] * gap[:, 0] + gap[:, 1] * gap[:, 1])
    between = (distance < near) & (along > ends) & (along < 1 - ends) & (class_id != class_id[i]) & (sides == sides[i])
    if down_a_side:
        return any(_of_one_meld(class_id[i], class_id[k]) for k in np.flatnonzero(between))
    return bool(between.any())


def _of_one_meld(card: int, other: int) -> bool:
    """Whether cards of two classes may lie in one meld: one rank, or wild cards. A card between two
    indexes down one side says they are two cards of one column only if it may be in their meld:
    the card of a neighbouring fan reaching across a fanned card's side shows its index there too."""
    mine, theirs = _CARDS[card], _CARDS[other]
    return mine.is_wild or theirs.is_wild or mine.rank == theirs.rank


def _across(detections: Detections, frame: TableFrame, turn: float | None = None) -> np.ndarray:
    """How far each index's top (:attr:`Detections.up`) turns from the table's axis in the frame
    turned by ``turn`` (degrees, :func:`_turned`: the mean of the sides' column turns, where the
    frame is a guess): the sine of the angle, 0 along the axis, 1 across it; NaN where the
    direction is not known. Hand-drawn team areas give the axis only roughly (the widest gap
    between them, :func:`~vision.reader.team_areas._middle_of`, is a few degrees off the table's),
    and the turn card is told by lying across it (:func:`vision.reader.grouping._stock_on_right`);
    the sides' column turns set the axis right (``bench/turn_card_side.py`` measures it)."""
    turned = np.full(len(detections), np.nan)
    if detections.up is None:
        return turned
    known = np.flatnonzero(np.linalg.norm(detections.up, axis=1) > 0.5)
    if not len(known):
        return turned
    centres = detections.centers[known]
    reach = detections.sizes[known].max(axis=1, keepdims=True) / 2
    step = _turned(frame.to_frame(centres + detections.up[known] * reach) - frame.to_frame(centres), turn)
    turned[known] = np.abs(step[:, 0]) / np.maximum(np.linalg.norm(step, axis=1), 1e-9)
    return turned


def _card(detections: Detections, members: list[int], upright, sides, diagonal, sizes, aspects,
          weak: np.ndarray, across: np.ndarray) -> SeenCard:
    members = sorted(members)
    points = upright[members]
    top_left = points.min(axis=0)
    # One index alone is taken as the top-left one: lower corners are the ones later cards cover.
    centre = top_left + diagonal / 2
    confidence = 1.0 - float(np.prod(1.0 - detections.confidence[members]))
    boxes = detections.xyxy[members]
    box = union_box(boxes)
    votes = Counter()
    for m in members:  # its indexes may read as suits of one colour (_four_corners_of_one_card)
        votes[int(detections.class_id[m])] += float(detections.confidence[m])
    code = CLASS_NAMES[max(votes, key=votes.get)]
    return SeenCard(code, tuple(int(m) for m in members), round(confidence, 4), box,
                    str(sides[members[0]]), tuple(map(float, top_left)), tuple(map(float, centre)),
                    float(points[:, 1].mean()), float(sizes[members].mean()), float(aspects[members].mean()),
                    tuple(tuple(map(float, b)) for b in boxes), tuple(float(x) for x in points[:, 0]),
                    bool(weak[members].all()), _mean_known(across[members]))


def _mean_known(values: np.ndarray) -> float:
    known = values[np.isfinite(values)]
    return float(known.mean()) if len(known) else float("nan")
