"""Fine-tuning an exported index classifier in numpy: how a deck lesson learns without torch.

The classifier's ONNX export (:func:`vision.model.index_training.export_onnx`) is a plain chain: 3×3
convolutions each with its batch norm, ReLUs, 2×2 max-pools, a global average pool and a linear
head. :class:`ExportedNet` reads that chain's weights and runs it forward and back in numpy
(channels last, each convolution one matrix product over its 3×3 windows) as torch's training
does: batch norms normalise each batch by its own statistics and keep running ones, dropout before
the head, AdamW (:func:`fine_tune_export`). The tuned weights are written into a copy of the export,
which ONNX Runtime and OpenVINO then run as they run the shipped one.

The batch norms must be in the export as layers of their own: folded into the convolutions, they
could no longer normalise each batch, and the fine-tuning would take steps of another size in
every layer (a lesson from 59–78 cards then read its deck worse; docs/experiments.md, "Teaching the reader a deck").
"""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np

from vision.reader.index_classifier import augment, to_array

#: The network's dropout before its head (:class:`vision.reader.index_net.IndexNet`).
HEAD_DROPOUT = 0.2
#: The label smoothing and weight decay of the classifier's training
#: (:func:`vision.model.index_training.train_classifier`).
LABEL_SMOOTHING = 0.05
WEIGHT_DECAY = 1e-4
#: Adam's moment decays and epsilon (torch's defaults, which the training used).
BETAS, EPSILON = (0.9, 0.999), 1e-8
#: What each ONNX operator of the chain is to the tuner.
LAYERS = {"Conv": "conv", "BatchNormalization": "norm", "Relu": "relu", "MaxPool": "maxpool",
          "GlobalAveragePool": "avgpool", "Flatten": "flatten", "Gemm": "linear"}
#: The 3×3 window's taps (row, column): the order of :func:`_windows`' columns.
TAPS = [(dy, dx) for dy in range(3) for dx in range(3)]


class ExportError(Exception):
    """The file is not an index classifier's export of the shape :class:`ExportedNet` tunes."""


class ExportedNet:
    """An exported index classifier's layers as numpy arrays: :meth:`forward` and :meth:`backward`
    take (n, H, W, 3) float RGB crops in [0, 1], channels last; :meth:`save` writes the weights."""

    def __init__(self, path: Path) -> None:
        import onnx
        from onnx import numpy_helper

        try:
            self._model = onnx.load(str(path))
        except Exception as error:  # onnx raises protobuf's and its own types for damaged files
            raise ExportError(f"{path}: not a readable ONNX model ({type(error).__name__})") from None
        graph = self._model.graph
        stored = {tensor.name: numpy_helper.to_array(tensor).astype(np.float32) for tensor in graph.initializer}
        not_this = ExportError(f"{path}: not an index classifier's export with its batch norms (this tuner runs "
                               "3x3 convolutions, each with a batch norm, ReLUs, pools and a linear head)")
        #: (kind, names of its arrays, batch norm's epsilon and momentum) of each layer, in order.
        self.layers: list[tuple[str, tuple[str, ...], tuple[float, float]]] = []
        for node in graph.node:
            kind = LAYERS.get(node.op_type)
            arrays = tuple(node.input[1:])
            if kind is None or not all(name in stored for name in arrays):
                raise not_this
            attributes = {attribute.name: onnx.helper.get_attribute_value(attribute) for attribute in node.attribute}
            if kind != "flatten":
                self.layers.append((kind, arrays, (attributes.get("epsilon", 1e-5), attributes.get("momentum", 0.9))))
        kinds = [kind for kind, _, _ in self.layers]
        convolutions = [arrays[0] for kind, arrays, _ in self.layers if kind == "conv"]
        if (kinds[-2:] != ["avgpool", "linear"] or any(stored[name].shape[2:] != (3, 3) for name in convolutions)
                or kinds.count("norm") != len(convolutions)
                or any(kind == "conv" and after != "norm" for kind, after in zip(kinds, kinds[1:]))):
            raise not_this
        #: What the fine-tuning changes, by initializer name: convolution weights (out, in, 3, 3) and
        #: biases, batch norms' scales and shifts, the head's weights (classes, features) and biases.
        self.params = {name: stored[name] for kind, arrays, _ in self.layers
                       for name in (arrays[:2] if kind == "norm" else arrays)}
        #: The batch norms' running means and variances, updated by every training forward pass.
        self.running = {name: stored[name] for kind, arrays, _ in self.layers if kind == "norm" for name in arrays[2:]}
        self.classes = len(self.params[self.layers[-1][1][0]])

    def forward(self, x: np.ndarray, rng: np.random.Generator | None = None,
                dropout: float = HEAD_DROPOUT) -> tuple[np.ndarray, list]:
        """The logits (n, classes) of crops ``x`` (n, H, W, 3), and what :meth:`backward` needs.
        With ``rng``, training: batch norms by the batch's statistics (their running ones updated)
        and ``dropout`` of the head's inputs dropped, drawn from it; without, as the export runs."""
        tape = []
        for kind, arrays, (epsilon, momentum) in self.layers:
            if kind == "conv":
                weight, *bias = (self.params[name] for name in arrays)
                windows = _windows(x)
                tape.append((windows, x.shape))
                x = (windows @ _tap_major(weight).T + (bias[0] if bias else 0)).reshape(*x.shape[:3], len(weight))
            elif kind == "norm":
                scale, shift = (self.params[name] for name in arrays[:2])
                mean, variance = (self.running[name] for name in arrays[2:])
                if rng is not None:
                    count = x.size // x.shape[-1]
                    mean, variance = x.mean(axis=(0, 1, 2)), x.var(axis=(0, 1, 2))
                    for name, batch in zip(arrays[2:], (mean, variance * count / max(count - 1, 1))):
                        self.running[name] = momentum * self.running[name] + (1 - momentum) * batch
                spread = np.sqrt(variance + epsilon)
                normed = (x - mean) / spread
                tape.append((normed, spread, rng is not None))
                x = normed * scale + shift
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
                keep = None if rng is None else (rng.random(x.shape) >= dropout) / np.float32(1 - dropout)
                tape.append((shape, keep))
                x = x if keep is None else x * keep
            else:  # linear
                weight, bias = (self.params[name] for name in arrays)
                tape.append(x)
                x = x @ weight.T + bias
        return x, tape

    def backward(self, grad: np.ndarray, tape: list) -> dict[str, np.ndarray]:
        """The gradient of every param, given the loss's gradient ``grad`` at the logits and the
        ``tape`` of the :meth:`forward` that made them."""
        grads = {}
        for layer in reversed(range(len(self.layers))):
            (kind, arrays, _), saved = self.layers[layer], tape[layer]
            if kind == "linear":
                grads[arrays[0]], grads[arrays[1]] = grad.T @ saved, grad.sum(axis=0)
                grad = grad @ self.params[arrays[0]]
            elif kind == "avgpool":
                (n, h, w, c), keep = saved
                grad = grad if keep is None else grad * keep
                grad = np.broadcast_to((grad / (h * w))[:, None, None, :], (n, h, w, c))
            elif kind == "maxpool":
                winners, shape = saved
                n, h, w, c = shape
                spread = winners * grad[:, :, None, :, None]
                grad = np.zeros(shape, grad.dtype)
                grad[:, :h // 2 * 2, :w // 2 * 2] = spread.reshape(n, h // 2 * 2, w // 2 * 2, c)
            elif kind == "relu":
                grad = grad * saved
            elif kind == "norm":
                normed, spread, by_batch = saved
                scale = self.params[arrays[0]]
                grads[arrays[0]], grads[arrays[1]] = (grad * normed).sum(axis=(0, 1, 2)), grad.sum(axis=(0, 1, 2))
                grad = grad * (scale / spread)
                if by_batch:  # the batch's mean and spread depend on every input too
                    grad = grad - grad.mean(axis=(0, 1, 2)) - normed * (grad * normed).mean(axis=(0, 1, 2))
            else:  # conv
                windows, shape = saved
                weight = self.params[arrays[0]]
                rows = grad.reshape(-1, len(weight))
                grads[arrays[0]] = (rows.T @ windows).reshape(len(weight), 3, 3, -1).transpose(0, 3, 1, 2)
                if len(arrays) > 1:
                    grads[arrays[1]] = rows.sum(axis=0)
                if layer == 0:
                    break  # no gradient wanted at the crops
                grad = _unwindow(rows @ _tap_major(weight), shape)
        return grads

    def logits(self, crops_bgr: np.ndarray, batch: int = 512) -> np.ndarray:
        """(n, classes) logits of uint8 BGR crops (n, CROP, CROP, 3), as the export computes them."""
        return np.concatenate([self.forward(channels_last(crops_bgr[start:start + batch]))[0]
                               for start in range(0, len(crops_bgr), batch)] or [np.zeros((0, self.classes))])

    def save(self, out: Path) -> Path:
        """A copy of the export with the tuned weights and statistics, written whole to ``out``
        (beside it first, then renamed over it)."""
        import onnx
        from onnx import numpy_helper

        arrays = {**self.params, **self.running}
        for tensor in self._model.graph.initializer:
            if tensor.name in arrays:
                tensor.CopyFrom(numpy_helper.from_array(arrays[tensor.name].astype(np.float32), tensor.name))
        partial = Path(out).with_name(Path(out).name + ".partial")
        onnx.save(self._model, str(partial))
        partial.replace(out)
        return Path(out)


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
    """``base`` (an export) fine-tuned on augmented views of ``contexts`` (their classes ``labels``,
    :func:`vision.reader.index_classifier.augment`) with AdamW, the rate falling from ``lr`` on a cosine
    until ``minutes`` have passed or ``max_crops`` crops were seen, whichever comes first, as
    :func:`vision.model.index_training.train_classifier` trains; saved to ``out``. What it did, as a dict."""
    net = ExportedNet(base)
    rng = np.random.default_rng(seed)
    moments = {name: (np.zeros_like(value), np.zeros_like(value)) for name, value in net.params.items()}
    started, seen, step = time.monotonic(), 0, 0
    while (done := max((time.monotonic() - started) / (minutes * 60), seen / (max_crops or math.inf))) < 1:
        rate = lr * 0.5 * (1 + math.cos(math.pi * done))
        pick = rng.integers(0, len(contexts), batch)
        logits, tape = net.forward(channels_last(np.stack([augment(contexts[i], rng) for i in pick])), rng)
        loss, grad = smoothed_cross_entropy(logits, labels[pick])
        step, seen = step + 1, seen + batch
        for name, gradient in net.backward(grad, tape).items():
            _adamw(net.params[name], gradient, *moments[name], rate, step)
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
    param -= rate / (1 - BETAS[0] ** step) * first / (np.sqrt(second / (1 - BETAS[1] ** step)) + EPSILON)
