import numpy as np
import pytest

from vision.reader.classes import CLASS_NAMES, class_id
from vision.reader.detections import Detections


def sample():
    return Detections(
        xyxy=[[0, 0, 10, 20], [5, 5, 15, 25], [100, 100, 120, 130]],
        confidence=[0.9, 0.4, 0.8],
        class_id=[class_id("KH"), class_id("10D"), class_id("JK")],
    )


def test_validates_shapes_and_class_ids():
    with pytest.raises(ValueError, match="3 boxes but 2 confidences"):
        Detections(np.zeros((3, 4)), np.zeros(2), np.zeros(3))
    with pytest.raises(ValueError, match="class ids"):
        Detections(np.zeros((1, 4)), np.ones(1), [len(CLASS_NAMES)])


def test_boolean_indexing_keeps_rows_together():
    d = sample()
    confident = d[d.confidence > 0.5]
    assert len(confident) == 2 and confident.codes == ["KH", "JK"]
    assert confident.xyxy[1].tolist() == [100, 100, 120, 130]
    assert d[1].codes == ["10D"]


def test_directions_travel_with_their_rows():
    from dataclasses import replace

    d = replace(sample(), up=[[0, -1], [0, 0], [1, 0]])
    assert d[d.confidence > 0.5].up.tolist() == [[0, -1], [1, 0]] and sample()[[0]].up is None
    with pytest.raises(ValueError, match="3 boxes but 2 directions"):
        replace(sample(), up=np.zeros((2, 2)))


def test_empty_and_merge():
    assert len(Detections.empty()) == 0
    merged = Detections.merge([sample(), Detections.empty(), sample()[[0]]])
    assert len(merged) == 4 and merged.codes[-1] == "KH"
    assert len(Detections.merge([])) == 0


def test_from_yolo_labels_round_trip():
    d = Detections.from_yolo_labels([f"{class_id('AS')} 0.5 0.25 0.1 0.2", ""], width=200, height=100)
    assert d.codes == ["AS"]
    np.testing.assert_allclose(d.xyxy[0], [90, 15, 110, 35])
    np.testing.assert_allclose(d.centers[0], [100, 25])
    np.testing.assert_allclose(d.sizes[0], [20, 20])
