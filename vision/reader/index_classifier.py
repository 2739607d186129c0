"""The two-stage design's second stage: a small CNN that names a corner-index crop (53 classes).

A one-class detector finds "a corner index"; this classifier reads which card it is. A crop is a
square window :data:`WINDOW` times the box's longer side, centred on the box, resampled to
:data:`CROP` pixels. Training stores a twice-as-wide context around each window (:data:`CONTEXT`)
so that augmentation (:func:`augment`: shifts like a detector's, scale, rotation) never runs off the
stored pixels; the deck lessons the app runs augment the same way.

The network is :class:`vision.reader.index_net.IndexNet`; its training data and training are in
:mod:`vision.model.index_crops` and :mod:`vision.model.index_training`. Reading crops needs torch
only for a training save, not for the export the app runs.

A classifier may also learn a 54th class, :data:`BACKGROUND`: "no corner index here", from the
detector's own false finds on training scenes. A find it judges no index then gets a low
probability for every card, so the joined confidence falls.
"""

from __future__ import annotations

import math
import pickle
from pathlib import Path

import cv2
import numpy as np

from vision.reader.classes import CLASS_NAMES, SCORE_NAME_OF_CLASS, SCORE_NAMES
from vision.reader.detections import Detections

CROP = 32
WINDOW = 1.3
#: The windows the app reads each find through (times its box's longer side), their readings joined:
#: a detector's box is a little too big or too small, and the classifier learnt the index framed both
#: ways (its training zooms by 0.85 to 1.2). Two windows score as three, for two thirds of the work
#: (docs/experiments.md, "The classifier").
READ_WINDOWS = (1.15, WINDOW)
#: Each window may also be read turned by more angles (degrees). Turning every find triples the
#: classifier's work for little; only doubtful finds are read turned (:data:`DOUBT_TURNS`). Every
#: reading (each window, each turn) is joined by their geometric mean (:func:`join_readings`).
READ_TURNS = (0.0,)
#: A find the readings above leave unsure (no class, "no index" among them, at :data:`DOUBT_BELOW`
#: or more) is read again turned by :data:`DOUBT_TURNS` through the windows of :data:`DOUBT_WINDOWS`
#: (each both ways up), all its readings joined: fanned cards lie steeply turned, and the classifier
#: learnt turns of only ±15°. It reads two finds in three again, for about half the first reading's
#: time (docs/experiments.md, "The classifier").
DOUBT_TURNS = (-20.0, 20.0)
DOUBT_WINDOWS = (1.15,)
#: The windows of :data:`READ_WINDOWS` a find not doubted (the table reader's weak finds, which only
#: continue meld columns) is read through: one, for an eighth less of the classifier's time on a
#: 1080p table (docs/experiments.md, "The classifier").
WEAK_WINDOWS = (WINDOW,)
DOUBT_BELOW = 0.7
CONTEXT = 2 * CROP  #: stored context side, in pixels: two windows wide
BACKGROUND = len(CLASS_NAMES)  #: the class "not a corner index" of a classifier trained with false finds


class Halvings:
    """An image and its copies halved k times (made once, when first asked for), to crop large
    boxes from: a warp samples its source without averaging, so a crop shrunk more than
    :data:`MIN_ZOOM` times would alias."""

    def __init__(self, image: np.ndarray):
        self._levels = [image]

    def level(self, k: int) -> np.ndarray:
        while len(self._levels) <= k:
            last = self._levels[-1]
            self._levels.append(cv2.resize(last, (max(1, last.shape[1] // 2), max(1, last.shape[0] // 2)),
                                           interpolation=cv2.INTER_AREA))
        return self._levels[k]


#: A crop is warped from an image halved until it shrinks the image at most this much.
MIN_ZOOM = 0.5


def window_crops(image: np.ndarray | Halvings, boxes: np.ndarray, size: int, window: float,
                 turn: float | np.ndarray = 0.0) -> np.ndarray:
    """(n, size, size, 3) square crops centred on each box, ``window`` times its longer side wide,
    turned ``turn`` degrees (anticlockwise; one angle, or one per box) about the box's centre. A box
    too large for the crop is taken from a halved copy of the image (:class:`Halvings`), so an index
    reads alike at any size."""
    halvings = image if isinstance(image, Halvings) else Halvings(image)
    crops = np.empty((len(boxes), size, size, 3), dtype=np.uint8)
    turns = np.broadcast_to(np.asarray(turn, np.float64), (len(boxes),))
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        side = max(x2 - x1, y2 - y1, 1.0) * window
        zoom = size / side
        halved = math.ceil(math.log2(MIN_ZOOM / zoom)) if zoom < MIN_ZOOM else 0
        source, factor = halvings.level(halved), 2.0 ** -halved
        centre = ((x1 + x2) / 2 * factor, (y1 + y2) / 2 * factor)
        matrix = cv2.getRotationMatrix2D(centre, float(turns[i]), zoom / factor)
        matrix[:, 2] += (size / 2 - centre[0], size / 2 - centre[1])
        flags = cv2.INTER_AREA if zoom / factor < 1 else cv2.INTER_LINEAR
        crops[i] = cv2.warpAffine(source, matrix, (size, size), flags=flags, borderMode=cv2.BORDER_REPLICATE)
    return crops


def reading_crops(frame_bgr: np.ndarray, boxes: np.ndarray, turns: tuple[float, ...] | None = None,
                  windows: tuple[float, ...] | None = None, upright: np.ndarray | None = None) -> np.ndarray:
    """(len(windows) × len(turns) × n, CROP, CROP, 3) crops of each box through every window of
    ``windows`` (default :data:`READ_WINDOWS`) at every turn of ``turns`` (default :data:`READ_TURNS`),
    window after window and turn after turn: what the app reads (each also turned half round).
    ``upright``: (n,) degrees each box is turned by besides, to stand its index upright."""
    halvings = Halvings(frame_bgr)
    base = 0.0 if upright is None else np.asarray(upright, np.float64)
    return np.concatenate([window_crops(halvings, boxes, CROP, window, base + turn)
                           for window in (READ_WINDOWS if windows is None else windows)
                           for turn in (READ_TURNS if turns is None else turns)])


def both_ways_up(crops_bgr: np.ndarray) -> np.ndarray:
    """The crops as they lie, then each turned half round: what :meth:`IndexClassifier.probabilities`
    reads (and an int8 classifier is calibrated on)."""
    return np.concatenate([crops_bgr, crops_bgr[:, ::-1, ::-1]])


#: How far (degrees, either way) training turns a crop, besides half turns: see :func:`augment`.
TRAIN_TURN = 15.0
#: How often training fades a crop's ink towards the card (see :func:`augment`). The shipped
#: classifier trained its last minutes with ``--fade 0.25`` (models/MODEL_CARD.md); off by default,
#: so a deck lesson (:mod:`vision.reader.deck_learning`) learns as it was measured.
TRAIN_FADE = 0.0


def augment(context: np.ndarray, rng: np.random.Generator, turn: float = TRAIN_TURN,
            fade: float = TRAIN_FADE) -> np.ndarray:
    """A CROP×CROP view of one stored context, moved, scaled and turned like a detector's box (by up to
    ``turn`` degrees either way), half the time upside down, recoloured; with probability ``fade`` its
    ink faded towards white (a deck printed in grey and pink, or a picture washed out by light)."""
    centre = CONTEXT / 2 + rng.uniform(-0.12, 0.12, 2) * CONTEXT / 2
    zoom = 2 * rng.uniform(0.85, 1.2) * CROP / CONTEXT
    # Turned a little like a detector's box, and half the time upside down: a card turned round is the
    # same card, and the far team's cards reach the camera that way.
    angle = rng.uniform(-turn, turn) + (180 if rng.random() < 0.5 else 0)
    matrix = cv2.getRotationMatrix2D(tuple(centre), angle, zoom)
    matrix[:, 2] += CROP / 2 - centre
    crop = cv2.warpAffine(context, matrix, (CROP, CROP), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    return recolour(crop, rng, fade)


def recolour(crop: np.ndarray, rng: np.random.Generator, fade: float = 0.0) -> np.ndarray:
    """A float crop as another camera and light would show it (uint8): with probability ``fade`` its
    ink faded towards white, then white balance, exposure, blur, sensor noise, now and then grey."""
    if fade and rng.random() < fade:  # (no draw when off: the crops of earlier runs, seed for seed)
        crop += (255 - crop) * rng.uniform(0.15, 0.5)
    crop = crop * rng.uniform(0.85, 1.15, 3) + rng.uniform(-25, 25)  # white balance and exposure
    if rng.random() < 0.3:
        crop = cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.4, 1.2))
    crop += rng.normal(0, rng.uniform(0, 8), crop.shape)
    if rng.random() < 0.05:  # now and then no colour at all, so shapes are learnt as well as red/black
        crop[:] = crop.mean(axis=2, keepdims=True)
    return np.clip(crop, 0, 255).astype(np.uint8)


#: The numbers of classes an index classifier names: the cards, and "no index" besides where it learnt
#: the detector's false finds (:data:`BACKGROUND`).
CARD_CLASSES = (len(CLASS_NAMES), len(CLASS_NAMES) + 1)


class IndexClassifier:
    """Names the boxes of a one-class detector: class = the crop's best card, confidence = the
    detector's times the card's probability. A classifier with a background class gives a find it
    judges no index a low probability for every card, so its confidence falls.

    ``weights`` is a training save (``.pt``, run by torch) or its export (``.onnx``, see
    :func:`vision.model.index_training.export_onnx`), run by ONNX Runtime or OpenVINO (what the app
    runs) on ``threads`` threads. The app never runs torch: its threads wait on each other when the
    cores are busy (the camera, the window), ten times slower than ONNX Runtime then."""

    def __init__(self, weights: Path, threads: int | None = None, runtime: str = "onnxruntime",
                 classes: tuple[int, ...] | None = CARD_CLASSES) -> None:
        """``runtime``: what runs an ``.onnx`` export, ``"onnxruntime"`` or ``"openvino"``
        (:class:`~vision.reader.weights.OpenVinoModel`). ``classes``: the numbers of classes the network
        may name (the facing network's :data:`vision.reader.facing.BINS`; ``None``: any): another network,
        or one not taking :data:`CROP`-pixel crops, is a WeightsError, found from the file's
        declared shapes before anything runs."""
        from vision.reader.weights import WeightsError, declared_shape

        weights = Path(weights)
        self.weights = weights  #: the file it runs
        self.model, self._run = None, None
        if weights.suffix == ".onnx":
            if runtime == "openvino":
                self._run = _openvino_model(weights, threads)
                self.classes = self._run.output_width
                crops, output = self._run.input_shape, self._run.output_shape
            else:
                session = _onnx_session(weights, threads)
                self._run = lambda array: session.run(None, {ONNX_INPUT: array})[0]
                crops = declared_shape(session.get_inputs()[0].shape)
                output = declared_shape(session.get_outputs()[0].shape)
                self.classes = (output[1] or 0) if len(output) > 1 else 0
                name = session.get_inputs()[0].name
                if name != ONNX_INPUT:  # the crops are handed over by this name
                    raise _export_error(weights, f"not an index classifier's or facing network's export (its "
                                                 f"input is {name!r}, not {ONNX_INPUT!r})", other_network=True)
            if crops[1:] != (3, CROP, CROP) or len(output) != 2 or (classes and self.classes not in classes):
                raise _export_error(weights, _not_the_network(crops, output, classes), other_network=True)
            return
        rebuild = f"rebuild it: python -m vision classifier --out {weights} (see models/MODEL_CARD.md)"
        if not weights.is_file():
            raise WeightsError(f"{weights}: no such classifier file; {rebuild}")
        from vision.reader.index_net import load_net

        try:
            self.model = load_net(weights)
        except (RuntimeError, KeyError, EOFError, pickle.UnpicklingError) as error:
            raise WeightsError(f"{weights}: not an index classifier ({type(error).__name__}); {rebuild}") from None
        self.classes = self.model.head[3].out_features
        if classes and self.classes not in classes:
            raise WeightsError(f"{weights}: {_not_the_network((None, 3, CROP, CROP), (None, self.classes), classes)}; "
                               f"{rebuild}")

    def _logits(self, crops_bgr: np.ndarray) -> np.ndarray:
        if self._run is not None:
            return self._run(to_array(crops_bgr))
        import torch

        with torch.inference_mode():
            return self.model(torch.from_numpy(to_array(crops_bgr))).numpy()

    def probabilities(self, crops_bgr: np.ndarray, both_ways: bool = True) -> np.ndarray:
        """(n, classes) probabilities of each crop. ``both_ways``: the mean of two readings, the crop
        as it lies and turned half round, so a card reads the same whichever way up it lies (the far
        team's cards reach the camera upside down), for twice the classifier's work;
        ``both_ways=False`` reads each crop once."""
        if not len(crops_bgr):
            return np.zeros((0, self.classes), np.float32)
        if not both_ways:
            return softmax(self._logits(crops_bgr))
        both = softmax(self._logits(both_ways_up(crops_bgr)))
        return (both[:len(crops_bgr)] + both[len(crops_bgr):]) / 2

    def read_boxes(self, frame_bgr: np.ndarray, boxes: np.ndarray, doubted: np.ndarray | None = None,
                   upright: np.ndarray | None = None) -> np.ndarray:
        """(n, classes) probabilities of what each box of the frame holds: its readings through every
        window of :data:`READ_WINDOWS` at every turn of :data:`READ_TURNS` (each both ways up), read in
        one batch and joined by :func:`join_readings`; a box those leave unsure (under
        :data:`DOUBT_BELOW`) is read again at the turns of :data:`DOUBT_TURNS` through the windows of
        :data:`DOUBT_WINDOWS`, all its readings joined. ``doubted`` (n booleans): the boxes that may
        be read again, all by default; the others (the table reader's weak finds) are read through
        the windows of :data:`WEAK_WINDOWS` alone. ``upright`` (n angles, degrees): each box's crops
        turned so, its index's top up (:func:`vision.reader.facing.upright_turns`), before every reading:
        the classifier learnt indexes upright or upside down, turned 15° at most."""
        if not len(boxes):
            return np.zeros((0, self.classes), np.float32)
        boxes = np.asarray(boxes)
        upright = np.zeros(len(boxes)) if upright is None else np.asarray(upright, np.float64)
        doubted = np.ones(len(boxes), bool) if doubted is None else np.asarray(doubted, bool)
        weak = np.flatnonzero(~doubted)
        if not len(weak):
            readings = self.probabilities(reading_crops(frame_bgr, boxes, upright=upright)).reshape(
                -1, len(boxes), self.classes)
            joined = join_readings(readings)
        else:  # one batch: every box through the weak windows, the doubted ones through the rest too
            rest = tuple(window for window in READ_WINDOWS if window not in WEAK_WINDOWS)
            sure = np.flatnonzero(doubted)
            crops = reading_crops(frame_bgr, boxes, windows=WEAK_WINDOWS, upright=upright)
            if rest and len(sure):
                crops = np.concatenate([crops, reading_crops(frame_bgr, boxes[sure], windows=rest,
                                                             upright=upright[sure])])
            read = self.probabilities(crops)
            turns, split = len(READ_TURNS), len(WEAK_WINDOWS) * len(READ_TURNS) * len(boxes)
            first = read[:split].reshape(len(WEAK_WINDOWS), turns, len(boxes), self.classes)
            others = read[split:].reshape(len(rest), turns, len(sure), self.classes)
            joined = join_readings(first.reshape(-1, len(boxes), self.classes))
            # The doubted boxes' readings window after window of READ_WINDOWS, as :func:`reading_crops` orders them.
            readings = np.concatenate([first[WEAK_WINDOWS.index(window)][:, sure] if window in WEAK_WINDOWS
                                       else others[rest.index(window)] for window in READ_WINDOWS])
            if len(sure):
                joined[sure] = join_readings(readings)
        unsure = (joined.max(axis=1) < DOUBT_BELOW) & doubted
        unsure = np.flatnonzero(unsure) if DOUBT_TURNS else np.zeros(0, int)
        if len(unsure):
            again = self.probabilities(reading_crops(frame_bgr, boxes[unsure], DOUBT_TURNS, DOUBT_WINDOWS,
                                                     upright[unsure]))
            position = np.searchsorted(np.flatnonzero(doubted), unsure)  # the unsure among the doubted
            joined[unsure] = join_readings(np.concatenate([readings[:, position],
                                                           again.reshape(-1, len(unsure), self.classes)]))
        return joined

    def name(self, frame_bgr: np.ndarray, found: Detections, naming: str = "card") -> Detections:
        """The finds, each named as its most likely card (:meth:`read_boxes`), at the detector's
        confidence times that card's probability, or its score name's (:func:`named_finds`)."""
        if not len(found):
            return found
        return named_finds(found, self.read_boxes(frame_bgr, found.xyxy), naming)


#: How :func:`named_finds` may judge a find: sure of the card, or of what the score needs of it.
NAMINGS = ("card", "score")
_SCORE_NAMES = np.eye(len(SCORE_NAMES))[list(SCORE_NAME_OF_CLASS)]  #: (53, score names) one-hot


def check_naming(naming: str) -> str:
    """``naming`` if it is one of :data:`NAMINGS`; ValueError naming them otherwise."""
    if naming not in NAMINGS:
        raise ValueError(f"naming must be one of {', '.join(NAMINGS)}, not {naming!r}")
    return naming


def named_finds(found: Detections, probabilities: np.ndarray, naming: str = "card") -> Detections:
    """The finds, each named as the card most likely in its row of ``probabilities`` (n, classes;
    "no index" is never a name), at the detector's confidence times that card's probability.

    ``naming="score"`` first chooses the find's most likely score name (:func:`vision.reader.classes.score_name`:
    the rank, a three's colour, two or joker), from the summed probabilities of its cards, then
    its likeliest card of that name; the confidence is the detector's times that score name's
    probability. A seven whose suit the classifier can't tell (7♠ 0.4, 7♣ 0.4) is then a sure
    seven, as the score needs it, where named by card it would fall under the reader's threshold.
    The table reader names so (it reads more melds with their ranks right: docs/experiments.md,
    "Thresholds"); the evaluation of the 53 classes names by card."""
    check_naming(naming)
    cards = probabilities[:, :BACKGROUND]
    rows = np.arange(len(cards))
    if naming == "card":
        best = cards.argmax(axis=1)
        return Detections(found.xyxy, found.confidence * cards[rows, best], best)
    by_name = cards @ _SCORE_NAMES
    name = by_name.argmax(axis=1)
    best = np.where(_SCORE_NAMES[:, name].T > 0, cards, -1.0).argmax(axis=1)
    return Detections(found.xyxy, found.confidence * by_name[rows, name], best)


def every_card_finds(found: Detections, probabilities: np.ndarray, floor: float, limit: int) -> Detections:
    """Each find once for every card it may be: at the detector's confidence times that card's
    probability, those at ``floor`` or more, the ``limit`` most confident ("no index" is never a card).

    What ultralytics' validator scores a many-class YOLO on (``non_max_suppression(...,
    multi_label=True)``, every class over its 0.001 floor, 300 a frame), so the evaluation's
    ``multi_label`` mAP50 compares with the issue's target in the terms it was set in; the app and the
    evaluation's headline figures name each find once (:func:`named_finds`)."""
    cards = probabilities[:, :BACKGROUND]
    joined = found.confidence[:, None] * cards
    rows, card = np.nonzero(joined >= floor)
    confidence = joined[rows, card]
    order = np.argsort(-confidence, kind="stable")[:limit]
    return Detections(found.xyxy[rows[order]], confidence[order], card[order])


ONNX_INPUT = "crops"
#: An int8 classifier's file ends so (``index_classifier.int8.onnx``): the app's int8 detector runs one.
INT8_SUFFIX = ".int8.onnx"
def join_readings(readings: np.ndarray) -> np.ndarray:
    """(readings, n, classes) probabilities of the same finds -> (n, classes): their geometric mean,
    summing to one again. A card every reading finds likely stays sure; one that only some readings
    favour loses more than an arithmetic mean would take from it (:data:`READ_TURNS` has the
    figures)."""
    joined = np.exp(np.log(np.maximum(readings, 1e-9)).mean(axis=0))
    return joined / joined.sum(axis=1, keepdims=True)


def to_array(crops_bgr: np.ndarray) -> np.ndarray:
    """(n, CROP, CROP, 3) uint8 BGR -> (n, 3, CROP, CROP) float32 RGB in [0, 1]: the network's input."""
    return np.ascontiguousarray(crops_bgr[..., ::-1].transpose(0, 3, 1, 2), dtype=np.float32) / np.float32(255)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Rows of logits (log-probabilities up to a constant) as probabilities summing to one."""
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def _onnx_session(path: Path, threads: int | None):
    """An ONNX Runtime InferenceSession of an exported classifier, or WeightsError saying how to make it."""
    from vision.reader.weights import load_onnx_session

    return load_onnx_session(path, threads, error=_export_error)


def _openvino_model(path: Path, threads: int | None):
    """An exported classifier compiled by OpenVINO, or WeightsError saying how to make it."""
    from vision.reader.weights import OpenVinoModel

    return OpenVinoModel(path, threads, error=_export_error)


def _not_the_network(crops: tuple, output: tuple, classes: tuple[int, ...] | None) -> str:
    """What is wrong with a network of these declared shapes in an :class:`IndexClassifier`'s place."""
    from vision.reader.weights import shape_text

    named = " or ".join(map(str, classes)) if classes else "some"
    what = "an index classifier" if classes == CARD_CLASSES else "the network expected here"
    return (f"not {what} (one taking (n, 3, {CROP}, {CROP}) crops and naming {named} classes; this one "
            f"takes {shape_text(crops)} and gives {shape_text(output)})")


def _export_error(path: Path, problem: str, other_network: bool = False):
    """The WeightsError of a missing or unreadable classifier export: what it is and how to make it.
    ``other_network``: the file is another network's export, so the save beside it makes no better one."""
    from vision.reader.weights import WeightsError

    int8 = path.name.endswith(INT8_SUFFIX)
    source = path.with_name(path.name.removesuffix(INT8_SUFFIX if int8 else ".onnx") + ".pt")
    if other_network:
        hint = ("give the index classifier's export (python -m vision classifier trains one and exports it; see "
                "models/MODEL_CARD.md)")
    elif int8:
        hint = (f"make it with python -m vision export --classifier {source} --int8 SCENES (a python -m vision "
                "synth folder whose val scenes calibrate it; see models/MODEL_CARD.md)")
    elif source.is_file():
        hint = f"export it with python -m vision export --classifier {source}"
    else:
        hint = (f"train one with python -m vision classifier --out {source} (see models/MODEL_CARD.md), which "
                "exports it too")
    return WeightsError(f"{path}: {problem}; {hint}")
