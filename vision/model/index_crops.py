"""The index classifier's training crops, cut from a ``python -m vision synth`` folder's scenes: the
labelled indexes' contexts (:func:`scene_crops`), the detector's false finds (:func:`false_find_crops`,
for the "no index" class :data:`~vision.reader.index_classifier.BACKGROUND`) and every find as the app
reads it (:func:`reader_crops`); and how many crops a classifier names right (:func:`crop_accuracy`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.reader.detections import iou
from vision.reader.index_classifier import (
    CONTEXT,
    CROP,
    WINDOW,
    IndexClassifier,
    both_ways_up,
    reading_crops,
    window_crops,
)
from vision.synth.labels import labelled_images

#: A detector's find is a false one if it overlaps no true index by more than this (IoU); finds
#: between it and 0.5 (a rank without its suit, a box twice too big) are left out of training.
FALSE_FIND_IOU = 0.2


def scene_crops(scenes: Path, split: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Context crops (n, CONTEXT, CONTEXT, 3) and class ids of every labelled index in a split."""
    crops, labels = [], []
    for _, image, truth in labelled_images(scenes, split, limit):
        crops.append(window_crops(image, truth.xyxy, CONTEXT, 2 * WINDOW))
        labels.append(truth.class_id)
    return np.concatenate(crops), np.concatenate(labels)


def false_find_crops(scenes: Path, split: str, detector, limit: int | None = None) -> np.ndarray:
    """Context crops (n, CONTEXT, CONTEXT, 3) of the detector's finds that are no index (IoU below
    :data:`FALSE_FIND_IOU` with every true one): pips, court letters, glare, the table's pattern, as
    the detector mistakes them. ``detector`` is a one-class :class:`~vision.reader.detector.CardDetector`
    whose threshold is the lowest the classifier will be asked to judge."""
    crops = []
    for _, image, truth in labelled_images(scenes, split, limit):
        found = detector.detect(image)
        if not len(found):
            continue
        overlap = iou(found.xyxy, truth.xyxy).max(axis=1) if len(truth) else np.zeros(len(found))
        false = found.xyxy[overlap < FALSE_FIND_IOU]
        if len(false):
            crops.append(window_crops(image, false, CONTEXT, 2 * WINDOW))
    return np.concatenate(crops) if crops else np.empty((0, CONTEXT, CONTEXT, 3), np.uint8)


def reader_crops(scenes: Path, split: str, detector, limit: int | None = None) -> np.ndarray:
    """(n, CROP, CROP, 3) crops of every find of ``detector`` in a split's scenes, each through the
    app's windows as it lies (:func:`reading_crops`, both ways up; the app turns a sideways find
    upright first): what the classifier is fed at the table, true indexes and false finds alike,
    without their labels. ``detector`` is a one-class
    :class:`~vision.reader.detector.CardDetector` at the reader's threshold."""
    crops = []
    for _, image, _ in labelled_images(scenes, split, limit):
        found = detector.detect(image)
        if len(found):
            crops.append(both_ways_up(reading_crops(image, found.xyxy)))
    return np.concatenate(crops) if crops else np.empty((0, CROP, CROP, 3), np.uint8)


def crop_accuracy(classifier: IndexClassifier, contexts: np.ndarray, labels: np.ndarray) -> float:
    """Share of ground-truth index crops (the centre window of each context) named right."""
    if not len(contexts):
        return float("nan")
    centre = contexts[:, CROP // 2: CROP // 2 + CROP, CROP // 2: CROP // 2 + CROP]
    predicted = np.concatenate([classifier.probabilities(centre[i:i + 1024]).argmax(axis=1)
                                for i in range(0, len(centre), 1024)])
    return float((predicted == labels).mean())
