"""``python -m vision read``: JSON lines in the contract's shape, annotated images, and one clear
stderr line for each real broken file while the others are still read."""

import json
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.__main__ import main
from vision.reader.frame_sources import FrameSourceError, read_image, video_frames
from vision.synth.augment import photograph
from vision.synth.render import render_scene
from vision.synth.scenes import build_scene

ROOT = Path(__file__).resolve().parents[2]

SIZE = (640, 360)


@pytest.fixture(scope="module")
def labelled_image(small_atlas, tmp_path_factory):
    """A rendered held-out-deck scene with its YOLO labels where the dataset writer puts them."""
    root = tmp_path_factory.mktemp("scene")
    (root / "images" / "test").mkdir(parents=True)
    (root / "labels" / "test").mkdir(parents=True)
    scene = build_scene(small_atlas, 21, SIZE, "test")
    image_path = root / "images" / "test" / "scene.jpg"
    cv2.imwrite(str(image_path), photograph(render_scene(scene, small_atlas), scene.owners, 21))
    (root / "labels" / "test" / "scene.txt").write_text("\n".join(scene.labels()) + "\n")
    return image_path


def _png_header(width: int, height: int) -> bytes:
    """A PNG whose header claims the given size (no pixel data needed to refuse it)."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", len(ihdr)) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return b"\x89PNG\r\n\x1a\n" + chunk + b"\x00\x00\x00\x00IEND\xaeB`\x82"


def _broken_files(tmp_path, good_jpeg: bytes) -> dict:
    files = {
        "empty.jpg": b"",
        "truncated.jpg": good_jpeg[: len(good_jpeg) // 2],
        "notes.png": b"these are not pixels\n",
        "enormous.png": _png_header(100_000, 100_000),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    return {name: tmp_path / name for name in files}


def _cut_video(path, frames: int = 12):
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 5, SIZE)
    for i in range(frames):
        writer.write(np.full((SIZE[1], SIZE[0], 3), 20 * i, np.uint8))
    writer.release()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def test_json_line_per_image_in_the_contract_shape(labelled_image, capsys):
    assert main(["read", str(labelled_image), "--labels", "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    data = json.loads(line)
    assert data["image"] == str(labelled_image) and data["ms"] >= 0
    assert set(data["teams"]) == {"A", "B"}
    assert all(set(side) >= {"melds", "threes", "piles"} for side in data["teams"].values())
    assert data["cards"] and all(
        set(card) == {"code", "box", "conf"} and len(card["box"]) == 4 for card in data["cards"]
    )


def test_broken_files_each_get_one_line_and_the_rest_are_read(labelled_image, tmp_path, capsys):
    broken = _broken_files(tmp_path, labelled_image.read_bytes())
    paths = [str(p) for p in broken.values()] + [str(tmp_path / "missing.jpg"), str(labelled_image)]
    out_dir = tmp_path / "annotated"
    assert main(["read", *paths, "--labels", "--json", "--annotate", str(out_dir)]) == 1
    captured = capsys.readouterr()
    errors = captured.err.strip().splitlines()
    assert len(errors) == 5
    for name, words in (("empty.jpg", "empty file"), ("truncated.jpg", "truncated JPEG"),
                        ("notes.png", "not an image"), ("enormous.png", "too large"), ("missing.jpg", "cannot read")):
        assert any(name in e and words in e for e in errors), name
    assert [json.loads(line)["image"] for line in captured.out.splitlines()] == [str(labelled_image)]
    assert cv2.imread(str(out_dir / "scene.jpg")).shape[:2] == (SIZE[1], SIZE[0])


def test_a_video_that_breaks_gives_its_frames_then_says_so(labelled_image, tmp_path, capsys):
    video = _cut_video(tmp_path / "hand.avi")
    (tmp_path / "hand.txt").write_text(
        (labelled_image.parent.parent.parent / "labels" / "test" / "scene.txt").read_text()
    )
    assert main(["read", str(video), "--labels", "--json", "--every", "1"]) == 1
    captured = capsys.readouterr()
    lines = [json.loads(line) for line in captured.out.splitlines()]
    assert [line["frame"] for line in lines] == list(range(len(lines))) and 0 < len(lines) < 12
    assert all(line["events"] == [] for line in lines)  # the same table every frame: nothing happens
    assert "broke off after" in captured.err


def test_frame_sources_refuse_without_decoding(tmp_path):
    (tmp_path / "huge.png").write_bytes(_png_header(20_000, 20_000))
    with pytest.raises(FrameSourceError, match="too large"):
        read_image(tmp_path / "huge.png")
    (tmp_path / "cut.mp4").write_bytes(b"\x00\x00\x00\x18ftypmp42")
    with pytest.raises(FrameSourceError, match="cannot open"):
        list(video_frames(tmp_path / "cut.mp4"))


def test_a_broken_video_is_one_line_in_the_commands_words(tmp_path):
    """Not FFmpeg's own line ("moov atom not found") before it."""
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(b"\x00\x00\x00\x18ftypmp42" + bytes(64))
    read = subprocess.run([sys.executable, "-m", "vision", "read", str(cut), "--labels"], capture_output=True,
                          text=True, cwd=ROOT)
    assert read.returncode == 1 and read.stderr == f"vision read: {cut}: cannot open as a video\n"


def test_without_a_detector_the_command_says_what_to_do(labelled_image, tmp_path, capsys):
    assert main(["read", str(labelled_image), "--weights", str(tmp_path / "missing.onnx")]) == 2
    assert "python -m vision train" in capsys.readouterr().err


def test_a_corrupt_label_file_is_one_line_naming_it_and_its_line(labelled_image, tmp_path, capsys):
    lines = (labelled_image.parent.parent.parent / "labels" / "test" / "scene.txt").read_text()
    broken = {"words.jpg": ("garbage here x\n", "line 1: not a YOLO label"),
              "class.jpg": (lines + "99 0.5 0.5 0.1 0.1\n", f"line {len(lines.splitlines()) + 1}: class 99"),
              "bytes.jpg": (b"\xff\xfe\x00garbage", "not UTF-8")}
    for name, (text, _) in broken.items():
        (tmp_path / name).write_bytes(labelled_image.read_bytes())
        label = tmp_path / name.replace(".jpg", ".txt")
        label.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert main(["read", *(str(tmp_path / name) for name in broken), str(labelled_image), "--labels", "--json"]) == 1
    captured = capsys.readouterr()
    errors = captured.err.strip().splitlines()
    assert len(errors) == 3 and "Traceback" not in captured.err
    for name, (_, words) in broken.items():
        assert any(name.replace(".jpg", ".txt") in e and words in e for e in errors), name
    assert [json.loads(line)["image"] for line in captured.out.splitlines()] == [str(labelled_image)]
