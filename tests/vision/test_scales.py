"""Reading at the right scale: the pyramid's levels, which level keeps which find, the live scale,
and the shipped detector reading a close-up that its default views miss."""

from __future__ import annotations

import numpy as np
import pytest

from vision.reader import scales
from vision.reader.detections import Detections


def finds(*rows) -> Detections:
    """Finds from rows of (x1, y1, x2, y2, confidence)."""
    rows = np.array(rows, np.float32).reshape(-1, 5)
    return Detections(rows[:, :4], rows[:, 4], np.zeros(len(rows), np.int64))


def test_a_picture_is_read_down_to_where_an_index_a_quarter_of_its_height_fits_the_band():
    assert scales.still_levels(1080, 1.0) == [1.0, 0.5, 0.25, 0.125]  # 270 px -> 33.75 at 1/8
    assert scales.still_levels(3000, 0.48) == [0.48, 0.24, 0.12, 0.06]  # 750 px -> 45 at 0.06
    assert scales.still_levels(480, 2.0) == [2.0, 1.0, 0.5, 0.25]  # 120 px -> 30 at 1/4
    assert scales.still_levels(100, 1.0) == [1.0]  # 25 px: the finest level reads it


def test_each_level_keeps_the_finds_of_its_octave_and_the_ends_keep_the_rest():
    assert scales.owned(finds((0, 0, 10, 19, 0.9), (0, 0, 10, 20, 0.9), (0, 0, 59, 10, 0.9)), 1.0, False,
                        False).tolist() == [False, True, True]
    found = finds((0, 0, 10, 10, 0.9), (0, 0, 30, 20, 0.9), (0, 0, 20, 60, 0.9), (0, 0, 200, 100, 0.9))
    # At scale 1 the sides read 10, 30, 60 and 200 px: the band (24-48, widened a quarter: 19.2-60)
    # holds the second alone.
    assert scales.owned(found, 1.0, finest=False, coarsest=False).tolist() == [False, True, False, False]
    assert scales.owned(found, 1.0, finest=True, coarsest=False).tolist() == [True, True, False, False]
    assert scales.owned(found, 1.0, finest=False, coarsest=True).tolist() == [False, True, True, True]
    assert scales.owned(found, 0.5, finest=False, coarsest=False).tolist() == [False, False, True, False]


def test_a_finer_level_is_read_while_a_level_finds_nothing_or_something_below_its_band():
    assert scales.needs_finer(Detections.empty(), 0.25)
    assert scales.needs_finer(finds((0, 0, 10, 40, 0.5), (0, 0, 4, 8, 0.1)), 1.0)  # an 8 px find: finer
    assert not scales.needs_finer(finds((0, 0, 10, 40, 0.5), (0, 0, 20, 30, 0.1)), 1.0)


def test_levels_finds_of_one_index_are_one_the_most_confident_kept():
    coarse = finds((100, 100, 140, 160, 0.6))
    fine = finds((102, 98, 141, 161, 0.8), (300, 300, 310, 320, 0.3))
    joined = scales.join_levels([coarse, fine])
    assert joined.confidence.tolist() == pytest.approx([0.8, 0.3])
    assert len(scales.join_levels([])) == 0


@pytest.mark.parametrize("median, scale", [(None, None), (30.0, None), (47.0, None), (48.0, 0.5), (90.0, 0.5),
                                           (100.0, 0.25), (400.0, 1 / 16)])
def test_a_live_frame_is_read_once_at_the_halving_that_brings_its_median_index_into_the_band(median, scale):
    assert scales.live_scale(median, 1.0) == scale
    if scale is not None:
        assert scales.BAND[0] <= median * scale < scales.BAND[1]


class RecordingDetector:
    """Stands in for the card detector: finds indexes of one size, and records how it was asked."""

    def __init__(self, side: float, count: int = 5):
        self.side, self.count, self.asked, self.regions = side, count, [], []

    def default_scale(self, width: int) -> float:
        return 1.0

    def _finds(self) -> Detections:
        return finds(*[(10 * k, 0, 10 * k + self.side / 2, self.side, 0.9) for k in range(self.count)])

    def detect(self, frame, scale=None, region=None) -> Detections:
        self.asked.append(scale)
        self.regions.append(region)
        return self._finds()

    def detect_still(self, frame) -> Detections:
        self.asked.append("still")
        self.regions.append("still")
        return self._finds()


def read_live(detection, frames: int) -> None:
    frame = np.zeros((1080, 1920, 3), np.uint8)
    for _ in range(frames):
        detection.saw(detection.detect(frame))


def test_a_live_video_is_read_as_a_still_first_then_once_at_the_scale_its_index_size_calls_for():
    from vision.reader.card_reader import LiveDetection

    large = RecordingDetector(side=100.0)
    read_live(LiveDetection(large), 4)
    assert large.asked == ["still", 0.25, 0.25, 0.25]  # 100 px sides come to 25 px at a quarter
    small = RecordingDetector(side=20.0)
    read_live(LiveDetection(small), 3)
    assert small.asked == ["still", None, None]  # the default views read 20 px indexes


def test_a_live_video_reads_the_part_of_the_frame_its_cards_lie_in_and_now_and_then_the_whole():
    from vision.reader.card_reader import LiveDetection

    detector = RecordingDetector(side=20.0)  # five finds from (0, 0) to (50, 20): 20 px indexes
    detection = LiveDetection(detector)
    read_live(detection, 7)
    part = (0, 0, 50 + 8 * 20, 20 + 8 * 20)  # widened by eight index sizes, within the frame
    assert detector.regions == ["still", part, part, part, None, part, part]
    gone = RecordingDetector(side=20.0, count=2)  # too few to say where the cards lie
    read_live(LiveDetection(gone), 4)
    assert gone.regions == ["still", None, None, None]


def test_a_live_frame_whose_finds_reach_the_edge_of_the_part_read_is_followed_by_a_whole_one():
    """A meld laid across the part's edge is read in part: the next frame is read whole."""
    from vision.reader.card_reader import LiveDetection

    detector = RecordingDetector(side=20.0)
    detection = LiveDetection(detector)
    frame = np.zeros((1080, 1920, 3), np.uint8)
    detection.saw(detection.detect(frame))  # the still: five finds from (0, 0) to (50, 20)
    assert detection.detect(frame) is not None and detector.regions[-1] == (0, 0, 210, 180)
    detection.saw(finds((0, 0, 10, 20, 0.9), (100, 0, 110, 20, 0.9), (160, 150, 170, 170, 0.9)))  # 10 px from its edge
    detection.detect(frame)
    assert detector.regions[-1] is None
    detection.saw(detector._finds())
    detection.detect(frame)
    assert detector.regions[-1] == (0, 0, 170 + 160, 170 + 160)  # the last readings' finds, widened


def test_a_live_frame_that_changed_outside_the_part_read_is_read_whole_and_so_is_the_next():
    """A card laid far from the others shows at once, not at the next whole reading; changes within
    the part, and the whole picture brightening (the camera's exposure), leave the part read."""
    from vision.reader.card_reader import LiveDetection

    detector = RecordingDetector(side=20.0)  # five finds from (0, 0) to (50, 20): the part (0, 0, 210, 180)
    detection = LiveDetection(detector)
    frames = [np.full((1080, 1920, 3), 90, np.uint8) for _ in range(6)]
    for frame in frames[1:]:
        frame[40:120, 60:150] = 200  # a card laid within the part
    for frame in frames[2:]:
        frame[600:700, 1400:1470] = 200  # a card laid far away
    frames.append((frames[-1] * 1.25).astype(np.uint8))  # the camera's exposure brightens the whole picture
    for frame in frames:
        detection.saw(detection.detect(frame))
    part = (0, 0, 210, 180)
    # The far card's frame is read whole, and the next; the fifth is anyway (every fourth after the still).
    assert detector.regions == ["still", part, None, None, None, part, part]
    assert detection.detect(np.full((1080, 1920, 3), 90, np.uint8)) is not None and detector.regions[-1] is None


def test_a_live_frame_of_another_size_is_measured_afresh_and_a_two_view_frame_read_whole():
    from vision.reader.card_reader import LiveDetection

    detector = RecordingDetector(side=20.0)
    detection = LiveDetection(detector)
    read_live(detection, 3)
    detection.saw(detection.detect(np.zeros((2160, 3840, 3), np.uint8)))  # the camera's mode changed
    assert detector.regions == ["still", (0, 0, 210, 180), (0, 0, 210, 180), "still"]

    class TwoViews(RecordingDetector):
        def one_view(self, width: int, scale: float | None) -> int | None:
            return None if scale is None else round(width * scale)  # two default views, their finds joined

    narrow = TwoViews(side=20.0)
    two = LiveDetection(narrow)
    for _ in range(3):
        two.saw(two.detect(np.zeros((720, 1280, 3), np.uint8)))
    assert narrow.regions == ["still", None, None]


def test_a_live_videos_cards_over_most_of_the_frame_are_read_whole():
    from vision.reader.card_reader import LiveDetection

    detection = LiveDetection(RecordingDetector(side=20.0))
    detection.saw(finds((10, 10, 20, 30, 0.9), (1800, 1000, 1810, 1020, 0.9), (900, 500, 910, 520, 0.9)))
    assert detection.region((1080, 1920)) is None
    assert detection.region((2160, 3840)) == (0, 0, 1810 + 160, 1020 + 160)


def test_while_a_live_video_shows_too_few_indexes_every_tenth_frame_is_read_as_a_still():
    from vision.reader.card_reader import LiveDetection

    empty = RecordingDetector(side=100.0, count=0)
    detection = LiveDetection(empty)
    read_live(detection, 21)
    assert [k for k, how in enumerate(empty.asked) if how == "still"] == [0, 10, 20]
    assert detection.median is None


def test_the_shipped_detector_reads_a_close_up_as_a_still_that_its_default_views_miss(small_atlas):
    from vision.reader.detector import CardDetector
    from vision.synth.augment import photograph
    from vision.synth.render import render_scene
    from vision.synth.scenes import build_scene

    detector = CardDetector(conf=0.2)
    named = {"views": [], "still": []}
    for seed in range(11, 17):
        scene = build_scene(small_atlas, seed, (1920, 1080), "test", card_heights=(450.0, 550.0))
        frame = photograph(render_scene(scene, small_atlas), scene.owners, seed)
        height, width = frame.shape[:2]
        truth = Detections.from_yolo_labels(scene.labels(), width, height)
        assert not len(truth) or np.median(scales.long_sides(truth)) > 2 * scales.BAND[1]  # far beyond the band
        for how, found in (("views", detector.detect(frame)), ("still", detector.detect_still(frame))):
            named[how] += [overlap >= 0.5 and card == truth.class_id[j]
                           for overlap, j, card in _best_matches(truth, found)]
    assert len(named["still"]) >= 10
    assert np.mean(named["still"]) >= 0.6 and np.mean(named["views"]) <= 0.3, named


def _best_matches(truth: Detections, found: Detections):
    """For each true index, the IoU of the find that boxes it best, that find's position and card."""
    from vision.reader.detections import iou

    if not len(found):
        return [(0.0, j, -1) for j in range(len(truth))]
    overlaps = iou(truth.xyxy, found.xyxy)
    best = overlaps.argmax(axis=1)
    return [(overlaps[j, best[j]], j, found.class_id[best[j]]) for j in range(len(truth))]
