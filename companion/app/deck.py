"""Teaching the card reader the table's own deck (:mod:`vision.reader.deck_learning`).

Players lay cards face up where the camera sees them and choose *Reader → Teach it our cards*: the
app finds the corner indexes in the picture (:class:`DeckTeacher`), shows each one with the reader's
guess (:class:`TeachDialog`), and keeps the names the players confirm or correct in the score-sheet
database. Once it holds :data:`~vision.reader.deck_learning.MIN_CARDS` cards, :class:`DeckLearner` runs
``python -m vision learn-deck`` in a background process (the window stays live, the video plays);
its lesson is kept only if the learnt classifier names held-back taught cards better, and the
reader then uses it. *Reader → Forget our deck* goes back to the shipped classifier.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
from PySide6.QtCore import QObject, QProcess, Qt, Signal
from PySide6.QtGui import QImage, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from vision.reader.classes import CLASS_NAMES
from vision.reader.deck_learning import (
    LESSON_MINUTES,
    MIN_CARDS,
    NOT_A_CARD,
    PASSES,
    DeckLesson,
    decode_crop,
    encode_crop,
    label_of,
    last_lesson,
    learnt_classifier,
    save_cards,
    teaching_crops,
)
from vision.reader.detections import Detections
from vision.reader.index_classifier import CONTEXT

from .words import card_name

#: The folder of the learnt deck, beside the score-sheet file.
DECK_FOLDER = "deck"
#: A find's thumbnail in the dialog: its box this many times over, drawn this many pixels wide.
THUMB_WINDOW, THUMB_PX = 2.0, 84
#: The picker's first choice: a corner players can't name (covered, blurred) is not taught.
LEAVE_OUT = "leave out"
COLUMNS = 5
#: A guess less sure than this is marked for players to check first (the reader's own threshold).
UNSURE = 0.5


def deck_folder(store_path: Path) -> Path:
    """The learnt deck's folder for a score-sheet file."""
    return Path(store_path).parent / DECK_FOLDER


class DeckTeacher:
    """Finds the corner indexes to teach in a picture, with the reader's guesses. It has its own
    detector and classifier (the reading thread's are not shared across threads), made when first
    needed: the shipped detector's boxes, named by the learnt classifier if there is one."""

    def __init__(self, folder: Path):
        self.folder = folder
        self._boxes = self._names = self._facing = None

    def finds(self, frame_bgr: np.ndarray):
        """:class:`~vision.reader.detections.Detections` of the corner indexes the detector is sure of,
        each named by the classifier (its ``confidence``: how sure it is of that name), a sideways one
        read upright as the reader reads it in play; ``up``: which way the facing network sees each
        index's top (zero where it is unsure or was not asked), the way :func:`upright_crops` turns it
        for the lesson."""
        from vision.reader.card_reader import shipped_facing
        from vision.reader.detector import CardDetector
        from vision.reader.facing import TableFacing, may_lie_sideways, upright_turns
        from vision.reader.index_classifier import named_finds

        if self._boxes is None:  # all three loaded, or none kept: a damaged file is reported each time
            boxes = CardDetector(classifier=False)
            names = _reader_classifier(learnt_classifier(self.folder) or _shipped_classifier())
            facing = shipped_facing()  # None without its file: the reader too then reads finds as they lie
            self._boxes, self._names, self._facing = boxes, names, facing
        found = self._boxes.detect(frame_bgr)
        if not len(found) or self._facing is None:
            return self._names.name(frame_bgr, found)
        # Asked about as the reader asks in play (CardDetector.read): a tall find is read as it lies.
        asked = may_lie_sideways(found.xyxy)
        ups, sureness = np.zeros((len(found), 2)), np.zeros(len(found))
        if asked.any():
            ups[asked], sureness[asked] = self._facing.facing(frame_bgr, found.xyxy[asked])
        named = named_finds(found, self._names.read_boxes(frame_bgr, found.xyxy, upright=upright_turns(ups, sureness)))
        known = (sureness >= TableFacing.SURE)[:, None]
        return Detections(named.xyxy, named.confidence, named.class_id, np.where(known, ups, 0.0))

    def forget_classifier(self) -> None:
        """The classifier changed (a lesson kept, the deck forgotten): load it again when next needed."""
        self._boxes = self._names = self._facing = None


def upright_crops(frame_bgr: np.ndarray, finds) -> np.ndarray:
    """The crops a lesson learns from (:func:`~vision.reader.deck_learning.teaching_crops`), each find
    turned upright by its ``up`` (:meth:`DeckTeacher.finds`), as the reader reads it in play; as it
    lies where the direction is not known (``up`` zero there, so its length serves as the sureness)."""
    from vision.reader.facing import upright_turns

    if finds.up is None:
        return teaching_crops(frame_bgr, finds.xyxy)
    return teaching_crops(frame_bgr, finds.xyxy, upright_turns(finds.up, np.linalg.norm(finds.up, axis=1)))


def _shipped_classifier() -> Path:
    """The shipped classifier's export, beside the detector the app runs."""
    from vision.reader.detector import BACKENDS, CLASSIFIER_NAME
    from vision.reader.weights import default_weights

    return default_weights(BACKENDS[0]).parent / (CLASSIFIER_NAME + ".onnx")


def _reader_classifier(path: Path):
    """The classifier export at ``path``, run as the reader's detector runs its own: the app's
    reader is a default :class:`~vision.reader.card_reader.CardReader`, so its backend is the first of
    :data:`~vision.reader.detector.BACKENDS`."""
    from vision.reader.detector import BACKENDS, classifier_runtime
    from vision.reader.index_classifier import IndexClassifier

    return IndexClassifier(path, runtime=classifier_runtime(BACKENDS[0]))


def learnt_reader_classifier(folder: Path):
    """The learnt classifier as the reader runs it, or ``None`` when no lesson was kept."""
    path = learnt_classifier(folder)
    return _reader_classifier(path) if path else None


def use_learnt_deck(reader, folder: Path) -> str:
    """Have a freshly loaded reader name cards with the classifier learnt in ``folder``, if a lesson
    was kept there; what players are told of it (empty when nothing was learnt)."""
    try:
        classifier = learnt_reader_classifier(folder)
    except Exception as error:  # a damaged learnt file: the shipped classifier reads, and players are told
        return f" What it learnt of your deck can't be loaded, so it reads as shipped ({error})."
    if classifier is None:
        return ""
    reader.detector.classifier = classifier
    lesson = last_lesson(folder)
    return f" It has learnt your deck{f' from {lesson.cards} cards' if lesson else ''}."


def shipped_reader_classifier():
    """The shipped classifier as the reader runs it (the table's deck forgotten): the export a fresh
    start pairs with the default detector (the int8 one beside an int8 detector)."""
    from vision.reader.detector import BACKENDS, classifier_beside
    from vision.reader.weights import default_weights

    return _reader_classifier(classifier_beside(default_weights(BACKENDS[0]), BACKENDS[0]))


def thumbnail(frame_bgr: np.ndarray, box: np.ndarray) -> QPixmap:
    """A find and its surroundings, as players see it in the dialog."""
    from vision.reader.index_classifier import window_crops

    crop = np.ascontiguousarray(window_crops(frame_bgr, np.asarray([box]), THUMB_PX, THUMB_WINDOW)[0][..., ::-1])
    image = QImage(crop.data, THUMB_PX, THUMB_PX, 3 * THUMB_PX, QImage.Format_RGB888)
    return QPixmap.fromImage(image.copy())


def reading_order(boxes: np.ndarray) -> np.ndarray:
    """The finds in the order players read the table: rows (about a box's height apart) top to
    bottom, each left to right."""
    if not len(boxes):
        return np.zeros(0, np.int64)
    height = float(np.median(boxes[:, 3] - boxes[:, 1])) or 1.0
    rows = np.floor(boxes[:, 1] / (2 * height))
    return np.lexsort((boxes[:, 0], rows))


class TeachDialog(QDialog):
    """Each corner index found in the picture, with a picker of its name set to the reader's guess:
    players correct the wrong ones, choose *leave out* for a corner they can't see well, and *not a
    card* for something that is no card's corner. :meth:`taught` is what they named."""

    def __init__(self, frame_bgr: np.ndarray, finds, taught_before: int, parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("Teach the card reader your cards")
        self.resize(960, 680)
        order = reading_order(finds.xyxy)
        self._crops = upright_crops(frame_bgr, finds[order])
        self.pickers: list[QComboBox] = []
        intro = QLabel(
            f"The reader found {len(order)} card corners in the picture; under each is what it reads. "
            "Correct the ones it got wrong, choose “leave out” for a corner you can't make out, and "
            "“not a card” for anything that is not a card's corner; the reader is unsure of those marked in "
            "orange. "
            + (f"It has {taught_before} of your cards so far. " if taught_before else "")
            + f"Once it has {MIN_CARDS} or more it learns your deck in the background "
            "(a few minutes), and keeps what it learnt only if it reads your cards better.")
        intro.setWordWrap(True)
        grid = QGridLayout()
        for n, i in enumerate(order):
            cell = QVBoxLayout()
            picture = QLabel()
            picture.setPixmap(thumbnail(frame_bgr, finds.xyxy[i]))
            picture.setAlignment(Qt.AlignCenter)
            picker = QComboBox()
            picker.addItem("— leave out —", LEAVE_OUT)
            picker.addItem("not a card", NOT_A_CARD)
            for code in CLASS_NAMES:
                picker.addItem(f"{code}  {card_name(code)}", code)
            guess = CLASS_NAMES[int(finds.class_id[i])]
            picker.setCurrentIndex(picker.findData(guess))
            picker.setToolTip(f"The reader reads {card_name(guess)} ({finds.confidence[i]:.0%} sure)")
            if finds.confidence[i] < UNSURE:
                picker.setStyleSheet("QComboBox { border: 2px solid #e08a00; background: #fff3e0; }")
            self.pickers.append(picker)
            cell.addWidget(picture)
            cell.addWidget(picker)
            grid.addLayout(cell, n // COLUMNS, n % COLUMNS)
        cards = QWidget()
        cards.setLayout(grid)
        scroll = QScrollArea()
        scroll.setWidget(cards)
        scroll.setWidgetResizable(True)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.button(QDialogButtonBox.Ok).setText("Keep these cards")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(scroll, 1)
        layout.addWidget(buttons)

    def taught(self) -> list[tuple[str, bytes]]:
        """(name, PNG crop) of every find the players did not leave out."""
        return [(picker.currentData(), encode_crop(crop)) for picker, crop in zip(self.pickers, self._crops)
                if picker.currentData() != LEAVE_OUT]


class DeckLearner(QObject):
    """Runs one lesson at a time in a background process. ``finished`` carries the
    :class:`DeckLesson`, or ``None`` and what went wrong, in words for players."""

    finished = Signal(object, str)

    def __init__(self, folder: Path, parent: QObject | None = None, minutes: float = LESSON_MINUTES,
                 passes: float = PASSES):
        super().__init__(parent)
        self.folder, self.minutes, self.passes = folder, minutes, passes
        self.process: QProcess | None = None

    @property
    def busy(self) -> bool:
        return self.process is not None

    def start(self, taught: list[tuple[str, bytes, int]]) -> None:
        """Learn from these taught cards, as (code, PNG crop, picture number) from the database; a
        damaged one is skipped."""
        contexts, labels, pictures = [], [], []
        for code, png, picture in taught:
            try:
                context, label, number = decode_crop(png), label_of(code), int(picture)
                if not 0 <= number < 2 ** 62:
                    raise ValueError(f"picture number {number}")
            except (ValueError, TypeError, OverflowError):  # a damaged picture, a name no card has: not learnt
                continue
            contexts.append(context)
            labels.append(label)
            pictures.append(number)
        try:
            save_cards(self.folder, np.array(contexts, np.uint8).reshape(-1, CONTEXT, CONTEXT, 3),
                       np.array(labels, np.int64), np.array(pictures, np.int64))
        except OSError as error:  # a full disk, a folder it may not write to
            self.finished.emit(None, f"The reader could not learn your deck: its cards could not be written "
                                     f"to {self.folder} ({error.strerror or error}).")
            return
        self.process = QProcess(self)
        self.process.finished.connect(self._done)
        self.process.errorOccurred.connect(self._failed_to_start)
        self.process.start(sys.executable, ["-m", "vision", "learn-deck", str(self.folder),
                                            "--stop-with-parent", str(os.getpid()),
                                            "--minutes", f"{self.minutes:g}", "--passes", f"{self.passes:g}"])

    def stop(self) -> None:
        """Stop a lesson under way (the app is closing): what was learnt before stays."""
        if self.process is not None:
            self.process.finished.disconnect(self._done)
            self.process.kill()
            self.process.waitForFinished(3000)
            self.process = None

    def _done(self, code: int, _status) -> None:
        output = bytes(self.process.readAllStandardOutput()).decode(errors="replace")
        errors = bytes(self.process.readAllStandardError()).decode(errors="replace").strip()
        self.process = None
        lesson = next((DeckLesson.from_json(json.loads(line[len("lesson "):]))
                       for line in output.splitlines() if line.startswith("lesson ")), None)
        if code == 0 and lesson is not None:
            self.finished.emit(lesson, lesson.summary())
        else:
            why = errors.splitlines()[-1] if errors else f"the learner stopped (exit code {code})"
            self.finished.emit(None, f"The reader could not learn your deck: {why.removeprefix('vision learn-deck: ')}")

    def _failed_to_start(self, error) -> None:
        if error == QProcess.FailedToStart and self.process is not None:
            self.process = None
            self.finished.emit(None, "The reader could not learn your deck: the learner did not start.")
