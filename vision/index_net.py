"""The index classifier's network in torch: :class:`IndexNet`, its training, its ONNX export.

Training and export need torch; reading crops does not: the app runs the export through ONNX
Runtime (:class:`vision.index_classifier.IndexClassifier`), so its window opens without loading
torch.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from vision.classes import CLASS_NAMES
from vision.index_classifier import (
    BACKGROUND, CROP, ONNX_INPUT, TRAIN_FADE, TRAIN_TURN, IndexClassifier, augment, to_array,
)


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

    @property
    def classes(self) -> int:
        """How many classes it names (53 cards, and "no index" when it has that class)."""
        return self.head[3].out_features

    def member_logits(self, x: torch.Tensor) -> list[torch.Tensor]:
        """Its logits, as the one member of itself (what training's loss is taken over)."""
        return [self(x)]


class IndexEnsemble(nn.Module):
    """Several :class:`IndexNet` read each crop; their log-probabilities are averaged, so its output,
    read as logits, gives the geometric mean of the members' probabilities (renormalised): the same
    join :func:`vision.index_classifier.join_readings` makes of one crop's readings. Members trained
    alike from the same start but with other training seeds disagree where each is unsure, and the
    mean keeps what they share. It exports to ONNX as one network, so the app runs it as it runs one
    classifier; training (a lesson of the table's own deck, :mod:`vision.deck_learning`) trains every
    member on the same crops."""

    def __init__(self, members: list[IndexNet]) -> None:
        super().__init__()
        if not members or len({member.classes for member in members}) != 1:
            raise ValueError("an ensemble needs one or more classifiers naming the same classes")
        self.members = nn.ModuleList(members)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([torch.log_softmax(member(x), dim=1) for member in self.members]).mean(dim=0)

    @property
    def classes(self) -> int:
        return self.members[0].classes

    @property
    def width(self) -> int:
        return self.members[0].width

    def member_logits(self, x: torch.Tensor) -> list[torch.Tensor]:
        return [member(x) for member in self.members]


def to_tensor(crops_bgr: np.ndarray) -> torch.Tensor:
    """(n, CROP, CROP, 3) uint8 BGR -> (n, 3, CROP, CROP) float RGB in [0, 1]."""
    return torch.from_numpy(to_array(crops_bgr))


def load_net(weights: Path) -> IndexNet | IndexEnsemble:
    """The network of a training save (eval mode): one :class:`IndexNet`, or an :class:`IndexEnsemble`
    when the save holds ``"members"`` (:func:`ensemble_save`); torch's own errors for a damaged file."""
    return _net_of(torch.load(weights, map_location="cpu", weights_only=True)).eval()


def _net_of(saved: dict) -> IndexNet | IndexEnsemble:
    if "members" in saved:
        return IndexEnsemble([_net_of(member) for member in saved["members"]])
    model = IndexNet(classes=saved.get("classes", len(CLASS_NAMES)), width=saved.get("width", 16))
    model.load_state_dict(saved["state"])
    return model


def _save_of(model: IndexNet | IndexEnsemble) -> dict:
    """What :func:`_net_of` builds ``model`` from again."""
    if isinstance(model, IndexEnsemble):
        return {"members": [_save_of(member) for member in model.members]}
    return {"state": model.state_dict(), "width": model.width, "classes": model.classes}


def ensemble_save(members: list[Path], out: Path) -> dict:
    """Join classifier saves into one ensemble save at ``out`` (an ensemble among them joins by its
    members); its counts are the members' sums. ValueError if they name different classes."""
    saves = [torch.load(path, map_location="cpu", weights_only=True) for path in members]
    nets = [_net_of(saved) for saved in saves]
    flat = [part for net in nets for part in (net.members if isinstance(net, IndexEnsemble) else [net])]
    summary = {**_save_of(IndexEnsemble(flat)),
               "crops_seen": sum(saved.get("crops_seen", 0) for saved in saves),
               "minutes": sum(saved.get("minutes", 0.0) for saved in saves)}
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(summary, out)
    return summary


def train_classifier(contexts: np.ndarray, labels: np.ndarray, out: Path, minutes: float, batch: int = 256,
                     seed: int = 0, log=print, init: Path | None = None, width: int = 16,
                     save_every: float = 5.0, lr: float = 3e-3, max_crops: int | None = None,
                     turn: float = TRAIN_TURN, fade: float = TRAIN_FADE) -> dict:
    """Train for a wall-clock budget (continuing ``init`` if given, at its width), or until it has
    seen ``max_crops`` crops if that comes first; saves ``{"state", "width", "classes",
    "crops_seen", "minutes"}`` (an ensemble: ``"members"`` for the first three) to ``out`` every
    ``save_every`` minutes and at the end, the counts including those of ``init``. An ensemble
    ``init`` trains every member on each batch, the loss their mean. A run cut off keeps its last save: continue it with ``init`` (with a lower ``lr``, the
    peak of the run's cosine schedule, once the weights have settled)."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    classes = BACKGROUND + 1 if (labels == BACKGROUND).any() else len(CLASS_NAMES)
    before = {"crops_seen": 0, "minutes": 0.0}
    if init:
        before = torch.load(init, map_location="cpu", weights_only=True)
    model = _trainable(before if init else None, classes, width)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    started, seen, step, saved = time.monotonic(), 0, 0, time.monotonic()

    def save() -> dict:
        summary = {**_save_of(model), "crops_seen": before["crops_seen"] + seen,
                   "minutes": before["minutes"] + (time.monotonic() - started) / 60}
        out.parent.mkdir(parents=True, exist_ok=True)
        torch.save(summary, out.with_suffix(".partial"))
        out.with_suffix(".partial").replace(out)  # a kill mid-write leaves the previous save whole
        return summary

    model.train()
    while (elapsed := max((time.monotonic() - started) / (minutes * 60), seen / (max_crops or float("inf")))) < 1:
        # Cosine decay over the budget (time or crops): the run ends at a low rate whenever it is stopped.
        for group in optimiser.param_groups:
            group["lr"] = lr * 0.5 * (1 + np.cos(np.pi * elapsed))
        pick = rng.integers(0, len(contexts), batch)
        crops = np.stack([augment(contexts[i], rng, turn, fade) for i in pick])
        truth = torch.from_numpy(labels[pick])
        member_logits = model.member_logits(to_tensor(crops))  # an ensemble's members each learn the crops
        loss = sum(loss_fn(logits, truth) for logits in member_logits) / len(member_logits)
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


def _trainable(saved: dict | None, classes: int, width: int) -> IndexNet | IndexEnsemble:
    """The network a run trains: a new :class:`IndexNet` of ``width``, or the one ``saved`` (at its
    own width; an ensemble with every member), its head grown to ``classes`` if it has fewer."""
    if saved is None:
        return IndexNet(classes=classes, width=width)
    if "members" in saved:
        return IndexEnsemble([_trainable(member, classes, width) for member in saved["members"]])
    model = IndexNet(classes=classes, width=saved.get("width", 16))
    _load_growing_head(model, saved["state"])
    return model


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
