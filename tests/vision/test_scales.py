"""Reading at the right scale: the pyramid's levels, which level keeps which find, the live scale,
and the shipped detector reading a close-up that its default views miss."""

from __future__ import annotations

import numpy as np
import pytest

from vision import scales
from vision.detections import Detections


def finds(*rows) -> Detections:
    """Finds from rows of (x1, y1, x2, y2, confidence)."""
    rows = np.array(rows, np.float32).reshape(-1, 5)
    return Detections(rows[:, :4], rows[:, 4], np.zeros(len(rows), np.int64))


def test_a_picture_is_read_down_to_where_an_index_a_quarter_of_its_height_fits_the_band():
    assert scales.still_levels(1080, 1.0) == [1.0, 0.5, 0.25, 0.125]  # 270 px -> 33.75 at 1/8
    assert scales.still_levels(3000, 0.48) == [0.48, 0.24, 0.12, 0.06]  # 750 px -> 45 at 0.06
    assert scales.still_levels(480, 2.0) == [2.0, 1.0, 0.5, 0.25]  # 120 px -> 30 at 1/4
    assert scales.still_levels(100, 1.0) == [1.0]  # 25 px: the finest level reads it


def test_each_level_keeps_the_finds_of_its_octave_and_the_ends_keep_the_rest():
    found = finds((0, 0, 10, 10, 0.9), (0, 0, 30, 20, 0.9), (0, 0, 20, 60, 0.9), (0, 0, 200, 100, 0.9))
    # At scale 1 the sides read 10, 30, 60 and 200 px: the band (24-48) holds the second alone.
    assert scales.owned(found, 1.0, finest=False, coarsest=False).tolist() == [False, True, False, False]
    assert scales.owned(found, 1.0, finest=True, coarsest=False).tolist() == [True, True, False, False]
    assert scales.owned(found, 1.0, finest=False, coarsest=True).tolist() == [False, True, True, True]
    assert scales.owned(found, 0.5, finest=False, coarsest=False).tolist() == [False, False, True, False]


def test_a_finer_level_is_read_while_a_level_finds_nothing_or_something_below_its_band():
    assert scales.needs_finer(Detections.empty(), 0.25)
    assert scales.needs_finer(finds((0, 0, 10, 40, 0.5), (0, 0, 4, 8, 0.1)), 1.0)  # an 8 px find: finer
    assert not scales.needs_finer(finds((0, 0, 10, 40, 0.5), (0, 0, 20, 30, 0.1)), 1.0)


def test_levels_finds_of_one_index_are_one_the_most_confident_kept():
    coarse = finds((100, 100, 140, 160, 0.6))
    fine = finds((102, 98, 141, 161, 0.8), (300, 300, 310, 320, 0.3))
    joined = scales.join_levels([coarse, fine])
    assert joined.confidence.tolist() == pytest.approx([0.8, 0.3])
    assert len(scales.join_levels([])) == 0


@pytest.mark.parametrize("median, scale", [(None, None), (30.0, None), (47.0, None), (48.0, 0.5), (90.0, 0.5),
                                           (100.0, 0.25), (400.0, 1 / 16)])
def test_a_live_frame_is_read_once_at_the_halving_that_brings_its_median_index_into_the_band(median, scale):
    assert scales.live_scale(median, 1.0) == scale
    if scale is not None:
        assert scales.BAND[0] <= median * scale < scales.BAND[1]
