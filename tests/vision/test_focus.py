"""How sharp the camera shows the corners: measured on drawn indexes, carried by the reading."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from vision.reader.card_reader import CardReader
from vision.reader.detections import Detections
from vision.reader.focus import BLURRED_BELOW, index_sharpness, percentiles


def drawn_corner(blur_sigma: float = 0.0, ink: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """A white card with a black "7" about 20 px tall, optionally blurred; and the index's box."""
    frame = np.full((80, 120, 3), 235, np.uint8)
    cv2.putText(frame, "7", (50, 50), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (ink, ink, ink), 2, cv2.LINE_8)
    if blur_sigma:
        frame = cv2.GaussianBlur(frame, (0, 0), blur_sigma)
    return frame, np.array([[48, 30, 66, 52]], np.float32)


def test_a_sharp_corner_scores_over_the_blur_line_and_a_blurred_one_under_it():
    sharp, box = drawn_corner()
    soft = [index_sharpness(drawn_corner(sigma)[0], box)[0] for sigma in (1.0, 2.0, 3.0)]
    assert index_sharpness(sharp, box)[0] > BLURRED_BELOW
    assert all(value < BLURRED_BELOW for value in soft)
    assert soft[0] > soft[1] > soft[2]  # the wider the blur, the softer


def test_the_measure_does_not_depend_on_the_light():
    frame, box = drawn_corner(1.0)
    dim = (frame.astype(np.float32) * 0.5).astype(np.uint8)
    assert index_sharpness(dim, box)[0] == pytest.approx(index_sharpness(frame, box)[0], rel=0.05)


def test_corners_too_small_too_faint_or_outside_the_frame_are_not_judged():
    frame, box = drawn_corner()
    faint, _ = drawn_corner(ink=215)
    boxes = np.array([[50, 30, 54, 34], [200, 200, 220, 230]], np.float32)
    assert np.isnan(index_sharpness(frame, boxes)).all()
    assert np.isnan(index_sharpness(faint, box)).all()
    assert index_sharpness(frame, np.zeros((0, 4))).shape == (0,)


def test_a_reading_carries_the_sharpness_of_the_corners_it_could_judge():
    frame, box = drawn_corner()

    class Found:
        def detect(self, frame_bgr):
            return Detections(np.concatenate([box, [[90, 30, 94, 34]]]), [0.9, 0.8], [5, 6])

    reading = CardReader(detector=Found()).read(frame)
    assert len(reading.index_heights) == 2 and len(reading.index_sharpness) == 1  # the tiny one not judged
    assert reading.index_sharpness[0] == pytest.approx(index_sharpness(frame, box)[0], abs=1e-3)


def test_an_index_found_twice_by_nested_boxes_is_judged_once():
    frame, box = drawn_corner()
    inner = box + np.array([[1, 1, -1, -1]], np.float32)  # the same "7", a box 2 px narrower

    class FoundTwice:
        def detect(self, frame_bgr):
            return Detections(np.concatenate([box, inner]), [0.9, 0.7], [5, 5])

    reading = CardReader(detector=FoundTwice()).read(frame)
    assert len(reading.index_heights) == 1 and len(reading.index_sharpness) == 1
    assert reading.index_sharpness[0] == pytest.approx(index_sharpness(frame, box)[0], abs=1e-3)


@given(arrays(np.float32, array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=40),
              elements=st.floats(0, 255, width=32)),
       st.lists(st.floats(0, 100), min_size=1, max_size=3))
def test_percentiles_are_numpys_linear_ones(values, percents):
    assert percentiles(values, tuple(percents)) == pytest.approx(np.percentile(values, percents), rel=1e-6, abs=1e-6)
