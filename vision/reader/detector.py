"""The card detector the app runs: a BGR frame in, :class:`Detections` of corner indexes out.

Three backends run the same network on the same input and share every step around it:

* ``openvino``: through OpenVINO (:class:`~vision.reader.weights.OpenVinoModel`; what the app uses), by
  default the network quantized to int8 for it (``cards.int8.xml``,
  :func:`~vision.model.export.quantize_openvino`); given an ``.onnx`` file, the fp32 export, run in
  bfloat16 where the CPU has the instructions;
* ``onnx``: the exported model through ONNX Runtime (its int8 copy by default);
* ``ultralytics``: the ultralytics checkpoint's torch module (the reference).

Pre-processing scales the frame to a width the network reads (:func:`input_widths_for`) and pads it
to a multiple of the network's stride; post-processing keeps boxes over the confidence threshold and
suppresses overlaps whatever their class: one corner index is one card. A 1080p frame is read once,
at its full width (:data:`MAX_INPUT_WIDTH`); a narrower one twice, at each of
:data:`NARROW_FRAME_WIDTHS`, and the two readings' finds joined (:func:`join_views`).

With an :class:`~vision.reader.index_classifier.IndexClassifier` the detector is the two-stage design: the
network finds "a corner index" (one class) and the classifier names each crop. A one-class model
loads the classifier shipped beside it (:data:`CLASSIFIER_NAME`) unless one is given, run the same way:
its int8 export beside an int8 network (``index_classifier.int8.onnx``, beside ``cards.int8.onnx``
for ``onnx`` and ``cards.int8.xml`` for ``openvino``) and its fp32 export beside an fp32 one, run
by the same runtime as the network; its torch save for the reference.
"""

from __future__ import annotations

import ast
import math
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from vision.reader import scales
from vision.reader import weights as weight_files
from vision.reader.detections import Detections, iou
from vision.reader.reading import SURE
from vision.reader.weights import OpenVinoModel, declared_shape, load_onnx_session, load_torch_model, shape_text

#: The width of the training scenes (1280×720); ONNX Runtime's int8 calibration reads its frames at it.
INPUT_WIDTH = 1280
#: A wider frame is read once, at its own width up to this, and shrunk to it beyond: one pass at
#: 1920 px fits the 150 ms a 1080p frame may take; two views or a width chosen per video
#: scored more but cost that time or read hand videos worse (docs/experiments.md, "Input widths and views").
MAX_INPUT_WIDTH = 1920
#: A frame narrower than :data:`MAX_INPUT_WIDTH` (a 720p camera's, the demo's 960×540) is read at
#: both these widths, the training scenes' and the most, and the finds joined (:func:`join_views`):
#: an index missed or doubted at one size is often found at the other, and the mean of two
#: confidences ranks finds better than either. 1280 + 1920 is the cheapest of the best pairs
#: (docs/experiments.md, "Input widths and views").
NARROW_FRAME_WIDTHS = (INPUT_WIDTH, MAX_INPUT_WIDTH)
#: Two views' finds overlapping this much (IoU) are one corner index: weighted box fusion's usual
#: threshold (0.45 and 0.65 score alike).
JOIN_IOU = 0.55
#: Read in two views, each keeps finds down to this share of the detector's threshold: a find whose
#: views' mean confidence reaches the threshold loses less than an eighth of it to a view's find
#: left out under a quarter.
VIEW_FLOOR = 0.25
STRIDE = 32
#: The ways a detector can run its network (see the module's docstring); the app runs the first.
BACKENDS = ("openvino", "onnx", "ultralytics")
#: Where a card counts as sure (:data:`vision.reader.reading.SURE`): evaluation reports recall and precision
#: per card at this value, and a detector cuts here unless told otherwise. The table reader reads at
#: :data:`vision.reader.reading.READING_THRESHOLD`, naming by score
#: (:func:`vision.reader.index_classifier.named_finds`).
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
                 naming: str = "card", reread_from: float = 0.0, facing=None) -> None:
        """``input_width``: the one width the network reads every frame at; by default each frame's
        own (:func:`input_widths_for`). ``naming``: how a two-stage detector's classifier judges a find,
        by its card or by its score name (:func:`vision.reader.index_classifier.named_finds`).
        ``reread_from``: see :attr:`reread_from`. ``facing``: a
        :class:`~vision.reader.facing.FacingReader` that tells which way each find's index points, so
        that the classifier reads it upright (:meth:`read`); none by default."""
        if backend not in BACKENDS:
            raise ValueError(f"backend must be one of {', '.join(BACKENDS)}, not {backend!r}")
        from vision.reader.index_classifier import check_naming

        check_naming(naming)
        # The shipped weights, looked up when a detector is made (so a test or a tool can point elsewhere).
        weights = Path(weights) if weights is not None else weight_files.default_weights(backend)
        if backend == "onnx":
            self._run, classes = _onnx_runner(weights.with_suffix(".onnx"), threads)
        elif backend == "openvino":
            # OpenVINO takes the letterboxed frame as it is (8-bit BGR) and makes the network's
            # input itself, a quarter of numpy's time for the same finds.
            model = weights if weights.suffix == ".xml" else weights.with_suffix(".onnx")
            network = OpenVinoModel(model, threads, images=True)
            self._run, classes = network, network.output_width - 4
            _check_detector(model, network.input_shape, network.output_shape, classes)
        else:
            self._run, classes = _torch_runner(weights.with_suffix(".pt"), threads)
        # The two-stage design: its classifier ships beside it (classifier=False: boxes only, unnamed).
        if classes == 1 and classifier is None:
            from vision.reader.index_classifier import IndexClassifier

            classifier = IndexClassifier(classifier_beside(weights, backend), threads=threads,
                                         runtime=classifier_runtime(backend))
        self.backend, self.conf, self.input_width, self.classifier = backend, conf, input_width, classifier or None
        self.naming = naming
        #: Finds less confident than this are read by the classifier through one window
        #: (:data:`~vision.reader.index_classifier.WEAK_WINDOWS`) and not again turned where it is
        #: unsure: the table reader's weak finds (:data:`vision.reader.reading.COLUMN_SHARE`), which
        #: count only in meld columns, where their rank alone matters.
        self.reread_from = reread_from
        #: The facing network the classifier's finds are turned upright by (:meth:`read`); ``None``: as they lie.
        self.facing = facing

    def detect(self, frame_bgr: np.ndarray, scale: float | None = None,
               region: tuple[int, int, int, int] | None = None) -> Detections:
        """Corner indexes in the frame, in frame pixels: read at its default views, or once at
        ``scale`` (frame to network; :func:`vision.reader.scales.live_scale` chooses it for live video);
        the network reads only ``region`` of it where given (:meth:`boxes`)."""
        found = self.boxes(frame_bgr, scale, region)
        if self.classifier is None:
            return found
        return self.named(found, self.read(frame_bgr, found))

    def detect_still(self, frame_bgr: np.ndarray) -> Detections:
        """Corner indexes in a still picture of any size, whatever their size in it: read as a
        pyramid (:meth:`boxes_still`), then named as :meth:`detect` names them."""
        found = self.boxes_still(frame_bgr)
        if self.classifier is None:
            return found
        return self.named(found, self.read(frame_bgr, found))

    def read(self, frame_bgr: np.ndarray, found: Detections) -> np.ndarray:
        """(n, classes) what a two-stage detector's classifier reads in each find of the frame
        (:meth:`~vision.reader.index_classifier.IndexClassifier.read_boxes`), each reading joined with its
        card's other corner and its neighbours' ranks (:func:`vision.reader.neighbours.read_with_neighbours`).
        With a facing network, each find is read turned upright (:func:`~vision.reader.facing.upright_turns`)."""
        from vision.reader.neighbours import read_with_neighbours

        doubted = found.confidence >= self.reread_from
        if self.facing is None or not len(found):
            return read_with_neighbours(found, self.classifier.read_boxes(frame_bgr, found.xyxy, doubted))
        from vision.reader.facing import may_lie_sideways, upright_turns

        # Only the finds that may lie sideways are asked about: a tall one is read as it lies anyway.
        upright = np.zeros(len(found))
        asked = may_lie_sideways(found.xyxy)
        if asked.any():
            upright[asked] = upright_turns(*self.facing.facing(frame_bgr, found.xyxy[asked]))
        return read_with_neighbours(found, self.classifier.read_boxes(frame_bgr, found.xyxy, doubted, upright=upright))

    def named(self, found: Detections, probabilities: np.ndarray) -> Detections:
        """A two-stage detector's finds (:meth:`boxes`) named from its classifier's probabilities of
        them (:meth:`read`), as :meth:`detect` names them."""
        from vision.reader.index_classifier import named_finds

        # The classifier's judgement joins the detector's (their product, never above the detector's):
        # the threshold applies to it too, as the evaluation scores it.
        named = named_finds(found, probabilities, self.naming)
        return named[named.confidence >= self.conf]

    def boxes(self, frame_bgr: np.ndarray, scale: float | None = None,
              region: tuple[int, int, int, int] | None = None) -> Detections:
        """The network's finds in the frame at the detector's threshold, in frame pixels: a
        two-stage detector's before its classifier names them (all of class 0). Read at the
        frame's default views (:meth:`default_widths`), or once at ``scale``. With ``region``
        (x0, y0, x1, y1, frame pixels) and one view, the network reads that part of the frame alone
        (:meth:`_part`)."""
        _check_frame(frame_bgr)
        width = self.one_view(frame_bgr.shape[1], scale)
        if width is None:  # two views, their finds joined: read whole
            widths = self.default_widths(frame_bgr.shape[1])
            joined = join_views([self._view(frame_bgr, view, self.conf * VIEW_FLOOR) for view in widths])
            return joined[joined.confidence >= self.conf][:MAX_DETECTIONS]
        if region is None:
            return self._view(frame_bgr, width, self.conf)
        return self._part(frame_bgr, width, region)

    def boxes_still(self, frame_bgr: np.ndarray) -> Detections:
        """:meth:`boxes` for a still picture, read as a pyramid (:mod:`vision.reader.scales`): its levels
        coarsest first, each keeping the finds of the sizes it owns, finer levels only while the
        last one shows smaller finds; the levels' finds joined."""
        _check_frame(frame_bgr)
        levels = scales.still_levels(frame_bgr.shape[0], self.default_scale(frame_bgr.shape[1]))
        kept = []
        for number in range(len(levels) - 1, -1, -1):
            scale = levels[number]
            found = self.boxes(frame_bgr, None if number == 0 else scale)
            kept.append(found[scales.owned(found, scale, number == 0, number == len(levels) - 1)])
            if not scales.needs_finer(found, scale):
                break
        return scales.join_levels(kept)[:MAX_DETECTIONS]

    def default_widths(self, frame_width: int) -> tuple[int, ...]:
        """The widths a frame this wide is read at by default: the detector's one ``input_width``
        if it was given one, else :func:`input_widths_for`'s."""
        return (self.input_width,) if self.input_width else input_widths_for(frame_width)

    def one_view(self, frame_width: int, scale: float | None = None) -> int | None:
        """The one network width a frame this wide is read at, at ``scale`` or else at its default
        views; ``None`` where those are two, whose finds are joined. Only a frame read at one view
        can be read in part (:meth:`boxes`' ``region``), so the live reader asks this too."""
        if scale is not None:
            return max(STRIDE, round(frame_width * scale))
        widths = self.default_widths(frame_width)
        return widths[0] if len(widths) == 1 else None

    def default_scale(self, frame_width: int) -> float:
        """The scale (frame to network) of the narrowest of a frame's default views."""
        return min(self.default_widths(frame_width)) / frame_width

    def _part(self, frame_bgr: np.ndarray, width: int, region: tuple[int, int, int, int]) -> Detections:
        """The finds of one part of the frame (``region``: x0, y0, x1, y1, frame pixels) as the
        whole frame read at ``width`` finds them there: the frame letterboxed as for that reading,
        then cut on the network's grid (multiples of :data:`STRIDE` of its pixels) round the part,
        so that the network sees the same pixels in the same cells at any scale; the finds moved
        back into the frame's pixels."""
        canvas, scale = letterbox(frame_bgr, width)
        rows, columns = canvas.shape[:2]

        def on_grid(value: float, rounding, limit: int) -> int:  # network pixels, within the canvas
            return int(max(0, min(limit, rounding(value * scale / STRIDE) * STRIDE)))

        x0, y0 = on_grid(region[0], math.floor, columns), on_grid(region[1], math.floor, rows)
        x1, y1 = on_grid(region[2], math.ceil, columns), on_grid(region[3], math.ceil, rows)
        if x1 <= x0 or y1 <= y0:
            return Detections.empty()
        found = postprocess(self.network(np.ascontiguousarray(canvas[y0:y1, x0:x1])), self.conf, scale)
        return replace(found, xyxy=found.xyxy + np.array([x0, y0, x0, y0], np.float32) / scale)

    def _view(self, frame_bgr: np.ndarray, width: int, conf: float) -> Detections:
        """The network's finds in the frame read at one width, at a threshold, in frame pixels."""
        canvas, scale = letterbox(frame_bgr, width)
        return postprocess(self.network(canvas), conf, scale)

    def network(self, canvas_bgr: np.ndarray) -> np.ndarray:
        """The network's raw output (1, 4 + classes, anchors) for a letterboxed frame (:func:`letterbox`),
        handed to the backend as it takes it: OpenVINO the (1, H, W, 3) 8-bit frame itself, the others
        the float tensor."""
        return self._run(canvas_bgr[None] if self.backend == "openvino" else to_tensor(canvas_bgr))


def _check_frame(frame_bgr: np.ndarray) -> None:
    if frame_bgr.ndim != 3 or frame_bgr.shape[2] != 3:
        raise ValueError(f"the detector needs an H×W×3 BGR frame, not an array of shape {frame_bgr.shape}")


def classifier_runtime(backend: str) -> str:
    """What runs an exported index classifier beside a detector of this backend."""
    return "openvino" if backend == "openvino" else "onnxruntime"


def input_widths_for(frame_width: int) -> tuple[int, ...]:
    """The widths the network reads a frame this wide at: a frame narrower than
    :data:`MAX_INPUT_WIDTH` at each of :data:`NARROW_FRAME_WIDTHS`; a wider one once, at
    :data:`MAX_INPUT_WIDTH`."""
    return NARROW_FRAME_WIDTHS if frame_width < MAX_INPUT_WIDTH else (MAX_INPUT_WIDTH,)


def join_views(views: list[Detections], min_iou: float = JOIN_IOU) -> Detections:
    """One frame's finds from its views (:func:`input_widths_for`), joined by weighted box fusion
    (Solovyev, Wang and Gabruseva, 2021): taken most confident first, each find joins the joined
    find it overlaps most (IoU at least ``min_iou``) that no find of its own view has joined yet, or
    starts one. A joined find's box is the confidence-weighted mean of its finds' boxes, its
    confidence their sum over the number of views (a view that missed it counts 0) and its class its
    most confident find's. Most confident first. (It scores as ``ensemble-boxes``'s fusion does,
    without importing numba and pandas.)"""
    xyxy = np.concatenate([view.xyxy for view in views])
    confidence = np.concatenate([view.confidence for view in views]).astype(np.float64)
    class_id = np.concatenate([view.class_id for view in views])
    view_of = np.repeat(np.arange(len(views)), [len(view) for view in views])
    boxes, members = np.zeros((len(xyxy), 4), np.float32), []
    has_view = np.zeros((len(xyxy), len(views)), bool)
    for k in np.argsort(-confidence, kind="stable"):
        overlap = iou(xyxy[k:k + 1], boxes[:len(members)])[0]
        overlap[has_view[:len(members), view_of[k]]] = 0  # a view's finds join a joined find once
        if len(members) and overlap.max() >= min_iou:
            j = int(overlap.argmax())
            members[j].append(k)
        else:
            j = len(members)
            members.append([k])
        has_view[j, view_of[k]] = True
        weight = confidence[members[j]] + 1e-9  # a find at 0 keeps its box
        boxes[j] = weight @ xyxy[members[j]] / weight.sum()
    total = np.array([confidence[m].sum() for m in members])
    order = np.argsort(-total, kind="stable")
    return Detections(boxes[:len(members)][order], total[order] / len(views),
                      class_id[[members[j][0] for j in order]])


def preprocess(frame_bgr: np.ndarray, input_width: int) -> tuple[np.ndarray, float]:
    """(1, 3, H, W) float32 RGB in [0, 1], padded at the right and bottom; and the scale applied:
    :func:`letterbox` then :func:`to_tensor`."""
    canvas, scale = letterbox(frame_bgr, input_width)
    return to_tensor(canvas), scale


#: ultralytics' letterbox grey, what a frame is padded with to reach the network's shape.
LETTERBOX_GREY = (114, 114, 114)


def letterbox(frame_bgr: np.ndarray, input_width: int) -> tuple[np.ndarray, float]:
    """(H, W, 3) uint8 BGR: the frame scaled to ``input_width`` and padded at the right and bottom
    to a multiple of :data:`STRIDE` with ultralytics' letterbox grey; and the scale applied. The
    OpenVINO backend hands it to the network as it is (:class:`~vision.reader.weights.OpenVinoModel`'s
    ``images``), the others as :func:`to_tensor` makes it."""
    scale = input_width / frame_bgr.shape[1]
    height = round(frame_bgr.shape[0] * scale)
    interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    resized = cv2.resize(frame_bgr, (input_width, height), interpolation=interpolation)
    padded_w, padded_h = (-(-input_width // STRIDE) * STRIDE, -(-height // STRIDE) * STRIDE)
    canvas = cv2.copyMakeBorder(resized, 0, padded_h - height, 0, padded_w - input_width,
                                cv2.BORDER_CONSTANT, value=LETTERBOX_GREY)
    return canvas, scale


def to_tensor(canvas_bgr: np.ndarray) -> np.ndarray:
    """(1, 3, H, W) float32 RGB in [0, 1] of an (H, W, 3) uint8 BGR image: the network's input."""
    height, width = canvas_bgr.shape[:2]
    # Plane by plane into the network's layout: the same numbers as a reversed, transposed copy
    # divided whole, at a tenth of its time (about 0.8 against 14 ms for a 1280-wide frame).
    tensor = np.empty((1, 3, height, width), np.float32)
    for plane, channel in zip(tensor[0], cv2.split(canvas_bgr)[::-1]):  # BGR -> RGB
        np.divide(channel, np.float32(255), out=plane, dtype=np.float32)
    return tensor


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
    try:
        names = ast.literal_eval(session.get_modelmeta().custom_metadata_map.get("names", "{}"))
    except (ValueError, SyntaxError):
        names = {}
    classes = len(names) if isinstance(names, (dict, list)) else 0
    _check_detector(path, declared_shape(session.get_inputs()[0].shape),
                    declared_shape(session.get_outputs()[0].shape), classes)
    return (lambda tensor: session.run(None, {input_name: tensor})[0]), classes


def classifier_beside(weights: Path, backend: str) -> Path:
    """The index classifier shipped beside detector ``weights``, as ``backend`` runs it: an int8
    network (ONNX Runtime's or OpenVINO's) with the int8 classifier, the fp32 export with the fp32
    one, ultralytics with the torch save. The int8 classifier scores as the fp32 one and is faster,
    on every CPU: its first layer stays in float (:func:`vision.model.export.reading_the_input`)."""
    from vision.reader.index_classifier import INT8_SUFFIX

    int8 = weights.name.endswith((INT8_SUFFIX, weight_files.OPENVINO_INT8))
    suffix = ".pt" if backend == "ultralytics" else INT8_SUFFIX if int8 else ".onnx"
    return weights.parent / (CLASSIFIER_NAME + suffix)


def _check_detector(path: Path, input_shape: tuple, output_shape: tuple, classes: int) -> None:
    """A :class:`~vision.reader.weights.WeightsError` unless a network's declared shapes
    (:func:`~vision.reader.weights.declared_shape`) are those of a YOLO detector such as the card
    detector: frames (n, 3, height, width) of any size in, (n, 4 + classes, anchors) out, a class or
    more. Another network (the facing network's or the classifier's file put in its place) would
    otherwise fail on the first frame, in the runtime's words."""
    frames = len(input_shape) == 4 and input_shape[1] == 3 and input_shape[2] is None and input_shape[3] is None
    if not frames or len(output_shape) != 3 or classes < 1:
        raise weight_files.weights_error(
            path, f"not the card detector (a YOLO network taking (n, 3, height, width) frames of any size and "
                  f"naming a class or more; this one takes {shape_text(input_shape)} and gives "
                  f"{shape_text(output_shape)})")


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

