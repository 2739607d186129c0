"""Training inputs: tiles cut from scenes, index crops and the classifier, the train command's errors."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest
import torch

from vision.model import export, facing_training, index_crops, index_training
from vision.model.tiles import reader_scale_of, tile_labels, write_tiles
from vision.model.train import Recipe, TrainingError, fit_arguments, status, train
from vision.reader import index_classifier as ic
from vision.reader import index_net
from vision.reader.classes import CLASS_NAMES, class_id
from vision.reader.detections import Detections
from vision.reader.weights import WeightsError
from vision.synth.dataset import write_dataset


@pytest.fixture(scope="module")
def scenes(small_atlas_dir, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("scenes")
    list(write_dataset(out, small_atlas_dir, 20, seed=3, image_size=(1280, 720), workers=1))
    return out


def test_a_box_cut_by_a_tile_edge_is_kept_only_when_most_of_it_is_inside():
    truth = Detections([[625, 10, 645, 30], [634, 40, 654, 60], [100, 100, 110, 120]], [1, 1, 1],
                       [class_id("KH"), class_id("QS"), class_id("2C")])
    assert tile_labels(truth, 0, 0).codes == ["KH", "2C"]  # KH 75% in; QS 30%, under the 60% kept
    right = tile_labels(truth, 640, 0)
    assert right.codes == ["QS"]
    np.testing.assert_allclose(right.xyxy, [[0, 40, 14, 60]])  # clipped, in tile pixels


def test_scenes_become_tiles_with_labels_in_tile_coordinates(scenes, tmp_path):
    counts = write_tiles(scenes, tmp_path / "tiles", {"val": 1})
    train_images = sorted((scenes / "images" / "train").glob("*.jpg"))
    assert counts == {"train": 4 * len(train_images), "val": 4}  # 1280×720 -> 2×2 tiles
    assert (tmp_path / "tiles" / "data.yaml").exists()
    for label in (tmp_path / "tiles" / "labels" / "train").glob("*.txt"):
        for line in label.read_text().splitlines():
            cls, *box = line.split()
            assert 0 <= int(cls) < len(CLASS_NAMES)
            assert all(0 <= float(v) <= 1 for v in box)


def test_tiles_cut_by_several_processes_are_the_same_tiles(scenes, tmp_path):
    one = write_tiles(scenes, tmp_path / "one", {"val": 1})
    two = write_tiles(scenes, tmp_path / "two", {"val": 1}, workers=2)
    assert one == two
    for kind in ("images", "labels"):
        for split in ("train", "val"):
            names = sorted(p.name for p in (tmp_path / "one" / kind / split).iterdir())
            assert names == sorted(p.name for p in (tmp_path / "two" / kind / split).iterdir())
            for name in names:
                assert (tmp_path / "one" / kind / split / name).read_bytes() == \
                    (tmp_path / "two" / kind / split / name).read_bytes()


def test_the_reader_scale_halves_a_frame_until_its_median_index_fits_the_detectors_band():
    def boxes(long_side):
        return Detections([[0, 0, long_side * 0.7, long_side]] * 3, [1, 1, 1], [0, 0, 0])

    assert reader_scale_of(boxes(30), 1920) == 1.0  # within 24-48 px: read as it is
    assert reader_scale_of(boxes(100), 1920) == 0.25  # 100 -> 25 px
    assert reader_scale_of(boxes(60), 1920) == 0.5
    assert reader_scale_of(boxes(60), 3840) == 0.5  # a 4K frame is read at 1920 wide: 30 px
    assert reader_scale_of(boxes(200), 3840) == 0.125  # 200 -> 25 px
    assert reader_scale_of(Detections.empty(), 1920) == 1.0


def test_close_up_scenes_are_tiled_as_the_reader_reads_them_beside_table_scenes(scenes, small_atlas_dir,
                                                                                 tmp_path):
    close = tmp_path / "close"
    list(write_dataset(close, small_atlas_dir, 6, seed=5, image_size=(1920, 1080), workers=1,
                       splits=("train",), card_heights=(600, 900)))
    for name in ("images", "labels"):  # one val scene: a split each folder must have
        (close / name / "val").mkdir(exist_ok=True)
    first = sorted((close / "images" / "train").glob("*.jpg"))[0]
    (close / "images" / "val" / first.name).write_bytes(first.read_bytes())
    (close / "labels" / "val" / f"{first.stem}.txt").write_bytes((close / "labels" / "train" / f"{first.stem}.txt")
                                                                  .read_bytes())
    counts = write_tiles([scenes, close], tmp_path / "tiles", {"val": 1}, reader_scale=True)
    tiles = tmp_path / "tiles" / "labels" / "train"
    table = sorted(tiles.glob(f"{scenes.name}_*.txt"))
    close_tiles = sorted(tiles.glob("close_*.txt"))
    assert counts["train"] == len(table) + len(close_tiles)
    assert len(table) == 4 * len(list((scenes / "images" / "train").glob("*.jpg")))  # table scenes as they were
    close_scenes = len(list((close / "images" / "train").glob("*.jpg")))
    assert 0 < len(close_tiles) < 6 * close_scenes  # shrunk: a 1920×1080 scene read at full size is 6 tiles
    sides = []
    for label in close_tiles:  # every tile 640×640 (padded), as ultralytics would enlarge a smaller one
        assert cv2.imread(str(label.parents[2] / "images" / "train" / f"{label.stem}.jpg")).shape[:2] == (640, 640)
        sides += [640 * max(float(w), float(h))
                  for _, _, _, w, h in (line.split() for line in label.read_text().splitlines())]
    assert sides and 24 / 1.5 <= np.median(sides) < 48


def test_two_scene_folders_of_one_name_are_refused_before_tiles_are_cut(scenes, tmp_path):
    with pytest.raises(ValueError, match="different names"):
        write_tiles([scenes, scenes], tmp_path / "tiles")
    assert not (tmp_path / "tiles").exists()


def test_tiling_a_folder_without_scenes_says_so_and_keeps_the_old_tiles(tmp_path):
    old = tmp_path / "tiles" / "images" / "train" / "kept.jpg"
    old.parent.mkdir(parents=True)
    old.write_bytes(b"jpeg")
    with pytest.raises(FileNotFoundError, match="run python -m vision synth first"):
        write_tiles(tmp_path / "no-scenes", tmp_path / "tiles")
    assert old.exists()


def test_index_crops_and_a_short_classifier_run(scenes, tmp_path):
    contexts, labels = index_crops.scene_crops(scenes, "train", limit=4)
    assert contexts.shape[1:] == (ic.CONTEXT, ic.CONTEXT, 3) and len(contexts) == len(labels) > 20
    crop = ic.augment(contexts[0], np.random.default_rng(0))
    assert crop.shape == (ic.CROP, ic.CROP, 3) and crop.dtype == np.uint8
    summary = index_training.train_classifier(
        contexts, labels, tmp_path / "ic.pt", minutes=0.02, batch=32, log=lambda _: None
    )
    assert summary["crops_seen"] >= 32
    restyled = index_training.train_classifier(contexts, labels, tmp_path / "rc.pt", minutes=1, batch=32, max_crops=64,
                                          rand_conv=0.5, log=lambda _: None)
    assert restyled["crops_seen"] == 64
    classifier = ic.IndexClassifier(tmp_path / "ic.pt")
    assert 0 <= index_crops.crop_accuracy(classifier, contexts, labels) <= 1
    frame = np.full((200, 300, 3), 200, np.uint8)
    found = Detections([[10, 10, 20, 30], [100, 50, 112, 70]], [0.9, 0.5], [0, 0])
    named = classifier.name(frame, found)
    np.testing.assert_array_equal(named.xyxy, found.xyxy)
    assert (named.confidence <= found.confidence).all()


def test_a_fanned_crop_keeps_its_own_index_between_its_neighbours_cards(scenes, tmp_path):
    """Between two neighbours' cards (index_training.fanned) a crop's own index column is its own; the
    card on top reaches from just right of that index, the one beneath shows left of the crop's card."""
    own, left, right = (np.full((ic.CONTEXT, ic.CONTEXT, 3), value, np.uint8) for value in (100, 30, 220))
    rng = np.random.default_rng(0)
    for _ in range(20):
        fanned = index_training.fanned(own, left, right, rng)
        middle = ic.CONTEXT // 2
        np.testing.assert_array_equal(fanned[:, middle - 4:middle + 5], own[:, middle - 4:middle + 5])
        assert (fanned[:, -1] == 220).all() and (fanned[:, 0] == 30).all()
        assert ((fanned[0] == 220).all(axis=1).argmax() - middle) <= index_training.FAN_SPACING[1]
    np.testing.assert_array_equal(index_training.fanned(own, None, None, rng), own)
    contexts, labels = index_crops.scene_crops(scenes, "train", limit=4)
    summary = index_training.train_classifier(contexts, labels, tmp_path / "fan.pt", minutes=1, batch=32,
                                              max_crops=64, fan=0.5, log=lambda _: None)
    assert summary["crops_seen"] == 64


def test_a_find_is_named_by_the_geometric_mean_of_its_readings_through_each_window_and_turn(monkeypatch):
    from vision.reader.detector import CLASSIFIER_NAME
    from vision.synth.index_glyphs import drawn_contexts

    shipped = Path(__file__).resolve().parents[2] / "models" / CLASSIFIER_NAME
    classifier = ic.IndexClassifier(shipped.with_suffix(".onnx"))  # what the app runs
    contexts, _ = drawn_contexts(2, seed=1)
    frame = np.full((120, 200, 3), 90, np.uint8)
    frame[20:84, 20:84], frame[30:94, 120:184] = contexts  # each index box: the middle 1 / (2 WINDOW) of its context
    side = ic.CONTEXT / (2 * ic.WINDOW)
    boxes = np.array([[52 - side / 2, 52 - side / 2, 52 + side / 2, 52 + side / 2],
                      [152 - side / 2, 62 - side / 2, 152 + side / 2, 62 + side / 2]], np.float32)
    found = Detections(boxes, [0.9, 0.6], [0, 0])

    def readings(windows, turns):  # through every window at every turn
        return [classifier.probabilities(ic.window_crops(frame, boxes, ic.CROP, window, turn))
                for window in windows for turn in turns]

    def joined(readings):  # their geometric mean
        mean = np.exp(np.log(np.array(readings)).mean(axis=0))
        return mean / mean.sum(axis=1, keepdims=True)

    first_readings = readings(ic.READ_WINDOWS, ic.READ_TURNS)
    first = joined(first_readings)
    every = joined(first_readings + readings(ic.DOUBT_WINDOWS, ic.DOUBT_TURNS))
    assert len(ic.READ_WINDOWS) > 1 and ic.DOUBT_TURNS and not np.allclose(first, every)
    # Between the two finds' surest first readings: the less sure find alone is read again turned.
    unsure = first.max(axis=1).argmin()
    assert first.max(axis=1)[unsure] < first.max(axis=1)[1 - unsure]
    monkeypatch.setattr(ic, "DOUBT_BELOW", float(first.max(axis=1).mean()))
    expected = first.copy()
    expected[unsure] = every[unsure]
    named = classifier.name(frame, found)
    np.testing.assert_array_equal(named.class_id, expected[:, :ic.BACKGROUND].argmax(axis=1))
    np.testing.assert_allclose(named.confidence, found.confidence * expected[:, :ic.BACKGROUND].max(axis=1), rtol=1e-4)
    np.testing.assert_allclose(classifier.read_boxes(frame, boxes), expected, rtol=1e-4, atol=1e-7)
    once = np.ones(2, bool)
    once[unsure] = False  # a find the reader counts only in meld columns: one window, not again turned
    weak = joined(readings(ic.WEAK_WINDOWS, ic.READ_TURNS))
    assert len(ic.WEAK_WINDOWS) < len(ic.READ_WINDOWS) and not np.allclose(weak[unsure], first[unsure])
    expected = first.copy()
    expected[unsure] = weak[unsure]
    np.testing.assert_allclose(classifier.read_boxes(frame, boxes, once), expected, rtol=1e-4, atol=1e-7)
    monkeypatch.setattr(ic, "DOUBT_BELOW", 1.0)  # every doubted find read again turned, beside a weak one
    expected[1 - unsure] = every[1 - unsure]
    np.testing.assert_allclose(classifier.read_boxes(frame, boxes, once), expected, rtol=1e-4, atol=1e-7)
    # A weak find first and two doubted ones after it, both read again: each doubted find's first
    # readings are found among the doubted finds', whichever is the less sure.
    three = np.array([boxes[1], boxes[0], boxes[1] + [3, 2, 3, 2]], np.float32)

    def read(chosen, windows, turns):
        return [classifier.probabilities(ic.window_crops(frame, chosen, ic.CROP, window, turn))
                for window in windows for turn in turns]

    expected = np.concatenate([joined(read(three[:1], ic.WEAK_WINDOWS, ic.READ_TURNS)),
                               joined(read(three[1:], ic.READ_WINDOWS, ic.READ_TURNS)
                                      + read(three[1:], ic.DOUBT_WINDOWS, ic.DOUBT_TURNS))])
    np.testing.assert_allclose(classifier.read_boxes(frame, three, np.array([False, True, True])), expected,
                               rtol=1e-4, atol=1e-7)
    monkeypatch.setattr(ic, "DOUBT_BELOW", 0.0)  # none unsure: the first readings alone
    np.testing.assert_allclose(classifier.read_boxes(frame, boxes), first, rtol=1e-4, atol=1e-7)


def test_an_int8_classifier_calibrated_on_val_scenes_names_crops_as_its_fp32_export_does(scenes, tmp_path):
    from tests.vision.test_detector import convolutions_in_float
    from vision.model.export import reading_the_input
    from vision.reader.detector import CLASSIFIER_NAME
    from vision.synth.index_glyphs import drawn_contexts

    shipped = Path(__file__).resolve().parents[2] / "models" / CLASSIFIER_NAME
    fp32 = tmp_path / "index_classifier.onnx"
    fp32.write_bytes(shipped.with_suffix(".onnx").read_bytes())
    int8 = export.quantize_classifier(fp32, scenes)
    assert int8 == tmp_path / "index_classifier.int8.onnx" and int8.stat().st_size < fp32.stat().st_size / 2
    contexts, _ = drawn_contexts(100, seed=2)
    crops = np.ascontiguousarray(
        contexts[:, ic.CROP // 2 : ic.CROP // 2 + ic.CROP, ic.CROP // 2 : ic.CROP // 2 + ic.CROP]
    )
    named = [ic.IndexClassifier(path).probabilities(crops).argmax(axis=1) for path in (fp32, int8)]
    # On a CPU with AVX2 alone 71 % were named alike while the first convolution was quantized too
    # (its 8-bit products' 16-bit sums overflow): it stays in float (vision.model.export.reading_the_input).
    assert (named[0] == named[1]).mean() >= 0.9
    float_ones, convolutions = convolutions_in_float(int8)
    assert float_ones == reading_the_input(fp32) == convolutions[:1] and len(convolutions) == 6
    with pytest.raises(WeightsError, match="no val scenes"):
        export.quantize_classifier(fp32, tmp_path / "no-scenes")


def test_a_window_crop_is_centred_on_its_box():
    frame = np.zeros((100, 100, 3), np.uint8)
    frame[40:60, 45:55] = 255  # a 10×20 white box
    crop = ic.window_crops(frame, np.array([[45, 40, 55, 60]], np.float32), 26, 1.3)[0]
    assert crop[13, 13].min() == 255 and crop[0, 0].max() == 0


def test_a_turned_window_crop_turns_about_its_box():
    frame = np.zeros((100, 100, 3), np.uint8)
    frame[30:70, 48:52] = 255  # an upright bar, 4×40, in a 4×40 box
    box = np.array([[48, 30, 52, 70]], np.float32)
    upright, turned = (ic.window_crops(frame, box, 32, 1.0, turn)[0, ..., 0] for turn in (0.0, 90.0))
    assert upright[2:30, 16].min() == 255 and upright[16, 2:6].max() == 0  # tall through the middle
    assert turned[16, 2:30].min() == 255 and turned[2:6, 16].max() == 0  # now lying across it
    np.testing.assert_array_equal(upright, ic.window_crops(frame, box, 32, 1.0)[0, ..., 0])


def test_a_find_whose_top_points_sideways_is_cropped_upright_and_each_box_at_its_own_turn():
    from vision.reader.facing import upright_turns

    frame = np.zeros((100, 200, 3), np.uint8)
    frame[48:52, 30:70] = 255  # a bar lying across, its top (a blob) at its right end: the top points right
    frame[44:56, 62:70] = 255
    frame[30:70, 148:152] = 255  # an upright bar, its blob at the top
    frame[30:38, 144:156] = 255
    boxes = np.array([[30, 30, 70, 70], [130, 30, 170, 70]], np.float32)
    turns = upright_turns(np.array([[1.0, 0.0], [0.0, -1.0]]), np.array([0.9, 0.9]))
    assert turns.tolist() == [90.0, 0.0]
    crops = ic.window_crops(frame, boxes, 32, 1.0, turns)[..., 0]
    for crop in crops:  # both stand upright: the blob at the top of a tall bar
        assert crop[2:30, 16].min() == 255 and crop[3, 12:20].min() == 255 and crop[28, 10:13].max() == 0
    for k in range(2):
        np.testing.assert_array_equal(crops[k], ic.window_crops(frame, boxes[k:k + 1], 32, 1.0, turns[k])[0, ..., 0])
    # the facing network unsure of a find: it is read as it lies
    assert upright_turns(np.array([[1.0, 0.0]]), np.array([0.3])).tolist() == [0.0]
    # a top nearer the up-down axis (tilted 30°, upside down) is read as it lies; one nearer sideways is turned
    tilted = [[np.sin(np.radians(a)), -np.cos(np.radians(a))] for a in (30, 44, 46, 60, 180, -120)]
    np.testing.assert_allclose(upright_turns(np.array(tilted), np.full(6, 0.9)), [0, 0, 46, 60, 0, 240], atol=1e-9)


def test_a_damaged_classifier_file_says_how_to_rebuild(tmp_path):
    (tmp_path / "ic.pt").write_bytes(b"garbage")
    with pytest.raises(WeightsError, match="python -m vision"):
        ic.IndexClassifier(tmp_path / "ic.pt")


def test_resuming_a_run_that_never_started_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TrainingError, match="nothing to resume"):
        train(Recipe(tmp_path / "data.yaml", name="nothing"), resume=True)
    with pytest.raises(TrainingError, match="vision tiles"):
        train(Recipe(tmp_path / "data.yaml", name="nothing"))
    assert "no finished epoch" in status("nothing")


def test_a_pt_model_is_fine_tuned_from_its_weights_and_a_yaml_starts_from_scratch(tmp_path):
    tuned = fit_arguments(Recipe(tmp_path / "data.yaml", model="models/cards.pt", single_class=True))
    assert tuned["pretrained"] == "models/cards.pt" and tuned["warmup_bias_lr"] == 0.0
    scratch = fit_arguments(Recipe(tmp_path / "data.yaml"))
    assert scratch["pretrained"] is False and scratch["fliplr"] == 0.0
    assert "lr0" not in tuned and "optimizer" not in tuned  # ultralytics chooses
    gentle = fit_arguments(Recipe(tmp_path / "data.yaml", model="models/cards.pt", single_class=True, lr0=2e-4))
    assert gentle["optimizer"] == "AdamW" and gentle["lr0"] == 2e-4


def test_a_wider_classifier_saves_as_it_goes_and_loads_at_its_width(scenes, tmp_path):
    contexts, labels = index_crops.scene_crops(scenes, "train", limit=2)
    out = tmp_path / "wide.pt"
    summary = index_training.train_classifier(
        contexts, labels, out, minutes=0.03, batch=16, log=lambda _: None, width=24, save_every=0.005
    )
    assert summary["width"] == 24 and out.exists() and not out.with_suffix(".partial").exists()
    assert ic.IndexClassifier(out).model.width == 24
    again = index_training.train_classifier(contexts, labels, out, minutes=0.01, batch=16, log=lambda _: None, init=out)
    assert again["width"] == 24 and again["crops_seen"] > summary["crops_seen"]


def test_the_facing_network_trains_saves_continues_and_reads(scenes, tmp_path):
    from vision.reader import facing

    contexts, ups = facing_training.facing_contexts(scenes, "train", limit=4)
    assert (
        contexts.shape[1:] == (facing_training.FACING_CONTEXT, facing_training.FACING_CONTEXT, 3)
        and len(contexts) == len(ups) > 20
    )
    assert np.allclose(np.linalg.norm(ups, axis=1), 1)
    crop, direction = facing_training.augment_facing(contexts[0], ups[0], np.random.default_rng(0))
    assert crop.shape == (ic.CROP, ic.CROP, 3) and 0 <= direction < facing.BINS
    out = tmp_path / "facing.pt"
    first = index_training.train_facing(contexts, ups, out, minutes=0.02, batch=32, log=lambda _: None)
    again = index_training.train_facing(contexts, ups, out, minutes=0.01, batch=32, log=lambda _: None, init=out)
    assert again["classes"] == facing.BINS and again["crops_seen"] > first["crops_seen"] >= 32
    reader = facing.FacingReader(index_training.export_onnx(out))
    frame = np.full((200, 300, 3), 200, np.uint8)
    directions, sureness = reader.facing(frame, np.array([[10, 10, 20, 30], [100, 50, 112, 70]], np.float32))
    assert directions.shape == (2, 2) and np.allclose(np.linalg.norm(directions, axis=1), 1)
    assert ((0 <= sureness) & (sureness <= 1)).all()
    assert 0 <= facing_training.facing_accuracy(reader, scenes, "train", limit=2)[45] <= 1


def test_the_facing_command_trains_scores_and_names_a_missing_scenes_folder(scenes, tmp_path, capsys):
    from vision.__main__ import main

    out = tmp_path / "facing.pt"
    assert main(["facing", "--scenes", str(scenes), "--test-scenes", str(scenes), "--minutes", "0.01",
                 "--threads", "1", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "within 15°" in printed and out.with_suffix(".onnx").is_file()  # the scenes' test split scored
    assert main(["facing", "--scenes", str(tmp_path / "none"), "--out", str(out)]) != 0
    error = capsys.readouterr().err
    assert "no labelled scenes" in error and "python -m vision synth" in error and "Traceback" not in error


class _FixedFinds:
    """A detector that finds, in every scene, one true index, a box beside it and one far from any."""

    def __init__(self, scenes: Path, per_pass: int = 2) -> None:
        self.scenes, self.per_pass = scenes, per_pass  # the scenes a pass reads, in order

    def detect(self, image: np.ndarray) -> Detections:
        from vision.reader.detections import iou

        path = sorted((self.scenes / "images" / "train").glob("*.jpg"))[self.calls % self.per_pass]
        lines = (self.scenes / "labels" / "train" / f"{path.stem}.txt").read_text().splitlines()
        truth = Detections.from_yolo_labels(lines, image.shape[1], image.shape[0])
        self.calls += 1
        true = truth.xyxy[0]
        half_off = true + [0.5 * (true[2] - true[0]), 0, 0.5 * (true[2] - true[0]), 0]  # IoU 1/3: left out
        far = np.array([0, 0, 6, 9], np.float32)
        assert iou(far[None], truth.xyxy).max() < index_crops.FALSE_FIND_IOU, (
            "the test scene has an index in its corner"
        )
        return Detections(np.stack([true, half_off, far]), [0.9, 0.5, 0.3], [0, 0, 0])

    calls = 0


def test_only_finds_far_from_every_index_become_background_crops(scenes):
    crops = index_crops.false_find_crops(scenes, "train", _FixedFinds(scenes), limit=2)
    assert crops.shape == (2, ic.CONTEXT, ic.CONTEXT, 3)


def test_false_finds_come_from_every_scene_set_the_index_crops_come_from(scenes):
    from argparse import Namespace

    from vision.cli.detector import _training_crops

    args = Namespace(scenes=scenes, more_scenes=[scenes], train_scenes=2, false_finds="fixed", false_find_conf=0.05,
                     drawn=0, crops_cache=None)
    _, labels = _training_crops(args, _FixedFinds(scenes))
    # Two sets of the same scenes: twice their index crops, and twice their two false finds.
    assert (labels == ic.BACKGROUND).sum() == 4
    assert (labels != ic.BACKGROUND).sum() == 2 * len(index_crops.scene_crops(scenes, "train", limit=2)[1])


def test_a_classifier_learns_a_background_class_from_a_card_naming_one(scenes, tmp_path):
    contexts, labels = index_crops.scene_crops(scenes, "train", limit=2)
    cards_only = tmp_path / "cards.pt"
    index_training.train_classifier(contexts, labels, cards_only, minutes=0.01, batch=16, log=lambda _: None)
    background = np.full(8, ic.BACKGROUND, labels.dtype)
    out = tmp_path / "with_background.pt"
    summary = index_training.train_classifier(
        np.concatenate([contexts, contexts[:8]]),
        np.concatenate([labels, background]),
        out,
        minutes=0.01,
        batch=16,
        log=lambda _: None,
        init=cards_only,
        lr=0.0,
    )
    assert summary["classes"] == len(CLASS_NAMES) + 1
    before, after = ic.IndexClassifier(cards_only).model, ic.IndexClassifier(out).model
    # At a learning rate of 0 the 53 card rows are the ones it started from, with a background row added.
    torch.testing.assert_close(after.head[3].weight[:len(CLASS_NAMES)], before.head[3].weight)
    assert after.head[3].weight.shape[0] == len(CLASS_NAMES) + 1
    # Naming never answers "background": a find is named as its most likely card.
    frame = np.full((200, 300, 3), 200, np.uint8)
    named = ic.IndexClassifier(out).name(frame, Detections([[10, 10, 20, 30]], [0.9], [0]))
    assert named.class_id[0] < len(CLASS_NAMES)


def test_drawn_index_crops_cover_every_card_in_turn_and_repeat_by_seed():
    from vision.synth.index_glyphs import drawn_contexts, font_files

    rank_fonts, suit_fonts = font_files()
    # run.sh installs 61 font packages (DejaVu, URW, Liberation, FreeFont and 57 for the index crops)
    assert len(rank_fonts) >= 550 and len(suit_fonts) >= 110, "a font package of run.sh is missing"
    contexts, labels = drawn_contexts(2 * len(CLASS_NAMES), seed=3)
    assert contexts.shape == (2 * len(CLASS_NAMES), ic.CONTEXT, ic.CONTEXT, 3) and contexts.dtype == np.uint8
    assert np.bincount(labels, minlength=len(CLASS_NAMES)).tolist() == [2] * len(CLASS_NAMES)
    again, _ = drawn_contexts(8, seed=3)
    assert np.array_equal(again, drawn_contexts(8, seed=3)[0])


def test_a_drawn_index_is_inked_red_or_black_by_its_suit_at_the_crop_centre():
    from vision.synth.index_glyphs import draw_index

    rng = np.random.default_rng(0)
    centre = slice(ic.CONTEXT // 2 - ic.CROP // 4, ic.CONTEXT // 2 + ic.CROP // 4)

    def redness(card: str) -> float:
        """Share of the centre's pixels whose red stands out (BGR order), the median of 12 draws. (Not
        a share of the darkest pixels: in a hairline typeface they are mostly paper and table.)"""
        shares = []
        for _ in range(12):
            patch = draw_index(card, rng)[centre, centre].astype(int)
            shares.append((patch[..., 2] > patch[..., :2].max(axis=2) + 15).mean())
        return float(np.median(shares))

    assert redness("QH") > 0.1 and redness("7D") > 0.1
    assert redness("QS") < 0.02 and redness("7C") < 0.02


def test_a_drawn_joker_star_has_its_points_and_a_knocked_out_star_is_paper_inside_a_disc():
    from vision.synth.index_glyphs import star_mask

    five = star_mask(64, points=5, inner=0.4, style="plain")
    middle = (five.shape[0] // 2, five.shape[1] // 2)
    # About its own size, inked at the centre and all the way up to its top point, paper in the
    # bottom corners between its two lower points.
    assert 55 <= max(five.shape) <= 66 and five[middle] > 0.9
    assert (five[2: middle[0], middle[1]] > 0.5).all() and five[-1, 0] < 0.1 and five[-1, -1] < 0.1
    ringed = star_mask(64, points=4, inner=0.3, style="ringed")
    assert ringed[ringed.shape[0] // 2, 1] > 0.5 and ringed[ringed.shape[0] // 2, ringed.shape[1] // 2] > 0.9
    knocked = star_mask(64, points=4, inner=0.3, style="knocked out")
    # Knocked out of a disc: paper at the centre and at the disc's corners, ink between the points.
    assert knocked[knocked.shape[0] // 2, knocked.shape[1] // 2] < 0.1 and knocked[0, 0] < 0.1
    assert knocked[knocked.shape[0] // 4, knocked.shape[1] // 4] > 0.9
    outline = star_mask(64, points=5, inner=0.4, style="outline")
    assert outline[outline.shape[0] // 2, outline.shape[1] // 2] < 0.1


def test_augmented_crops_come_upright_and_upside_down():
    context = np.zeros((ic.CONTEXT, ic.CONTEXT, 3), np.uint8)
    context[: ic.CONTEXT // 2] = 220  # light above, dark below
    rng = np.random.default_rng(0)
    upright = [(crop[: ic.CROP // 2].mean() > crop[ic.CROP // 2:].mean()) for crop in
               (ic.augment(context, rng) for _ in range(60))]
    assert 15 < sum(upright) < 45


def test_augmentation_fades_ink_and_turns_as_far_as_asked():
    ink = np.zeros((ic.CONTEXT, ic.CONTEXT, 3), np.uint8)  # black ink filling the window
    rng = np.random.default_rng(0)
    plain = np.mean([ic.augment(ink, rng, fade=0.0).mean() for _ in range(40)])
    faded = np.mean([ic.augment(ink, rng, fade=1.0).mean() for _ in range(40)])
    assert plain < 25 and faded > plain + 40  # black printed grey

    bar = np.full((ic.CONTEXT, ic.CONTEXT, 3), 230, np.uint8)
    bar[ic.CONTEXT // 2 - 2: ic.CONTEXT // 2 + 2] = 0  # a dark line across the window

    def tilt(crop: np.ndarray) -> float:
        """The darkest row's share of the crop's darkness: highest when the line lies level."""
        rows = 255 - crop.mean(axis=(1, 2))
        return float(rows.max() / rows.sum())

    level = np.mean([tilt(ic.augment(bar, rng, turn=0.0)) for _ in range(40)])
    turned = np.mean([tilt(ic.augment(bar, rng, turn=45.0)) for _ in range(40)])
    assert turned < 0.7 * level


def test_a_random_convolution_restyles_the_share_of_a_batch_asked_and_keeps_each_channels_level():
    rng = np.random.default_rng(0)
    batch = torch.from_numpy(rng.uniform(0, 1, (8, 3, ic.CROP, ic.CROP)).astype(np.float32))
    batch[:, 0] *= 0.5  # channels of different levels
    seen = index_training.random_convolution(batch, 0.5, torch.Generator().manual_seed(3))
    assert seen.shape == batch.shape
    assert torch.equal(seen[4:], batch[4:])  # the rest of the batch as it was
    assert not torch.allclose(seen[:4], batch[:4], atol=1e-3)
    assert torch.allclose(seen[:4].mean(dim=(2, 3)), batch[:4].mean(dim=(2, 3)), atol=1e-4)
    again = index_training.random_convolution(batch, 0.5, torch.Generator().manual_seed(3))
    assert torch.equal(seen, again)  # the generator decides it
    assert index_training.random_convolution(batch, 0.0, torch.Generator()) is batch


def test_the_shipped_classifier_reads_a_crop_the_same_either_way_up_in_torch_and_onnx_runtime():
    from vision.reader.detector import CLASSIFIER_NAME
    from vision.synth.index_glyphs import drawn_contexts

    shipped = Path(__file__).resolve().parents[2] / "models" / CLASSIFIER_NAME
    contexts, _ = drawn_contexts(40, seed=5)
    crops = np.ascontiguousarray(
        contexts[:, ic.CROP // 2 : ic.CROP // 2 + ic.CROP, ic.CROP // 2 : ic.CROP // 2 + ic.CROP]
    )
    turned = np.ascontiguousarray(crops[:, ::-1, ::-1])
    torch_net, exported = (
        ic.IndexClassifier(shipped.with_suffix(".pt")),
        ic.IndexClassifier(shipped.with_suffix(".onnx")),
    )
    assert exported.model is None and exported.classes == torch_net.classes  # ONNX Runtime, no torch module
    for classifier in (torch_net, exported):
        both, both_turned = classifier.probabilities(crops), classifier.probabilities(turned)
        assert both.shape == (40, classifier.classes)
        np.testing.assert_allclose(both.sum(axis=1), 1, atol=1e-5)
        np.testing.assert_allclose(both, both_turned, atol=1e-5)
        # Read once, a crop and its half-turn differ: the mean of the two is what makes them agree.
        once, once_turned = (classifier.probabilities(c, both_ways=False) for c in (crops, turned))
        assert np.abs(once - once_turned).max() > 0.05
        np.testing.assert_allclose(both, (once + once_turned) / 2, atol=1e-5)
    np.testing.assert_allclose(exported.probabilities(crops), torch_net.probabilities(crops), atol=1e-4)
    assert exported.probabilities(crops[:0]).shape == (0, exported.classes)


def test_training_crops_are_kept_and_taken_back_only_for_the_same_options(scenes, tmp_path, capsys):
    from vision.__main__ import main

    cache, out = tmp_path / "crops", tmp_path / "classifier.pt"
    run = ["classifier", "--scenes", str(scenes), "--train-scenes", "2", "--minutes", "0.01", "--threads", "1",
           "--crops-cache", str(cache), "--out", str(out)]
    assert main(run + ["--drawn", "20"]) == 0
    contexts, labels = np.load(cache / "contexts.npy"), np.load(cache / "labels.npy")
    scene_contexts, scene_labels = index_crops.scene_crops(scenes, "train", limit=2)
    assert len(labels) == len(scene_labels) + 20 and contexts.shape[1:] == (ic.CONTEXT, ic.CONTEXT, 3)
    np.testing.assert_array_equal(contexts[:len(scene_labels)], scene_contexts)
    capsys.readouterr()
    assert main(run + ["--drawn", "20"]) == 0
    assert f"{len(labels)} training crops from {cache}" in capsys.readouterr().out
    assert main(run + ["--drawn", "30"]) != 0
    error = capsys.readouterr().err
    assert "other options: drawn 20 (asked 30)" in error and "Traceback" not in error
    # A cache drawn before the drawing's version was recorded (its jokers all lettered) is not taken.
    recipe = json.loads((cache / "recipe.json").read_text())
    del recipe["drawing"]
    (cache / "recipe.json").write_text(json.dumps(recipe))
    assert main(run + ["--drawn", "20"]) != 0
    assert "drawing None (asked 2)" in capsys.readouterr().err


def test_a_training_seed_of_its_own_keeps_the_crops_and_their_cache(scenes, tmp_path, capsys):
    from vision.__main__ import _parser, main
    from vision.cli.detector import _training_seed

    asked = ["classifier", "--out", "c.pt", "--seed", "10"]
    assert _training_seed(_parser().parse_args(asked)) == 10
    assert _training_seed(_parser().parse_args(asked + ["--train-seed", "12"])) == 12
    cache, out = tmp_path / "crops", tmp_path / "classifier.pt"
    run = ["classifier", "--scenes", str(scenes), "--train-scenes", "2", "--minutes", "0.01", "--threads", "1",
           "--crops-cache", str(cache), "--out", str(out), "--drawn", "20", "--seed", "10"]
    assert main(run) == 0
    capsys.readouterr()
    assert main(run + ["--train-seed", "12"]) == 0
    assert "training crops from" in capsys.readouterr().out  # the same crops, taken back from the cache
    assert main(run[:-1] + ["11"]) != 0  # another --seed draws other crops: not this cache's
    assert "seed 10 (asked 11)" in capsys.readouterr().err


def test_more_scene_sets_add_their_training_crops_after_the_first_sets_and_are_part_of_the_cache_recipe(
        scenes, tmp_path, capsys):
    from vision.__main__ import main

    cache, out = tmp_path / "crops", tmp_path / "classifier.pt"
    run = ["classifier", "--scenes", str(scenes), "--train-scenes", "2", "--minutes", "0.01", "--threads", "1",
           "--crops-cache", str(cache), "--out", str(out)]
    assert main(run + ["--more-scenes", str(scenes)]) == 0
    labels = np.load(cache / "labels.npy")
    scene_contexts, scene_labels = index_crops.scene_crops(scenes, "train", limit=2)
    assert len(labels) == 2 * len(scene_labels)
    np.testing.assert_array_equal(np.load(cache / "contexts.npy")[len(scene_labels):], scene_contexts)
    capsys.readouterr()
    assert main(run) != 0  # the same cache asked for without the second set
    assert f"other options: more_scenes {[str(scenes)]!r} (asked None)" in capsys.readouterr().err


def test_a_background_run_is_handed_the_same_options_learning_rate_included():
    from vision.__main__ import _parser
    from vision.cli.detector import _forwarded

    argv = ["--data", "d.yaml", "--model", "models/cards.pt", "--name", "low", "--hours", "1.5", "--lr0", "0.0002",
            "--single-class", "--bf16"]
    args = _parser().parse_args(["train", *argv, "--background"])
    again = _parser().parse_args(["train", *_forwarded(args)])
    assert (again.lr0, again.hours, again.single_class, again.name, again.background, again.bf16) == (
        0.0002, 1.5, True, "low", False, True)


def test_recalibrating_batch_norm_moves_its_statistics_toward_the_crops_and_keeps_what_was_learnt(scenes, tmp_path):
    contexts, labels = index_crops.scene_crops(scenes, "train", limit=2)
    trained = tmp_path / "ic.pt"
    index_training.train_classifier(contexts, labels, trained, minutes=1, batch=32, max_crops=64, log=lambda _: None)
    crops = np.stack([ic.augment(context, np.random.default_rng(i)) for i, context in enumerate(contexts[:40])])
    crops[:, :, :, 2] = 255  # redder than anything trained on: the first batch norm's red-fed means move
    before = index_net.load_net(trained).state_dict()
    with torch.no_grad():  # the first convolution's output over the crops, in one batch
        first = index_net.load_net(trained).features[0][0](index_training.to_tensor(crops))
    measured = first.mean(dim=(0, 2, 3))

    whole = index_training.recalibrate_batch_norm(trained, crops, tmp_path / "whole.pt", share=1.0)
    half = index_training.recalibrate_batch_norm(trained, crops, tmp_path / "half.pt", share=0.5)
    none = index_training.recalibrate_batch_norm(trained, crops, tmp_path / "none.pt", share=0.0)
    mean = "features.0.1.running_mean"
    assert torch.allclose(whole["state"][mean], measured, atol=1e-4)
    assert not torch.allclose(before[mean], measured, atol=1e-2)
    assert torch.allclose(half["state"][mean], (before[mean] + measured) / 2, atol=1e-4)
    for name, value in before.items():
        assert torch.equal(none["state"][name], value), name
        if "running" not in name:  # the learnt weights, and the batch count, are untouched
            assert torch.equal(whole["state"][name], value), name
    assert whole["batch_norm"] == {"crops": 40, "share": 1.0} and whole["width"] == index_net.load_net(trained).width
    assert ic.IndexClassifier(tmp_path / "whole.pt").classes == ic.IndexClassifier(trained).classes
    with pytest.raises(ValueError, match="from 0 to 1"):
        index_training.recalibrate_batch_norm(trained, crops, tmp_path / "bad.pt", share=1.5)
    with pytest.raises(ValueError, match="no crops"):
        index_training.recalibrate_batch_norm(trained, crops[:0], tmp_path / "bad.pt")


def test_the_reader_crops_of_a_split_are_every_find_read_as_the_app_reads_it_both_ways_up(scenes):
    crops = index_crops.reader_crops(scenes, "train", _FixedFinds(scenes), limit=2)
    windows = len(ic.READ_WINDOWS) * len(ic.READ_TURNS)
    assert crops.shape == (2 * 3 * windows * 2, ic.CROP, ic.CROP, 3)  # 2 scenes × 3 finds, both ways up
    for scene in crops.reshape(2, 2, 3 * windows, ic.CROP, ic.CROP, 3):  # each scene's, then each turned half round
        np.testing.assert_array_equal(scene[1], scene[0, :, ::-1, ::-1])


def test_the_recalibrate_command_writes_the_save_and_its_export_and_says_what_is_wrong(scenes, tmp_path, capsys):
    from vision.__main__ import main

    contexts, labels = index_crops.scene_crops(scenes, "train", limit=2)
    trained, out = tmp_path / "ic.pt", tmp_path / "recalibrated.pt"
    index_training.train_classifier(contexts, labels, trained, minutes=1, batch=32, max_crops=32, log=lambda _: None)
    run = ["recalibrate", "--classifier", str(trained), "--scenes", str(scenes), "--limit", "2", "--out", str(out)]
    assert main(run) == 0
    assert "reading crops (2 train scenes" in capsys.readouterr().out
    saved = torch.load(out, weights_only=True)
    assert saved["batch_norm"]["share"] == index_training.BATCH_NORM_SHARE and saved["batch_norm"]["crops"] > 0
    assert out.with_suffix(".onnx").is_file()
    for wrong, message in ((["--share", "2"], "--share goes from 0 to 1"),
                           (["--split", "nosuch"], "no nosuch scenes"),
                           (["--classifier", str(tmp_path / "missing.pt")], "no such classifier file")):
        assert main(run + wrong) == 2
        error = capsys.readouterr().err
        assert message in error and "Traceback" not in error


def test_a_bfloat16_run_takes_the_float32_runs_steps_and_saves_float32_weights(scenes, tmp_path):
    contexts, labels = index_crops.scene_crops(scenes, "train", limit=2)
    runs = {}
    for bf16 in (False, True):
        out = tmp_path / f"bf16-{bf16}.pt"
        index_training.train_classifier(contexts, labels, out, minutes=1, batch=32, max_crops=96, lr=1e-3, bf16=bf16,
                                   log=lambda _: None)
        saved = torch.load(out, weights_only=True)["state"]
        assert all(t.is_contiguous() and (t.dtype == torch.float32 or not t.is_floating_point())
                   for t in saved.values())
        runs[bf16] = index_net.load_net(out)
    torch.manual_seed(0)  # as each run starts (its seed is 0)
    untrained = index_net.IndexNet(width=16).eval()
    inputs = index_training.to_tensor(contexts[:, 16:48, 16:48])
    with torch.no_grad():
        fp32, bf16, start = runs[False](inputs), runs[True](inputs), untrained(inputs)
    # Three steps of AdamW move the logits; bfloat16's rounding moves them far less than the steps do.
    assert (fp32 - bf16).abs().max() < 0.1 * (fp32 - start).abs().max()


def test_a_widened_classifier_computes_what_the_narrower_one_did():
    torch.manual_seed(1)
    narrow = index_net.IndexNet(width=16)
    with torch.no_grad():  # batch norms with statistics of their own, as after training
        for module in narrow.modules():
            if isinstance(module, torch.nn.BatchNorm2d):
                module.running_mean.uniform_(-0.5, 0.5), module.running_var.uniform_(0.5, 2)
                module.weight.uniform_(0.5, 1.5), module.bias.uniform_(-0.2, 0.2)
    wide = index_net.IndexNet(width=24)
    wide.load_state_dict(index_training.widen(narrow.state_dict(), 24, np.random.default_rng(0), noise=0.0))
    inputs = torch.rand(8, 3, ic.CROP, ic.CROP)
    with torch.no_grad():
        torch.testing.assert_close(wide.eval()(inputs), narrow.eval()(inputs), atol=1e-4, rtol=1e-4)
    with pytest.raises(ValueError, match="cannot widen"):
        index_training.widen(wide.state_dict(), 16, np.random.default_rng(0))


def test_a_detector_trains_in_bfloat16_on_the_cpu_on_the_threads_asked(scenes, tmp_path, monkeypatch):
    """In bfloat16, and on the threads asked for: ultralytics sets torch's threads to the cores less
    one as its trainer starts and as its last validation loads the best weights (one thread on a
    two-core machine), and vision.model.train.keep_threads sets them back."""
    from ultralytics.engine import trainer
    from ultralytics.utils import torch_utils

    import vision.model.train as training

    write_tiles(scenes, tmp_path / "tiles", {"val": 1})
    monkeypatch.setattr(training, "RUNS_DIR", tmp_path / "runs")
    monkeypatch.setattr(torch_utils, "NUM_THREADS", 1)  # as on a two-core machine, whatever this one has
    training.allow_cpu_bfloat16()
    allowing, dtypes, threads = trainer.autocast, [], []

    def recording(enabled, device="cuda"):  # what each training step computes in, on how many threads
        context = allowing(enabled, device=device)
        with context:
            dtypes.append(torch.nn.functional.linear(torch.ones(1, 2), torch.ones(3, 2)).dtype)
        threads.append(torch.get_num_threads())
        return allowing(enabled, device=device)

    recording.cpu_bfloat16 = True
    monkeypatch.setattr(trainer, "autocast", recording)
    before = torch.get_num_threads()
    try:
        run = train(Recipe(tmp_path / "tiles" / "data.yaml", imgsz=128, epochs=1, batch=4, name="bf16", threads=2,
                           single_class=True, bf16=True))
        after = torch.get_num_threads()  # the last validation's
    finally:
        torch.set_num_threads(before)
    assert (run / "weights" / "last.pt").exists()
    assert dtypes and set(dtypes) == {torch.bfloat16}
    assert set(threads) == {2} and after == 2
    assert torch.load(run / "weights" / "last.pt", weights_only=False)["train_args"]["amp"] == "bf16"


def test_stock_predict_runs_on_the_threads_kept(monkeypatch):
    """ultralytics' predict sets torch's threads to the cores less one as it sets up its predictor;
    vision.model.train.keep_threads sets them back, as bench/bench_detector.py times stock predict."""
    from ultralytics import YOLO
    from ultralytics.utils import torch_utils

    from vision.model.train import keep_threads

    monkeypatch.setattr(torch_utils, "NUM_THREADS", 1)  # as on a two-core machine, whatever this one has
    frame, before = np.zeros((64, 64, 3), np.uint8), torch.get_num_threads()
    try:
        plain, kept = YOLO("yolov8n.yaml"), YOLO("yolov8n.yaml")
        keep_threads(kept, 2)
        torch.set_num_threads(2)
        plain.predict(frame, imgsz=64, device="cpu", verbose=False)
        assert torch.get_num_threads() == 1  # ultralytics' own choice on a two-core machine
        for _ in range(2):  # the first call sets the predictor up, the second reuses it
            torch.set_num_threads(1)
            kept.predict(frame, imgsz=64, device="cpu", verbose=False)
            assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(before)


def test_a_bfloat16_run_computes_its_loss_in_float32():
    """Under bfloat16 autocast ultralytics' loss decodes boxes in bfloat16, rounding a box side of a few
    hundred pixels by a pixel or two; vision.model.train.float32_loss hands the criterion float32
    predictions with autocast off, and the loss comes out as float32's."""
    import copy
    import pickle

    from ultralytics.cfg import get_cfg
    from ultralytics.nn.tasks import DetectionModel

    from vision.model.train import float32_loss

    torch.manual_seed(0)
    model = DetectionModel("yolov8n.yaml", nc=1, verbose=False).train()
    model.args = get_cfg()
    generator, n = torch.Generator().manual_seed(0), 40
    boxes = torch.cat([torch.rand(n, 2, generator=generator) * 0.8 + 0.1,
                       torch.rand(n, 2, generator=generator) * 0.04 + 0.02], 1)
    batch = {"img": torch.rand(2, 3, 640, 640, generator=generator), "cls": torch.zeros(n, 1), "bboxes": boxes,
             "batch_idx": (torch.arange(n) >= n // 2).float()}

    def loss_items():
        items = model.loss(batch)[1]
        return torch.stack(list(items.values()) if isinstance(items, dict) else list(items)).float()

    float32_items = loss_items()
    float32_loss(model)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss_items()  # makes the wrapped criterion
        inner, seen = model.criterion.criterion, []

        def recording(preds, batch):
            tensors = [v for v in (preds.values() if isinstance(preds, dict) else preds) if isinstance(v, torch.Tensor)]
            seen.append((torch.is_autocast_enabled("cpu"), {t.dtype for t in tensors}))
            return inner(preds, batch)

        model.criterion.criterion = recording
        bfloat16_items = loss_items()
    assert seen == [(False, {torch.float32})]
    torch.testing.assert_close(bfloat16_items, float32_items, rtol=0.02, atol=0.0)  # the network's rounding alone
    copy.deepcopy(model.criterion)  # the wrapped criterion copies (the trainer copies networks)
    model.criterion = None
    pickle.loads(pickle.dumps(copy.deepcopy(model)))  # a checkpoint of the network still saves


def test_bfloat16_training_is_refused_plainly_where_ultralytics_cannot_be_taught_it(tmp_path, monkeypatch):
    from ultralytics.engine import trainer

    monkeypatch.delattr(trainer, "autocast")
    with pytest.raises(TrainingError, match="train without --bf16"):
        train(Recipe(tmp_path / "data.yaml", name="bf16", bf16=True))
    with pytest.raises(TrainingError, match="run python -m vision tiles first"):  # float32 runs go on as before
        train(Recipe(tmp_path / "data.yaml", name="fp32"))


def test_a_bfloat16_run_on_the_cpu_trains_its_network_channels_last_and_others_as_they_were():
    from types import SimpleNamespace

    from vision.model.train import cpu_bfloat16_network

    class Model:  # what the callback is registered on
        def __init__(self):
            self.callbacks = {}

        def add_callback(self, event, callback):
            self.callbacks.setdefault(event, []).append(callback)

    yolo = Model()
    cpu_bfloat16_network(yolo)
    (convert,) = yolo.callbacks["on_pretrain_routine_end"]

    class Network(torch.nn.Conv2d):  # with a criterion to make, as ultralytics' networks have
        def init_criterion(self):
            return "criterion"

    for amp, device, wanted in (("bf16", "cpu", True), (False, "cpu", False), ("bf16", "cuda", False)):
        network = Network(3, 8, 3)
        weight = network.weight
        convert(SimpleNamespace(args=SimpleNamespace(amp=amp), device=torch.device(device), model=network))
        assert network.weight.is_contiguous(memory_format=torch.channels_last) == wanted
        assert network.weight is weight  # the optimiser's parameter, converted in place
        assert (type(network.init_criterion()).__name__ == "_Float32Loss") == wanted  # its loss in float32
