"""The card detector the app runs: a BGR frame in, :class:`Detections` of corner indexes out.

Three backends run the same network on the same input and share every step around it:

* ``openvino``: the fp32 export through OpenVINO, in bfloat16 where the CPU has the instructions
  (the fastest here: :class:`~vision.weights.OpenVinoModel`; what the app uses);
* ``onnx``: the exported model through ONNX Runtime (its int8 copy by default);
* ``ultralytics``: the ultralytics checkpoint's torch module (the reference).

Pre-processing scales the frame to :func:`input_width_for` its width (at least
:data:`MIN_INPUT_WIDTH`, a quarter wider than the training scenes, where the network finds the most
corner indexes; at most :data:`MAX_INPUT_WIDTH`: a 1080p frame is read at its full width) and pads it
to a multiple of the network's stride. Post-processing keeps boxes over the confidence
threshold and suppresses overlaps whatever their class: one corner index is one card.

With an :class:`~vision.index_classifier.IndexClassifier` the detector is the two-stage design: the
network finds "a corner index" (one class) and the classifier names each crop. A one-class model
loads the classifier shipped beside it (:data:`CLASSIFIER_NAME`) unless one is given, run the same way:
for the ``onnx`` backend its int8 export beside an int8 network (``index_classifier.int8.onnx``) and
its fp32 export beside an fp32 one; for ``openvino`` the export beside the network, through OpenVINO;
its torch save for the reference.
"""

from __future__ import annotations

import ast
from pathlib import Path

import cv2
import numpy as np

from vision.detections import Detections
from vision.reading import SURE
from vision import weights as weight_files
from vision.weights import OpenVinoModel, load_onnx_session, load_torch_model

#: The width of the training scenes (1280×720); int8 calibration reads its frames at it.
INPUT_WIDTH = 1280
#: A narrower frame is scaled up to this. Fifteenth session, the 720p held-out scenes
#: (``scenes720v2``, 250 frames, the shipped pair through OpenVINO), ``python -m vision evaluate
#: --scenes datasets/generated/scenes720v2 --input-width W``: W = 1280 / 1440 / 1600 / 1760 / 1920
#: scored mAP50 0.475 / 0.484 / 0.492 / 0.491 / 0.491; at 1600 the network sees indexes a quarter
#: bigger than it learned them, which it finds more often (located at 0.5 17.5 ->
#: 18.6 %, precision 0.992 -> 0.987). A 1080p frame gains little from being read wider (1920 / 2400:
#: 0.657 / 0.659), so its width stays the most. A 960×540 frame (the same tables, ``--size 960x540``)
#: gains nothing either way: 1280 / 1600 / 1920 gave 0.377 / 0.379 / 0.380.
MIN_INPUT_WIDTH = 1600
#: A wider frame is read at its own width up to this, and shrunk to it beyond. Eleventh session, the
#: 1080p held-out scenes (``scenes1080v2``, 250 frames, the shipped weights, ONNX Runtime int8): the
#: network run on frames 1280 / 1600 / 1920 px wide scored mAP50 0.604 / 0.640 / 0.653, located
#: 22.9 / 25.9 / 26.4 % at 0.5 (precision 0.991 / 0.992 / 0.993). Through OpenVINO
#: the app's path takes 72–73 ms a 1080p frame at 1920 on that session's two cores (ONNX Runtime
#: int8: 97 ms at 1280, 183–198 ms at 1920; ``bench/bench_detector.py --input-width``).
MAX_INPUT_WIDTH = 1920
STRIDE = 32
#: The ways a detector can run its network (see the module's docstring); the app runs the first.
BACKENDS = ("openvino", "onnx", "ultralytics")
#: Where a card counts as sure (:data:`vision.reading.SURE`): evaluation reports recall and precision
#: per card at this value, and a detector cuts here unless told otherwise. The table reader reads at
#: :data:`vision.reading.READING_THRESHOLD`, naming by score (:func:`vision.index_classifier.named_finds`).
SURE_CONFIDENCE = SURE
NMS_IOU = 0.5
#: At most this many finds per frame (a full table shows about 100 indexes), most confident first.
MAX_DETECTIONS = 300
#: A one-class model (the two-stage design) is named by the classifier of this name beside it
#: (``.onnx`` for the onnx backend, ``.pt`` for the ultralytics one).
CLASSIFIER_NAME = "index_classifier"


class CardDetector:
    def __init__(self, weights: Path | str | None = None, backend: str = BACKENDS[0], conf: float = SURE_CONFIDENCE,
                 input_width: int | None = None, classifier=None, threads: int | None = None,
                 naming: str = "card") -> None:
        """``input_width``: the network's input width for every frame; by default each frame's own
        (:func:`input_width_for`). ``naming``: how a two-stage detector's classifier judges a find,
        by its card or by its score name (:func:`vision.index_classifier.named_finds`)."""
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
        from vision.index_classifier import check_naming

        check_naming(naming)
        # The shipped weights, looked up when a detector is made (so a test or a tool can point elsewhere).
        weights = Path(weights) if weights is not None else weight_files.default_weights(backend)
        if backend == "onnx":
            self._run, classes = _onnx_runner(weights.with_suffix(".onnx"), threads)
        elif backend == "openvino":
            network = OpenVinoModel(weights.with_suffix(".onnx"), threads)
            self._run, classes = network, network.output_width - 4
        else:
            self._run, classes = _torch_runner(weights.with_suffix(".pt"), threads)
        # The two-stage design: its classifier ships beside it (classifier=False: boxes only, unnamed).
        if classes == 1 and classifier is None:
            from vision.index_classifier import INT8_SUFFIX, IndexClassifier

            # The int8 network runs with the int8 classifier, the fp32 export with the fp32 one.
            int8 = weights.name.endswith(INT8_SUFFIX)
            suffix = ".pt" if backend == "ultralytics" else INT8_SUFFIX if int8 else ".onnx"
            classifier = IndexClassifier(weights.parent / (CLASSIFIER_NAME + suffix), threads=threads,
                                         runtime=classifier_runtime(backend))
        self.backend, self.conf, self.input_width, self.classifier = backend, conf, input_width, classifier or None
        self.naming = naming

    def detect(self, frame_bgr: np.ndarray) -> Detections:
        """Corner indexes in the frame, in frame pixels."""
        found = self.boxes(frame_bgr)
        if self.classifier is None:
            return found
        return self.named(found, self.classifier.read_boxes(frame_bgr, found.xyxy))

    def named(self, found: Detections, probabilities: np.ndarray) -> Detections:
        """A two-stage detector's finds (:meth:`boxes`) named from its classifier's probabilities of
        them (:meth:`~vision.index_classifier.IndexClassifier.read_boxes`), as :meth:`detect` names them."""
        from vision.index_classifier import named_finds

        # The classifier's judgement joins the detector's (their product, never above the detector's):
        # the threshold applies to it too, as the evaluation scores it.
        named = named_finds(found, probabilities, self.naming)
        return named[named.confidence >= self.conf]

    def boxes(self, frame_bgr: np.ndarray) -> Detections:
        """The network's finds in the frame at the detector's threshold, in frame pixels: a
        two-stage detector's before its classifier names them (all of class 0)."""
        if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
            raise ValueError(f"the detector needs an H×W×3 BGR frame, not an array of shape {frame_bgr.shape}")
        tensor, scale = preprocess(frame_bgr, self.input_width or input_width_for(frame_bgr.shape[1]))
        return postprocess(self._run(tensor), self.conf, scale)


def classifier_runtime(backend: str) -> str:
    """What runs an exported index classifier beside a detector of this backend."""
    return "openvino" if backend == "openvino" else "onnxruntime"


def input_width_for(frame_width: int) -> int:
    """The width the network reads a frame this wide at: its own, within
    [:data:`MIN_INPUT_WIDTH`, :data:`MAX_INPUT_WIDTH`]."""
    return min(max(int(frame_width), MIN_INPUT_WIDTH), MAX_INPUT_WIDTH)


def preprocess(frame_bgr: np.ndarray, input_width: int) -> tuple[np.ndarray, float]:
    """(1, 3, H, W) float32 RGB in [0, 1], padded at the right and bottom; and the scale applied."""
    scale = input_width / frame_bgr.shape[1]
    height = round(frame_bgr.shape[0] * scale)
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(frame_bgr, (input_width, height), interpolation=interpolation)
    padded_w, padded_h = (-(-input_width // STRIDE) * STRIDE, -(-height // STRIDE) * STRIDE)
    canvas = np.full((padded_h, padded_w, 3), 114, dtype=np.uint8)  # ultralytics' letterbox grey
    canvas[:height, :input_width] = resized
    # Plane by plane into the network's layout: the same numbers as a reversed, transposed copy
    # divided whole, at a tenth of its time (about 0.8 against 14 ms for a 1280-wide frame).
    tensor = np.empty((1, 3, padded_h, padded_w), np.float32)
    for plane, channel in zip(tensor[0], cv2.split(canvas)[::-1]):  # BGR -> RGB
        np.divide(channel, np.float32(255), out=plane, dtype=np.float32)
    return tensor, scale


def postprocess(raw: np.ndarray, conf: float, scale: float) -> Detections:
    """Raw network output (1, 4 + classes, anchors) -> detections in frame pixels."""
    rows = raw[0].T
    scores = rows[:, 4:]
    class_id = scores.argmax(axis=1)
    confidence = scores[np.arange(len(rows)), class_id]
    keep = confidence > conf
    rows, class_id, confidence = rows[keep], class_id[keep], confidence[keep]
    cx, cy, w, h = rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3]
    xywh = np.stack([cx - w / 2, cy - h / 2, w, h], axis=1)
    chosen = cv2.dnn.NMSBoxes(xywh.tolist(), confidence.tolist(), conf, NMS_IOU) if len(rows) else []
    chosen = np.asarray(chosen, dtype=np.int64).reshape(-1)
    chosen = chosen[np.argsort(-confidence[chosen], kind="stable")][:MAX_DETECTIONS]
    xyxy = np.concatenate([xywh[:, :2], xywh[:, :2] + xywh[:, 2:]], axis=1)[chosen] / scale
    return Detections(xyxy, confidence[chosen], class_id[chosen])


def _onnx_runner(path: Path, threads: int | None):
    session = load_onnx_session(path, threads)
    input_name = session.get_inputs()[0].name
    # ultralytics writes the class names into the model's metadata; the output's shape is symbolic.
    names = ast.literal_eval(session.get_modelmeta().custom_metadata_map.get("names", "{}"))
    return (lambda tensor: session.run(None, {input_name: tensor})[0]), len(names)


def _torch_runner(path: Path, threads: int | None):
    import torch

    if threads:
        torch.set_num_threads(threads)
    model, names = load_torch_model(path)

    def run(tensor: np.ndarray) -> np.ndarray:
        with torch.inference_mode():
            output = model(torch.from_numpy(tensor))
        return (output[0] if isinstance(output, (list, tuple)) else output).numpy()

    return run, len(names)

