"""The simulated hand: a legal table after every event, and a video with matching ground truth."""

import gzip
import json
import random
import time

import cv2
import numpy as np
import pytest

from companion.hand import HandState
from companion.handfile import score_report
from vision.reader.team_areas import TABLE_SETUP_FILE, in_picture
from vision.synth.table_state import random_table
from vision.synth.video import (
    FRAMES_PER_STILL,
    STILLS_PER_EVENT,
    NoAreaShown,
    as_hand_event,
    hand_events,
    players_areas,
    write_hand_video,
    write_table_setup,
)


def test_every_step_of_a_simulated_hand_is_a_legal_table():
    kinds = set()
    for seed in range(30):
        final = random_table(random.Random(seed), hand_over=True)
        steps = hand_events(final, random.Random(seed))
        for event, state in steps:
            score_report(state.hand_input())  # raises HandFileError on an illegal table
            kinds.add(event["event"])
        end, wanted = steps[-1][1].hand_input(), final.hand_input()
        for team in ("A", "B"):  # the hand ends on the table it was drawn from
            assert end["teams"][team]["melds"] == wanted["teams"][team]["melds"]
            assert end["teams"][team]["hands"] == wanted["teams"][team]["hands"]
            assert sorted(end["teams"][team]["threes"]) == sorted(wanted["teams"][team]["threes"])
        assert end["went_out"] == final.went_out
    assert {"deal", "turn_card_taken", "opened", "meld", "added_to_meld", "canasta", "three_laid_out",
            "went_out", "hands_spread"} <= kinds


def test_hand_video_has_a_frame_and_ground_truth_per_step(small_atlas, tmp_path):
    summary = write_hand_video(small_atlas, tmp_path, seed=5, image_size=(320, 180))
    video = cv2.VideoCapture(str(tmp_path / "hand.mp4"))
    frames = 0
    while video.read()[0]:
        frames += 1
    truth = [json.loads(line) for line in gzip.open(tmp_path / "frames.jsonl.gz", "rt")]
    assert frames == summary["frames"] == len(truth) == STILLS_PER_EVENT * FRAMES_PER_STILL * len(summary["events"])
    last = truth[-1]
    assert last["hand"]["went_out"] in ("A", "B")
    assert last["scores"] == {t: score_report(last["hand"])["teams"][t]["total"] for t in ("A", "B")}


def test_a_paused_video_films_the_same_hand_held_still_between_plays(small_atlas, tmp_path):
    """``pause`` lengthens the clear view after each play and changes nothing else: the events,
    the tables and the arms reaching in are those of the video filmed at a play a second."""
    quick = write_hand_video(small_atlas, tmp_path / "quick", seed=5, image_size=(320, 180))
    paused = write_hand_video(small_atlas, tmp_path / "paused", seed=5, image_size=(320, 180), pause=0.4)
    per_event = STILLS_PER_EVENT * FRAMES_PER_STILL
    assert paused["pause"] == 0.4 and quick["pause"] == 0.0
    assert [{k: v for k, v in e.items() if k != "frame"} for e in paused["events"]] == \
        [{k: v for k, v in e.items() if k != "frame"} for e in quick["events"]]
    assert [e["frame"] for e in paused["events"]] == [n * (per_event + 10) for n in range(len(quick["events"]))]
    assert paused["frames"] == quick["frames"] + 10 * len(quick["events"])
    truth = {name: [json.loads(line) for line in gzip.open(tmp_path / name / "frames.jsonl.gz", "rt")]
             for name in ("quick", "paused")}
    assert len(truth["paused"]) == paused["frames"]
    for number in range(len(quick["events"])):
        first, held = number * per_event, number * (per_event + 10)
        # the arm's still, and the clear view held 8 + 10 frames where the quick video holds 8
        assert truth["paused"][held]["cards"] == truth["quick"][first]["cards"]
        clear = [truth["paused"][held + k]["cards"] for k in range(2 * FRAMES_PER_STILL, per_event + 10)]
        assert all(cards == truth["quick"][first + per_event - 1]["cards"] for cards in clear)
    with pytest.raises(ValueError, match="pause must be 0 seconds or more"):
        write_hand_video(small_atlas, tmp_path / "never", seed=5, image_size=(320, 180), pause=-1)


def test_a_video_may_lay_the_stock_right_of_the_discard_pile(small_atlas, tmp_path):
    """``stock_on_right`` films the same hand with the middle mirrored: the same events, and in the
    first frame (the same camera) the turn card lies the other way from the discard pile."""
    left = write_hand_video(small_atlas, tmp_path / "left", seed=5, image_size=(320, 180))
    right = write_hand_video(small_atlas, tmp_path / "right", seed=5, image_size=(320, 180), stock_on_right=True)
    assert [{k: v for k, v in e.items() if k != "frame"} for e in right["events"]] == \
        [{k: v for k, v in e.items() if k != "frame"} for e in left["events"]]

    def turn_card_from_discard(name: str) -> np.ndarray:
        with gzip.open(tmp_path / name / "frames.jsonl.gz", "rt") as lines:
            first = json.loads(next(lines))
        centre = {area: np.mean([np.mean(c["corners"], axis=0) for c in first["cards"] if c["area"] == area], axis=0)
                  for area in ("turn_card", "discard")}
        return centre["turn_card"] - centre["discard"]

    assert turn_card_from_discard("left") @ turn_card_from_discard("right") < 0


def test_the_simulated_hands_are_played_by_the_rules():
    """Replayed through the game core's hand state, the simulated hands break no rule."""
    broken = {}
    for seed in range(30):
        state = HandState()
        for event, _ in hand_events(random_table(random.Random(seed), hand_over=True), random.Random(seed)):
            hand_event = as_hand_event(event)
            if hand_event is not None:
                broken.update({v.rule: (seed, event) for v in state.apply(hand_event)})
    assert broken == {}


class _FrameCount:
    """A detector that finds nothing and counts the pictures it is given, each in ``seconds``."""

    def __init__(self, seconds: float = 0.0):
        self.frames, self.seconds = 0, seconds

    def detect(self, frame_bgr):
        from vision.reader.detections import Detections

        self.frames += 1
        time.sleep(self.seconds)
        return Detections.empty()


def test_a_held_out_decks_video_is_read_from_its_pictures(small_atlas, tmp_path):
    from vision.evaluation.videos import evaluate_video
    from vision.synth.decks import HELD_OUT_DECKS

    summary = write_hand_video(small_atlas, tmp_path, seed=5, image_size=(320, 180), split="test")
    truth = [json.loads(line) for line in gzip.open(tmp_path / "frames.jsonl.gz", "rt")]
    assert {card["deck"] for frame in truth for card in frame["cards"]} <= set(HELD_OUT_DECKS)
    # the team areas it comes with: four corners on the picture around every labelled index of the team
    from vision.reader.team_areas import TableSetup

    setup = TableSetup.from_json(json.loads((tmp_path / "table_setup.json").read_text()))
    for frame in truth:
        for card in frame["cards"]:
            for index in card["indexes"] if card["team"] in ("A", "B") else ():
                if index["labelled"]:
                    centre = np.array(index["polygon"], np.float32).mean(axis=0)
                    area = setup.areas[card["team"]].astype(np.float32)
                    assert area.shape == (4, 2) and cv2.pointPolygonTest(area, centre.tolist(), False) >= 0
    counter = _FrameCount()
    result = evaluate_video(tmp_path, detector=counter)
    assert counter.frames == summary["frames"] and result.read_events == [] and result.truth_events
    short = tmp_path / "short"
    short.mkdir()
    for name in ("events.json", "frames.jsonl.gz"):
        (short / name).write_bytes((tmp_path / name).read_bytes())
    capture, writer = cv2.VideoCapture(str(tmp_path / "hand.mp4")), None
    for _ in range(5):
        ok, frame = capture.read()
        writer = writer or cv2.VideoWriter(str(short / "hand.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), 25, (320, 180))
        writer.write(frame)
    writer.release()
    with pytest.raises(ValueError, match=f"has 5 frames where its labels describe {summary['frames']}"):
        evaluate_video(short, detector=_FrameCount())
    # Read live, as the app reads a playing video: a reading that takes 0.2 s or more lets 5 frames or
    # more (at 25 a second) go by before the next one; a quick one reads every third frame at most.
    first = tmp_path / "first_60"
    first.mkdir()
    (first / "events.json").write_bytes((tmp_path / "events.json").read_bytes())
    with gzip.open(tmp_path / "frames.jsonl.gz", "rt") as lines, gzip.open(first / "frames.jsonl.gz", "wt") as out:
        out.writelines(line for _, line in zip(range(60), lines))
    (first / "hand.mp4").write_bytes((tmp_path / "hand.mp4").read_bytes())
    slow = _FrameCount(seconds=0.2)
    assert evaluate_video(first, detector=slow, live=True).readings == slow.frames
    assert 60 / 12 <= slow.frames <= 60 / 5
    quick = _FrameCount()
    assert evaluate_video(first, detector=quick, every=3, live=True).readings == quick.frames == 20


def test_the_part_of_an_area_the_picture_shows_and_none_of_one_outside_it():
    shown = in_picture(np.array([[-50.0, 10], [50, 10], [50, 30], [-50, 30]]), (100, 60))
    assert sorted(map(tuple, shown.round(3))) == [(0, 10), (0, 30), (50, 10), (50, 30)]
    assert in_picture(np.array([[200.0, 10], [250, 10], [250, 30], [200, 30]]), (100, 60)).shape == (0, 2)


def _card(team: str, x: float) -> dict:
    """A labelled card of a team, 20×30 px, its left edge at x."""
    return {"team": team, "corners": [[x, 10], [x + 20, 10], [x + 20, 40], [x, 40]]}


def test_a_team_whose_cards_all_lie_outside_the_picture_has_no_area_to_set_up():
    """OpenCV gives a junk point, not nothing, for polygons apart: the check once never fired."""
    frames = [{"image": {"width": 100, "height": 60}, "cards": [_card("A", 10), _card("B", 300)]}]
    with pytest.raises(ValueError, match="team B lays no card where the picture shows it"):
        players_areas(frames)


def test_a_hand_whose_team_lays_nothing_in_the_picture_is_filmed_without_a_table_set_up(small_atlas, tmp_path,
                                                                                       monkeypatch):
    """``python -m vision video --seed 45 --size 1920x1080 --split test`` (a held-out hand) once stopped
    with a traceback after writing the video: team A's cards all lie outside its camera's picture."""
    with gzip.open(tmp_path / "frames.jsonl.gz", "wt") as lines:
        lines.write(json.dumps({"image": {"width": 100, "height": 60}, "cards": [_card("A", 300), _card("B", 10)]}))
    with pytest.raises(NoAreaShown, match="team A lays no card"):
        write_table_setup(tmp_path)
    assert not (tmp_path / TABLE_SETUP_FILE).exists()

    def no_area(frames):
        raise NoAreaShown("team A lays no card where the picture shows it: no area to set up")

    monkeypatch.setattr("vision.synth.video.players_areas", no_area)  # as seed 45's camera films it
    (tmp_path / "video").mkdir()
    (tmp_path / "video" / TABLE_SETUP_FILE).write_text("{}")  # another video's, filmed here before
    summary = write_hand_video(small_atlas, tmp_path / "video", seed=5, image_size=(320, 180))
    assert summary["no_table_setup"].startswith("team A lays no card")
    assert (tmp_path / "video" / "hand.mp4").is_file() and (tmp_path / "video" / "events.json").is_file()
    assert not (tmp_path / "video" / TABLE_SETUP_FILE).exists()


@pytest.mark.parametrize("pause", ["nan", "inf", "-1", "soon"])
def test_the_video_command_refuses_a_pause_that_is_not_a_finite_number_of_seconds(capsys, pause):
    from vision.__main__ import main

    with pytest.raises(SystemExit) as exited:
        main(["video", "--pause", pause])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and f"argument --pause: must be a number of seconds, 0 or more, not '{pause}'" in err
    assert "Traceback" not in err
