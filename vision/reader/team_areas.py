"""Where each team's cards lie in the frame: the table set-up players save per table, and the frame
the reader works in.

By default the side of the table nearer the camera (the bottom of the frame) is team A's: cards
are read as the image shows them, the middle line being the sparsest row between the two teams'
cards (:func:`vision.reader.physical_cards.see_cards` finds it). Players may draw each team's area (a polygon in image
pixels) and may give
the table's perspective: the four image points of a rectangle on the table, far left, far right,
near right, near left as team A sees it. The reader then works in a top-down view of the table, in
which team A's cards stand upright and team B's are turned half round.

>>> setup = TableSetup.from_json({"areas": {"A": [[0, 50], [100, 50], [100, 100], [0, 100]],
...                                         "B": [[0, 0], [100, 0], [100, 50], [0, 50]]}})
>>> TableFrame(setup, (100, 100)).sides(np.array([[10.0, 80.0], [10.0, 20.0], [200.0, 20.0]])).tolist()
['A', 'B', '-']
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

TEAMS = ("A", "B")
#: The side of a point in neither team's area: the middle of the table.
MIDDLE = "-"
#: Side of the square the table rectangle becomes in the top-down view, in view units.
TOP_DOWN_SIDE = 1000.0
#: The file beside a video that holds the team areas it comes with (:meth:`TableSetup.save`'s JSON):
#: ``python -m vision video`` writes one beside each hand video, and the app plays the video with it
#: until players set up their own.
TABLE_SETUP_FILE = "table_setup.json"


class TableSetupError(ValueError):
    """A saved table set-up that cannot be used (one line, naming the field)."""


@dataclass(frozen=True)
class TableSetup:
    """What players may set for a table: team areas and the table perspective (both optional)."""

    areas: dict[str, np.ndarray] | None = None  #: team -> (k, 2) polygon, image pixels
    perspective: np.ndarray | None = None  #: 3×3 homography, image pixels -> top-down view, centred
    #: (2,) with neither areas nor a perspective: the way from team A's side to team B's in the
    #: picture, as players named the sides (:meth:`with_sides_swapped`); the reader finds the sides
    #: by the cards' facing (:mod:`vision.reader.facing`) and names them so. ``None``: team A's is the side
    #: nearer the picture's bottom.
    towards_b: np.ndarray | None = None

    @classmethod
    def from_corners(cls, corners, areas: dict[str, np.ndarray] | None = None) -> TableSetup:
        """From the four image points of a table rectangle (far left, far right, near right, near left)."""
        corners = np.asarray(corners, np.float32).reshape(4, 2)
        problem = corners_problem(corners)
        if problem is not None:
            raise TableSetupError(f"table set-up: {problem}")
        half = TOP_DOWN_SIDE / 2
        square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]], np.float32)
        return cls(areas, cv2.getPerspectiveTransform(corners, square))

    @classmethod
    def from_areas(cls, areas: dict[str, np.ndarray]) -> TableSetup:
        """Team areas (team -> polygon), each checked to outline a part of the picture."""
        for team, polygon in areas.items():
            problem = area_problem(np.asarray(polygon, np.float64))
            if problem is not None:
                raise TableSetupError(f"table set-up: team {team}'s area {problem}")
        return cls({team: np.asarray(polygon, np.float64) for team, polygon in areas.items()})

    @classmethod
    def from_json(cls, data: dict) -> TableSetup:
        if not isinstance(data, dict):
            raise TableSetupError("table set-up: expected an object with \"areas\" and/or \"table_corners\"")
        areas = data.get("areas")
        if areas is not None:
            areas = cls.from_areas({team: _points(areas.get(team) if isinstance(areas, dict) else None,
                                                  f"areas.{team}", 3) for team in TEAMS}).areas
        if data.get("table_corners") is not None:
            return cls.from_corners(_points(data["table_corners"], "table_corners", 4, exactly=True), areas)
        perspective = data.get("perspective")
        if perspective is not None:
            perspective = _points(perspective, "perspective", 3, exactly=True, width=3)
            if not _invertible(perspective):
                raise TableSetupError("table set-up: perspective is no view of a table (its matrix can't be "
                                      "inverted); set the table's corners again")
        towards_b = data.get("towards_b")
        if towards_b is not None:
            try:
                towards_b = np.asarray(towards_b, np.float64).reshape(2)
            except (TypeError, ValueError):
                towards_b = np.zeros(2)
            if not np.isfinite(towards_b).all() or not np.abs(towards_b).max():
                raise TableSetupError("table set-up: towards_b must be a direction [x, y] in the picture, "
                                      "from team A's side to team B's")
            towards_b = towards_b / np.abs(towards_b).max()  # a huge one's length would overflow
            towards_b = towards_b / np.linalg.norm(towards_b)
        return cls(areas, perspective, towards_b)

    @property
    def set_up(self) -> bool:
        """Whether players gave team areas or the table's perspective (else the reader finds the
        sides itself)."""
        return self.areas is not None or self.perspective is not None

    def with_sides_swapped(self, towards_b: np.ndarray | None = None) -> TableSetup:
        """The set-up that names each side the other team's (the app's "Swap the sides"): the areas
        swapped and the top-down view turned half round (team A's side is its bottom); without
        either, the way from A's side to B's reversed: ``towards_b``, the way the reader names the
        sides by now (a reading's), else the set-up's own, else up the picture (the default)."""
        if self.set_up:
            areas = None if self.areas is None else {"A": self.areas["B"], "B": self.areas["A"]}
            half_round = np.diag([-1.0, -1.0, 1.0])
            return TableSetup(areas, None if self.perspective is None else half_round @ self.perspective)
        now = towards_b if towards_b is not None else self.towards_b if self.towards_b is not None else (0.0, -1.0)
        return TableSetup(towards_b=-np.asarray(now, np.float64) / np.linalg.norm(now))

    def to_json(self) -> dict:
        data: dict = {}
        if self.areas is not None:
            data["areas"] = {team: np.round(polygon, 2).tolist() for team, polygon in self.areas.items()}
        if self.perspective is not None:
            data["perspective"] = self.perspective.tolist()
        if self.towards_b is not None:
            data["towards_b"] = np.round(self.towards_b, 4).tolist()
        return data

    def save(self, path: Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1))

    @classmethod
    def load(cls, path: Path) -> TableSetup:
        """The set-up saved in a JSON file: :class:`TableSetupError` (one line naming the file) for one
        that is not UTF-8 JSON of a set-up; ``OSError`` for one that cannot be read."""
        try:
            return cls.from_json(json.loads(Path(path).read_text(encoding="utf-8")))
        except json.JSONDecodeError as error:
            raise TableSetupError(f"{path}: not JSON ({error.msg}, line {error.lineno})") from None
        except UnicodeDecodeError:
            raise TableSetupError(f"{path}: not a text file (not UTF-8), not a table set-up") from None
        except TableSetupError as error:
            raise TableSetupError(f"{path}: {error}") from None


class TableFrame:
    """Image points to the reader's frame: centred on the table, team A towards +y.

    With a perspective it is the top-down view; with areas only, the image turned so that team A's
    area lies below team B's; otherwise the image itself, centred.
    """

    def __init__(self, setup: TableSetup, image_size: tuple[int, int], turn=None):
        """``turn`` (a :class:`~vision.reader.facing.TableTurn`, used only without areas or perspective):
        the table's middle and turn as the cards' facing shows them; the frame then turns the picture
        about that middle so team A's side is below it. Without it the frame is the picture as it is,
        centred."""
        self.setup = setup
        width, height = image_size
        if setup.perspective is not None:
            self.homography = np.asarray(setup.perspective, np.float64)
        else:
            centre, angle = np.array([width / 2, height / 2]), 0.0
            if setup.areas is not None:
                centre, angle = _middle_of(setup.areas["A"], setup.areas["B"])
            elif turn is not None:
                centre, angle = np.asarray(turn.centre, np.float64), turn.turn
            cos, sin = np.cos(angle), np.sin(angle)
            rotate = np.array([[cos, -sin, 0], [sin, cos, 0], [0, 0, 1]])
            self.homography = rotate @ np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]])

    def to_frame(self, points: np.ndarray) -> np.ndarray:
        points = np.asarray(points, np.float64).reshape(-1, 1, 2)
        if not len(points):
            return np.zeros((0, 2))
        return cv2.perspectiveTransform(points, self.homography).reshape(-1, 2)

    def to_image(self, points: np.ndarray) -> np.ndarray:
        points = np.asarray(points, np.float64).reshape(-1, 1, 2)
        if not len(points):
            return np.zeros((0, 2))
        return cv2.perspectiveTransform(points, np.linalg.inv(self.homography)).reshape(-1, 2)

    @property
    def has_areas(self) -> bool:
        return self.setup.areas is not None

    @property
    def set_up(self) -> bool:
        """Whether players gave team areas or the table's perspective (else the reader guesses)."""
        return self.setup.set_up

    def sides(self, image_points: np.ndarray) -> np.ndarray:
        """The team whose side each image point lies on: its area (:data:`MIDDLE` when in neither),
        else the half of the frame."""
        image_points = np.asarray(image_points, np.float64).reshape(-1, 2)
        if self.setup.areas is not None:
            inside_a = np.array([_inside(self.setup.areas["A"], p) for p in image_points], bool)
            inside_b = np.array([_inside(self.setup.areas["B"], p) for p in image_points], bool)
            return np.where(inside_a, "A", np.where(inside_b, "B", MIDDLE)).astype("<U1")
        return np.where(self.to_frame(image_points)[:, 1] >= 0, "A", "B")

    def area_outlines(self, image_size: tuple[int, int]) -> dict[str, np.ndarray]:
        """Each team's area as an image polygon, to draw: the set areas, or the two halves (of the
        table's top-down view when the perspective is set, else of the frame: the picture's own, or
        those of the picture turned as the cards face, clipped to the picture; each from its corner
        farthest from the middle line)."""
        if self.setup.areas is not None:
            return dict(self.setup.areas)
        if self.setup.perspective is not None:
            half = TOP_DOWN_SIDE / 2
            return {"B": self.to_image(np.array([[-half, -half], [half, -half], [half, 0], [-half, 0]])),
                    "A": self.to_image(np.array([[-half, 0], [half, 0], [half, half], [-half, half]]))}
        reach = 1e5  # past the picture from any middle: each half clipped to the picture below
        halves = {"B": [[-reach, -reach], [reach, -reach], [reach, 0], [-reach, 0]],
                  "A": [[-reach, 0], [reach, 0], [reach, reach], [-reach, reach]]}
        outlines = {}
        for team, half in halves.items():
            outline = in_picture(self.to_image(np.array(half)), image_size)
            # first the corner farthest from the middle line, where the app tags the side with its name
            far = int(np.argmax(np.abs(self.to_frame(outline)[:, 1]))) if len(outline) else 0
            outlines[team] = np.roll(outline, -far, axis=0)
        return outlines


#: The least area (px²) an outline players drag may enclose: a card's corner index at the smallest
#: size the reader reads (8 px) is about this; an outline smaller is a slip of the mouse.
MIN_OUTLINE_AREA = 64.0
#: Each corner of the table's outline must make a triangle with its two neighbours at least this
#: share of the outline's area (a rectangle's make half; a table seen steeply from one end, about a
#: quarter): three corners on a line, or one dragged onto another, give no view of the table.
MIN_CORNER_SHARE = 0.05


def corners_problem(corners: np.ndarray) -> str | None:
    """What is wrong with four points as a table's corners (far left, far right, near right, near
    left, as team A sees the table), in words; ``None`` when they outline a table: a convex
    four-sided shape, in order. In that order the outline runs clockwise in the picture, wherever
    the camera stands (a turned camera turns it, never mirrors it); anticlockwise, two corners were
    swapped, and the top-down view would be the table's mirror image."""
    edges = np.roll(corners, -1, axis=0) - corners  # corner i to corner i + 1
    after = np.roll(edges, -1, axis=0)
    turns = (edges[:, 0] * after[:, 1] - edges[:, 1] * after[:, 0]).tolist()  # each corner's turn (cross product)
    area = float(cv2.contourArea(cv2.convexHull(np.asarray(corners, np.float32))))  # a crossed outline's too
    if area < MIN_OUTLINE_AREA or min(abs(turn) / 2 for turn in turns) < MIN_CORNER_SHARE * area:
        return "the table's four corners lie on a line or too close together; drag them to the table's corners"
    if all(turn < 0 for turn in turns):
        return ("the table's outline is mirrored (two of its corners swapped); drag them back so that its name "
                "tag sits by the table's far-left corner, seen from team A's side")
    if not all(turn > 0 for turn in turns):
        return ("the table's four corners cross or fold in; drag them to the table's corners, "
                "far left, far right, near right, near left")
    return None


def area_problem(polygon: np.ndarray) -> str | None:
    """What is wrong with a team's area, in words (``None``: it encloses part of the picture)."""
    if len(polygon) < 3 or not np.isfinite(polygon).all() or \
            cv2.contourArea(np.asarray(polygon, np.float32)) < MIN_OUTLINE_AREA:
        return "encloses almost none of the picture (its corners lie on a line or too close together); drag them apart"
    return None


def _invertible(matrix: np.ndarray) -> bool:
    return bool(np.isfinite(matrix).all() and np.linalg.cond(matrix) < 1e12)


def in_picture(polygon: np.ndarray, image_size: tuple[int, int]) -> np.ndarray:
    """The part of a convex image polygon the picture shows, (k, 2); empty when it lies outside.
    (OpenCV's intersection gives a junk point, not nothing, for polygons apart.)"""
    width, height = image_size
    picture = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    area, shown = cv2.intersectConvexConvex(np.asarray(polygon, np.float32), picture)
    return shown.reshape(-1, 2).astype(np.float64) if area > 0 else np.zeros((0, 2))


def _points(value, where: str, count: int, exactly: bool = False, width: int = 2) -> np.ndarray:
    """A list of ``[x, y]`` points (or matrix rows), checked, or one line saying what is wrong."""
    try:
        points = np.asarray(value, np.float64)
    except (TypeError, ValueError):
        points = np.zeros((0,))
    enough = points.ndim == 2 and (len(points) == count if exactly else len(points) >= count)
    if not enough or points.shape[1] != width or not np.isfinite(points).all():
        need = f"{'exactly' if exactly else 'at least'} {count} [{', '.join('xyz'[:width])}] rows"
        raise TableSetupError(f"table set-up: {where} must be a list of {need}")
    return points


def _middle_of(area_a: np.ndarray, area_b: np.ndarray) -> tuple[np.ndarray, float]:
    """The table's middle between two team areas, and the turn that puts A's below B's. The axis
    from B's side to A's is the direction along which the areas lie farthest apart (the widest gap
    any straight middle line leaves between them; the line between their centres where they
    overlap). The line between their centres alone leans wherever the teams' cards lie off
    each other along the table (a median of 24° off the table's, against 4° for the widest gap's,
    on held-out scenes). Across, the middle is halfway between the areas' centres; along,
    halfway across the gap between the areas (an area reaches out to the spread hands, so its
    centre says little about where the middle is)."""
    a, b = area_a.mean(axis=0), area_b.mean(axis=0)
    between = float(np.arctan2(a[0] - b[0], a[1] - b[1]))  # the turn that puts B->A onto +y
    turns = between + np.radians(np.arange(-89.0, 89.5, 0.5))
    normals = np.stack([np.sin(turns), np.cos(turns)], axis=1)  # B->A for each turn
    gaps = (area_a @ normals.T).min(axis=0) - (area_b @ normals.T).max(axis=0)
    turn = float(turns[int(np.argmax(gaps))]) if gaps.max() > 0 else between
    axis = np.array([np.sin(turn), np.cos(turn)])
    near_a = float((area_a @ axis).min())
    near_b = float((area_b @ axis).max())
    centre = (a + b) / 2
    centre = centre + axis * ((near_a + near_b) / 2 - float(centre @ axis))
    return centre, turn


def _inside(polygon: np.ndarray, point: np.ndarray) -> bool:
    return cv2.pointPolygonTest(polygon.astype(np.float32), (float(point[0]), float(point[1])), False) >= 0
