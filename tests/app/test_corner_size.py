"""How large the camera sees the card corners, and what the app tells players about it."""

import pytest

from companion.app.reader import CORNERS_TO_JUDGE, SMALL_CORNER_PX, corner_size_advice, focus_advice, model_metrics
from vision.reader.card_reader import read_table
from vision.reader.detections import Detections
from vision.reader.focus import BLURRED_BELOW

MEASURED = {"by_size": {
    "0.3": {"0-8 px": {"named_right": 0.03}, "8-12 px": {"named_right": 0.16}, "12-16 px": {"named_right": 0.37},
            "16-24 px": {"named_right": 0.59}, "24+ px": {"named_right": 0.71}},
    "0.5": {"0-8 px": {"named_right": 0.01}, "8-12 px": {"named_right": 0.05}, "12-16 px": {"named_right": 0.18},
            "16-24 px": {"named_right": 0.34}, "24+ px": {"named_right": 0.41}}}}


def test_a_reading_keeps_the_height_of_every_corner_found():
    found = Detections([[10, 10, 20, 24], [100, 50, 108, 61.5]], [0.9, 0.8], [0, 5])
    assert read_table(found, (640, 360)).index_heights == (14.0, 11.5)
    assert read_table(Detections.empty(), (640, 360)).index_heights == ()


def test_small_corners_get_advice_with_the_measured_shares_at_the_nearest_threshold():
    advice = corner_size_advice([10.4] * CORNERS_TO_JUDGE, MEASURED, threshold=0.5)
    assert advice.startswith("The camera sees the card corners only about 10 pixels tall")
    assert f"look {SMALL_CORNER_PX} pixels or taller" in advice
    assert "names 5% of corners 8–12 px tall and 41% of those 24+ px tall" in advice
    assert "names 16% of corners 8–12 px tall and 71% of those 24+ px" in corner_size_advice(
        [10.4] * CORNERS_TO_JUDGE, MEASURED, threshold=0.25)


@pytest.mark.parametrize("heights", [[10.0] * (CORNERS_TO_JUDGE - 1), [SMALL_CORNER_PX] * CORNERS_TO_JUDGE,
                                     [30.0] * CORNERS_TO_JUDGE + [5.0] * (CORNERS_TO_JUDGE - 1)])
def test_no_advice_for_too_few_corners_or_large_enough_ones(heights):
    assert corner_size_advice(heights, MEASURED, threshold=0.5) is None


@pytest.mark.parametrize("metrics", [{}, {"by_size": "broken"}, {"by_size": {"x": {}}},
                                     {"by_size": {"0.5": {"8-12 px": {"named_right": "n/a"}, "24+ px": {}}}}])
def test_advice_without_usable_figures_still_asks_for_the_camera_closer(metrics):
    advice = corner_size_advice([9.0] * CORNERS_TO_JUDGE, metrics, threshold=0.5)
    assert "move it closer" in advice and "%" not in advice


def test_the_shipped_figures_are_read(tmp_path):
    assert "by_size" in model_metrics()
    (tmp_path / "bad.json").write_text("{not json")
    assert model_metrics(tmp_path / "bad.json") == {} and model_metrics(tmp_path / "missing.json") == {}
    (tmp_path / "list.json").write_text("[1, 2]")
    assert model_metrics(tmp_path / "list.json") == {}


def test_blurred_corners_get_advice_to_focus():
    advice = focus_advice([BLURRED_BELOW - 0.05] * CORNERS_TO_JUDGE)
    assert advice.startswith("The card corners look blurred: focus the camera")


@pytest.mark.parametrize("sharpness", [[0.2] * (CORNERS_TO_JUDGE - 1), [BLURRED_BELOW] * CORNERS_TO_JUDGE,
                                       [0.55] * CORNERS_TO_JUDGE + [0.2] * (CORNERS_TO_JUDGE - 1)])
def test_no_focus_advice_for_too_few_corners_or_sharp_ones(sharpness):
    assert focus_advice(sharpness) is None

