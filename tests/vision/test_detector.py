"""The card detector: both backends agree on a synthetic frame, pre/post-processing, weight errors.

The model is a YOLOv8n with random weights built and exported once per test run: the check
is that ONNX Runtime and the torch reference compute the same thing around the same steps, which
holds whatever the weights are.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vision.reader.detections import Detections
from vision.reader.detector import (
    MAX_INPUT_WIDTH,
    NARROW_FRAME_WIDTHS,
    CardDetector,
    input_widths_for,
    join_views,
    letterbox,
    postprocess,
    preprocess,
    to_tensor,
)
from vision.reader.index_classifier import BACKGROUND
from vision.reader.weights import OpenVinoModel, WeightsError
from vision.synth.augment import photograph
from vision.synth.render import render_scene
from vision.synth.scenes import build_scene

#: Random weights give confidences of a few 1e-4; this keeps a few dozen boxes to compare.
RANDOM_MODEL_CONF = 1e-4


def random_yolo(folder: Path, names: list[str]) -> Path:
    """An untrained YOLOv8n saved as an ultralytics checkpoint and exported to ONNX."""
    import torch
    from ultralytics.nn.tasks import DetectionModel

    from vision.model.export import export_onnx

    torch.manual_seed(0)
    model = DetectionModel("yolov8n.yaml", nc=len(names), verbose=False)
    model.names = dict(enumerate(names))
    torch.save({"model": model.half(), "train_args": {}}, folder / "cards.pt")
    return export_onnx(folder / "cards.pt", folder / "cards.onnx")


@pytest.fixture(scope="module")
def random_model(tmp_path_factory) -> Path:
    from vision.reader.classes import CLASS_NAMES

    return random_yolo(tmp_path_factory.mktemp("model"), list(CLASS_NAMES))


@pytest.fixture(scope="module")
def frame(small_atlas) -> np.ndarray:
    scene = build_scene(small_atlas, 7, (960, 540))
    return photograph(render_scene(scene, small_atlas), scene.owners, 7)


def test_backends_agree_on_a_synthetic_frame(random_model, frame):
    fast = CardDetector(random_model, backend="onnx", conf=RANDOM_MODEL_CONF, input_width=640)
    reference = CardDetector(random_model, backend="ultralytics", conf=RANDOM_MODEL_CONF, input_width=640)
    canvas, _ = letterbox(frame, 640)
    np.testing.assert_allclose(fast.network(canvas), reference.network(canvas), rtol=1e-3, atol=1e-3)
    a, b = fast.detect(frame), reference.detect(frame)
    assert isinstance(a, Detections) and len(a) > 10
    assert len(a) == len(b)
    np.testing.assert_allclose(a.xyxy, b.xyxy, atol=0.5)
    np.testing.assert_array_equal(a.class_id, b.class_id)
    np.testing.assert_allclose(a.confidence, b.confidence, rtol=1e-3, atol=1e-6)


def test_openvino_runs_the_network_as_onnx_runtime_does(random_model, frame):
    """In float32 the same numbers; as the app runs it (bfloat16 where the CPU has it) boxes and
    scores within bfloat16's rounding."""
    tensor, _ = preprocess(frame, 640)
    expected = CardDetector(random_model, backend="onnx", classifier=False)._run(tensor)
    np.testing.assert_allclose(OpenVinoModel(random_model, precision="f32")(tensor), expected, rtol=1e-3, atol=1e-3)
    app = OpenVinoModel(random_model)
    assert app.precision in ("bf16", "f32") and app.output_width == expected.shape[1]
    got = app(tensor)
    np.testing.assert_allclose(got[0, 4:], expected[0, 4:], atol=0.02)  # scores
    np.testing.assert_allclose(got[0, :4], expected[0, :4], rtol=0.02, atol=1.0)  # box centres and sizes, px


def test_openvino_makes_the_networks_input_from_the_8_bit_frame_as_numpy_does(frame, tmp_path):
    """The app's backend is handed the letterboxed frame (8-bit BGR) and converts it inside the
    compiled model: a network that returns its input gives back exactly what numpy makes."""
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph([helper.make_node("Identity", ["images"], ["output0"])], "identity",
                              [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, "h", "w"])],
                              [helper.make_tensor_value_info("output0", TensorProto.FLOAT, [1, 3, "h", "w"])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), tmp_path / "identity.onnx")
    canvas, _ = letterbox(frame, 640)
    assert canvas.dtype == np.uint8 and canvas.shape == (384, 640, 3)
    network = OpenVinoModel(tmp_path / "identity.onnx", precision="f32", images=True)
    np.testing.assert_allclose(network(canvas[None]), to_tensor(canvas), rtol=1e-6, atol=1e-7)


@pytest.fixture(scope="module")
def demo_table() -> np.ndarray:
    """The demo's fullest table, its video's last frame (BGR)."""
    import cv2

    video = cv2.VideoCapture(str(Path(__file__).parents[2] / "datasets" / "demo" / "hand.mp4"))
    video.set(cv2.CAP_PROP_POS_FRAMES, video.get(cv2.CAP_PROP_FRAME_COUNT) - 1)
    ok, frame = video.read()
    assert ok
    return frame


def test_the_apps_backend_finds_what_the_reference_finds_with_the_shipped_model(demo_table):
    frame = demo_table
    # The reference keeps finds a little under the app's threshold too, so that a find on the edge,
    # in bfloat16 just over it and in float32 just under, is matched rather than counted missing.
    app, reference = CardDetector(conf=0.3), CardDetector(backend="ultralytics", conf=0.25)
    assert app.backend == "openvino" and app.classifier.weights.name == "index_classifier.int8.onnx"
    a, near = app.detect(frame), reference.detect(frame)
    b = near[near.confidence >= 0.3]
    assert len(b) >= 10
    nearest = [np.abs(near.xyxy - box).max(axis=1).argmin() for box in a.xyxy]
    matched = [np.abs(near.xyxy[j] - box).max() <= 2.0 and near.class_id[j] == card
               for box, card, j in zip(a.xyxy, a.class_id, nearest)]  # the same box (px) named the same card
    assert abs(len(a) - len(b)) <= max(1, len(b) // 10) and np.mean(matched) >= 0.9


def test_preprocess_scales_to_the_input_width_and_pads_to_the_stride():
    tensor, scale = preprocess(np.zeros((1080, 1920, 3), np.uint8), 1280)
    assert tensor.shape == (1, 3, 736, 1280) and tensor.dtype == np.float32
    assert scale == pytest.approx(2 / 3)
    assert tensor[0, :, 720:].max() == pytest.approx(114 / 255)  # padding below the frame
    bgr = np.zeros((64, 64, 3), np.uint8)
    bgr[..., 0], bgr[..., 2] = 255, 51  # blue, a little red
    rgb, _ = preprocess(bgr, 64)
    assert rgb.flags.c_contiguous
    np.testing.assert_array_equal(rgb[0, :, 0, 0], np.float32([51, 0, 255]) / np.float32(255))  # planes R, G, B


def test_a_1080p_frame_is_read_once_at_its_width_and_a_narrower_one_twice():
    assert input_widths_for(960) == NARROW_FRAME_WIDTHS == (1280, 1920)  # the demo's frames
    assert input_widths_for(1280) == NARROW_FRAME_WIDTHS  # a 720p camera's
    assert input_widths_for(1920) == (MAX_INPUT_WIDTH,) == (1920,)  # a 1080p frame at its full width
    assert input_widths_for(3840) == (MAX_INPUT_WIDTH,)  # a 4K one shrunk to it


def test_the_detector_reads_each_frame_at_its_widths_unless_told_one(random_model):
    widths = []

    def seen(detector):
        run = detector._run
        # OpenVINO (the default backend) is handed the 8-bit frame (1, H, W, 3).
        detector._run = lambda image: (widths.append(image.shape[2]), run(image))[1]
        return detector

    frame = np.zeros((1080, 1920, 3), np.uint8)
    seen(CardDetector(random_model, classifier=False)).detect(frame)
    seen(CardDetector(random_model, classifier=False)).detect(frame[:540, :960])
    seen(CardDetector(random_model, classifier=False, input_width=640)).detect(frame)
    assert widths == [MAX_INPUT_WIDTH, *NARROW_FRAME_WIDTHS, 640]


def test_only_a_frame_read_at_one_view_may_be_read_in_part(random_model):
    """The one decision the detector's boxes and the live reader's choice of part both take."""
    detector = CardDetector(random_model, classifier=False)
    assert detector.one_view(1920) == 1920 and detector.one_view(3840) == 1920
    assert detector.one_view(1280) is None  # its two default views' finds are joined: read whole
    assert detector.one_view(1280, scale=0.5) == 640 and detector.one_view(1920, scale=0.25) == 480
    assert CardDetector(random_model, classifier=False, input_width=640).one_view(1280) == 640


def found(*rows) -> Detections:
    """Finds from rows of (x1, y1, x2, y2, confidence, class)."""
    rows = np.array(rows, np.float32).reshape(-1, 6)
    return Detections(rows[:, :4], rows[:, 4], rows[:, 5].astype(np.int64))


def test_two_views_finds_are_joined_by_overlap_their_confidence_the_mean_over_the_views():
    first = found((0, 0, 10, 20, 0.8, 3), (100, 0, 110, 20, 0.6, 0))
    second = found((2, 0, 12, 20, 0.2, 5), (200, 0, 210, 20, 0.4, 0))
    joined = join_views([first, second])
    assert len(joined) == 3
    np.testing.assert_allclose(joined.confidence, [0.5, 0.3, 0.2])  # (0.8 + 0.2) / 2, 0.6 / 2, 0.4 / 2
    np.testing.assert_allclose(joined.xyxy[0], [0.4, 0, 10.4, 20], atol=1e-4)  # weighted 4 : 1
    assert joined.class_id[0] == 3  # the surer view's class
    np.testing.assert_allclose(joined.xyxy[1:], [[100, 0, 110, 20], [200, 0, 210, 20]])


def test_a_view_joins_a_find_once_and_too_little_overlap_is_another_find():
    first = found((0, 0, 10, 20, 0.9, 0))
    second = found((0, 0, 10, 20, 0.5, 0), (1, 0, 11, 20, 0.4, 0), (6, 0, 16, 20, 0.3, 0))
    joined = join_views([first, second])
    # The second view's surest find joins the first's; its next, as good an overlap, may not join it
    # too; the third overlaps the first by a quarter (IoU 4/16), under JOIN_IOU.
    np.testing.assert_allclose(joined.confidence, [0.7, 0.2, 0.15])
    assert len(join_views([Detections.empty(), Detections.empty()])) == 0
    alone = join_views([first, Detections.empty()])  # a find one view missed keeps half its confidence
    assert len(alone) == 1 and alone.confidence[0] == pytest.approx(0.45)


def test_postprocess_keeps_one_box_per_index_whatever_its_class_and_maps_back_to_the_frame():
    classes = 53
    raw = np.zeros((1, 4 + classes, 3), np.float32)
    raw[0, :4, 0] = [100, 100, 10, 20]  # KH-ish, confident
    raw[0, 4 + 44, 0] = 0.9
    raw[0, :4, 1] = [101, 100, 10, 20]  # the same index read as another card, less sure
    raw[0, 4 + 45, 1] = 0.6
    raw[0, :4, 2] = [300, 50, 10, 20]  # below the threshold
    raw[0, 4 + 3, 2] = 0.2
    found = postprocess(raw, conf=0.5, scale=0.5)
    assert len(found) == 1 and found.class_id[0] == 44
    np.testing.assert_allclose(found.xyxy[0], [190, 180, 210, 220])


def test_a_frame_that_is_not_bgr_is_refused(random_model):
    with pytest.raises(ValueError, match="BGR"):
        CardDetector(random_model).detect(np.zeros((10, 10), np.uint8))


@pytest.mark.parametrize("backend", ["onnx", "ultralytics"])
def test_missing_weights_say_how_to_rebuild(tmp_path, backend):
    with pytest.raises(WeightsError, match="python -m vision train"):
        CardDetector(tmp_path / "cards.onnx", backend=backend)


@pytest.mark.parametrize("suffix,backend", [(".onnx", "onnx"), (".pt", "ultralytics")])
def test_corrupt_weights_say_how_to_rebuild(tmp_path, suffix, backend):
    (tmp_path / f"cards{suffix}").write_bytes(b"not a model at all")
    with pytest.raises(WeightsError, match="not a readable .*python -m vision"):
        CardDetector(tmp_path / f"cards{suffix}", backend=backend)


def test_a_missing_int8_model_says_to_export_it_with_calibration_scenes(random_model):
    broken = random_model.with_name("cards.int8.onnx")  # random_model's checkpoint is beside it
    with pytest.raises(WeightsError, match=r"export --weights \S*cards.pt --out \S*cards.onnx --int8"):
        CardDetector(broken)


@pytest.fixture(scope="module")
def openvino_int8(random_model, frame, tmp_path_factory) -> Path:
    """The random model quantized for OpenVINO as ``python -m vision export --int8`` does it."""
    from vision.model.export import quantize_openvino

    return quantize_openvino(random_model, tmp_path_factory.mktemp("int8") / "cards.int8.xml",
                             [frame, frame[::-1].copy(), frame[:, ::-1].copy()], (640, 960))


def test_the_openvino_int8_model_quantizes_all_but_the_heads_outputs(openvino_int8):
    """The head's 3×3 convolutions, about a quarter of the network's multiply-adds, run in int8 with
    the backbone and the neck: a sixth less of the network's time on a 1080p frame, for the same finds. Its output
    convolutions stay in float: in int8 they lost small indexes (8 of 77 finds on the demo's frames);
    so does its box decoding, which quantized would give a box's corners (0-1920 px) one int8 scale
    (held-out mAP50 0.528 against 0.577)."""
    import openvino as ov

    from vision.model.export import BOX_DECODING

    network = ov.Core().read_model(str(openvino_int8))
    ops = {op.get_friendly_name(): op for op in network.get_ordered_ops()}
    quantized = {name for name, op in ops.items() if op.get_type_name() == "FakeQuantize"}
    fed_by_quantizer = {name for name, op in ops.items()
                        if any(inp.get_source_output().get_node().get_friendly_name() in quantized
                               for inp in op.inputs())}
    decoding = [name for name in ops if re.fullmatch(BOX_DECODING, name)]
    assert len(decoding) >= 10 and {name.split("/")[1] for name in decoding} == {"model.22"}

    def int8_weights(convolution) -> bool:  # its weights stored int8 (Constant i8 -> Convert -> ...)
        seen, todo = set(), [convolution.input(1).get_source_output().get_node()]
        while todo:
            node = todo.pop()
            if node.get_type_name() == "Constant":
                if node.get_element_type().get_type_name() == "i8":
                    return True
            elif node.get_friendly_name() not in seen:
                seen.add(node.get_friendly_name())
                todo += [inp.get_source_output().get_node() for inp in node.inputs()]
        return False

    convolutions = {name: op for name, op in ops.items() if op.get_type_name() == "Convolution"}
    head = [name for name in convolutions if name.startswith("/model.22/")]
    three_by_three = [name for name in head if re.search(r"/cv[23]\.\d\.[01]/", name)]
    outputs = [name for name in head if name not in three_by_three]  # the six outputs and the DFL
    body = [name for name in convolutions if name not in head]
    assert len(three_by_three) == 12 and len(outputs) == 7 and len(body) >= 40
    assert all(int8_weights(convolutions[name]) for name in body + three_by_three)
    assert not any(int8_weights(convolutions[name]) for name in outputs)
    assert set(three_by_three) <= fed_by_quantizer
    assert len(quantized) >= len(body) // 2  # the activations the body reads
    assert not fed_by_quantizer & (set(decoding) | set(outputs))


def test_the_openvino_int8_model_finds_what_the_float_export_finds(openvino_int8, random_model, frame):
    canvas, _ = letterbox(frame, 640)
    expected = OpenVinoModel(random_model, precision="f32")(to_tensor(canvas))
    got = CardDetector(openvino_int8, backend="openvino", classifier=False).network(canvas)
    assert got.shape == expected.shape
    # Boxes within a pixel or two of 640 (random weights: wider scores than a trained network's).
    assert np.median(np.abs(got[0, :4] - expected[0, :4])) < 1.0
    assert np.abs(got[0, 4:] - expected[0, 4:]).max() < 0.05


def test_an_openvino_model_without_its_weights_says_how_to_rebuild_it(openvino_int8, tmp_path):
    shutil.copy(openvino_int8, tmp_path / "cards.int8.xml")  # the .bin left behind
    (tmp_path / "cards.pt").write_bytes(b"checkpoint")
    with pytest.raises(WeightsError, match=r"cards\.int8\.xml: not a readable OpenVINO model \(or its \.bin beside "
                                           r"it\) .*export --weights \S*cards\.pt --out \S*cards\.onnx --int8"):
        CardDetector(tmp_path / "cards.int8.xml")
    with pytest.raises(WeightsError, match=r"cards\.int8\.xml: no such weights file"):
        CardDetector(tmp_path / "other" / "cards.int8.xml")


def test_the_int8_network_runs_with_the_int8_classifier_and_a_missing_one_says_how_to_make_it(tmp_path):
    shipped = Path(__file__).resolve().parents[2] / "models"
    for name in ("cards.int8.onnx", "cards.onnx", "index_classifier.onnx"):
        shutil.copy(shipped / name, tmp_path / name)
    assert CardDetector(tmp_path / "cards.onnx").classifier.weights == tmp_path / "index_classifier.onnx"
    with pytest.raises(WeightsError, match=r"index_classifier\.int8\.onnx: .*export --classifier "
                                           r"\S*index_classifier\.pt --int8 SCENES"):
        CardDetector(tmp_path / "cards.int8.onnx")
    shutil.copy(shipped / "index_classifier.int8.onnx", tmp_path / "index_classifier.int8.onnx")
    assert CardDetector(tmp_path / "cards.int8.onnx").classifier.weights == tmp_path / "index_classifier.int8.onnx"


def test_a_missing_export_beside_its_checkpoint_says_to_export_it(tmp_path):
    from vision.reader.weights import weights_error

    (tmp_path / "cards.pt").write_bytes(b"checkpoint")
    message = str(weights_error(tmp_path / "cards.onnx", "no such weights file"))
    assert message.endswith(f"export --weights {tmp_path / 'cards.pt'} --out {tmp_path / 'cards.onnx'}")
    assert str(weights_error(tmp_path / "other.pt", "no such weights file")).endswith(f"--out {tmp_path / 'other.pt'}")


def test_the_app_runs_the_int8_model_and_the_reference_the_checkpoint(monkeypatch, tmp_path):
    from vision.reader import weights

    monkeypatch.setattr(weights, "DEFAULT_WEIGHTS", tmp_path / "cards.onnx")
    for backend, expected in (("openvino", "cards.int8.xml"), ("onnx", "cards.int8.onnx"), ("ultralytics", "cards.pt")):
        with pytest.raises(WeightsError, match=f"{expected}: no such weights file"):
            CardDetector(backend=backend)


def test_the_cli_reports_missing_weights_in_one_line(tmp_path):
    result = subprocess.run([sys.executable, "-m", "vision", "evaluate", "--weights", str(tmp_path / "x.onnx"),
                             "--scenes", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "no such weights file" in result.stderr



def test_fp16_storage_changes_the_file_not_the_answers(random_model, frame, tmp_path):
    from vision.model.export import export_onnx

    half = export_onnx(random_model.with_suffix(".pt"), tmp_path / "half.onnx", half=True)
    assert half.stat().st_size < 0.6 * random_model.stat().st_size
    assert (tmp_path / "half.pt").exists()  # the reference checkpoint travels with it
    canvas, _ = letterbox(frame, 640)
    full = CardDetector(random_model, input_width=640).network(canvas)
    np.testing.assert_allclose(CardDetector(half, input_width=640).network(canvas), full, rtol=2e-2, atol=2e-2)


def test_a_one_class_model_is_named_by_the_classifier_beside_it(tmp_path, frame):
    import torch

    from vision.reader.index_net import IndexNet

    model = random_yolo(tmp_path, ["index"])
    with pytest.raises(WeightsError, match="index_classifier.onnx: no such weights file; train one with "
                                           "python -m vision classifier"):
        CardDetector(model)
    torch.save({"state": IndexNet().state_dict(), "crops_seen": 0, "minutes": 0.0}, tmp_path / "index_classifier.pt")
    # The app's backend runs the classifier's ONNX export: a save without one says how to make it.
    with pytest.raises(WeightsError, match="export it with python -m vision export --classifier .*index_classifier.pt"):
        CardDetector(model)
    result = subprocess.run(
        [sys.executable, "-m", "vision", "export", "--classifier", str(tmp_path / "index_classifier.pt")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["wrote", str(tmp_path / "index_classifier.onnx")]  # the classifier alone
    exported = (tmp_path / "index_classifier.onnx").read_bytes()
    (tmp_path / "index_classifier.onnx").write_bytes(exported[: len(exported) // 3])  # a copy cut short
    with pytest.raises(WeightsError, match="index_classifier.onnx: not a readable ONNX model .*; export it with"):
        CardDetector(model)
    (tmp_path / "index_classifier.onnx").write_bytes(exported)
    for backend in ("onnx", "ultralytics"):
        detector = CardDetector(model, backend=backend, conf=RANDOM_MODEL_CONF, input_width=640)
        assert detector.classifier is not None
    found = detector.detect(frame)
    assert len(found) and found.class_id.max() < 53


class _Judge:
    """A classifier that is sure of every other find (the first card) and rejects the rest."""

    def read_boxes(self, frame_bgr: np.ndarray, boxes: np.ndarray, doubted=None) -> np.ndarray:
        probabilities = np.zeros((len(boxes), BACKGROUND + 1))
        probabilities[::2, 0] = 1.0
        probabilities[1::2, BACKGROUND] = 1.0  # "no index"
        return probabilities


def test_with_a_classifier_the_threshold_applies_to_its_judgement_too(random_model, frame):
    found = CardDetector(random_model, conf=RANDOM_MODEL_CONF, input_width=640).detect(frame)
    judged = CardDetector(random_model, conf=RANDOM_MODEL_CONF, input_width=640, classifier=_Judge()).detect(frame)
    # The finds the classifier rejects are dropped, and only those.
    assert len(found) > 10 and len(judged) == (len(found) + 1) // 2
    np.testing.assert_allclose(judged.xyxy, found.xyxy[::2])


def test_named_by_score_a_find_is_as_sure_as_its_rank_and_a_threes_colour():
    from vision.reader.classes import CLASS_NAMES, class_id
    from vision.reader.index_classifier import named_finds

    found = Detections([[0, 0, 10, 14]] * 3, [0.9, 0.8, 1.0], [0, 0, 0])
    probabilities = np.zeros((3, len(CLASS_NAMES) + 1))  # + "no index"
    probabilities[0, [class_id("7S"), class_id("7C"), class_id("KH")]] = 0.4, 0.35, 0.25
    probabilities[1, [class_id("3S"), class_id("3H"), class_id("3D")]] = 0.4, 0.25, 0.35
    probabilities[2, [class_id("2H"), class_id("JK"), BACKGROUND]] = 0.3, 0.2, 0.5
    by_card = named_finds(found, probabilities)
    assert [CLASS_NAMES[i] for i in by_card.class_id] == ["7S", "3S", "2H"]
    np.testing.assert_allclose(by_card.confidence, [0.36, 0.32, 0.3])
    by_score = named_finds(found, probabilities, naming="score")
    # A seven whatever its suit; two red threes outweigh one black; "no index" still counts against.
    assert [CLASS_NAMES[i] for i in by_score.class_id] == ["7S", "3D", "2H"]
    np.testing.assert_allclose(by_score.confidence, [0.675, 0.48, 0.3])
    with pytest.raises(ValueError, match="naming must be one of card, score"):
        named_finds(found, probabilities, naming="suit")


def test_every_card_finds_give_a_find_once_for_each_card_over_the_floor_most_confident_first():
    from vision.reader.classes import CLASS_NAMES, class_id
    from vision.reader.index_classifier import every_card_finds

    found = Detections([[0, 0, 10, 14], [20, 0, 30, 14]], [0.9, 0.5], [0, 0])
    probabilities = np.zeros((2, len(CLASS_NAMES) + 1))  # + "no index"
    probabilities[0, [class_id("7S"), class_id("7C"), BACKGROUND]] = 0.5, 0.45, 0.05
    probabilities[1, [class_id("KH"), class_id("KD")]] = 0.998, 0.002
    every = every_card_finds(found, probabilities, floor=0.01, limit=300)
    assert [CLASS_NAMES[i] for i in every.class_id] == ["KH", "7S", "7C"]  # K♦ at 0.001 is under the floor
    np.testing.assert_allclose(every.confidence, [0.499, 0.45, 0.405])
    np.testing.assert_allclose(every.xyxy[1:], [[0, 0, 10, 14]] * 2)
    assert len(every_card_finds(found, probabilities, floor=0.01, limit=2)) == 2


def test_the_table_reader_reads_at_its_own_threshold_naming_by_score():
    from vision.reader.card_reader import CardReader
    from vision.reader.reading import READING_THRESHOLD

    reader = CardReader()
    assert (reader.threshold, reader.detector.naming) == (READING_THRESHOLD, "score")
    # Its weak finds, kept lower for meld columns, are read by the classifier once.
    assert reader.detector.conf < reader.detector.reread_from == READING_THRESHOLD
    reader.threshold = 0.35
    assert reader.detector.conf < reader.detector.reread_from == 0.35
    assert CardDetector().naming == "card"  # the evaluation's 53 classes
    with pytest.raises(ValueError, match="naming must be one of"):
        CardDetector(naming="rank")


def test_the_apps_reader_loads_the_shipped_models_without_torch():
    """The app opens its window after loading the reader: torch alone took 2.3 of its 3.1 s."""
    script = ("import sys; from vision.reader.card_reader import CardReader; reader = CardReader(); "
              "print(reader.detector.backend, type(reader.detector.classifier._run).__name__, "
              "sorted(m for m in ('torch', 'ultralytics') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["openvino", "OpenVinoModel", "[]"]


@pytest.mark.parametrize("name", ["cards.int8.onnx", "index_classifier.int8.onnx"])
def test_a_shipped_onnx_runtime_int8_model_reads_the_picture_in_float(name):
    """On a CPU without VNNI an int8 layer adds each two 8-bit products in 16 bits, and a layer
    reading the picture's full 0-255 range overflows there (the classifier scored held-out 1080p
    mAP50 0.591 against 0.700): whatever CPU runs the tests, the shipped
    files must keep that layer in float (``vision.model.export.reading_the_input``)."""
    from vision.model.export import reading_the_input

    path = Path(__file__).resolve().parents[2] / "models" / name
    in_float, convolutions = convolutions_in_float(path)
    assert in_float == reading_the_input(path)  # float weights, the picture as it is
    assert len(in_float) == 1 < len(convolutions)  # the rest int8


def convolutions_in_float(path: Path) -> tuple[list[str], list[str]]:
    """The names of an ONNX model's convolutions that take no dequantized (int8) input, those an
    int8 copy left in float, and the names of all its convolutions."""
    import onnx

    graph = onnx.load(str(path)).graph
    dequantized = {output for node in graph.node if node.op_type == "DequantizeLinear" for output in node.output}
    convolutions = [node for node in graph.node if node.op_type == "Conv"]
    return ([node.name for node in convolutions if not dequantized.intersection(node.input)],
            [node.name for node in convolutions])


def test_the_shipped_openvino_int8_detector_reads_the_picture_with_7_bit_weights():
    """NNCF's fix of the same overflow (``OverflowFix.FIRST_LAYER``, its default): the first
    convolution's int8 weights use half the range, so two of its products sum within 16 bits."""
    import openvino as ov

    model = ov.Core().read_model(str(Path(__file__).resolve().parents[2] / "models" / "cards.int8.xml"))
    convolutions = [op for op in model.get_ordered_ops() if op.get_type_name() == "Convolution"]

    def int8_weights(convolution) -> np.ndarray:
        scaled = convolution.input(1).get_source_output().get_node()  # Multiply(Convert(int8), scale)
        return scaled.input(0).get_source_output().get_node().input(0).get_source_output().get_node().get_data()

    assert np.abs(int8_weights(convolutions[0])).max() <= 64 < np.abs(int8_weights(convolutions[1])).max()


def test_the_int8_classifier_reads_as_the_float_one_on_this_cpu(demo_table):
    """The int8 classifier the app runs names the demo's fullest table's finds as the fp32 export
    does on whatever CPU runs the tests: every find the fp32 one names with a clear lead over its
    second card, and the sureness of all alike. With its first convolution quantized too, on a
    CPU with AVX2 alone (no VNNI) the 16-bit sums of that layer's 8-bit products overflowed: it named 66 % of these
    finds alike, median sureness 0.19
    apart, and the app's pair scored the first 60 held-out 1080p scenes mAP50 0.591 against 0.698
    with the fp32 classifier (``vision.model.export.reading_the_input``). The finds named otherwise now
    are near ties (0.41 against 0.40 in fp32)."""
    from vision.reader.detector import classifier_runtime
    from vision.reader.index_classifier import IndexClassifier

    frame = demo_table
    app = CardDetector(conf=0.2)
    assert app.classifier.weights.name == "index_classifier.int8.onnx"
    boxes = app.boxes(frame).xyxy
    assert len(boxes) >= 20
    fp32 = IndexClassifier(Path(__file__).parents[2] / "models" / "index_classifier.onnx",
                           runtime=classifier_runtime("openvino")).read_boxes(frame, boxes)
    runs = app.classifier.read_boxes(frame, boxes)
    top_two = np.sort(fp32, axis=1)[:, -2:]
    clear = top_two[:, 1] - top_two[:, 0] >= 0.05
    assert clear.sum() >= 20
    assert (runs.argmax(axis=1) == fp32.argmax(axis=1))[clear].all()
    assert np.median(np.abs(runs.max(axis=1) - fp32.max(axis=1))) < 0.02


def test_another_network_in_the_detectors_or_the_classifiers_place_is_refused_as_it_loads(tmp_path):
    """A readable ONNX file of the wrong network (the shipped facing network, or the detector) is
    found from its declared shapes, before it runs, and named with the rebuild hint."""
    from vision.reader.facing import FacingReader
    from vision.reader.index_classifier import IndexClassifier

    models = Path(__file__).parents[2] / "models"
    (tmp_path / "facing").mkdir()
    shutil.copy(models / "facing.onnx", tmp_path / "facing" / "cards.onnx")
    shutil.copy(models / "index_classifier.onnx", tmp_path / "facing" / "index_classifier.onnx")
    (tmp_path / "beside").mkdir()
    shutil.copy(models / "cards.onnx", tmp_path / "beside" / "cards.onnx")
    shutil.copy(models / "facing.onnx", tmp_path / "beside" / "index_classifier.onnx")
    for backend in ("openvino", "onnx"):
        with pytest.raises(WeightsError, match=r"cards\.onnx: not the card detector .*takes \(\?, 3, 32, 32\).*"
                                               r"python -m vision train"):
            CardDetector(tmp_path / "facing" / "cards.onnx", backend=backend)
        with pytest.raises(WeightsError, match=r"index_classifier\.onnx: not an index classifier .*gives \(\?, 24\)"):
            CardDetector(tmp_path / "beside" / "cards.onnx", backend=backend)
    for runtime in ("openvino", "onnxruntime"):
        with pytest.raises(WeightsError, match=r"cards\.onnx: not an index classifier"):
            IndexClassifier(models / "cards.onnx", runtime=runtime)
    with pytest.raises(WeightsError, match=r"index_classifier\.onnx: not the network expected here"):
        FacingReader(models / "index_classifier.onnx")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "vision",
            "evaluate",
            "--weights",
            str(tmp_path / "facing" / "cards.onnx"),
            "--scenes",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and "not the card detector" in result.stderr


class _Recorder:
    """A classifier that names every find the first card and keeps the turns it was asked to read them at."""

    def __init__(self) -> None:
        self.upright = None

    def read_boxes(self, frame_bgr: np.ndarray, boxes: np.ndarray, doubted=None, upright=None) -> np.ndarray:
        self.upright = upright
        probabilities = np.zeros((len(boxes), BACKGROUND + 1))
        probabilities[:, 0] = 1.0
        return probabilities


class _Sideways:
    """A facing network that finds every index's top pointing right, sure of every other one asked about."""

    def __init__(self) -> None:
        self.asked = None

    def facing(self, frame_bgr: np.ndarray, boxes: np.ndarray):
        self.asked = boxes
        sureness = np.where(np.arange(len(boxes)) % 2 == 0, 0.9, 0.3)
        return np.tile([1.0, 0.0], (len(boxes), 1)), sureness


def test_with_a_facing_network_the_classifier_reads_each_find_upright(random_model, frame):
    from vision.reader.facing import TALL

    classifier, facing = _Recorder(), _Sideways()
    found = CardDetector(random_model, conf=RANDOM_MODEL_CONF, input_width=640, classifier=classifier,
                         facing=facing).detect(frame)
    # Only boxes not clearly taller than wide are asked about (here the random network's square ones).
    width, height = found.xyxy[:, 2] - found.xyxy[:, 0], found.xyxy[:, 3] - found.xyxy[:, 1]
    asked = height < TALL * width
    assert len(found) > 10 and asked.any()
    np.testing.assert_array_equal(facing.asked, found.xyxy[asked])
    # A top pointing right stands up turned a quarter anticlockwise; an unsure find is read as it lies.
    expected = np.zeros(len(found))
    expected[asked] = [90.0 if k % 2 == 0 else 0.0 for k in range(asked.sum())]
    assert classifier.upright.tolist() == expected.tolist()
    CardDetector(random_model, conf=RANDOM_MODEL_CONF, input_width=640, classifier=classifier).detect(frame)
    assert classifier.upright is None


def test_a_find_taller_than_wide_is_read_as_it_lies_without_asking_the_facing_network(random_model, frame):
    classifier, facing = _Recorder(), _Sideways()
    detector = CardDetector(random_model, conf=RANDOM_MODEL_CONF, input_width=640, classifier=classifier, facing=facing)
    # An index standing up (rank over suit), one lying across, and a square one (it may be tilted 45°).
    boxes = np.array([[10, 10, 22, 40], [50, 10, 80, 22], [100, 10, 130, 40]], np.float32)
    detector.read(frame, Detections(boxes, np.full(3, 0.9, np.float32), np.zeros(3, np.int64)))
    np.testing.assert_array_equal(facing.asked, boxes[1:])
    assert classifier.upright.tolist() == [0.0, 90.0, 0.0]  # the square one: the network's unsure answer


@pytest.mark.parametrize(("seed", "scale"), [(3, None), (21, None), (21, 0.5)])
def test_a_part_of_a_frame_read_alone_gives_the_finds_the_whole_frame_gives_there(small_atlas, seed, scale):
    """What a live frame's reading of the cards' part relies on (``LiveDetection.region``): the part
    moved onto the network's grid, the same indexes at the same places and confidences, where a
    part read from just anywhere shifts the network's cells and so its boxes."""
    from vision.reader.detections import iou
    from vision.reader.detector import CardDetector
    from vision.synth.augment import photograph
    from vision.synth.render import render_scene
    from vision.synth.scenes import build_scene

    scene = build_scene(small_atlas, seed, (1920, 1080), "test")
    frame = photograph(render_scene(scene, small_atlas), scene.owners, seed)
    detector = CardDetector(conf=0.2)
    whole = detector.boxes(frame, scale)
    assert len(whole) >= 10
    x0, y0 = whole.xyxy[:, :2].min(axis=0) - 77  # not on the grid: moved onto it
    x1, y1 = whole.xyxy[:, 2:].max(axis=0) + 61
    region = (int(max(x0, 0)), int(max(y0, 0)), int(x1), int(y1))
    part = detector.boxes(frame, scale, region)
    assert len(part) == len(whole)
    overlap = iou(whole.xyxy, part.xyxy)
    best = overlap.argmax(axis=1)
    assert overlap.max(axis=1).min() >= 0.95 and len(set(best)) == len(whole)
    assert np.abs(whole.confidence - part.confidence[best]).max() <= 0.03


@pytest.mark.parametrize(("size", "scale"), [((1920, 1080), 1.0), ((2560, 1440), 0.75), ((2560, 1440), 0.375),
                                             ((1366, 768), 0.5), ((4096, 2160), 0.25), ((1920, 1080), 0.125)])
def test_a_part_meets_the_network_cut_from_the_whole_frames_input_at_any_scale(size, scale):
    """Frame sizes whose grid step (32 network pixels) is no whole number of frame pixels (1440p at
    0.75, 1366 wide at a half) too: the part is cut from the whole frame's network input on its
    grid, so a find there comes back at the same frame pixels. The network stands in: it finds the
    one red dot of the picture it is given."""
    from vision.reader.detector import STRIDE, CardDetector

    detector = CardDetector.__new__(CardDetector)  # no weights: the network below stands in
    detector.conf, detector.input_width, detector.backend = 0.1, None, "openvino"
    given = []

    def network(canvas):
        given.append(canvas)
        y, x = np.unravel_index(canvas[..., 2].astype(int).argmax(), canvas.shape[:2])
        return np.array([[[x + 0.5], [y + 0.5], [6.0], [6.0], [0.9]]], np.float32)

    detector.network = network
    width, height = size
    frame = np.zeros((height, width, 3), np.uint8)
    frame[int(height * 0.61):int(height * 0.61) + 12, int(width * 0.43):int(width * 0.43) + 12] = (0, 0, 255)
    whole = detector.boxes(frame, scale)
    region = (int(width * 0.3) + 7, int(height * 0.5) + 3, int(width * 0.7) - 5, int(height * 0.9) + 1)
    part = detector.boxes(frame, scale, region)
    assert given[1].shape[0] < given[0].shape[0] and given[1].shape[1] < given[0].shape[1]
    assert given[1].shape[0] % STRIDE == 0 and given[1].shape[1] % STRIDE == 0
    np.testing.assert_allclose(part.xyxy, whole.xyxy, atol=1e-3)


def test_exporting_a_file_that_is_no_checkpoint_says_so_in_one_line(tmp_path):
    """ultralytics takes a name it does not know (a photo's, say) as a model to fetch, not a file."""
    photo = tmp_path / "table.jpg"
    photo.write_text("not a checkpoint")
    result = subprocess.run(
        [sys.executable, "-m", "vision", "export", "--weights", str(photo), "--out", str(tmp_path / "x.onnx")],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"{photo}: not an ultralytics checkpoint (.pt)" in result.stderr
