"""The two-stage design's second stage: a small CNN that names a corner-index crop (53 classes).

A one-class detector finds "a corner index"; this classifier reads which card it is. Crops are tiny
(32×32), so the classifier trains on hundreds of thousands of augmented crops in CPU minutes.

Crops are cut from the synthetic scenes' ground-truth index boxes: a square window
:data:`WINDOW` times the box's longer side, centred on the box, resampled to :data:`CROP` pixels.
Training stores a twice-as-wide context around each window so that augmentation (shifts like a
detector's, scale, rotation) never runs off the stored pixels.

A classifier may also learn a 54th class, :data:`BACKGROUND`: "no corner index here", from the
detector's own false finds on training scenes (:func:`false_find_crops`). A find it judges no index
then gets a low probability for every card, so the joined confidence falls.
"""

from __future__ import annotations

import pickle
import time
from pathlib import Path

import cv2
import numpy as np
import torch
from torch import nn

from vision.classes import CLASS_NAMES
from vision.detections import Detections

CROP = 32
WINDOW = 1.3
CONTEXT = 2 * CROP  #: stored context side, in pixels: two windows wide
BACKGROUND = len(CLASS_NAMES)  #: the class "not a corner index" of a classifier trained with false finds
#: A detector's find is a false one if it overlaps no true index by more than this (IoU); finds
#: between it and 0.5 (a rank without its suit, a box twice too big) are left out of training.
FALSE_FIND_IOU = 0.2


class IndexNet(nn.Module):
    """Three conv blocks and a linear head. ``width`` is the first block's channels (doubled per block):
    16 gives 76 k parameters and 10 M multiply-adds per crop, 24 gives 167 k and 22 M."""

    def __init__(self, classes: int = len(CLASS_NAMES), width: int = 16) -> None:
        super().__init__()
        self.width = width

        def block(c_in: int, c_out: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
                                 nn.Conv2d(c_out, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
                                 nn.MaxPool2d(2))

        self.features = nn.Sequential(block(3, width), block(width, 2 * width), block(2 * width, 4 * width))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
                                  nn.Linear(4 * width, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x))


def window_crops(image: np.ndarray, boxes: np.ndarray, size: int, window: float) -> np.ndarray:
    """(n, size, size, 3) square crops centred on each box, ``window`` times its longer side wide."""
    crops = np.empty((len(boxes), size, size, 3), dtype=np.uint8)
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        side = max(x2 - x1, y2 - y1, 1.0) * window
        zoom = size / side
        matrix = np.array([[zoom, 0, size / 2 - zoom * (x1 + x2) / 2], [0, zoom, size / 2 - zoom * (y1 + y2) / 2]])
        crops[i] = cv2.warpAffine(image, matrix, (size, size), flags=cv2.INTER_AREA if zoom < 1 else cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_REPLICATE)
    return crops


def scene_crops(scenes: Path, split: str, limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Context crops (n, CONTEXT, CONTEXT, 3) and class ids of every labelled index in a split."""
    from vision.evaluate import labelled_images

    crops, labels = [], []
    for _, image, truth in labelled_images(scenes, split, limit):
        crops.append(window_crops(image, truth.xyxy, CONTEXT, 2 * WINDOW))
        labels.append(truth.class_id)
    return np.concatenate(crops), np.concatenate(labels)


def false_find_crops(scenes: Path, split: str, detector, limit: int | None = None) -> np.ndarray:
    """Context crops (n, CONTEXT, CONTEXT, 3) of the detector's finds that are no index (IoU below
    :data:`FALSE_FIND_IOU` with every true one): pips, court letters, glare, the table's pattern, as
    the detector mistakes them. ``detector`` is a one-class :class:`~vision.detector.CardDetector`
    whose threshold is the lowest the classifier will be asked to judge."""
    from vision.evaluate import iou, labelled_images

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


def augment(context: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A CROP×CROP view of one stored context, moved, scaled and turned like a detector's box (or upside
    down), recoloured."""
    centre = CONTEXT / 2 + rng.uniform(-0.12, 0.12, 2) * CONTEXT / 2
    zoom = 2 * rng.uniform(0.85, 1.2) * CROP / CONTEXT
    # Turned a little like a detector's box, and half the time upside down: a card turned round is the
    # same card, and the far team's cards reach the camera that way.
    turn = rng.uniform(-15, 15) + (180 if rng.random() < 0.5 else 0)
    matrix = cv2.getRotationMatrix2D(tuple(centre), turn, zoom)
    matrix[:, 2] += CROP / 2 - centre
    crop = cv2.warpAffine(context, matrix, (CROP, CROP), borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
    crop = crop * rng.uniform(0.85, 1.15, 3) + rng.uniform(-25, 25)  # white balance and exposure
    if rng.random() < 0.3:
        crop = cv2.GaussianBlur(crop, (0, 0), rng.uniform(0.4, 1.2))
    crop += rng.normal(0, rng.uniform(0, 8), crop.shape)
    if rng.random() < 0.05:  # now and then no colour at all, so shapes are learnt as well as red/black
        crop[:] = crop.mean(axis=2, keepdims=True)
    return np.clip(crop, 0, 255).astype(np.uint8)


def to_tensor(crops_bgr: np.ndarray) -> torch.Tensor:
    """(n, CROP, CROP, 3) uint8 BGR -> (n, 3, CROP, CROP) float RGB in [0, 1]."""
    return torch.from_numpy(np.ascontiguousarray(crops_bgr[..., ::-1].transpose(0, 3, 1, 2))).float() / 255.0


def train_classifier(contexts: np.ndarray, labels: np.ndarray, out: Path, minutes: float, batch: int = 256,
                     seed: int = 0, log=print, init: Path | None = None, width: int = 16,
                     save_every: float = 5.0, lr: float = 3e-3) -> dict:
    """Train for a wall-clock budget (continuing ``init`` if given, at its width); saves ``{"state",
    "width", "crops_seen", "minutes"}`` to ``out`` every ``save_every`` minutes and at the end, the
    counts including those of ``init``. A run cut off keeps its last save: continue it with ``init``
    (with a lower ``lr``, the peak of the run's cosine schedule, once the weights have settled)."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    classes = BACKGROUND + 1 if (labels == BACKGROUND).any() else len(CLASS_NAMES)
    before = {"crops_seen": 0, "minutes": 0.0}
    if init:
        before = torch.load(init, map_location="cpu", weights_only=True)
        width = before.get("width", 16)
    model = IndexNet(classes=classes, width=width)
    if init:
        _load_growing_head(model, before["state"])
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    started, seen, step, saved = time.monotonic(), 0, 0, time.monotonic()

    def save() -> dict:
        summary = {"state": model.state_dict(), "width": width, "classes": classes,
                   "crops_seen": before["crops_seen"] + seen,
                   "minutes": before["minutes"] + (time.monotonic() - started) / 60}
        out.parent.mkdir(parents=True, exist_ok=True)
        torch.save(summary, out.with_suffix(".partial"))
        out.with_suffix(".partial").replace(out)  # a kill mid-write leaves the previous save whole
        return summary

    model.train()
    while (elapsed := (time.monotonic() - started) / (minutes * 60)) < 1:
        # Cosine decay over the time budget: the run ends at a low rate whenever it is stopped.
        for group in optimiser.param_groups:
            group["lr"] = lr * 0.5 * (1 + np.cos(np.pi * elapsed))
        pick = rng.integers(0, len(contexts), batch)
        crops = np.stack([augment(contexts[i], rng) for i in pick])
        loss = loss_fn(model(to_tensor(crops)), torch.from_numpy(labels[pick]))
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        seen, step = seen + batch, step + 1
        if step % 50 == 0:
            log(f"step {step}: {seen} crops, loss {loss.item():.3f}")
        if time.monotonic() - saved > save_every * 60:
            save()
            saved = time.monotonic()
    return save()


def _load_growing_head(model: IndexNet, state: dict) -> None:
    """Load saved weights; a 53-class head grows a background row (new weights) for a 54-class model."""
    head = "head.3"
    saved_rows = state[f"{head}.weight"].shape[0]
    wanted = model.head[3].out_features
    if saved_rows == wanted:
        model.load_state_dict(state)
        return
    if saved_rows > wanted:
        raise ValueError(f"cannot train {wanted} classes from a classifier of {saved_rows}")
    fresh = model.state_dict()
    grown = dict(state)
    for part in ("weight", "bias"):
        grown[f"{head}.{part}"] = torch.cat([state[f"{head}.{part}"], fresh[f"{head}.{part}"][saved_rows:]])
    model.load_state_dict(grown)


class IndexClassifier:
    """Names the boxes of a one-class detector: class = the crop's best card, confidence = the
    detector's times the card's probability. A classifier with a background class gives a find it
    judges no index a low probability for every card, so its confidence falls.

    ``weights`` is a training save (``.pt``, run by torch) or its export (``.onnx``, see
    :func:`export_onnx`), run by ONNX Runtime on ``threads`` threads: what the app runs. Torch's
    threads wait on each other when the cores are busy (the camera, the window): naming the 21 finds
    of the bench frame both ways up, with both cores taken by other work, took 466 ms in torch on two
    threads against 48 ms in ONNX Runtime (27 and 23 ms on one thread; sixth session)."""

    def __init__(self, weights: Path, threads: int | None = None) -> None:
        from vision.weights import WeightsError

        weights = Path(weights)
        self.model, self._session = None, None
        if weights.suffix == ".onnx":
            self._session = _onnx_session(weights, threads)
            self.classes = self._session.get_outputs()[0].shape[1]
            return
        rebuild = f"rebuild it: python -m vision classifier --out {weights} (see models/MODEL_CARD.md)"
        if not weights.is_file():
            raise WeightsError(f"{weights}: no such classifier file; {rebuild}")
        try:
            saved = torch.load(weights, map_location="cpu", weights_only=True)
            self.model = IndexNet(classes=saved.get("classes", len(CLASS_NAMES)), width=saved.get("width", 16))
            self.model.load_state_dict(saved["state"])
        except (RuntimeError, KeyError, EOFError, pickle.UnpicklingError) as error:
            raise WeightsError(f"{weights}: not an index classifier ({type(error).__name__}); {rebuild}") from None
        self.model.eval()
        self.classes = self.model.head[3].out_features

    def _logits(self, crops_bgr: np.ndarray) -> np.ndarray:
        if self._session is not None:
            return self._session.run(None, {ONNX_INPUT: to_tensor(crops_bgr).numpy()})[0]
        with torch.inference_mode():
            return self.model(to_tensor(crops_bgr)).numpy()

    def probabilities(self, crops_bgr: np.ndarray, both_ways: bool = True) -> np.ndarray:
        """(n, classes) probabilities of each crop. ``both_ways``: the mean of two readings, the crop
        as it lies and turned half round, so a card reads the same whichever way up it lies (the far
        team's cards reach the camera upside down). On the held-out decks' test scenes this moved
        mAP50 from 0.393 to 0.413 (first 100 scenes, the session-5 weights), for twice the classifier's
        work; ``both_ways=False`` reads each crop once."""
        if not len(crops_bgr):
            return np.zeros((0, self.classes), np.float32)
        if not both_ways:
            return _softmax(self._logits(crops_bgr))
        both = _softmax(self._logits(np.concatenate([crops_bgr, crops_bgr[:, ::-1, ::-1]])))
        return (both[:len(crops_bgr)] + both[len(crops_bgr):]) / 2

    def name(self, frame_bgr: np.ndarray, found: Detections) -> Detections:
        if not len(found):
            return found
        probabilities = self.probabilities(window_crops(frame_bgr, found.xyxy, CROP, WINDOW))[:, :BACKGROUND]
        best = probabilities.argmax(axis=1)
        return Detections(found.xyxy, found.confidence * probabilities[np.arange(len(best)), best], best)


ONNX_INPUT = "crops"


def _softmax(logits: np.ndarray) -> np.ndarray:
    exp = np.exp(logits - logits.max(axis=1, keepdims=True))
    return exp / exp.sum(axis=1, keepdims=True)


def export_onnx(weights: Path, out: Path | None = None) -> Path:
    """The ONNX export of a classifier save (default: beside it, ``<weights>.onnx``), taking any
    number of crops: what :class:`IndexClassifier` runs through ONNX Runtime."""
    import warnings

    out = Path(out) if out is not None else Path(weights).with_suffix(".onnx")
    model = IndexClassifier(weights).model  # a missing or damaged save fails here, with its message
    out.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():  # the TorchScript exporter's deprecation notice: it still serves a plain CNN
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, torch.zeros(1, 3, CROP, CROP), str(out), input_names=[ONNX_INPUT],
                          output_names=["logits"], dynamic_axes={ONNX_INPUT: {0: "crops"}}, dynamo=False,
                          opset_version=17)
    return out


def _onnx_session(path: Path, threads: int | None):
    """An ONNX Runtime session of an exported classifier, or WeightsError saying how to make it."""
    from vision.weights import WeightsError, load_onnx_session

    source = path.with_suffix(".pt")
    hint = (f"export it with python -m vision export --classifier {source}" if source.is_file() else
            f"train one with python -m vision classifier --out {source} (see models/MODEL_CARD.md), which "
            "exports it too")
    return load_onnx_session(path, threads, error=lambda _, problem: WeightsError(f"{path}: {problem}; {hint}"))


def crop_accuracy(classifier: IndexClassifier, contexts: np.ndarray, labels: np.ndarray) -> float:
    """Share of ground-truth index crops (the centre window of each context) named right."""
    if not len(contexts):
        return float("nan")
    centre = contexts[:, CROP // 2: CROP // 2 + CROP, CROP // 2: CROP // 2 + CROP]
    predicted = np.concatenate([classifier.probabilities(centre[i:i + 1024]).argmax(axis=1)
                                for i in range(0, len(centre), 1024)])
    return float((predicted == labels).mean())
