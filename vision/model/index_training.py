"""Training the index classifier and the facing network (both an
:class:`~vision.reader.index_net.IndexNet`) in torch, and their ONNX export.

Training and export need torch; reading crops does not: the app runs the export through ONNX
Runtime or OpenVINO (:class:`vision.reader.index_classifier.IndexClassifier`).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from vision.reader.classes import CLASS_NAMES
from vision.reader.index_classifier import (
    BACKGROUND,
    CONTEXT,
    CROP,
    ONNX_INPUT,
    TRAIN_FADE,
    TRAIN_TURN,
    IndexClassifier,
    augment,
    to_array,
)
from vision.reader.index_net import IndexNet, load_net


def to_tensor(crops_bgr: np.ndarray) -> torch.Tensor:
    """(n, CROP, CROP, 3) uint8 BGR -> (n, 3, CROP, CROP) float RGB in [0, 1]."""
    return torch.from_numpy(to_array(crops_bgr))


#: A tightly fanned hand (:func:`fanned`), in context pixels (an index's longer side is about 25 of
#: them): a neighbouring card's index this far from the crop's, centre to centre...
FAN_SPACING = (13.0, 24.0)
#: ...and a card's left edge this far left of its index's centre.
FAN_EDGE = (8.0, 12.0)
#: The card on top leaves at least this much of the crop's index column right of its centre showing
#: (half an index's width).
FAN_CLEAR = 6.0
#: A fanned crop's neighbours are contexts this close to it in the training array, where a scene's
#: indexes lie together: mostly its own deck's.
FAN_NEAR = 40


def fanned(context: np.ndarray, left: np.ndarray | None, right: np.ndarray | None,
           rng: np.random.Generator) -> np.ndarray:
    """A (CONTEXT, CONTEXT, 3) context as a tight fan shows it (a hand held or spread, cards overlapping
    from left to right with only their index columns showing): ``right``'s card lies on it from just
    right of its index, its own card on ``left``'s. Each neighbour's index stands a little higher or
    lower, and the edge of the card on top now and then casts a shadow."""
    out = context.copy()
    centre = CONTEXT / 2
    for neighbour, side in ((right, 1), (left, -1)):
        if neighbour is None:
            continue
        edge = rng.uniform(*FAN_EDGE)
        spacing = rng.uniform(max(FAN_SPACING[0], edge + FAN_CLEAR), FAN_SPACING[1])
        shift = int(round(spacing))
        neighbour = np.roll(neighbour, int(rng.integers(-4, 5)), axis=0)
        if side > 0:  # the right card on top, its edge `edge` left of its index
            start = int(round(centre + spacing - edge))
            out[:, start:] = neighbour[:, start - shift:CONTEXT - shift]
            line = start
        else:  # the crop's own card on top of the left one, from its own edge
            stop = int(round(centre - edge))
            out[:, :stop] = neighbour[:, shift:stop + shift]
            line = stop
        if rng.random() < 0.5:
            out[:, line] = (out[:, line] * rng.uniform(0.5, 0.9)).astype(out.dtype)
    return out


def train_classifier(contexts: np.ndarray, labels: np.ndarray, out: Path, minutes: float, batch: int = 256,
                     seed: int = 0, log=print, init: Path | None = None, width: int = 16,
                     save_every: float = 5.0, lr: float = 3e-3, max_crops: int | None = None,
                     turn: float = TRAIN_TURN, fade: float = TRAIN_FADE, rand_conv: float = 0.0,
                     bf16: bool = False, fan: float = 0.0) -> dict:
    """Train for a wall-clock budget (continuing ``init`` if given, at its width or widened to a larger
    ``width``, :func:`widen`), or until it has
    seen ``max_crops`` crops if that comes first; saves ``{"state", "width", "crops_seen",
    "minutes"}`` to ``out`` every ``save_every`` minutes and at the end, the counts including those of
    ``init``. A run cut off keeps its last save: continue it with ``init`` (with a lower ``lr``, the
    peak of the run's cosine schedule, once the weights have settled). ``rand_conv``: the share of each
    batch seen through a random convolution (:func:`random_convolution`). ``fan``: the share of crops
    seen as a tight fan shows them, between two neighbours (:func:`fanned`). ``bf16``: compute in bfloat16
    (torch's CPU autocast, channels-last; the weights stay float32): where the CPU has AMX, 2–3 times
    the crops a minute (``bench/bench_classifier_training.py``); elsewhere
    (:func:`bf16_is_fast`) slower than float32."""
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    # Its own generator, so that a run with random convolutions picks, augments and drops out exactly
    # as the same run without them: the two differ in the convolutions alone.
    conv_rng = torch.Generator().manual_seed(seed)
    classes = BACKGROUND + 1 if (labels == BACKGROUND).any() else len(CLASS_NAMES)
    before = {"crops_seen": 0, "minutes": 0.0}
    if init:
        before = torch.load(init, map_location="cpu", weights_only=True)
        state, saved_width = before["state"], before.get("width", 16)
        if width > saved_width:
            state = widen(state, width, rng)
        width = max(width, saved_width)
    model = IndexNet(classes=classes, width=width)
    if init:
        _load_growing_head(model, state)
    layout = torch.channels_last if bf16 else torch.contiguous_format
    model = model.to(memory_format=layout)
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)

    def _seen(i: int) -> np.ndarray:
        if not fan or rng.random() >= fan:  # (no draw when off: earlier runs' crops, seed for seed)
            return contexts[i]
        near = [contexts[int(np.clip(i + rng.integers(-FAN_NEAR, FAN_NEAR + 1), 0, len(contexts) - 1))]
                if rng.random() < 0.8 else None for _ in range(2)]
        return fanned(contexts[i], near[0], near[1], rng)

    def batch_loss() -> torch.Tensor:
        pick = rng.integers(0, len(contexts), batch)
        crops = np.stack([augment(_seen(i), rng, turn, fade) for i in pick])
        inputs = to_tensor(crops)
        if rand_conv:
            inputs = random_convolution(inputs, rand_conv, conv_rng)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits = model(inputs.contiguous(memory_format=layout))
        return loss_fn(logits.float(), torch.from_numpy(labels[pick]))

    def save(seen: int, minutes_run: float) -> dict:
        state = {name: tensor.contiguous() for name, tensor in model.state_dict().items()}
        summary = {"state": state, "width": width, "classes": classes,
                   "crops_seen": before["crops_seen"] + seen, "minutes": before["minutes"] + minutes_run}
        _save(summary, out)
        return summary

    model.train()
    return _train(optimiser, lr, batch_loss, batch, minutes, max_crops, save, save_every, log)


def _train(optimiser, lr: float, batch_loss, batch: int, minutes: float, max_crops: int | None, save,
           save_every: float, log) -> dict:
    """The loop both trainings share: a step on each batch's ``batch_loss()``, the learning rate
    falling from ``lr`` on a cosine over the budget (``minutes``, or ``max_crops`` if it comes first,
    so a run ends at a low rate whenever it is stopped), ``save(crops seen, minutes run)`` every
    ``save_every`` minutes and at the end."""
    started, seen, step, saved = time.monotonic(), 0, 0, time.monotonic()
    while (elapsed := max((time.monotonic() - started) / (minutes * 60), seen / (max_crops or float("inf")))) < 1:
        for group in optimiser.param_groups:
            group["lr"] = lr * 0.5 * (1 + np.cos(np.pi * elapsed))
        loss = batch_loss()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        seen, step = seen + batch, step + 1
        if step % 50 == 0:
            log(f"step {step}: {seen} crops, loss {loss.item():.3f}")
        if time.monotonic() - saved > save_every * 60:
            save(seen, (time.monotonic() - started) / 60)
            saved = time.monotonic()
    return save(seen, (time.monotonic() - started) / 60)


def bf16_is_fast() -> bool:
    """Whether this CPU computes bfloat16 in hardware (AMX or AVX-512 BF16), as oneDNN reports it."""
    try:
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


#: How far :func:`recalibrate_batch_norm` moves the training's statistics toward the reader's crops'
#: (chosen on ``scenes720d``'s first 250 test scenes; docs/experiments.md, "The classifier").
BATCH_NORM_SHARE = 0.5


def recalibrate_batch_norm(weights: Path, crops_bgr: np.ndarray, out: Path, share: float = BATCH_NORM_SHARE,
                           batch: int = 512) -> dict:
    """Move a classifier's batch-norm statistics toward those of the crops it is fed at the table.

    Training feeds the network augmented crops (faded, turned, drawn typefaces on plain paper, false
    finds cut wide) and its batch norms keep that mix's running means and variances; the app feeds it
    the detector's finds as :func:`vision.reader.index_classifier.reading_crops` cuts them. One pass over
    such crops, without gradients, estimates each batch norm's statistics afresh (the mean of the
    batches', as "precise BN" does: Wu & Johnson, *Rethinking "Batch" in BatchNorm*, 2021), and
    ``share`` of the new with ``1 - share`` of those in ``weights`` are saved to ``out``; every
    learned weight stays as it is. The save records ``{"batch_norm": {"crops": n, "share": share}}``.
    Crops from training designs' scenes give most of what crops of the unseen decks give, so the
    shipped classifier is recalibrated on those, no labels used."""
    if not 0 <= share <= 1:
        raise ValueError(f"the share of new statistics goes from 0 to 1, not {share:g}")
    if not len(crops_bgr):
        raise ValueError("no crops to measure the batch-norm statistics on")
    saved = torch.load(weights, map_location="cpu", weights_only=True)
    model = load_net(weights)
    trained = {name: value.clone() for name, value in model.state_dict().items()}
    for norm in model.modules():
        if isinstance(norm, nn.BatchNorm2d):
            norm.reset_running_stats()
            norm.momentum = None  # a plain mean over the batches
    model.train()
    with torch.no_grad():
        for start in range(0, len(crops_bgr), batch):
            model.features(to_tensor(np.ascontiguousarray(crops_bgr[start:start + batch])))
    state = model.state_dict()
    for name in state:
        if name.endswith(("running_mean", "running_var")):
            state[name] = share * state[name] + (1 - share) * trained[name]
        elif name.endswith("num_batches_tracked"):
            state[name] = trained[name]
    summary = {**saved, "state": state, "batch_norm": {"crops": int(len(crops_bgr)), "share": float(share)}}
    _save(summary, out)
    return summary


def train_facing(contexts: np.ndarray, ups: np.ndarray, out: Path, minutes: float, batch: int = 256,
                 seed: int = 0, log=print, init: Path | None = None, width: int = 16,
                 save_every: float = 5.0, lr: float = 3e-3) -> dict:
    """Train the facing network (:mod:`vision.reader.facing`: which way an index's top points, one of
    :data:`~vision.reader.facing.BINS` directions) for a wall-clock budget on contexts turned every way
    (:func:`~vision.model.facing_training.augment_facing`); saves like :func:`train_classifier` every ``save_every``
    minutes and at the end, and a run cut off continues from its last save with ``init``."""
    from vision.model.facing_training import augment_facing
    from vision.reader.facing import BINS

    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    before = {"crops_seen": 0, "minutes": 0.0}
    model = IndexNet(classes=BINS, width=width)
    if init:
        before = torch.load(init, map_location="cpu", weights_only=True)
        model = IndexNet(classes=BINS, width=before.get("width", width))
        model.load_state_dict(before["state"])
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.1)

    def batch_loss() -> torch.Tensor:
        pick = rng.integers(0, len(contexts), batch)
        crops, labels = zip(*(augment_facing(contexts[i], ups[i], rng) for i in pick))
        return loss_fn(model(to_tensor(np.stack(crops))), torch.tensor(labels))

    def save(seen: int, minutes_run: float) -> dict:
        summary = {
            "state": {name: t.contiguous() for name, t in model.state_dict().items()},
            "width": model.width,
            "classes": BINS,
            "crops_seen": before["crops_seen"] + seen,
            "minutes": before["minutes"] + minutes_run,
        }
        _save(summary, out)
        return summary

    model.train()
    return _train(optimiser, lr, batch_loss, batch, minutes, None, save, save_every, log)


def _save(summary: dict, out: Path) -> None:
    """Write a classifier save whole: beside ``out`` first, then renamed over it, so a kill mid-write
    leaves the previous save as it was."""
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(summary, out.with_suffix(".partial"))
    out.with_suffix(".partial").replace(out)


#: The kernel sides a random convolution draws from (RandConv's 1, 3, 5, 7).
RAND_CONV_SIDES = (1, 3, 5, 7)


def random_convolution(inputs: torch.Tensor, share: float, generator: torch.Generator) -> torch.Tensor:
    """The first ``share`` of a batch (already shuffled) seen through one random convolution, blended
    with itself: RandConv (Xu, Liu, Wang and Niethammer, "Robust and Generalizable Visual Representation
    Learning via Random Convolutions", ICLR 2021), an augmentation for recognising shapes drawn in
    styles never seen, as digits in new typefaces. A kernel of side 1, 3, 5 or 7 with weights drawn
    from N(0, 1 / (3 k²)) recolours the crop and smears or sharpens its strokes (a 1×1 kernel is a
    random mixing of its colours); each channel of the result is brought back to the crop's own mean
    and spread in that channel, then the result is mixed with the crop by a random share. The index
    classifier reads an unseen deck's ink, paper and strokes: this shows it the same shape in styles
    no deck has. Measured and not kept (docs/experiments.md, "The classifier")."""
    n = int(round(share * len(inputs)))
    if n == 0:
        return inputs
    side = RAND_CONV_SIDES[int(torch.randint(len(RAND_CONV_SIDES), (1,), generator=generator))]
    weight = torch.randn(3, 3, side, side, generator=generator) / np.sqrt(3 * side * side)
    pad = side // 2
    part = inputs[:n]
    seen = nn.functional.conv2d(nn.functional.pad(part, (pad, pad, pad, pad), mode="reflect") if pad else part, weight)
    dims = (2, 3)
    seen = ((seen - seen.mean(dims, keepdim=True)) / (seen.std(dims, keepdim=True) + 1e-6)
            * part.std(dims, keepdim=True) + part.mean(dims, keepdim=True))
    keep = torch.rand(1, generator=generator)
    return torch.cat([keep * part + (1 - keep) * seen, inputs[n:]])


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
    number of crops: what :class:`IndexClassifier` runs through ONNX Runtime. Its batch norms stay
    layers of their own (ONNX Runtime and OpenVINO fold them as they load it), so a deck lesson
    can fine-tune the export as this module's training does (:mod:`vision.reader.index_tuning`)."""
    import warnings

    out = Path(out) if out is not None else Path(weights).with_suffix(".onnx")
    model = IndexClassifier(weights, classes=None).model  # a missing or damaged save fails here, with its message
    out.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():  # the TorchScript exporter's deprecation notice: it still serves a plain CNN
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, torch.zeros(1, 3, CROP, CROP), str(out), input_names=[ONNX_INPUT],
                          output_names=["logits"], dynamic_axes={ONNX_INPUT: {0: "crops"}}, dynamo=False,
                          opset_version=17, training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    return out
