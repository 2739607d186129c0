"""Learning the table's own deck: cards the players name in the app teach the shipped classifier.

The reader was trained on synthetic scenes of many decks, and reads a design it has never seen far
worse than the ones it has (``models/MODEL_CARD.md``). The one lever that has moved the held-out
figures a long way is showing it the deck on the table: a minute of fine-tuning on a held-out
deck's labelled indexes names many more of that deck's other indexes right (``bench/deck_adaptation.py``;
docs/experiments.md, "Teaching the reader a deck").

How the app uses it:

1. The players *teach* cards: the app crops each corner index it finds in the picture
   (:func:`teaching_crops`), shows its guess, and the players correct the wrong ones. The crops and
   their names are kept in the score-sheet database.
2. *Learning* (``python -m vision learn-deck FOLDER``, a background process): :func:`learn_deck`
   fine-tunes the shipped classifier on the taught cards less a held-back part (whole pictures,
   :func:`held_back`), and keeps the lesson only if that names the held-back cards better than the
   shipped classifier does; it then learns again from every card. With few cards that check is
   noisy, so a tie is a refusal and the figures are shown to players.
3. The reader then names what the detector finds with the learnt classifier
   (:func:`learnt_classifier`), until the players forget the deck.

Measured as the app does it (``bench/deck_adaptation.py --app``): from a few hundred cards a deck
the lesson names more of its other indexes right and no deck worse; from fewer than a hundred most
lessons are refused.

No torch: a lesson fine-tunes the shipped classifier's ONNX export in numpy as torch's training
would (:mod:`vision.reader.index_tuning`), so it runs in the app's own install, and learns as a
torch lesson does: on the bench above, from 156–354 cards a deck, 0.606 -> 0.653 (torch) and 0.654
(numpy), from 707–1,592 cards 0.683 both (README, "Teaching it your deck").
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

from vision.reader.classes import CLASS_NAMES
from vision.reader.index_classifier import BACKGROUND, CONTEXT, WINDOW, IndexClassifier, window_crops
from vision.reader.weights import shipped_file

#: The label of a find the players say is no card's corner (a pip, a court letter, the cloth).
NOT_A_CARD = "none"
#: Learning is refused with fewer taught cards: too few to learn from and to check on.
MIN_CARDS = 40
#: About one taught card in this many is held back to check what was learnt: whole pictures when
#: the players named cards on two or more (:func:`held_back`).
HOLD_BACK_EVERY = 5
#: The check wants at least this many held-back cards: further pictures are held back until it has
#: them (never every picture), even past one card in :data:`HOLD_BACK_EVERY`: one picture may hold
#: only a few cards, too few to judge a lesson on.
MIN_CHECKED = 10
#: A lesson's fine-tuning sees each card it learns from about this many times (augmented), then
#: stops: a fixed minute over-fits a small deck's cards, and 40 passes learn more than 15
#: (docs/experiments.md, "Teaching the reader a deck").
PASSES = 40
#: The most minutes a lesson's fine-tuning takes (on one core), however many cards it has: enough
#: for 40 passes over 350 cards in numpy on a busy core (a lesson, two fine-tunings, took 1–3
#: minutes for 156–354 cards on this project's machines).
LESSON_MINUTES = 3.0
#: Peak learning rate of the fine-tuning: the bench's, gentle enough to keep what the shipped
#: classifier knows of every other design.
LESSON_LR = 3e-4
#: What a deck folder holds: the taught cards for the learner, what it made and what it measured.
CARDS_FILE, LEARNT_EXPORT, LESSON_FILE = "cards.npz", "index_classifier.onnx", "lesson.json"
#: The classifier a lesson is learning, before it is kept.
LEARNING_FILE = "learning.onnx"
#: What a lesson starts from: the shipped classifier's float export (the app's reader runs its int8 copy).
SHIPPED_CLASSIFIER = shipped_file("index_classifier.onnx")


class DeckLearningError(Exception):
    """Learning can't start or finish; ``str()`` says why, for players."""


def label_of(code: str) -> int:
    """The classifier's class of a taught name: a card code (``"KH"``, ``"JK"``) or :data:`NOT_A_CARD`."""
    if code == NOT_A_CARD:
        return BACKGROUND
    from vision.reader.classes import class_id

    return class_id(code)


def code_of(label: int) -> str:
    """The name of a classifier's class (:func:`label_of` reversed)."""
    return NOT_A_CARD if label == BACKGROUND else CLASS_NAMES[label]


def teaching_crops(frame_bgr: np.ndarray, boxes: np.ndarray, upright: float | np.ndarray = 0.0) -> np.ndarray:
    """(n, CONTEXT, CONTEXT, 3) crops around each corner-index box, wide enough for the training's
    shifts and zooms (as the training stores its crops: :func:`vision.model.index_crops.scene_crops`),
    each turned ``upright`` degrees (anticlockwise; one angle, or one per box), as the reader turns a
    find before naming it (:func:`vision.reader.facing.upright_turns`)."""
    return window_crops(frame_bgr, np.asarray(boxes, np.float32).reshape(-1, 4), CONTEXT, 2 * WINDOW, upright)


def encode_crop(context: np.ndarray) -> bytes:
    """A taught crop as PNG bytes, for the database."""
    ok, png = cv2.imencode(".png", context)
    if not ok:
        raise ValueError("the crop could not be encoded")
    return png.tobytes()


def decode_crop(png: bytes) -> np.ndarray:
    """A taught crop from :func:`encode_crop`'s bytes; ValueError for anything else."""
    image = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR) if png else None
    if image is None or image.shape != (CONTEXT, CONTEXT, 3):
        raise ValueError("a taught card's picture is damaged")
    return image


def read_contexts(classifier: IndexClassifier, contexts: np.ndarray) -> np.ndarray:
    """(n, classes) probabilities of each taught crop, read as the app reads a find
    (:meth:`~vision.reader.index_classifier.IndexClassifier.read_boxes`): the find's box is the crop's
    centre, ``CONTEXT / (2 × WINDOW)`` wide, as :func:`teaching_crops` cut it."""
    side = CONTEXT / (2 * WINDOW)
    box = np.array([[CONTEXT / 2 - side / 2, CONTEXT / 2 - side / 2, CONTEXT / 2 + side / 2, CONTEXT / 2 + side / 2]])
    if not len(contexts):
        return np.zeros((0, classifier.classes), np.float32)
    return np.concatenate([classifier.read_boxes(context, box) for context in contexts])


def held_back(labels: np.ndarray, pictures: np.ndarray) -> np.ndarray:
    """Which taught cards are held back from learning to check it. With cards named on two pictures
    or more, whole pictures, the last taught first, as many as keep the share held back within one
    card in :data:`HOLD_BACK_EVERY` (but at least :data:`MIN_CHECKED` cards, and never every
    picture): the two corners of one
    card, or cards under one light, then never sit on both sides of the check. From a single picture,
    one card in :data:`HOLD_BACK_EVERY` counted through the cards sorted by name, so the check spreads
    over the names taught (a weaker check: the other corner of a held-back card may be learnt)."""
    check = np.zeros(len(labels), bool)
    taught_on = np.unique(pictures)
    if len(taught_on) < 2:
        check[np.argsort(labels, kind="stable")[HOLD_BACK_EVERY - 1::HOLD_BACK_EVERY]] = True
        return check
    for picture in taught_on[::-1][:-1]:
        more = pictures == picture
        if check.sum() >= MIN_CHECKED and check.sum() + more.sum() > len(labels) / HOLD_BACK_EVERY:
            break
        check |= more
    return check


@dataclass(frozen=True)
class DeckLesson:
    """What one lesson learnt and measured: the cards it had, those held back, how many of those the
    shipped and the learnt classifier named right (as the app reads a find), and whether the learnt
    one is kept."""

    cards: int
    checked: int
    shipped_right: int
    learnt_right: int
    minutes: float
    kept: bool
    date: str

    def summary(self) -> str:
        """The lesson in a sentence for players."""
        measured = (f"Checked on {self.checked} taught cards it had not learnt from, it named {self.learnt_right} "
                    f"right, against {self.shipped_right} before.")
        if self.kept:
            return f"The reader learnt your deck from {self.cards} cards. {measured}"
        return (f"The reader did not improve on your deck, so it keeps reading as before. {measured} "
                "Teach it more cards, from several hands, and try again.")

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> DeckLesson:
        return cls(**{key: data[key] for key in cls.__dataclass_fields__})


def save_cards(folder: Path, contexts: np.ndarray, labels: np.ndarray, pictures: np.ndarray | None = None) -> Path:
    """Write the taught cards where the learner reads them (:data:`CARDS_FILE` in ``folder``):
    their crops, names (classes) and the number of the picture each was named on (all one picture
    when not given)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / CARDS_FILE
    partial = folder / (CARDS_FILE + ".partial.npz")
    pictures = np.zeros(len(labels), np.int64) if pictures is None else pictures
    np.savez(partial, contexts=np.asarray(contexts, np.uint8), labels=np.asarray(labels, np.int64),
             pictures=np.asarray(pictures, np.int64))
    partial.replace(path)
    return path


def load_cards(folder: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The taught cards :func:`save_cards` wrote (crops, classes, pictures); DeckLearningError when
    they are missing or damaged."""
    path = Path(folder) / CARDS_FILE
    try:
        with np.load(path) as saved:
            contexts, labels, pictures = saved["contexts"], saved["labels"], saved["pictures"]
    except FileNotFoundError:
        raise DeckLearningError(f"{path}: no taught cards to learn from") from None
    except OSError as error:
        raise DeckLearningError(f"{path}: the taught cards can't be read ({error.strerror or error})") from None
    except (ValueError, KeyError, EOFError, zipfile.BadZipFile):  # numpy's and zipfile's words for it
        raise DeckLearningError(f"{path}: the taught cards can't be read (the file is damaged or cut short)") from None
    if contexts.shape[1:] != (CONTEXT, CONTEXT, 3) or not len(contexts) == len(labels) == len(pictures) or (
            len(labels) and not ((labels >= 0) & (labels <= BACKGROUND)).all()):
        raise DeckLearningError(f"{path}: the taught cards are not crops of corner indexes with their names")
    return contexts, labels, pictures


def fine_tune(contexts: np.ndarray, labels: np.ndarray, base: Path, out: Path, minutes: float,
              passes: float | None = None, lr: float = LESSON_LR, log=print) -> None:
    """``base``, a classifier's export, fine-tuned (all layers, :func:`vision.reader.index_tuning.fine_tune_export`)
    on these crops and saved to ``out``: for ``passes`` passes over them or ``minutes``, whichever
    ends first (``passes=None``: the minutes alone)."""
    from vision.reader.index_tuning import fine_tune_export

    # The shipped classifier has a background class: one plain grey crop keeps its head whole even
    # when no taught card is "not a card".
    grey = np.full((1, CONTEXT, CONTEXT, 3), 128, np.uint8)
    fine_tune_export(base, np.concatenate([contexts, grey]), np.append(labels, BACKGROUND), out, minutes,
                     max_crops=None if passes is None else round(passes * len(labels)), lr=lr, log=log)


def learn_deck(folder: Path, minutes: float = LESSON_MINUTES, base: Path = SHIPPED_CLASSIFIER,
               log=print, passes: float = PASSES) -> DeckLesson:
    """Fine-tune ``base`` on the taught cards in ``folder`` less those :func:`held_back`, and measure
    both on the held-back ones. Only if the learnt classifier names more of them right is the
    lesson kept: ``base`` is then fine-tuned again on every taught card, and that classifier (its
    save and ONNX export in ``folder``) is what the reader uses. Each of the two fine-tunings sees
    every card it learns from ``passes`` times, or stops after ``minutes``. A kept lesson is written
    to :data:`LESSON_FILE` beside its classifier (what :func:`last_lesson` reads); a refused one
    leaves both as they were, a classifier learnt earlier with its lesson."""
    folder = Path(folder)
    contexts, labels, pictures = load_cards(folder)
    if len(labels) < MIN_CARDS:
        raise DeckLearningError(f"the reader needs at least {MIN_CARDS} taught cards to learn a deck, "
                                f"and has {len(labels)}: teach it more")
    check = held_back(labels, pictures)
    learning = folder / LEARNING_FILE
    started = datetime.now(UTC)
    fine_tune(contexts[~check], labels[~check], base, learning, minutes, passes, log=log)
    truth = labels[check]
    shipped_right, learnt_right = (int((read_contexts(IndexClassifier(weights), contexts[check]).argmax(axis=1)
                                        == truth).sum()) for weights in (base, learning))
    kept = learnt_right > shipped_right
    if kept:
        fine_tune(contexts, labels, base, learning, minutes, passes, log=log)
        learning.replace(folder / LEARNT_EXPORT)  # the reader's file: replaced whole, never half written
    else:
        learning.unlink(missing_ok=True)
    lesson = DeckLesson(cards=len(labels), checked=int(check.sum()), shipped_right=shipped_right,
                        learnt_right=learnt_right, kept=kept, date=started.isoformat(timespec="seconds"),
                        minutes=round((datetime.now(UTC) - started).total_seconds() / 60, 2))
    if kept:
        partial = folder / (LESSON_FILE + ".partial")
        partial.write_text(json.dumps(lesson.to_json(), indent=1))
        partial.replace(folder / LESSON_FILE)
    return lesson


def last_lesson(folder: Path) -> DeckLesson | None:
    """The lesson the learnt classifier in ``folder`` came from (``None`` if none, or it can't be read)."""
    try:
        return DeckLesson.from_json(json.loads((Path(folder) / LESSON_FILE).read_text()))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def learnt_classifier(folder: Path) -> Path | None:
    """The learnt classifier's export in ``folder``, if a lesson made one that is still there."""
    path = Path(folder) / LEARNT_EXPORT
    return path if path.is_file() else None


def forget_deck(folder: Path) -> list[str]:
    """Remove what was learnt (the taught cards stay in the database): the reader's export first,
    then the rest and what a lesson cut short left behind; each file is tried whatever happened to
    the others. What could not be removed, each as ``"path (why)"``; empty when all went."""
    folder = Path(folder)
    if not folder.is_dir():
        return [] if not folder.exists() else [f"{folder} (not a folder)"]
    names = [LEARNT_EXPORT, LESSON_FILE, CARDS_FILE, LEARNING_FILE]
    names += sorted(path.name for path in folder.glob("*.partial*"))
    failed = []
    for name in names:
        try:
            (folder / name).unlink(missing_ok=True)
        except OSError as error:
            failed.append(f"{folder / name} ({error.strerror or error})")
    return failed
