"""Training the card detector with ultralytics, offline, on a CPU, resumable from its last epoch.

The recipe (see ``models/MODEL_CARD.md`` for the measurements behind it): a YOLOv8 nano built from
its yaml (no pretrained weights can be fetched here), trained on 640×640 tiles cut from the 1280×720
synthetic scenes so that corner indexes keep their size. Augmentation is where the synthetic-to-real
gap is fought; the scenes already carry photographic effects (blur, noise, glare, JPEG, white
balance, occluders), and training adds colour, scale, rotation, shear and perspective on top.

Every epoch writes ``<run>/weights/last.pt``; ``resume`` continues from it (optimiser state and
epoch count included) for as long as the machine keeps ``runs/``. ``runs/`` is not committed, so a
fresh checkout continues from the shipped weights instead: ``--model
models/cards.pt --name <new>`` fine-tunes them (``scripts/gpu_train.sh`` does the same).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import torch

RUNS_DIR = Path("runs/detector")

#: Augmentation on top of the synthetic scenes' own photographic effects. Never flip: a mirrored
#: index is not a card. Scale stays moderate: indexes are already near the smallest size a detector
#: reads, so halving them teaches nothing the camera will show.
AUGMENTATION = dict(
    hsv_h=0.02, hsv_s=0.6, hsv_v=0.45,
    degrees=12.0, translate=0.1, scale=0.35, shear=3.0, perspective=0.0005,
    fliplr=0.0, flipud=0.0, mosaic=1.0, mixup=0.0, close_mosaic=2,
)


@dataclass(frozen=True)
class Recipe:
    data: Path  #: data.yaml of a tiled dataset (``python -m vision tiles``)
    model: str = "yolov8n.yaml"  #: architecture yaml (from scratch) or a .pt to fine-tune
    imgsz: int = 640
    epochs: int = 30
    batch: int = 16
    name: str = "cards"
    single_class: bool = False  #: one "corner index" class, for the two-stage design
    threads: int = 2
    device: str = "cpu"  #: "cpu", or a CUDA device number ("0") on a GPU machine
    hours: float | None = None  #: a wall-clock budget instead of epochs (ultralytics' ``time``)
    #: A peak learning rate for AdamW, instead of ultralytics' automatic choice (AdamW at 0.002 for
    #: one class on these runs): a fine-tune may start lower than a run from scratch.
    lr0: float | None = None
    #: Compute in bfloat16, the network channels-last (weights kept float32): on a CPU with AMX 2.7
    #: times the tiles a second on two threads (``bench/bench_train.py``);
    #: ultralytics allows it only on CUDA, see :func:`allow_cpu_bfloat16` and
    #: :func:`cpu_bfloat16_network`.
    bf16: bool = False


class TrainingError(Exception):
    """Training cannot start: said in one line with what to do."""


def last_checkpoint(name: str) -> Path:
    return RUNS_DIR / name / "weights" / "last.pt"


def train(recipe: Recipe, resume: bool = False) -> Path:
    """Train (or resume) in this process; returns the run folder."""
    os.environ["YOLO_OFFLINE"] = "1"
    torch.set_num_threads(recipe.threads)
    from ultralytics import YOLO

    # A resumed run takes its precision from its checkpoint, so the CPU is let through for every run.
    if not allow_cpu_bfloat16() and recipe.bf16:
        raise TrainingError("this ultralytics cannot be taught to train in bfloat16 on the CPU: train without --bf16")

    last = last_checkpoint(recipe.name)
    if resume:
        if not last.exists():
            raise TrainingError(
                f"nothing to resume: {last} does not exist (runs/ stays on the machine that trained); "
                "continue from the shipped weights with --model models/cards.pt --name <new>"
            )
        _extend_epochs(last, recipe.epochs)
        yolo, arguments = YOLO(str(last)), dict(resume=True, workers=recipe.threads, device=recipe.device)
    else:
        if not recipe.data.exists():
            raise TrainingError(f"{recipe.data} does not exist: run python -m vision tiles first")
        if last.exists():
            raise TrainingError(f"{last} exists: pass --resume to continue it, or another --name")
        yolo, arguments = YOLO(recipe.model), fit_arguments(recipe)
    cpu_bfloat16_network(yolo)
    keep_threads(yolo, recipe.threads)
    yolo.train(**arguments)
    return RUNS_DIR / recipe.name


def keep_threads(yolo, threads: int) -> None:
    """Train, validate and predict with ``yolo`` on ``threads`` torch threads.

    ultralytics' ``select_device`` sets torch's threads to its ``NUM_THREADS``, the machine's cores
    less one up to 8, whatever was asked: as the trainer starts, as the last validation loads the
    best weights, and as ``predict`` sets up its predictor. That is one thread on a two-core
    machine, whatever ``--threads`` says. The threads are set again after each.
    """

    def restore(_) -> None:
        torch.set_num_threads(threads)

    yolo.add_callback("on_pretrain_routine_start", restore)  # after the trainer's select_device
    yolo.add_callback("on_val_start", restore)  # after the final validation's
    yolo.add_callback("on_predict_start", restore)  # after the predictor's


def fit_arguments(recipe: Recipe) -> dict:
    """ultralytics' training arguments for a new run of ``recipe``.

    A ``.pt`` model is fine-tuned: ultralytics starts from its weights only when ``pretrained``
    names them (with ``pretrained=False`` it silently builds the same network from scratch), and
    the bias warm-up is turned off (its default, a learning rate of 0.1 for the biases, knocks a
    trained head's confidence about before the run settles).
    """
    fine_tune = str(recipe.model).endswith(".pt")
    return dict(
        data=str(recipe.data.resolve()), epochs=recipe.epochs, imgsz=recipe.imgsz, batch=recipe.batch,
        device=recipe.device, time=recipe.hours, workers=recipe.threads,
        pretrained=str(recipe.model) if fine_tune else False, plots=False,
        # ultralytics' float16 AMP check downloads a model first, which fails offline; bfloat16 skips it
        amp="bf16" if recipe.bf16 else False,
        project=str(RUNS_DIR.resolve()), name=recipe.name, exist_ok=True, save_period=1,
        single_cls=recipe.single_class, patience=0, cos_lr=True, warmup_epochs=0.5, seed=0,
        warmup_bias_lr=0.0 if fine_tune else 0.1,
        **({"optimizer": "AdamW", "lr0": recipe.lr0} if recipe.lr0 else {}),
        **AUGMENTATION,
    )


def allow_cpu_bfloat16() -> bool:
    """Let ultralytics' trainer compute in bfloat16 on the CPU (``amp="bf16"``); False where this
    ultralytics has no trainer ``autocast`` to extend.

    Its ``autocast`` refuses bfloat16 off CUDA, though torch's CPU autocast does it, and on a CPU with
    AMX a YOLOv8n batch of 16 tiles goes forward and back in 1.65 s instead of 3.6 (two threads).
    The trainer's module-level ``autocast`` is swapped for one that lets the
    CPU through and hands every other case to the original.
    """
    from ultralytics.engine import trainer

    original = getattr(trainer, "autocast", None)
    if original is None:
        return False
    if getattr(original, "cpu_bfloat16", False):
        return True

    def autocast(enabled, device: str = "cuda"):
        if device == "cpu" and enabled is torch.bfloat16:
            return torch.amp.autocast("cpu", dtype=torch.bfloat16)
        return original(enabled, device=device)

    autocast.cpu_bfloat16 = True
    trainer.autocast = autocast
    return True


def cpu_bfloat16_network(yolo) -> None:
    """Ready the network of a bfloat16 run on the CPU once the trainer has built it: channels-last,
    the layout oneDNN computes fastest (a YOLOv8n batch of 16 tiles forward and back: 1.23 s against
    1.65 s), and its loss computed in float32 (:func:`float32_loss`)."""

    def convert(trainer) -> None:
        if trainer.args.amp == "bf16" and trainer.device.type == "cpu":
            trainer.model.to(memory_format=torch.channels_last)  # in place: the optimiser keeps its parameters
            float32_loss(trainer.model)

    yolo.add_callback("on_pretrain_routine_end", convert)


def float32_loss(model) -> None:
    """Make ``model`` (an ultralytics network) compute its training loss in float32 whatever autocast
    its forward pass runs under.

    Under bfloat16 autocast the loss decodes each box from its distribution by a matrix product,
    and bfloat16 keeps 8 bits of mantissa: a box side of a few hundred pixels is rounded by a pixel or
    two, as much as a small corner index's size. The shipped detector's box loss on one batch of 16
    tiles was 1.885 in float32 and 2.072 under bfloat16 autocast, with the same weights, and a run
    trained on that loss lost val mAP50-95. (float16 AMP on a GPU, what
    ultralytics computes its loss under autocast for, rounds 8 times finer.)
    """
    model.init_criterion = functools.partial(_float32_criterion, model.init_criterion)
    model.criterion = None  # made again, wrapped, at the first step


def _float32_criterion(make) -> _Float32Loss:
    return _Float32Loss(make())


class _Float32Loss:
    """An ultralytics criterion called with autocast off and its predictions made float32."""

    def __init__(self, criterion) -> None:
        self.criterion = criterion

    def __call__(self, preds, batch):
        with torch.autocast("cpu", enabled=False):
            return self.criterion(_as_float32(preds), batch)

    def __getattr__(self, name: str):  # the criterion's other parts (update(), loss names) as they were
        if name == "criterion":  # not yet set (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.criterion, name)


def _as_float32(value):
    """Tensors (in lists, tuples and dicts, as ultralytics' heads return them) made float32 if lower."""
    if isinstance(value, torch.Tensor):
        return value.float() if value.dtype in (torch.bfloat16, torch.float16) else value
    if isinstance(value, dict):
        return {key: _as_float32(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_as_float32(item) for item in value)
    return value


def _extend_epochs(last: Path, epochs: int) -> None:
    """A resumed run trains to ``epochs`` if that is more than it was started with.

    ultralytics reads the epoch count from the checkpoint and ignores a new one on resume, so the
    checkpoint's own training arguments are rewritten (its weights are left as they are).
    """
    checkpoint = torch.load(last, map_location="cpu", weights_only=False)
    if checkpoint.get("epoch", -1) < 0:
        raise TrainingError(f"{last} finished its epochs; fine-tune it instead: --model {last} --name <new>")
    if epochs > checkpoint["train_args"]["epochs"]:
        checkpoint["train_args"]["epochs"] = epochs
        torch.save(checkpoint, last)


def start_background(argv: list[str], name: str) -> tuple[int, Path]:
    """Run ``python -m vision train argv`` detached from this terminal; returns (pid, log path).

    The process is detached from the terminal (a process group of its own), so
    closing the terminal or ending this command leaves it training; its output goes to
    ``runs/detector/<name>.log``.
    """
    RUNS_DIR.mkdir(parents=True, exist_ok=True)
    log = RUNS_DIR / f"{name}.log"
    with open(log, "ab") as out:
        process = subprocess.Popen([sys.executable, "-m", "vision", "train", *argv], stdout=out,
                                   stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, process_group=0,
                                   env={**os.environ, "YOLO_OFFLINE": "1"})
    return process.pid, log


def status(name: str) -> str:
    """One line on a run: last finished epoch, its losses and validation mAP (from ``results.csv``)."""
    results = RUNS_DIR / name / "results.csv"
    if not results.exists():
        return f"{name}: no finished epoch yet (log: {RUNS_DIR / f'{name}.log'})"
    header, *rows = [line.split(",") for line in results.read_text().splitlines() if line.strip()]
    if not rows:
        return f"{name}: no finished epoch yet"
    row = dict(zip((h.strip() for h in header), (v.strip() for v in rows[-1])))
    pick = lambda key: float(row.get(key, "nan"))  # noqa: E731
    return (
        f"{name}: epoch {int(float(row['epoch']))}, {pick('time') / 3600:.2f} h, box loss "
        f"{pick('train/box_loss'):.3f}, "
        f"cls loss {pick('train/cls_loss'):.3f}, val mAP50 {pick('metrics/mAP50(B)'):.3f}, "
        f"mAP50-95 {pick('metrics/mAP50-95(B)'):.3f}"
    )
