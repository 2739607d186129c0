"""Making the shipped weight files: the detector's ONNX export (:func:`export_onnx`), and int8 copies
of the exports for ONNX Runtime (:func:`quantize_onnx`, :func:`quantize_classifier`) and OpenVINO
(:func:`quantize_openvino`). The loaders the reader runs them with are in :mod:`vision.reader.weights`.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

import numpy as np

from vision.reader.detector import preprocess
from vision.reader.index_classifier import INT8_SUFFIX, ONNX_INPUT, both_ways_up, reading_crops, to_array
from vision.reader.weights import WeightsError, check_exists, load_torch_model, openvino_core, weights_error
from vision.synth.labels import labelled_images


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
    # Convolutions only: the head concatenates box pixels (0-1280) with class scores (0-1), and one
    # int8 scale for both would round every score to zero.
    return quantize_static_int8(model, out, ({"images": preprocess(frame, input_width)[0]} for frame in calibration),
                                op_types=["Conv"])


#: The detection head's box decoding, the arithmetic directly under its module (``/model.22/Add_8``
#: and its like): :func:`quantize_openvino` finds the head by it and leaves the head in float, but
#: for its 3×3 convolutions.
BOX_DECODING = r"/model\.\d+/(Add|Sub|Mul|Div)(_\d+)?"
#: The detection head's 3×3 convolutions, by their names under the head (ultralytics' ``Detect``: the
#: first two blocks of each scale's box branch ``cv2`` and class branch ``cv3``; the third is the
#: output convolution). About a quarter of the network's multiply-adds: in int8 they take a sixth off
#: a 1080p frame's network time, for the same finds (docs/experiments.md, "int8 and OpenVINO").
HEAD_3X3 = r"cv[23]\.\d/cv[23]\.\d\.[01]"
#: Calibration frames for :func:`quantize_openvino`.
OPENVINO_CALIBRATION_FRAMES = 48


def quantize_openvino(model: Path, out: Path, calibration: list[np.ndarray], input_widths: tuple[int, ...]) -> Path:
    """An int8 copy of an exported detector for OpenVINO (``out``, an ``.xml`` with its ``.bin``):
    NNCF's post-training quantization of the backbone, the neck and the detection head's 3×3
    convolutions (:data:`HEAD_3X3`), weights per channel, activations calibrated on the frames read
    at each of ``input_widths`` in turn (as the app reads them). The rest of the head (the module
    holding :data:`BOX_DECODING`: its output convolutions, the DFL, the box decoding) stays in float,
    as do the sigmoids and the SiLUs' products: quantized too, the outputs lost small finds and one
    int8 scale for a box's corners (0 to 1920 px) costs the boxes their precision (see
    docs/experiments.md, "int8 and OpenVINO"; accuracy and speed in models/MODEL_CARD.md)."""
    import re

    import nncf
    import openvino as ov

    network = openvino_core().read_model(str(check_exists(model)))
    heads = {name.split("/")[1] for name in (op.get_friendly_name() for op in network.get_ordered_ops())
             if re.fullmatch(BOX_DECODING, name)}
    if len(heads) != 1:
        raise weights_error(model, "no YOLO detection head (its box decoding) found to keep in float")
    head = rf"/{re.escape(heads.pop())}/(?!{HEAD_3X3}/).*"  # the head but its 3×3 convolutions
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
    does its own fix of the first layer (7-bit weights there). See docs/experiments.md, "int8 and
    OpenVINO"."""
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


#: Val scenes whose index crops calibrate an int8 classifier's activations.
CALIBRATION_SCENES = 40


def quantize_classifier(exported: Path, scenes: Path) -> Path:
    """An int8 copy of an exported index classifier, beside it (``<name>.int8.onnx``): weights per
    channel, activations calibrated on crops of the labelled indexes of ``scenes``' first
    :data:`CALIBRATION_SCENES` val scenes as they lie (every window, both ways up; the app turns a
    sideways find upright first, which moves no pixel's range). It reads
    crops in half the time of the fp32 export and scores as it does (models/MODEL_CARD.md)."""
    crops = []
    try:
        for _, image, truth in labelled_images(scenes, "val", CALIBRATION_SCENES):
            crops.append(both_ways_up(reading_crops(image, truth.xyxy)))  # as probabilities() reads them
    except FileNotFoundError as error:
        raise WeightsError(f"cannot calibrate an int8 classifier: {error}") from None
    if not crops:
        raise WeightsError(f"no labelled indexes in {scenes / 'images' / 'val'} to calibrate an int8 classifier on")
    crops = np.concatenate(crops)
    out = Path(exported).with_name(Path(exported).name.removesuffix(".onnx") + INT8_SUFFIX)
    batches = ({ONNX_INPUT: to_array(crops[i:i + 256])} for i in range(0, len(crops), 256))
    return quantize_static_int8(exported, out, batches)
