"""A find's reading joined with its card's other corner and its neighbours' ranks (vision.reader.neighbours)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.reader.classes import CLASS_NAMES, class_id
from vision.reader.detections import Detections
from vision.reader.index_classifier import BACKGROUND
from vision.reader.neighbours import (
    NEIGHBOUR_FLOOR,
    NEIGHBOUR_REACH,
    OTHER_CORNER_REACH,
    RANK_NAMES,
    read_with_neighbours,
)

SIZE = 10.0  #: every find here is a 10×10 box: an index size is 10 px


def finds_at(centres, confidence=0.9) -> Detections:
    """Like-sized finds centred at ``centres`` (in index sizes)."""
    centres = np.asarray(centres, dtype=np.float64) * SIZE
    half = SIZE / 2
    boxes = np.concatenate([centres - half, centres + half], axis=1)
    return Detections(boxes, np.broadcast_to(confidence, len(boxes)), np.zeros(len(boxes)))


def reading(**cards: float) -> np.ndarray:
    """One row of classifier probabilities: the cards named, the rest of the mass "no index"."""
    row = np.zeros(BACKGROUND + 1)
    for code, p in cards.items():
        row[class_id(code.removeprefix("c"))] = p
    row[BACKGROUND] = 1 - row.sum()
    return row


def likeliest(probabilities: np.ndarray) -> list[str]:
    return [CLASS_NAMES[i] for i in probabilities[:, :BACKGROUND].argmax(axis=1)]


def rank_probability(row: np.ndarray, rank: str) -> float:
    return sum(row[class_id(code)] for code in CLASS_NAMES if code != "JK" and code[:-1] == rank)


def test_a_doubtful_card_in_a_meld_leans_to_the_melds_rank_keeping_its_own_suit():
    # A column of sevens, an index size and a half apart; the middle one reads 8♦ 0.45, 7♥ 0.26, 7♦ 0.22.
    found = finds_at([[0, 0], [0, 1.5], [0, 3.0]])
    probabilities = np.stack([reading(c7S=0.9), reading(c8D=0.45, c7H=0.26, c7D=0.22), reading(c7C=0.85)])
    joined = read_with_neighbours(found, probabilities)
    assert likeliest(probabilities)[1] == "8D" and likeliest(joined)[1] == "7H"
    assert rank_probability(joined[1], "7") > rank_probability(probabilities[1], "7")
    # Its suit given the rank is its own (a meld's cards differ in suit): no spade or club appears.
    assert joined[1, class_id("7S")] == pytest.approx(0, abs=1e-5)
    assert joined[1, class_id("7C")] == pytest.approx(0, abs=1e-5)
    # "No index" and each row's total are kept.
    np.testing.assert_allclose(joined[:, BACKGROUND], probabilities[:, BACKGROUND], atol=1e-6)
    np.testing.assert_allclose(joined.sum(axis=1), 1, atol=1e-5)


def test_a_surely_read_wild_card_in_a_meld_keeps_its_rank():
    found = finds_at([[0, 0], [0, 1.5], [0, 3.0]])
    probabilities = np.stack([reading(c7S=0.9), reading(c2H=0.85, c7H=0.05), reading(c7C=0.85)])
    joined = read_with_neighbours(found, probabilities)
    assert likeliest(joined) == ["7S", "2H", "7C"]
    np.testing.assert_allclose(joined[1], probabilities[1], atol=1e-6)  # too unlike its neighbours to join


def test_a_cards_other_corner_lends_its_suit():
    # Two corners of one card, three index sizes apart, alone on the table: one sure of 9♥, one torn.
    found = finds_at([[0, 0], [3, 0]])
    probabilities = np.stack([reading(c9H=0.9, c9D=0.05), reading(c9H=0.4, c9D=0.5)])
    joined = read_with_neighbours(found, probabilities)
    assert likeliest(joined) == ["9H", "9H"]
    assert joined[0, class_id("9H")] > 0.8  # the sure corner stays sure


def test_finds_out_of_reach_unlike_or_unsure_are_read_alone():
    far = max(NEIGHBOUR_REACH[1], OTHER_CORNER_REACH[1]) + 1
    torn = reading(c8D=0.45, c7H=0.26, c7D=0.22)
    probabilities = np.stack([torn, reading(c7S=0.9)])
    # In reach, sure and of like size, the sure seven moves the torn reading ...
    in_reach = read_with_neighbours(finds_at([[0, 0], [0, 1.5]]), probabilities)
    assert likeliest(in_reach)[0] == "7H"
    # ... and not when too far, too close (the same index found twice) or unsure of being an index.
    for centres, confidence in (([[0, 0], [0, far]], [0.9, 0.9]),
                                ([[0, 0], [0, 0.5]], [0.9, 0.9]),
                                ([[0, 0], [0, 1.5]], [0.9, NEIGHBOUR_FLOOR / 2])):
        found = finds_at(centres, np.asarray(confidence))
        np.testing.assert_allclose(read_with_neighbours(found, probabilities), probabilities, atol=1e-6)
    # A neighbour of another size (a card much nearer the camera) is not a neighbour either.
    found = Detections([[0, 0, 10, 10], [0, 15, 20, 35]], [0.9, 0.9], [0, 0])
    np.testing.assert_allclose(read_with_neighbours(found, probabilities), probabilities, atol=1e-6)


def test_no_finds_one_find_and_finds_the_classifier_rejects():
    assert read_with_neighbours(Detections.empty(), np.zeros((0, BACKGROUND + 1))).shape == (0, BACKGROUND + 1)
    one = np.stack([reading(c8D=0.45, c7H=0.26, c7D=0.22)])
    np.testing.assert_allclose(read_with_neighbours(finds_at([[0, 0]]), one), one)
    rejected = np.zeros(BACKGROUND + 1)
    rejected[BACKGROUND] = 1.0  # "no index", nothing on any card
    joined = read_with_neighbours(finds_at([[0, 0], [0, 1.5]]), np.stack([rejected, reading(c7S=0.9)]))
    assert np.isfinite(joined).all()
    np.testing.assert_allclose(joined[0], rejected)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_the_join_does_not_depend_on_the_order_of_the_finds(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 12))
    found = finds_at(rng.uniform(0, 8, size=(n, 2)), rng.uniform(0.1, 1.0, n))
    probabilities = rng.dirichlet(np.full(BACKGROUND + 1, 0.1), size=n)
    order = rng.permutation(n)
    joined = read_with_neighbours(found, probabilities)
    np.testing.assert_allclose(read_with_neighbours(found[order], probabilities[order]), joined[order], atol=1e-5)
    np.testing.assert_allclose(joined.sum(axis=1), probabilities.sum(axis=1), atol=1e-5)
    np.testing.assert_allclose(joined[:, BACKGROUND], probabilities[:, BACKGROUND], atol=1e-6)


def test_ranks_are_the_games_with_the_joker_its_own():
    assert RANK_NAMES[-1] == "JK" and len(RANK_NAMES) == 14 and "10" in RANK_NAMES


def test_a_card_further_down_a_melds_column_is_not_taken_for_its_other_corner():
    # A column of three cards a step of 1.5 index sizes apart: the first and the third, 3 sizes
    # apart, read alike (both torn between 9♥ and 9♦), but the third lies in the first's column,
    # so it is the meld's next card but one, not the first card's other corner.
    torn_h, torn_d = reading(c9H=0.55, c9D=0.4), reading(c9H=0.4, c9D=0.55)
    column = finds_at([[0, 0], [0, 1.5], [0, 3.0]])
    probabilities = np.stack([torn_h, reading(c9S=0.9), torn_d])
    joined = read_with_neighbours(column, probabilities)
    assert likeliest(joined) == ["9H", "9S", "9D"]
    # Each keeps its own odds between the suits (the rank join leaves a suit given the rank alone).
    assert joined[0, class_id("9H")] / joined[0, class_id("9D")] == pytest.approx(0.55 / 0.4, rel=1e-4)
    assert joined[2, class_id("9D")] / joined[2, class_id("9H")] == pytest.approx(0.55 / 0.4, rel=1e-4)
    # The same two corners with no column between them pair, and lean to each other's suit.
    pair = finds_at([[0, 0], [0, 3.0]])
    joined = read_with_neighbours(pair, np.stack([torn_h, torn_d]))
    assert joined[0, class_id("9H")] < torn_h[class_id("9H")] and joined[1, class_id("9D")] < torn_d[class_id("9D")]
