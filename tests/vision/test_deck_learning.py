"""Learning the table's deck (vision.reader.deck_learning) with the shipped classifier, on crops of a
held-out deck's corner indexes in synthetic scenes."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from vision.evaluation.tables import detections_from_truth
from vision.reader.deck_learning import (
    CARDS_FILE,
    HOLD_BACK_EVERY,
    LEARNING_FILE,
    LEARNT_EXPORT,
    LESSON_FILE,
    MIN_CARDS,
    MIN_CHECKED,
    NOT_A_CARD,
    SHIPPED_CLASSIFIER,
    DeckLearningError,
    code_of,
    decode_crop,
    encode_crop,
    held_back,
    label_of,
    last_lesson,
    learn_deck,
    learnt_classifier,
    load_cards,
    read_contexts,
    save_cards,
    teaching_crops,
)
from vision.reader.index_classifier import BACKGROUND, CONTEXT, IndexClassifier
from vision.synth.augment import photograph
from vision.synth.render import render_scene
from vision.synth.scenes import build_scene


@pytest.fixture(scope="module")
def deck(small_atlas) -> tuple[list[np.ndarray], list, np.ndarray, np.ndarray]:
    """Frames of the held-out deck's test scenes, their truth, and the crops and ids of every index."""
    frames, truths, contexts, labels = [], [], [], []
    for seed in range(4):
        scene = build_scene(small_atlas, seed, (960, 540), "test")
        frame = photograph(render_scene(scene, small_atlas), scene.owners, seed)
        truth = detections_from_truth(scene.ground_truth())
        frames.append(frame)
        truths.append(truth)
        contexts.append(teaching_crops(frame, truth.xyxy))
        labels.append(truth.class_id)
    return frames, truths, np.concatenate(contexts), np.concatenate(labels).astype(np.int64)


def test_names_and_crops_go_to_the_database_and_back():
    assert code_of(label_of("kh")) == "KH" and label_of(NOT_A_CARD) == BACKGROUND and code_of(BACKGROUND) == NOT_A_CARD
    crop = np.random.default_rng(0).integers(0, 255, (CONTEXT, CONTEXT, 3), dtype=np.uint8)
    np.testing.assert_array_equal(decode_crop(encode_crop(crop)), crop)  # PNG: lossless
    for damaged in (b"", b"not a png", encode_crop(crop[:10])):
        with pytest.raises(ValueError, match="damaged"):
            decode_crop(damaged)


def test_cards_named_on_one_picture_are_held_back_one_in_five_spread_over_the_names():
    labels = np.repeat(np.arange(5), 10)[np.random.default_rng(1).permutation(50)]
    check = held_back(labels, np.zeros(50))
    assert check.sum() == 50 // HOLD_BACK_EVERY
    assert all(check[labels == label].sum() == 2 for label in range(5))


def test_cards_named_on_several_pictures_are_held_back_a_whole_picture_at_a_time_the_last_first():
    labels = np.arange(60) % 53
    two = held_back(labels, np.repeat([1, 2], [50, 10]))
    np.testing.assert_array_equal(two, np.arange(60) >= 50)  # a picture with a sixth of the cards
    few_last = held_back(labels, np.repeat([1, 2, 3, 4], [30, 20, 6, 4]))
    np.testing.assert_array_equal(few_last, np.arange(60) >= 50)  # the last two: a sixth between them
    lopsided = held_back(labels, np.repeat([1, 2], [5, 55]))
    np.testing.assert_array_equal(lopsided, np.arange(60) >= 5)  # never every picture
    small_last = held_back(labels, np.repeat([1, 2, 3, 4], [30, 24, 3, 3]))
    np.testing.assert_array_equal(small_last, np.arange(60) >= 30)  # until MIN_CHECKED cards are held back
    assert small_last.sum() >= MIN_CHECKED


def test_a_crop_is_read_as_the_app_reads_the_find_it_was_cut_from(deck):
    frames, truths, contexts, _ = deck
    classifier = IndexClassifier(SHIPPED_CLASSIFIER)
    from_frame = classifier.read_boxes(frames[0], truths[0].xyxy)
    from_crops = read_contexts(classifier, contexts[:len(truths[0])])
    # Cut from the crop or from the frame, the same pixels through the same windows (up to resampling).
    assert (from_frame.argmax(axis=1) == from_crops.argmax(axis=1)).mean() >= 0.9
    assert np.abs(from_frame - from_crops).max(axis=1).mean() < 0.1


def test_a_lesson_learns_the_deck_and_keeps_it_only_when_it_names_held_back_cards_better(deck, tmp_path):
    _, _, contexts, labels = deck
    assert len(labels) >= MIN_CARDS
    # A table whose players call every card the joker: the shipped classifier reads the held-back
    # cards as what they are, the learnt one as the players name them.
    jokers = np.full(len(labels), label_of("JK"))
    save_cards(tmp_path, contexts, jokers)
    # Ended by its passes over the cards, not by the clock: a busy machine learns as much, only slower.
    lesson = learn_deck(tmp_path, minutes=3, log=lambda _: None)
    assert lesson.cards == len(labels) and lesson.checked == held_back(jokers, np.zeros(len(labels))).sum()
    assert lesson.kept and lesson.learnt_right > lesson.shipped_right
    assert last_lesson(tmp_path) == lesson and json.loads((tmp_path / LESSON_FILE).read_text())["kept"] is True
    export = learnt_classifier(tmp_path)
    assert export == tmp_path / LEARNT_EXPORT and not (tmp_path / LEARNING_FILE).exists()
    learnt = IndexClassifier(export, runtime="openvino")
    # Kept, it learnt from every taught card, the held-back ones too: it reads jokers far more often.
    shipped = IndexClassifier(SHIPPED_CLASSIFIER)
    jokers_read = [(read_contexts(classifier, contexts).argmax(axis=1) == label_of("JK")).mean()
                   for classifier in (shipped, learnt)]
    assert jokers_read[1] > jokers_read[0] + 0.05

    # A lesson that learns nothing (no time to train) ties with the shipped classifier: refused, and
    # the classifier learnt before stays.
    save_cards(tmp_path, contexts, labels)
    refused = learn_deck(tmp_path, minutes=1e-9, log=lambda _: None)
    assert not refused.kept and refused.learnt_right == refused.shipped_right
    assert "did not improve" in refused.summary() and last_lesson(tmp_path) == lesson  # the one learnt from
    assert learnt_classifier(tmp_path) == export and not (tmp_path / LEARNING_FILE).exists()


def test_learning_is_refused_without_enough_readable_taught_cards(deck, tmp_path):
    _, _, contexts, labels = deck
    with pytest.raises(DeckLearningError, match="no taught cards"):
        load_cards(tmp_path)
    save_cards(tmp_path, contexts[:MIN_CARDS - 1], labels[:MIN_CARDS - 1])
    with pytest.raises(DeckLearningError, match=f"at least {MIN_CARDS} taught cards.*has {MIN_CARDS - 1}"):
        learn_deck(tmp_path)
    whole = (tmp_path / CARDS_FILE).read_bytes()
    for damaged in (b"half a file", b"", whole[:len(whole) // 2], b"PK\x03\x04" + bytes(300)):
        (tmp_path / CARDS_FILE).write_bytes(damaged)  # a file cut short (0 bytes, half a zip) or not one
        with pytest.raises(DeckLearningError, match="can't be read"):
            load_cards(tmp_path)
    save_cards(tmp_path, contexts[:, :10], labels)  # not crops of the size the learner cuts
    with pytest.raises(DeckLearningError, match="not crops of corner indexes"):
        load_cards(tmp_path)


def test_the_learn_command_says_what_is_wrong_in_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "vision", "learn-deck", str(tmp_path / "nothing")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [f"vision learn-deck: {tmp_path / 'nothing' / CARDS_FILE}: "
                                                  "no taught cards to learn from"]
