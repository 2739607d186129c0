"""The table set-up as players see it on the picture, and as the card reader takes it.

Players drag outlines over the video: each team's area and, when the camera films the table at an
angle, the table's four corners (far left, far right, near right, near left as team A sees it). The
reader takes a :class:`~vision.reader.team_areas.TableSetup`: the areas, and the perspective those corners
give (a top-down view of the table). Everything is in the video frame's pixels.
"""

from __future__ import annotations

import numpy as np

from vision.reader.team_areas import TOP_DOWN_SIDE, TableFrame, TableSetup

from .video_view import TABLE

TEAMS = ("A", "B")


def starting_areas(width: int, height: int) -> dict[str, np.ndarray]:
    """The areas offered before players move them: team A the near side of the picture (its lower
    part), team B the far side, with a strip between them for the discard pile and the stock."""
    def band(top: float, bottom: float) -> np.ndarray:
        return np.array([[0.04 * width, top * height], [0.96 * width, top * height],
                         [0.96 * width, bottom * height], [0.04 * width, bottom * height]])
    return {"A": band(0.60, 0.96), "B": band(0.04, 0.40)}


def starting_corners(width: int, height: int) -> np.ndarray:
    """The table's corners as first offered: a table seen from behind team A, narrower far off."""
    return np.array([[0.2 * width, 0.1 * height], [0.8 * width, 0.1 * height],
                     [0.95 * width, 0.92 * height], [0.05 * width, 0.92 * height]])


def set_outlines(setup: TableSetup) -> dict[str, np.ndarray] | None:
    """The outlines a set-up has (its areas, its table's corners), to draw; ``None`` when it has none."""
    shown = dict(setup.areas) if setup.areas is not None else {}
    if setup.perspective is not None:
        shown[TABLE] = table_corners(setup)
    return shown or None


def outlines_to_drag(setup: TableSetup, size: tuple[int, int]) -> dict[str, np.ndarray]:
    """What players drag to set the table up: its areas (else the starting ones) and its corners
    when it has a perspective."""
    return {**starting_areas(*size), **(set_outlines(setup) or {})}


def table_corners(setup: TableSetup) -> np.ndarray:
    """The four image points a set-up's perspective was made from."""
    half = TOP_DOWN_SIDE / 2
    square = np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
    return TableFrame(setup, (1, 1)).to_image(square)


def setup_from(dragged: dict[str, np.ndarray]) -> TableSetup:
    """The set-up the dragged outlines make: the teams' areas, and the perspective of the table's
    corners when they were marked; :class:`~vision.reader.team_areas.TableSetupError` (in words)
    for outlines that enclose nothing or corners that make no table."""
    areas = TableSetup.from_areas({team: np.array(dragged[team], np.float64) for team in TEAMS}).areas
    if TABLE in dragged:
        return TableSetup.from_corners(dragged[TABLE], areas)
    return TableSetup(areas)
