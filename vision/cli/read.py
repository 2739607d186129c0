"""``python -m vision read IMAGE_OR_VIDEO... [--json] [--annotate DIR] [--every N]``.

Each image (or every N-th frame of a video) is read into a :class:`~vision.reader.reading.TableReading`;
with ``--json`` one JSON object a line, else a short summary a line. A video's frames go through a
:class:`~vision.reader.tracking.TableTracker`, and each line also lists the table events confirmed then. A file that
gives no frame is
reported on stderr in one line and the others are still read; the exit status is 1 if any failed.
``--labels`` reads the YOLO label file beside each image (``images/<split>/x.jpg`` ->
``labels/<split>/x.txt``) instead of running the detector: the reader on a perfect detector.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import cv2

from vision.cli.annotate import annotate
from vision.reader.card_reader import CardReader, DetectorMissing
from vision.reader.detections import Detections, LabelsError, read_yolo_labels
from vision.reader.frame_sources import FrameSourceError, is_video, read_image, shown_name, video_frames
from vision.reader.reading import TableReading
from vision.reader.team_areas import TableFrame, TableSetup, TableSetupError
from vision.reader.tracking import TableEvent, TableTracker


class LabelDetector:
    """Detections from the YOLO label file of the image being read (ground truth, confidence 1)."""

    def __init__(self):
        self.path: Path | None = None

    def detect(self, frame_bgr) -> Detections:
        label_path = label_file_for(self.path)
        if label_path is None:
            raise FrameSourceError(f"{self.path}: no YOLO label file beside it (--labels)")
        height, width = frame_bgr.shape[:2]
        try:
            return read_yolo_labels(label_path, width, height)
        except LabelsError as error:
            raise FrameSourceError(f"{error} (--labels)") from None
        except OSError as error:
            raise FrameSourceError(f"{label_path}: cannot read ({error.strerror or error}) (--labels)") from None


def label_file_for(image_path: Path) -> Path | None:
    parts = list(image_path.parts)
    candidates = [image_path.with_suffix(".txt")]
    if "images" in parts:
        at = len(parts) - 1 - parts[::-1].index("images")
        candidates.insert(0, Path(*parts[:at], "labels", *parts[at + 1:]).with_suffix(".txt"))
    return next((p for p in candidates if p.is_file()), None)


def run_read(paths: list[Path], as_json: bool, annotate_dir: Path | None, every: int,
             setup_path: Path | None, weights: Path | None, labels: bool) -> int:
    try:
        setup = TableSetup.load(setup_path) if setup_path else TableSetup()
    except TableSetupError as error:
        print(f"vision read: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"vision read: {setup_path}: cannot read the table set-up ({error.strerror or error})", file=sys.stderr)
        return 2
    labeller = LabelDetector() if labels else None
    try:
        reader = CardReader(detector=labeller, setup=setup, weights=weights)
    except DetectorMissing as error:
        print(f"vision read: {error} (or use --labels to read labelled images)", file=sys.stderr)
        return 2
    failed = 0
    for path in paths:
        if labeller is not None:
            labeller.path = path
        tracker = TableTracker() if is_video(path) else None
        reader.new_view()  # each photo and each video shows its own view of a table
        try:
            for frame_number, frame in _frames(path, every):
                started = time.perf_counter()
                reading = reader.read(frame) if tracker else reader.read_still(frame)
                ms = (time.perf_counter() - started) * 1000
                events = tracker.update(reading) if tracker else None
                _report(path, frame_number, reading, ms, as_json, events)
                if annotate_dir is not None:
                    _write_annotated(annotate_dir, path, frame_number, frame, reading, setup)
        except FrameSourceError as error:
            print(f"vision read: {error}", file=sys.stderr)
            failed += 1
    return 1 if failed else 0


def _frames(path: Path, every: int):
    if is_video(path):
        yield from video_frames(path, every)
    else:
        yield None, read_image(path)


def _report(path: Path, frame_number: int | None, reading: TableReading, ms: float, as_json: bool,
            events: list[TableEvent] | None) -> None:
    """One line per frame; a video's frames also carry the table events their reading confirmed."""
    if as_json:
        line = {"image": str(path), **({"frame": frame_number} if frame_number is not None else {}),
                **reading.to_json(), "ms": round(ms, 1)}
        if events is not None:
            line["events"] = [_event_json(e) for e in events]
        print(json.dumps(line), flush=True)
        return
    where = shown_name(path) + (f" frame {frame_number}" if frame_number is not None else "")
    teams = "; ".join(f"{team}: " + _summary(side) for team, side in reading.teams.items())
    happened = "".join(f"; {e.kind}" + (f" {e.team}" if e.team else "") + (f" {' '.join(e.cards)}" if e.cards else "")
                       for e in events or ())
    print(f"{where}: {len(reading.cards())} cards; {teams}{happened} ({ms:.0f} ms)", flush=True)


def _event_json(event: TableEvent) -> dict:
    return {"event": event.kind, "team": event.team, "cards": list(event.cards),
            "broken_rules": [v.message for v in event.violations]}


def _summary(side) -> str:
    melds = " | ".join(" ".join(m.codes) for m in side.melds) or "no meld"
    piles = f", piles {' '.join(p.top.code for p in side.piles)}" if side.piles else ""
    threes = f", threes {' '.join(c.code for c in side.threes)}" if side.threes else ""
    return melds + piles + threes


def _write_annotated(out_dir: Path, path: Path, frame_number: int | None, frame, reading: TableReading,
                     setup: TableSetup) -> None:
    name = path.stem + (f"_f{frame_number:05d}" if frame_number is not None else "") + ".jpg"
    image = annotate(frame, reading, TableFrame(setup, reading.image_size))
    # Encoded here and written by Python, which takes any file name (OpenCV's writer crashes on a
    # name that is not UTF-8).
    encoded, data = cv2.imencode(".jpg", image)
    try:
        if not encoded:
            raise OSError("JPEG encoding failed")
        (out_dir / name).write_bytes(data.tobytes())
    except OSError as error:
        raise FrameSourceError(f"{shown_name(out_dir / name)}: cannot write the annotated image "
                               f"({error.strerror or error})") from None
