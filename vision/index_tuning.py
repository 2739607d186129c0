"""Fine-tuning an exported index classifier in numpy: how a deck lesson learns without torch.

The classifier's ONNX export (:func:`vision.index_net.export_onnx`) is a plain chain: 3×3
convolutions (their batch norms folded in by the export), ReLUs, 2×2 max-pools, a global average
pool and a linear head. :class:`ExportedNet` reads that chain's weights, runs it forward and back
in numpy (channels last, each convolution one matrix product over its 3×3 windows), and writes the
tuned weights into a copy of the export, which ONNX Runtime and OpenVINO then run as they run the
shipped one. Only what a lesson needs is here: the batch norms stay as the training left them (as
``model.eval()`` keeps them in torch), dropout before the head as the network was trained.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from vision.index_classifier import CROP, to_array

#: The network's dropout before its head (:class:`vision.index_net.IndexNet`).
HEAD_DROPOUT = 0.2
#: The label smoothing and weight decay of the classifier's training (:func:`vision.index_net.train_classifier`).
LABEL_SMOOTHING = 0.05
WEIGHT_DECAY = 1e-4
#: Adam's moment decays and epsilon (torch's defaults, which the training used).
BETAS, EPSILON = (0.9, 0.999), 1e-8


class ExportError(Exception):
    """The file is not an index classifier's export of the shape :class:`ExportedNet` tunes."""


class ExportedNet:
    """An exported index classifier's layers as numpy arrays: call :meth:`forward` and :meth:`backward`
    on (n, CROP, CROP, 3) float RGB crops in [0, 1], channels last; :meth:`save` writes the weights."""

    def __init__(self, path: Path) -> None:
        import onnx
        from onnx import numpy_helper

        try:
            self._model = onnx.load(str(path))
        except Exception as error:  # onnx raises protobuf's and its own types for damaged files
            raise ExportError(f"{path}: not a readable ONNX model ({type(error).__name__})") from None
        graph = self._model.graph
        weights = {tensor.name: numpy_helper.to_array(tensor).astype(np.float32) for tensor in graph.initializer}
        #: ("conv" | "relu" | "maxpool" | "avgpool" | "linear", names of its weight and bias) in order.
        self.layers: list[tuple[str, tuple[str, ...]]] = []
        for node in graph.node:
            kind = _LAYERS.get(node.op_type)
            if kind is None or (kind in ("conv", "linear") and not all(name in weights for name in node.input[1:3])):
                raise ExportError(f"{path}: not an index classifier's export (a {node.op_type} layer: "
                                  "this tuner runs 3x3 convolutions, ReLUs, pools and a linear head)")
            if kind == "flatten":
                continue
            self.layers.append((kind, tuple(node.input[1:3]) if kind in ("conv", "linear") else ()))
        #: The tuned arrays by initializer name: conv weights (out, in, 3, 3) and biases, the head's (classes, features).
        self.params = {name: weights[name] for kind, names in self.layers for name in names}
        if [kind for kind, _ in self.layers][-2:] != ["avgpool", "linear"] or any(
                self.params[names[0]].shape[2:] != (3, 3) for kind, names in self.layers if kind == "conv"):
            raise ExportError(f"{path}: not an index classifier's export (no 3x3 convolutions ending in a pooled "
                              "linear head)")
        self.classes = self.params[self.layers[-1][1][0]].shape[0]

    def forward(self, x: np.ndarray, rng: np.random.Generator | None = None) -> tuple[np.ndarray, list]:
        """The logits (n, classes) of crops ``x`` (n, H, W, 3), and what :meth:`backward` needs.
        ``rng``: training, with the head's dropout drawn from it."""
        tape = []
        for kind, names in self.layers:
            if kind == "conv":
                windows = _windows(x)
                weight, bias = (self.params[name] for name in names)
                tape.append((windows, x.shape))
                x = (windows @ _tap_major(weight).T + bias).reshape(*x.shape[:3], len(weight))
            elif kind == "relu":
                tape.append(x > 0)
                x = np.maximum(x, 0)
            elif kind == "maxpool":
                n, h, w, c = x.shape
                blocks = x[:, :h // 2 * 2, :w // 2 * 2].reshape(n, h // 2, 2, w // 2, 2, c)
                pooled = blocks.max(axis=(2, 4))
                tape.append((blocks == pooled[:, :, None, :, None], x.shape))
                x = pooled
            elif kind == "avgpool":
                shape, x = x.shape, x.mean(axis=(1, 2))
                keep = None if rng is None else (rng.random(x.shape) >= HEAD_DROPOUT) / np.float32(1 - HEAD_DROPOUT)
                tape.append((shape, keep))
                x = x if keep is None else x * keep
            else:  # linear
                weight, bias = (self.params[name] for name in names)
                tape.append(x)
                x = x @ weight.T + bias
        return x, tape

    def backward(self, grad: np.ndarray, tape: list) -> dict[str, np.ndarray]:
        """The gradients of every param, given the loss's gradient ``grad`` at the logits and the
        ``tape`` of the :meth:`forward` that made them."""
        grads = {}
        for layer in reversed(range(len(self.layers))):
            (kind, names), saved = self.layers[layer], tape[layer]
            if kind == "linear":
                weight = self.params[names[0]]
                grads[names[0]], grads[names[1]] = grad.T @ saved, grad.sum(axis=0)
                grad = grad @ weight
            elif kind == "avgpool":
                (n, h, w, c), keep = saved
                if keep is not None:
                    grad = grad * keep
                grad = np.broadcast_to((grad / (h * w))[:, None, None, :], (n, h, w, c))
            elif kind == "maxpool":
                winners, shape = saved
                n, h, w, c = shape
                spread = winners * grad[:, :, None, :, None]
                grad = np.zeros(shape, grad.dtype)
                grad[:, :h // 2 * 2, :w // 2 * 2] = spread.reshape(n, h // 2 * 2, w // 2 * 2, c)
            elif kind == "relu":
                grad = grad * saved
            else:  # conv
                windows, shape = saved
                weight = self.params[names[0]]
                flat = grad.reshape(-1, len(weight))
                grads[names[0]] = (flat.T @ windows).reshape(len(weight), 3, 3, -1).transpose(0, 3, 1, 2)
                grads[names[1]] = flat.sum(axis=0)
                if layer == 0:
                    break  # no gradient wanted at the crops
                grad = _unwindow(flat @ _tap_major(weight), shape)
        return grads

    def logits(self, crops_bgr: np.ndarray, batch: int = 512) -> np.ndarray:
        """(n, classes) logits of uint8 BGR crops (n, CROP, CROP, 3), as the export computes them."""
        return np.concatenate([self.forward(channels_last(crops_bgr[start:start + batch]))[0]
                               for start in range(0, len(crops_bgr), batch)] or [np.zeros((0, self.classes))])

    def save(self, out: Path) -> Path:
        """A copy of the export with the tuned weights, written whole to ``out`` (beside it first)."""
        import onnx
        from onnx import numpy_helper

        for tensor in self._model.graph.initializer:
            if tensor.name in self.params:
                tensor.CopyFrom(numpy_helper.from_array(self.params[tensor.name].astype(np.float32), tensor.name))
        partial = Path(out).with_name(Path(out).name + ".partial")
        onnx.save(self._model, str(partial))
        partial.replace(out)
        return Path(out)


_LAYERS = {"Conv": "conv", "Relu": "relu", "MaxPool": "maxpool", "GlobalAveragePool": "avgpool",
           "Flatten": "flatten", "Gemm": "linear"}


#: The 3×3 window's taps (row, column): the order of :func:`_windows`' columns.
TAPS = [(dy, dx) for dy in range(3) for dx in range(3)]


def _windows(x: np.ndarray) -> np.ndarray:
    """(n·h·w, 9·c) rows: each pixel's 3×3 window of ``x`` (n, h, w, c), zero-padded, tap by tap
    (:data:`TAPS`), each tap's c channels together (a convolution's weights in :func:`_tap_major` order)."""
    n, h, w, c = x.shape
    padded = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    return np.concatenate([padded[:, dy:dy + h, dx:dx + w] for dy, dx in TAPS], axis=3).reshape(-1, 9 * c)


def _tap_major(weight: np.ndarray) -> np.ndarray:
    """A convolution's (out, in, 3, 3) weights as (out, 9·in) rows in :func:`_windows`' column order."""
    return weight.transpose(0, 2, 3, 1).reshape(len(weight), -1)


def _unwindow(rows: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The gradient at ``x`` (``shape``) of its :func:`_windows` rows' gradient ``rows``."""
    n, h, w, c = shape
    per_tap = rows.reshape(n, h, w, 9, c)
    padded = np.zeros((n, h + 2, w + 2, c), rows.dtype)
    for tap, (dy, dx) in enumerate(TAPS):
        padded[:, dy:dy + h, dx:dx + w] += per_tap[..., tap, :]
    return padded[:, 1:-1, 1:-1]


def channels_last(crops_bgr: np.ndarray) -> np.ndarray:
    """uint8 BGR crops -> the network's float RGB in [0, 1], channels last."""
    return np.ascontiguousarray(to_array(crops_bgr).transpose(0, 2, 3, 1))


def smoothed_cross_entropy(logits: np.ndarray, labels: np.ndarray,
                           smoothing: float = LABEL_SMOOTHING) -> tuple[float, np.ndarray]:
    """The mean cross-entropy of ``logits`` against ``labels`` smoothed as torch's
    ``CrossEntropyLoss(label_smoothing=...)`` smooths them, and its gradient at the logits."""
    n, classes = logits.shape
    target = np.full((n, classes), smoothing / classes, logits.dtype)
    target[np.arange(n), labels] += 1 - smoothing
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    return float(-(target * log_p).sum() / n), (np.exp(log_p) - target) / n


def fine_tune_export(base: Path, contexts: np.ndarray, labels: np.ndarray, out: Path, minutes: float,
                     max_crops: int | None, lr: float, batch: int = 128, seed: int = 0, log=print) -> dict:
    """``base`` (an export) fine-tuned on augmented views of ``contexts`` (their classes ``labels``)
    with AdamW, the rate falling from ``lr`` on a cosine until ``minutes`` have passed or
    ``max_crops`` crops were seen, whichever comes first; saved to ``out``. What it did, as a dict."""
    from vision.index_classifier import augment

    net = ExportedNet(base)
    rng = np.random.default_rng(seed)
    moments = {name: (np.zeros_like(value), np.zeros_like(value)) for name, value in net.params.items()}
    started, seen, step = time.monotonic(), 0, 0
    while (done := max((time.monotonic() - started) / (minutes * 60), seen / (max_crops or math.inf))) < 1:
        rate = lr * 0.5 * (1 + math.cos(math.pi * done))
        pick = rng.integers(0, len(contexts), batch)
        crops = np.stack([augment(contexts[i], rng) for i in pick])
        logits, tape = net.forward(channels_last(crops), rng)
        loss, grad = smoothed_cross_entropy(logits, labels[pick])
        step += 1
        for name, gradient in net.backward(grad, tape).items():
            _adamw(net.params[name], gradient, *moments[name], rate, step)
        seen += batch
        if step % 50 == 0:
            log(f"step {step}: {seen} crops, loss {loss:.3f}")
    net.save(out)
    return {"crops_seen": seen, "minutes": (time.monotonic() - started) / 60}


def _adamw(param: np.ndarray, grad: np.ndarray, first: np.ndarray, second: np.ndarray, rate: float, step: int) -> None:
    """One AdamW step in place (torch's ``AdamW``: decoupled weight decay, bias-corrected moments)."""
    param *= 1 - rate * WEIGHT_DECAY
    first *= BETAS[0]
    first += (1 - BETAS[0]) * grad
    second *= BETAS[1]
    second += (1 - BETAS[1]) * grad * grad
    corrected = np.sqrt(second / (1 - BETAS[1] ** step)) + EPSILON
    param -= rate / (1 - BETAS[0] ** step) * first / corrected
