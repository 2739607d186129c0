"""The networks' weight files: where the shipped ones live, and loading them with a clear error.

``models/cards.pt`` is the ultralytics checkpoint (the reference backend and the source of every
export); ``models/cards.onnx`` is its fp32 export (weights stored fp16); ``models/cards.int8.xml``
(with ``.bin``) that export quantized to int8 for OpenVINO by NNCF, which the app runs; and
``models/cards.int8.onnx`` the export quantized for ONNX Runtime (:func:`default_weights`). They are
made by :mod:`vision.model.export`.
"""

from __future__ import annotations

import functools
import importlib.resources
import os
from pathlib import Path

import numpy as np

#: The package the shipped weights are installed in: the repository's ``models/`` (pyproject.toml maps it).
SHIPPED_PACKAGE = "vision.models"


def shipped_file(name: str) -> Path:
    """The path of a file shipped in :data:`SHIPPED_PACKAGE` (``"cards.int8.xml"``), found through
    the installed package, a wheel's or the checkout's alike."""
    return Path(str(importlib.resources.files(SHIPPED_PACKAGE) / name))


DEFAULT_WEIGHTS = shipped_file("cards.onnx")


def default_weights(backend: str = "onnx") -> Path:
    """The shipped model a backend runs when none is named: for ONNX Runtime the int8 model, which
    scores as the fp32 one does on the held-out decks and runs a quarter faster (models/MODEL_CARD.md
    has both); for OpenVINO its own int8 model (:func:`vision.model.export.quantize_openvino`: its
    backbone and neck in int8, faster than the fp32 export in bfloat16 and much faster on a CPU
    without bfloat16); for the ultralytics reference, the checkpoint."""
    return DEFAULT_WEIGHTS.with_suffix({"onnx": ".int8.onnx", "openvino": OPENVINO_INT8}.get(backend, ".pt"))


#: The OpenVINO int8 model's suffix (``cards.int8.xml``, its weights in ``cards.int8.bin`` beside it).
OPENVINO_INT8 = ".int8.xml"

_REBUILD = ("rebuild it: python -m vision train (see models/MODEL_CARD.md for the recipe), "
            "then python -m vision export --weights runs/detector/<run>/weights/best.pt --out {path}")


class WeightsError(Exception):
    """A weights file is missing or unreadable; the message says how to get or rebuild it."""


def weights_error(path: Path, problem: str) -> WeightsError:
    int8 = path.name.endswith((".int8.onnx", OPENVINO_INT8, ".int8.bin"))
    fp32 = path.with_name(path.name.split(".int8.")[0] + ".onnx") if int8 else path  # int8's source
    checkpoint = fp32.with_suffix(".pt")
    if path.suffix in (".onnx", ".xml", ".bin") and checkpoint.exists():
        calibrate = " --int8 datasets/generated/<scenes> (python -m vision synth)" if int8 else ""
        hint = f"rebuild it with python -m vision export --weights {checkpoint} --out {fp32}{calibrate}"
    else:
        hint = _REBUILD.format(path=fp32)
    return WeightsError(f"{path}: {problem}; {hint}")


def check_exists(path: Path, error=None) -> Path:
    """The path, or the error ``error(path, problem)`` makes (default :func:`weights_error`) if no file is there."""
    path = Path(path)
    if not path.is_file():
        raise (error or weights_error)(path, "no such weights file")
    return path


def load_onnx_session(path: Path, threads: int | None = None, error=None):
    """An ONNX Runtime InferenceSession on the CPU, or a :class:`WeightsError` if the file is missing or not a
    model: ``error(path, problem)`` makes it (default :func:`weights_error`, the detector's rebuild hint)."""
    import onnxruntime as ort

    error = error or weights_error
    path = check_exists(path, error)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or os.cpu_count() or 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # The detector's and the classifier's networks run one after the other on each frame, beside the
    # camera and the window: threads left spinning between runs would take their cores.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as problem:  # onnxruntime raises its own exception types for bad files
        raise error(path, f"not a readable ONNX model ({type(problem).__name__})") from None


class OpenVinoModel:
    """An ONNX model, or an OpenVINO one (``.xml``, its weights in the ``.bin`` beside it), compiled
    by OpenVINO for the CPU: call it with the model's one input array for
    its first output. OpenVINO picks the CPU's fastest precision: bfloat16 where the CPU has the
    instructions (AMX or AVX-512 BF16, as this project's machines), else float32. It runs the
    networks about three times as fast as ONNX Runtime (docs/experiments.md, "int8 and OpenVINO")."""

    def __init__(self, path: Path, threads: int | None = None, error=None, precision: str | None = None,
                 images: bool = False) -> None:
        """``precision``: ``"f32"`` or ``"bf16"`` to choose rather than let OpenVINO pick.
        ``images``: the model is called with (1, H, W, 3) 8-bit BGR images, which OpenVINO turns into
        the network's (1, 3, H, W) float RGB in [0, 1] as it runs (a detector's input, see
        :func:`vision.reader.detector.letterbox`), the same numbers as :func:`vision.reader.detector.to_tensor`
        makes."""
        error = error or weights_error
        path = check_exists(path, error)
        config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads or os.cpu_count() or 1}
        if precision:
            config["INFERENCE_PRECISION_HINT"] = precision
        try:
            model = openvino_core().read_model(str(path))
            #: The network's declared input shape (:func:`declared_shape`), before ``images``' conversion.
            self.input_shape = declared_shape(model.inputs[0].get_partial_shape())
            if images:
                model = _taking_images(model)
            self._compiled = openvino_core().compile_model(model, "CPU", config)
        except Exception as problem:  # OpenVINO raises RuntimeError and its own types for bad files
            kind = "OpenVINO model (or its .bin beside it)" if path.suffix == ".xml" else "ONNX model"
            raise error(path, f"not a readable {kind} ({type(problem).__name__})") from None
        self._request = self._compiled.create_infer_request()
        #: The network's declared output shape (:func:`declared_shape`).
        self.output_shape = declared_shape(self._compiled.outputs[0].get_partial_shape())
        #: The length of the output's second axis (a detector's 4 + classes, a classifier's classes);
        #: 0 where the output has none of fixed length (no network this project runs).
        self.output_width = (self.output_shape[1] or 0) if len(self.output_shape) > 1 else 0
        #: What it computes in: "bf16" or "f32".
        self.precision = self._compiled.get_property("INFERENCE_PRECISION_HINT").to_string()

    def __call__(self, array: np.ndarray) -> np.ndarray:
        return self._request.infer({0: array})[0]


def declared_shape(shape) -> tuple[int | None, ...]:
    """A network input's or output's shape as its file declares it (an ONNX Runtime ``shape`` list or
    an OpenVINO ``PartialShape``): each axis's length, ``None`` where it is not fixed (any frame size,
    any number of crops). Loaders check it against the network they expect, without running it."""
    if hasattr(shape, "rank"):  # OpenVINO's PartialShape
        return () if shape.rank.is_dynamic else tuple(d.get_length() if d.is_static else None for d in shape)
    return tuple(d if isinstance(d, int) and d >= 0 else None for d in shape)


def shape_text(shape: tuple[int | None, ...]) -> str:
    """``(?, 3, 32, 32)``: a :func:`declared_shape` for a message, ``?`` where it is not fixed."""
    return "(" + ", ".join("?" if d is None else str(d) for d in shape) + ")"


def _taking_images(model):
    """The OpenVINO model, called with 8-bit BGR images (N, H, W, 3) instead of its float RGB
    planes in [0, 1] (N, 3, H, W): OpenVINO's own pre-processing, run inside the compiled model."""
    import openvino as ov
    from openvino.preprocess import ColorFormat, PrePostProcessor

    steps = PrePostProcessor(model)
    steps.input().tensor().set_element_type(ov.Type.u8).set_layout(ov.Layout("NHWC")).set_color_format(ColorFormat.BGR)
    steps.input().model().set_layout(ov.Layout("NCHW"))
    steps.input().preprocess().convert_element_type(ov.Type.f32).convert_color(ColorFormat.RGB).scale(255.0)
    return steps.build()


@functools.cache
def openvino_core():
    """The process's one OpenVINO runtime: the detector and its classifier share it (OpenVINO's advice)."""
    import openvino as ov

    return ov.Core()


def load_torch_model(path: Path):
    """The ultralytics model (``torch.nn.Module``, eval mode, fp32) of a ``.pt`` checkpoint."""
    os.environ.setdefault("YOLO_OFFLINE", "1")
    from ultralytics import YOLO

    try:
        yolo = YOLO(str(check_exists(path)))
    except WeightsError:
        raise
    except Exception as error:  # torch.load / ultralytics raise many types for damaged files
        raise weights_error(path, f"not a readable ultralytics checkpoint ({type(error).__name__})") from None
    if not hasattr(yolo.model, "fuse"):  # ultralytics takes a name it doesn't know as a model to fetch
        raise weights_error(path, "not an ultralytics checkpoint (.pt)")
    return yolo.model.fuse(verbose=False).float().eval(), yolo.names
