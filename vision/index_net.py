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

from companion.cards import SUITS
from vision.classes import CLASS_NAMES
from vision.index_classifier import BACKGROUND, CROP, ONNX_INPUT, IndexClassifier, augment, to_array


JOKER_CLASS = len(CLASS_NAMES) - 1  #: the joker's class id: the cards before it are rank-major, suits in turn
_RANK_ROWS = JOKER_CLASS // len(SUITS) + 1  #: a factored head's rank rows for the 53 cards: 13 ranks and the joker


class IndexNet(nn.Module):
    """Three conv blocks and a linear head. ``width`` is the first block's channels (doubled per block):
    16 gives 76 k parameters and 10 M multiply-adds per crop, 24 gives 167 k and 22 M.

    ``factored``: the head reads the rank (or joker, or "no index") and the suit apart, and a card's
    output is the sum of the two log-probabilities, so every crop of a suit teaches that suit's shape
    whatever its rank. The outputs are then log-probabilities of the same ``classes`` in the same
    order (their softmax gives them back), so reading and export do not change."""

    def __init__(self, classes: int = len(CLASS_NAMES), width: int = 16, factored: bool = False) -> None:
        super().__init__()
        self.width, self.classes, self.factored = width, classes, factored

        def block(c_in: int, c_out: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
                                 nn.Conv2d(c_out, c_out, 3, padding=1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(),
                                 nn.MaxPool2d(2))

        self.features = nn.Sequential(block(3, width), block(width, 2 * width), block(2 * width, 4 * width))
        outputs = classes - len(CLASS_NAMES) + _RANK_ROWS + len(SUITS) if factored else classes
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2),
                                  nn.Linear(4 * width, outputs))
        if factored:  # which rank row and which suit row make each class; suit row 4 is "none" (0)
            rank_of = [i // len(SUITS) for i in range(JOKER_CLASS)] + list(range(JOKER_CLASS // len(SUITS),
                                                                                  outputs - len(SUITS)))
            suit_of = [i % len(SUITS) for i in range(JOKER_CLASS)] + [len(SUITS)] * (classes - JOKER_CLASS)
            self.register_buffer("rank_of", torch.tensor(rank_of), persistent=False)
            self.register_buffer("suit_of", torch.tensor(suit_of), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.head(self.features(x))
        if not self.factored:
            return out
        rank = torch.log_softmax(out[:, :-len(SUITS)], dim=1)
        suit = torch.log_softmax(out[:, -len(SUITS):], dim=1)
        suit = torch.cat([suit, torch.zeros_like(suit[:, :1])], dim=1)
        return rank[:, self.rank_of] + suit[:, self.suit_of]


def to_tensor(crops_bgr: np.ndarray) -> torch.Tensor:
    """(n, CROP, CROP, 3) uint8 BGR -> (n, 3, CROP, CROP) float RGB in [0, 1]."""
    return torch.from_numpy(to_array(crops_bgr))


def load_net(weights: Path) -> IndexNet:
    """The network of a training save (eval mode); torch's own errors for a damaged file."""
    saved = torch.load(weights, map_location="cpu", weights_only=True)
    model = IndexNet(classes=saved.get("classes", len(CLASS_NAMES)), width=saved.get("width", 16),
                     factored=saved.get("factored", False))
    model.load_state_dict(saved["state"])
    return model.eval()


def train_classifier(contexts: np.ndarray, labels: np.ndarray, out: Path, minutes: float, batch: int = 256,
                     seed: int = 0, log=print, init: Path | None = None, width: int = 16,
                     save_every: float = 5.0, lr: float = 3e-3, factored: bool = False) -> dict:
    """Train for a wall-clock budget (continuing ``init`` if given); saves ``{"state", "width",
    "classes", "factored", "crops_seen", "minutes"}`` to ``out`` every ``save_every`` minutes and at the
    end, the counts including those of ``init``. A run cut off keeps its last save: continue it with
    ``init`` (with a lower ``lr``, the peak of the run's cosine schedule, once the weights have settled).

    Continuing ``init``, the network keeps its width unless ``width`` is wider (it is widened, the
    function kept: :func:`widen`), and a joint head is factored if ``factored`` (:func:`factor_head`);
    a factored ``init`` stays factored."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    classes = BACKGROUND + 1 if (labels == BACKGROUND).any() else len(CLASS_NAMES)
    before = {"crops_seen": 0, "minutes": 0.0}
    if init:
        before = torch.load(init, map_location="cpu", weights_only=True)
        state, width = before["state"], max(width, before.get("width", 16))
        factored = factored or before.get("factored", False)
        if width > before.get("width", 16):
            state = widen(state, width, rng)
        if factored and not before.get("factored", False):
            state = factor_head(state)
    model = IndexNet(classes=classes, width=width, factored=factored)
    if init:
        _load_growing_head(model, state)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
    started, seen, step, saved = time.monotonic(), 0, 0, time.monotonic()

    def save() -> dict:
        summary = {"state": model.state_dict(), "width": width, "classes": classes, "factored": factored,
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
    """Load saved weights; a head without a background row grows one (new weights) for a 54-class
    model (a factored head grows it among its rank rows, before the suits)."""
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
    keep = saved_rows - len(SUITS) if model.factored else saved_rows  # rows before the new ones
    for part in ("weight", "bias"):
        old, new = state[f"{head}.{part}"], fresh[f"{head}.{part}"]
        grown[f"{head}.{part}"] = torch.cat([old[:keep], new[keep:keep + wanted - saved_rows], old[keep:]])
    model.load_state_dict(grown)


def factor_head(state: dict) -> dict:
    """A joint head's weights as a factored head's (:class:`IndexNet` ``factored``): each rank's row
    the mean of its four cards' rows, each suit's row the mean of its thirteen cards' rows less the
    mean of all cards' rows; the joker's and "no index" rows as they were. A start, not the same
    function: training goes on from it."""
    factored = dict(state)
    for part in ("weight", "bias"):
        joint = state[f"head.3.{part}"]
        cards = joint[:JOKER_CLASS].reshape(JOKER_CLASS // len(SUITS), len(SUITS), *joint.shape[1:])
        ranks, suits = cards.mean(dim=1), cards.mean(dim=0) - cards.mean(dim=(0, 1))
        factored[f"head.3.{part}"] = torch.cat([ranks, joint[JOKER_CLASS:], suits])
    return factored


_CONVS = ("features.0.0", "features.0.3", "features.1.0", "features.1.3", "features.2.0", "features.2.3")


def widen(state: dict, width: int, rng: np.random.Generator, noise: float = 0.01) -> dict:
    """A narrower :class:`IndexNet`'s weights at first-block width ``width``, computing the same
    function (Chen et al., "Net2Net", 2016): each new channel copies an old one, with its batch-norm
    statistics, and the next layer's weights from the copies are shared out among them. The copies'
    filters get ``noise`` (relative) so that training can tell them apart."""
    state = dict(state)
    if width < state["features.0.0.weight"].shape[0]:
        raise ValueError(f"cannot widen a classifier of width {state['features.0.0.weight'].shape[0]} to {width}")
    chosen, counts = None, None  # which old channel each input channel of the next layer copies
    for layer, conv in enumerate(_CONVS):
        weight = state[f"{conv}.weight"]
        if chosen is not None:
            weight = weight[:, chosen] / counts[chosen].view(1, -1, 1, 1)
        old, new = weight.shape[0], width * 2 ** (layer // 2)
        picks = torch.from_numpy(np.concatenate([np.arange(old), rng.integers(0, old, new - old)]))
        weight = weight[picks].clone()
        weight[old:] += noise * weight[old:].std() * torch.from_numpy(rng.standard_normal(weight[old:].shape)).float()
        state[f"{conv}.weight"] = weight
        norm = conv[:-1] + str(int(conv[-1]) + 1)  # the batch norm after the conv
        for part in ("weight", "bias", "running_mean", "running_var"):
            state[f"{norm}.{part}"] = state[f"{norm}.{part}"][picks].clone()
        chosen, counts = picks, torch.bincount(picks, minlength=old).float()
    state["head.3.weight"] = state["head.3.weight"][:, chosen] / counts[chosen].view(1, -1)
    return state


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
