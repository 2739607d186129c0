"""Scoring the reader on labelled photos (vision.evaluation.photos), as bench/real_photos.py does."""

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from vision.evaluation.photos import LabelledCard, LabelledPhoto, score_photo, turn_picture

BOX = np.array([[40.0, 10.0, 70.0, 60.0]])


def _photo() -> LabelledPhoto:
    seven = LabelledCard("7S", np.array([[150.0, 80.0, 170.0, 110.0]]))
    return LabelledPhoto(Path("deal.jpg"), (LabelledCard("QH", BOX), seven))


@pytest.mark.parametrize("degrees", [0, 90, 180, 270])
def test_turned_labels_lie_where_the_turned_picture_shows_their_index(degrees):
    picture = np.zeros((120, 200, 3), np.uint8)
    x0, y0, x1, y1 = BOX[0].astype(int)
    picture[y0:y1, x0:x1] = 255  # the labelled index, drawn
    turned = turn_picture(picture, degrees)
    ys, xs = np.nonzero(turned[:, :, 0])
    shown = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
    labels = _photo().turned(degrees, picture.shape[1], picture.shape[0])
    np.testing.assert_allclose(labels.cards[0].boxes[0], shown)
    assert turned.shape[:2] == (picture.shape[:2] if degrees in (0, 180) else picture.shape[1::-1])


def test_a_photo_turns_only_by_quarters():
    with pytest.raises(ValueError, match="0, 90, 180 or 270 degrees, not 45"):
        _photo().turned(45, 200, 120)
    with pytest.raises(ValueError, match="not 45"):
        turn_picture(np.zeros((4, 4, 3), np.uint8), 45)


def test_a_card_read_twice_or_misread_counts_against_precision_once_read_right_for_recall():
    read = [SimpleNamespace(code="QH", box=(40, 10, 70, 60), confidence=0.9),
            SimpleNamespace(code="QH", box=(45, 15, 72, 62), confidence=0.5),  # the same card again
            SimpleNamespace(code="8H", box=(150, 80, 170, 110), confidence=0.7),  # the 7♠ misread
            SimpleNamespace(code="7S", box=(600, 500, 620, 530), confidence=0.8)]  # on no 7♠
    score = score_photo(_photo(), read)
    assert (score.cards, score.read, score.readings, score.right) == (2, 1, 4, 1)
    assert score.recall == 0.5 and score.precision == 0.25
