"""Detector evaluation: AP, matching, the confusion matrix, per-card recall and precision."""

from __future__ import annotations

import numpy as np
import pytest

from vision.evaluation.detector import (
    BACKGROUND,
    Frame,
    average_precision,
    confused_pairs,
    match,
    operating_points,
    score,
    size_ceilings,
    suited_map50,
)
from vision.reader.classes import class_id
from vision.reader.detections import Detections, iou


def boxes(*rows) -> Detections:
    """Detections from (code, x1, y1, x2, y2, confidence) rows."""
    return Detections([r[1:5] for r in rows], [r[5] for r in rows], [class_id(r[0]) for r in rows])


TRUTH = boxes(("6S", 0, 0, 10, 20, 1), ("9H", 50, 0, 60, 20, 1), ("10D", 100, 0, 110, 20, 1))


def test_iou():
    a = np.array([[0, 0, 10, 10]], np.float32)
    others = np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]], np.float32)
    np.testing.assert_allclose(iou(a, others), [[1, 1 / 3, 0]], atol=1e-6)


def test_perfect_detections_score_one():
    report, _ = score([Frame(TRUTH, TRUTH)], conf=0.5)
    assert report.map50 == pytest.approx(1) and report.map50_95 == pytest.approx(1)
    assert set(report.recall.values()) == {1.0} and set(report.precision.values()) == {1.0}
    assert report.rank_accuracy == 1 and report.suit_accuracy == 1 and report.located == 1


def test_a_six_read_as_a_nine_lands_in_the_confusion_matrix_and_costs_recall_and_precision():
    found = boxes(("9S", 0, 0, 10, 20, 0.9), ("9H", 50, 0, 60, 20, 0.9), ("10D", 100, 0, 110, 20, 0.9))
    report, _ = score([Frame(TRUTH, found)], conf=0.5)
    assert report.confusion[class_id("6S"), class_id("9S")] == 1
    assert report.recall["6S"] == 0 and report.precision["9S"] == 0 and report.recall["9H"] == 1
    assert report.rank_accuracy == pytest.approx(2 / 3) and report.suit_accuracy == 1
    assert confused_pairs(report.confusion) == [("6S", "9S", 1)]
    assert report.map50 == pytest.approx(2 / 3)  # over the cards in the truth: 6S never found, 9H and 10D perfect


def test_the_suited_map_leaves_the_joker_out():
    truth = boxes(("6S", 0, 0, 10, 20, 1), ("JK", 50, 0, 60, 20, 1))
    found = boxes(("6S", 0, 0, 10, 20, 0.9), ("QH", 50, 0, 60, 20, 0.9))  # the joker read as a queen
    report, _ = score([Frame(truth, found)], conf=0.5)
    assert report.map50 == pytest.approx(0.5) and report.ap50["JK"] == 0
    assert suited_map50(report) == pytest.approx(1)


def test_misses_and_false_finds_go_to_the_background_row_and_column():
    found = boxes(("9H", 50, 0, 60, 20, 0.9), ("KC", 300, 0, 310, 20, 0.8), ("10D", 100, 0, 110, 20, 0.3))
    report, _ = score([Frame(TRUTH, found)], conf=0.5)
    assert report.confusion[class_id("6S"), BACKGROUND] == 1
    assert report.confusion[class_id("10D"), BACKGROUND] == 1  # found, but below the app's threshold
    assert report.confusion[BACKGROUND, class_id("KC")] == 1


def test_operating_points_count_what_each_threshold_keeps():
    found = boxes(("9S", 0, 0, 10, 20, 0.9), ("9H", 50, 0, 60, 20, 0.9), ("10D", 100, 0, 110, 20, 0.3),
                  ("KC", 300, 0, 310, 20, 0.15))
    low, high = operating_points([Frame(TRUTH, found)], thresholds=(0.1, 0.5))
    assert low == {"conf": 0.1, "located": 1.0, "named_right": pytest.approx(2 / 3, abs=1e-4),
                   "precision": 0.5, "finds": 4}
    assert high == {"conf": 0.5, "located": pytest.approx(2 / 3, abs=1e-4),
                    "named_right": pytest.approx(1 / 3, abs=1e-4), "precision": 0.5, "finds": 2}


def test_matching_takes_the_most_confident_find_first():
    truth = boxes(("KH", 0, 0, 10, 20, 1))
    found = boxes(("KH", 0, 0, 10, 20, 0.4), ("KH", 1, 0, 11, 20, 0.9))
    assert match(truth, found, 0.5, same_class=True).tolist() == [-1, 0]


def test_average_precision_of_a_ranked_list():
    # hits in confidence order: yes, no, yes; three positives, one never found
    ap, recall, precision = average_precision(np.array([1, 0, 1]), np.array([0.9, 0.8, 0.7]), positives=3)
    assert recall.tolist() == pytest.approx([1 / 3, 1 / 3, 2 / 3])
    assert precision.tolist() == pytest.approx([1, 0.5, 2 / 3])
    # precision envelope: 1 up to recall 1/3, 2/3 up to 2/3, 0 beyond (COCO's 101 points)
    expected = (
        np.sum(np.linspace(0, 1, 101) <= 1 / 3 + 1e-9) * 1
        + np.sum((np.linspace(0, 1, 101) > 1 / 3 + 1e-9) & (np.linspace(0, 1, 101) <= 2 / 3 + 1e-9)) * 2 / 3
    ) / 101
    assert ap == pytest.approx(expected)


def test_each_held_out_deck_is_scored_apart(tmp_path):
    import json

    from vision.evaluation.detector import by_deck, truth_decks

    # The scene says which deck each labelled index is printed in (polygons around the true boxes).
    cards = [{"deck": deck, "indexes": [{"polygon": [[x, 0], [x + 10, 0], [x + 10, 20], [x, 20]], "labelled": True}]}
             for deck, x in (("tango", 0), ("dondorf", 50), ("dondorf", 100))]
    (tmp_path / "scene.json").write_text(json.dumps({"cards": cards}))
    decks = truth_decks(tmp_path / "scene.json", TRUTH)
    assert decks == ["tango", "dondorf", "dondorf"]
    assert truth_decks(tmp_path / "missing.json", TRUTH) is None
    # The six found and named; the nine found as a six; the ten boxed at 0.4 of its height (IoU 0.4).
    found = boxes(("6S", 0, 0, 10, 20, 0.9), ("6S", 50, 0, 60, 20, 0.8), ("10D", 100, 0, 110, 8, 0.9))
    rows = by_deck([Frame(TRUTH, found, decks)], conf=0.5)
    assert rows["tango"] == {"indexes": 1, "located": 1.0, "named_right": 1.0, "misshapen_finds": 0}
    assert rows["dondorf"] == {"indexes": 2, "located": 0.5, "named_right": 0.0, "misshapen_finds": 1}
    assert by_deck([Frame(TRUTH, found, decks)], conf=0.95)["dondorf"]["located"] == 0.0


def test_indexes_are_scored_by_their_height_in_the_frame():
    from vision.evaluation.detector import by_size

    truth = boxes(("6S", 0, 0, 4, 6, 1), ("9H", 50, 0, 56, 10, 1), ("10D", 100, 0, 110, 30, 1))
    found = boxes(("6S", 0, 0, 4, 6, 0.9), ("9S", 50, 0, 56, 10, 0.9))  # the 10 is missed, the 9 misnamed
    rows = by_size([Frame(truth, found)], conf=0.5)
    assert list(rows) == ["0-8 px", "8-12 px", "24+ px"]
    assert rows["0-8 px"]["named_right"] == 1.0 and rows["8-12 px"] == {
        "indexes": 1, "located": 1.0, "named_right": 0.0, "misshapen_finds": 0}
    assert rows["24+ px"]["located"] == 0.0


def test_only_readable_indexes_are_scored_and_finds_on_the_others_are_neither_right_nor_false(tmp_path):
    import json

    from vision.evaluation.detector import readable_only, score, truth_views
    from vision.reader.classes import CLASS_NAMES

    # A tall whole 6, a tall 9 half covered, a small 10 (8 px), and an empty corner.
    truth = boxes(("6S", 0, 0, 12, 20, 1), ("9H", 50, 0, 62, 20, 1), ("10D", 100, 0, 104, 8, 1))
    visible = np.array([1.0, 0.6, 1.0])
    found = boxes(("6S", 0, 0, 12, 20, 0.9), ("9H", 50, 0, 62, 20, 0.8), ("10D", 100, 0, 104, 8, 0.7),
                  ("KC", 200, 0, 212, 20, 0.6))
    [frame] = readable_only([Frame(truth, found, ["a", "b", "c"], visible)])
    assert [CLASS_NAMES[c] for c in frame.truth.class_id] == ["6S"] and frame.decks == ["a"]
    # The finds on the 9 and the 10 are left out; the find on the empty corner stays false.
    assert [CLASS_NAMES[c] for c in frame.found.class_id] == ["6S", "KC"]
    report, _ = score([frame], conf=0.5)
    assert report.indexes == 1 and report.located == 1.0 and report.precision["6S"] == 1.0
    # Scored whole, the same finds are three right and one false among three indexes.
    assert score([Frame(truth, found)], conf=0.5)[0].indexes == 3
    # A frame without visibilities counts its indexes as whole: the 9 is readable then.
    assert len(readable_only([Frame(truth, found)])[0].truth) == 2
    # The scene's description gives each labelled index its visibility.
    cards = [{"deck": "d", "indexes": [{"polygon": [[x0, y0], [x1, y0], [x1, y1], [x0, y1]], "labelled": True,
                                        "visible": v}]}
             for (x0, y0, x1, y1), v in zip(truth.xyxy.tolist(), visible)]
    (tmp_path / "scene.json").write_text(json.dumps({"cards": cards[::-1]}))
    assert [view["visible"] for _, view in truth_views(tmp_path / "scene.json", truth)] == [1.0, 0.6, 1.0]


def test_the_bands_of_uncovered_indexes_leave_covered_ones_out_whatever_their_size():
    from vision.evaluation.detector import band_tables

    # A 20 px 6 read, a 20 px 9 half covered and missed, an 8 px 10 read.
    truth = boxes(("6S", 0, 0, 12, 20, 1), ("9H", 50, 0, 62, 20, 1), ("10D", 100, 0, 104, 8, 1))
    found = boxes(("6S", 0, 0, 12, 20, 0.9), ("10D", 100, 0, 104, 8, 0.7))
    tables = band_tables([Frame(truth, found, None, np.array([1.0, 0.6, 1.0]))])
    every, uncovered = tables["by_band"]["0.2"], tables["uncovered_by_band"]["0.2"]
    assert every["16\u201332 px"]["recall"] == 0.5 and uncovered["16\u201332 px"]["recall"] == 1.0
    assert every["8\u201316 px"] == uncovered["8\u201316 px"]  # the small uncovered 10 stays scored


def test_the_ceiling_of_a_reader_blind_to_small_indexes_counts_each_card_it_cannot_see():
    truth = boxes(("6S", 0, 0, 4, 6, 1), ("9H", 50, 0, 56, 10, 1), ("10D", 100, 0, 110, 30, 1))
    ceilings = size_ceilings([Frame(truth, boxes())], heights=(0, 8, 12, 40))
    assert ceilings == {"0 px": 1.0, "8 px": pytest.approx(2 / 3, abs=1e-4), "12 px": pytest.approx(1 / 3, abs=1e-4),
                        "40 px": 0.0}


def test_a_find_scored_as_every_card_it_may_be_is_not_lost_to_a_near_tie():
    """Why the evaluation also gives a multi-label mAP50: a six of spades the classifier splits with
    the club (0.55 against 0.45) is, named once, a false six of clubs and a missed six of spades."""
    from vision.reader.index_classifier import every_card_finds

    truth = boxes(("6C", 0, 0, 10, 20, 1), ("9H", 50, 0, 60, 20, 1))
    found = Detections(truth.xyxy, [0.9, 0.9], [0, 0])
    probabilities = np.zeros((2, BACKGROUND + 1))
    probabilities[0, [class_id("6S"), class_id("6C")]] = 0.55, 0.45
    probabilities[1, class_id("9H")] = 1.0
    named_once = Detections(truth.xyxy, [0.9 * 0.55, 0.9], [class_id("6S"), class_id("9H")])
    once, _ = score([Frame(truth, named_once)], conf=0.5)
    every, _ = score([Frame(truth, every_card_finds(found, probabilities, 0.001, 300))], conf=0.5)
    assert once.map50 == pytest.approx(0.5) and once.ap50["6C"] == 0
    assert every.map50 == pytest.approx(1) and every.ap50["6C"] == pytest.approx(1)



def _scene(folder, labels: bytes, description: str | None = None):
    """A one-scene test split: a small grey picture, its label file and (if given) its description."""
    import cv2

    (folder / "images" / "test").mkdir(parents=True, exist_ok=True)
    (folder / "labels" / "test").mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(folder / "images" / "test" / "s.jpg"), np.full((64, 96, 3), 128, np.uint8))
    (folder / "labels" / "test" / "s.txt").write_bytes(labels)
    if description is not None:
        (folder / "images" / "test" / "s.json").write_text(description)
    return folder


@pytest.mark.parametrize("labels,description,words", [
    (b"garbage here x\n", None, r"s\.txt: line 1: not a YOLO label"),
    (b"0 0.5 0.5 0.1 0.1\n99 0.5 0.5 0.1 0.1\n", None, r"s\.txt: line 2: class 99 is not a card's"),
    (b"\xff\xfe0 0.5", None, r"s\.txt: not a YOLO label file \(not UTF-8"),
    (b"0 0.5 0.5 0.1 0.1\n", '{"cards": 5', r"s\.json: not a scene description"),
    (b"0 0.5 0.5 0.1 0.1\n", '{"cards": [{"indexes": 3}]}', r"s\.json: not a scene description"),
])
def test_corrupt_ground_truth_is_one_line_naming_the_file(tmp_path, capsys, labels, description, words):
    from vision.__main__ import main
    from vision.evaluation.detector import test_frames
    from vision.reader.detections import LabelsError

    scenes = _scene(tmp_path / "scenes", labels, description)
    with pytest.raises(LabelsError, match=words):
        list(test_frames(scenes))
    assert main(["evaluate", "--scenes", str(scenes), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and "s." in err


@pytest.mark.parametrize("flag,value", [("--input-width", "-5"), ("--input-width", "0"), ("--limit", "-1"),
                                        ("--limit", "0")])
def test_evaluate_refuses_a_width_or_limit_below_its_least_naming_the_flag(capsys, flag, value):
    from vision.__main__ import main

    with pytest.raises(SystemExit) as exited:
        main(["evaluate", flag, value])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and f"argument {flag}: must be a whole number of at least" in err
    assert "Traceback" not in err
