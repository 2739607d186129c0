"""The detector's weight files: where the shipped ones live, loading them with a clear error, export.

``models/cards.pt`` is the ultralytics checkpoint (the reference backend and the source of every
export); ``models/cards.onnx`` is its fp32 export (weights stored fp16); ``models/cards.int8.xml``
(with ``.bin``) that export quantized to int8 for OpenVINO by NNCF, which the app runs
(:func:`quantize_openvino`); and ``models/cards.int8.onnx`` the export quantized for ONNX Runtime
(:func:`default_weights`).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.resources
import os
import shutil
import tempfile
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
    has both); for OpenVINO its own int8 model (:func:`quantize_openvino`, since the thirty-third
    session: its backbone and neck in int8, faster than the fp32 export in bfloat16 and much faster
    on a CPU without bfloat16); for the ultralytics reference, the checkpoint."""
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
    """An ONNX Runtime session on the CPU, or a :class:`WeightsError` if the file is missing or not a
    model: ``error(path, problem)`` makes it (default :func:`weights_error`, the detector's rebuild hint)."""
    import onnxruntime as ort

    error = error or weights_error
    path = check_exists(path, error)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads or os.cpu_count() or 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # The detector's and the classifier's sessions run one after the other on each frame, beside the
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
    instructions (AMX or AVX-512 BF16, as this project's machines), else float32.

    Eleventh session, the shipped detector on a 1920-px-wide frame, two threads: 59 ms a run in
    OpenVINO (bfloat16, the fp32 export) against 188 ms (int8) and 212 ms (fp32) in ONNX Runtime;
    the classifier's 84 crops 2.7 ms against 5.4 ms (int8, ONNX Runtime).
    Forced to float32 OpenVINO took 150 ms at 1920 px: the gain is the bfloat16 instructions."""

    def __init__(self, path: Path, threads: int | None = None, error=None, precision: str | None = None,
                 images: bool = False) -> None:
        """``precision``: ``"f32"`` or ``"bf16"`` to choose rather than let OpenVINO pick.
        ``images``: the model is called with (1, H, W, 3) 8-bit BGR images, which OpenVINO turns into
        the network's (1, 3, H, W) float RGB in [0, 1] as it runs (a detector's input, see
        :func:`vision.detector.letterbox`), the same numbers as :func:`vision.detector.to_tensor` makes."""
        error = error or weights_error
        path = check_exists(path, error)
        config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads or os.cpu_count() or 1}
        if precision:
            config["INFERENCE_PRECISION_HINT"] = precision
        try:
            model = _openvino_core().read_model(str(path))
            #: The network's declared input shape (:func:`declared_shape`), before ``images``' conversion.
            self.input_shape = declared_shape(model.inputs[0].get_partial_shape())
            if images:
                model = _taking_images(model)
            self._compiled = _openvino_core().compile_model(model, "CPU", config)
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
def _openvino_core():
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
    return yolo.model.fuse(verbose=False).float().eval(), yolo.names


def export_onnx(weights: Path, out: Path, half: bool = False) -> Path:
    """Export an ultralytics checkpoint to ONNX with dynamic input size (frames of any shape), and
    put the checkpoint itself, without its optimiser state, beside it (``<out>.pt``: the reference).

    ``half`` stores fp16 weights: half the file; ONNX Runtime folds the casts back to fp32 when it
    loads the model, so it runs as fast as the fp32 file.
    """
    os.environ.setdefault("YOLO_OFFLINE", "1")
    load_torch_model(weights)  # fails with the rebuild message first
    from ultralytics import YOLO

    out.parent.mkdir(parents=True, exist_ok=True)
    shipped = out.with_suffix(".pt")
    if weights.resolve() != shipped.resolve():
        _ship_checkpoint(weights, shipped)
    exported = Path(YOLO(str(shipped)).export(format="onnx", dynamic=True, simplify=False, device="cpu",
                                              imgsz=640, verbose=False))
    if half:
        _to_fp16(exported)
    if exported.resolve() != out.resolve():
        shutil.move(exported, out)
    return out


def _ship_checkpoint(weights: Path, target: Path) -> None:
    """The weights (EMA, fp16) of a training checkpoint, without the optimiser: a third of the file."""
    from ultralytics.utils.torch_utils import strip_optimizer

    if not strip_optimizer(weights, str(target)):
        raise weights_error(weights, "not an ultralytics training checkpoint")


def quantize_onnx(model: Path, out: Path, calibration: list[np.ndarray], input_width: int) -> Path:
    """An int8 copy of an exported detector (weights per channel, activations calibrated on frames).

    About twice as fast on a CPU with int8 dot-product instructions; evaluate it before shipping it,
    since small indexes are what quantization error hurts first.
    """
    from vision.detector import preprocess

    # Convolutions only: the head concatenates box pixels (0-1280) with class scores (0-1), and one
    # int8 scale for both would round every score to zero.
    return quantize_static_int8(model, out, ({"images": preprocess(frame, input_width)[0]} for frame in calibration),
                                op_types=["Conv"])


#: The detection head's box decoding, the arithmetic directly under its module (``/model.22/Add_8``
#: and its like): :func:`quantize_openvino` finds the head by it and leaves the head in float.
BOX_DECODING = r"/model\.\d+/(Add|Sub|Mul|Div)(_\d+)?"
#: Calibration frames for :func:`quantize_openvino`.
OPENVINO_CALIBRATION_FRAMES = 48


def quantize_openvino(model: Path, out: Path, calibration: list[np.ndarray], input_widths: tuple[int, ...]) -> Path:
    """An int8 copy of an exported detector for OpenVINO (``out``, an ``.xml`` with its ``.bin``):
    NNCF's post-training quantization of the backbone and the neck, weights per channel,
    activations calibrated on the frames read at each of ``input_widths`` in turn (as the app reads
    them). The detection head (the module holding :data:`BOX_DECODING`) stays in float, as do the
    sigmoids and the SiLUs' products.

    Thirty-third session, the shipped detector, calibrated on 48 ``scenes720d`` val frames (training
    designs): on three of the demo's frames (960x540, indexes 8-11 px) it finds all 77 of the
    reference's finds at 0.2 and names 76 alike (the fp32 export in bfloat16: 1 lost, 75). With the
    head quantized too the network took a sixth less time (79 against 95 ms at 1920 px) but lost 8 of
    the 77 and read the demo hand worse; with the head's box decoding quantized as well, the choice
    set's mAP50 fell from 0.578 to 0.528 (mAP50-95 0.369 -> 0.286: one int8 scale for a box's
    corners, 0 to 1920 px).
    Accuracy and speed on the held-out decks: models/MODEL_CARD.md and ``bench/bench_detector.py``."""
    import re

    import nncf
    import openvino as ov

    from vision.detector import preprocess

    network = _openvino_core().read_model(str(check_exists(model)))
    heads = {name.split("/")[1] for name in (op.get_friendly_name() for op in network.get_ordered_ops())
             if re.fullmatch(BOX_DECODING, name)}
    if len(heads) != 1:
        raise weights_error(model, "no YOLO detection head (its box decoding) found to keep in float")
    head = rf"/{re.escape(heads.pop())}/.*"
    inputs = [preprocess(frame, input_widths[i % len(input_widths)])[0] for i, frame in enumerate(calibration)]
    scope = nncf.IgnoredScope(patterns=[head], types=["Multiply", "Subtract", "Sigmoid"], validate=False)
    quantized = nncf.quantize(network, nncf.Dataset(inputs), preset=nncf.QuantizationPreset.MIXED,
                              subset_size=len(inputs), ignored_scope=scope)
    out.parent.mkdir(parents=True, exist_ok=True)
    ov.save_model(quantized, str(out))  # float weights stored fp16, the int8 ones as int8
    return out


def quantize_static_int8(model: Path, out: Path, inputs, op_types: list[str] | None = None) -> Path:
    """An int8 copy of an ONNX model: weights per channel, activations calibrated on ``inputs`` (an
    iterable of input-name -> array dicts); ``op_types`` limits which operators are quantized. The
    layers that read the model's input stay in float (:func:`reading_the_input`)."""
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Inputs(CalibrationDataReader):
        def __init__(self) -> None:
            self.inputs = iter(inputs)

        def get_next(self):
            return next(self.inputs, None)

    model, out = check_exists(model).resolve(), out.resolve()
    # The quantizer leaves a large scratch file in the working directory: give it a temporary one.
    with tempfile.TemporaryDirectory() as scratch, contextlib.chdir(scratch):
        prepared = Path(scratch) / "prepared.onnx"
        # Symbolic shape inference cannot follow the dynamic input size; ONNX's own inference suffices.
        quant_pre_process(str(model), str(prepared), skip_symbolic_shape=True)
        quantize_static(str(prepared), str(out), Inputs(), quant_format=QuantFormat.QDQ, per_channel=True,
                        op_types_to_quantize=op_types, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        nodes_to_exclude=reading_the_input(prepared))
    return out


def reading_the_input(model: Path) -> list[str]:
    """The names of an ONNX model's nodes that read its input: :func:`quantize_static_int8` leaves
    them in float. A picture's 8-bit values fill the whole range, and a CPU without int8
    dot-product instructions (AVX2 alone, no VNNI: many laptops) multiplies 8-bit activations by
    8-bit weights and adds each two products in 16 bits, which such inputs overflow; later layers'
    activations rarely reach the range's top together. OpenVINO's quantizer (:func:`quantize_openvino`)
    does its own fix of the first layer (7-bit weights there).

    Forty-seventh session, an AMD EPYC with AVX2 alone, the shipped index classifier quantized
    again with its first convolution in float: held-out 1080p scenes (``scenes1080v2``, first 60)
    mAP50 0.700, against 0.591 with that convolution in int8 and 0.698 with the fp32 classifier
    (with OpenVINO's int8 detector); 4,800 crops of 60 ``scenes720d`` val scenes named alike with
    the fp32 one 96.9 % against 58.9 %, named right 57.2 % as the fp32 one; its network on the
    fullest demo table's 164 crops 26 ms against 24 ms all in int8. The first block's two
    convolutions in float scored 0.697."""
    import onnx

    graph = onnx.load(str(model), load_external_data=False).graph
    inputs = {tensor.name for tensor in graph.input} - {tensor.name for tensor in graph.initializer}
    return [node.name for node in graph.node if inputs.intersection(node.input)]


def _to_fp16(path: Path) -> None:
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    # Stored as fp16, computed as fp32: a Cast after each initializer keeps the graph's types.
    cast_nodes = []
    for tensor in model.graph.initializer:
        if tensor.data_type != onnx.TensorProto.FLOAT:
            continue
        half = numpy_helper.from_array(numpy_helper.to_array(tensor).astype("float16"), tensor.name + "_fp16")
        tensor.CopyFrom(half)
        original = tensor.name[: -len("_fp16")]
        cast_nodes.append(onnx.helper.make_node("Cast", [tensor.name], [original], to=onnx.TensorProto.FLOAT))
    nodes = cast_nodes + list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.save(model, str(path))
