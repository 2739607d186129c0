"""Scenes: labels that cover the glyphs, never outside the image or on hidden indexes, seeds that
repeat, every class in a 2,000-image set, and scores that agree with the game core."""

import os
from collections import Counter

import numpy as np
import pytest

from companion.handfile import score_report
from vision.reader.classes import CLASS_NAMES, class_id
from vision.synth.augment import FAULT_KINDS, photograph
from vision.synth.camera import random_camera
from vision.synth.labels import MIN_VISIBLE_FRACTION, id_map, index_views
from vision.synth.layout import Group, PlacedCard, random_style
from vision.synth.render import render_scene
from vision.synth.scenes import Scene, _face_for, build_scene
from vision.synth.table_state import TableState, TeamTable

SIZE = (640, 360)


def _one_card_scene(atlas, code: str, angle: float) -> Scene:
    """A single card at a known pose in the middle of the frame, camera straight down."""
    import random

    rng = random.Random(0)
    camera = random_camera(random.Random(3), SIZE, (0.0, 0.0), card_height_px=200)
    placed = PlacedCard(code, Group("A", "meld", 0), 0.0, 0.0, angle)
    card = _face_for(atlas, rng, placed, ["project-classic"], "project-classic", camera)
    owners = id_map(SIZE, [card.quad], [])
    card.indexes = index_views(owners, 0, card.face_to_image, atlas.face("project-classic", code).index_boxes)
    state = TableState({"A": TeamTable(), "B": TeamTable()}, [], 0, None)
    return Scene(0, "train", SIZE, state, random_style(rng), camera, [card], [], owners)


@pytest.mark.parametrize("angle", [0.0, 0.6, 3.0])
def test_index_box_of_a_card_at_a_known_pose_covers_its_glyphs(small_atlas, angle):
    scene = _one_card_scene(small_atlas, "10D", angle)
    image = render_scene(scene, small_atlas)
    card = scene.cards[0]
    labelled = [v for v in card.indexes if v.labelled]
    assert {v.corner for v in labelled} >= {"top_left", "bottom_right"}
    # The card's red ink within 0.2 card heights of a corner (its index) lies inside that corner's box.
    red = (image[..., 2] > 150) & (image[..., 1] < 110) & (image[..., 0] < 110) & (scene.owners == 0)
    for view in labelled:
        corner_point = card.quad[{"top_left": 0, "top_right": 1, "bottom_right": 2, "bottom_left": 3}[view.corner]]
        ys, xs = np.nonzero(red)
        near = np.hypot(xs - corner_point[0], ys - corner_point[1]) < 0.2 * 200
        x0, y0, x1, y1 = view.box(SIZE)
        inside = (xs[near] >= x0 - 1) & (xs[near] <= x1 + 1) & (ys[near] >= y0 - 1) & (ys[near] <= y1 + 1)
        assert near.sum() > 10 and inside.mean() > 0.9, view.corner


def test_no_box_outside_the_image_or_on_a_hidden_index(small_atlas):
    for seed in range(60):
        scene = build_scene(small_atlas, seed, SIZE)
        for line in scene.labels():
            _, cx, cy, w, h = map(float, line.split())
            slack = 1e-6  # the label files hold six decimals
            assert -slack <= cx - w / 2 and cx + w / 2 <= 1 + slack and -slack <= cy - h / 2 and cy + h / 2 <= 1 + slack
            assert w > 0 and h > 0
        for card in scene.cards:
            for view in card.indexes:
                if view.visible < MIN_VISIBLE_FRACTION:
                    assert not view.labelled
            if card.placed.group.area == "canasta_pile" and card is not _top_of_pile(scene, card):
                assert not any(v.labelled for v in card.indexes), "a card squared under a canasta shows nothing"


def _top_of_pile(scene, card):
    pile = [c for c in scene.cards if c.placed.group == card.placed.group]
    return pile[-1]


def test_an_occluded_index_gets_no_box(small_atlas):
    """Cover the whole frame with an occluder: no card may keep a label."""
    scene = _one_card_scene(small_atlas, "KS", 0.0)
    card = scene.cards[0]
    everything = np.array([[-10, -10], [SIZE[0] + 10, -10], [SIZE[0] + 10, SIZE[1] + 10], [-10, SIZE[1] + 10]], float)
    owners = id_map(SIZE, [card.quad], [everything])
    views = index_views(owners, 0, card.face_to_image, small_atlas.face("project-classic", "KS").index_boxes)
    assert views and not any(v.labelled for v in views)


def test_one_seed_gives_the_same_image_and_two_seeds_different_ones(small_atlas):
    def picture(seed):
        scene = build_scene(small_atlas, seed, SIZE)
        return photograph(render_scene(scene, small_atlas), scene.owners, seed), scene.labels()

    first, again, other = picture(11), picture(11), picture(12)
    assert np.array_equal(first[0], again[0]) and first[1] == again[1]
    assert not np.array_equal(first[0], other[0]) and first[1] != other[1]


def test_a_photograph_can_leave_out_camera_faults_and_all_of_them_is_the_datasets_own(small_atlas):
    scene = build_scene(small_atlas, 5, SIZE)
    render = render_scene(scene, small_atlas)
    full = photograph(render, scene.owners, 5)
    assert np.array_equal(photograph(render, scene.owners, 5, FAULT_KINDS), full)
    lit_only = photograph(render, scene.owners, 5, ())
    assert not np.array_equal(lit_only, full) and not np.array_equal(lit_only, render)
    assert not np.array_equal(photograph(render, scene.owners, 5, ("jpeg",)), lit_only)  # p = 0.7 at seed 5
    with pytest.raises(ValueError, match="no such camera fault: fog"):
        photograph(render, scene.owners, 5, ("fog",))


def test_every_class_appears_in_a_2000_image_set(small_atlas):
    """Labels-only path: the same layout, camera, occluder and visibility code, no pixels."""
    seen = Counter()
    for seed in range(2000):
        for line in build_scene(small_atlas, seed, (320, 180)).labels():
            seen[int(line.split()[0])] += 1
    missing = [CLASS_NAMES[i] for i in range(len(CLASS_NAMES)) if seen[i] == 0]
    assert not missing, f"classes never labelled: {missing}"


def test_scene_scores_agree_with_the_scoring_engine(small_atlas):
    for seed in range(40):
        scene = build_scene(small_atlas, seed, SIZE)
        truth = scene.ground_truth()
        report = score_report(truth["hand"])
        assert truth["scores"] == {t: report["teams"][t]["total"] for t in ("A", "B")}
        # The ground truth lists every physical card the hand input holds (all 7 of a squared canasta).
        listed = Counter(
            c["code"] for c in truth["cards"] if c["face_up"] and c["area"] not in ("discard", "turn_card")
        )
        in_hand = Counter(
            code
            for team in truth["hand"]["teams"].values()
            for code in [c for m in team["melds"] for c in m] + team["threes"] + [c for h in team["hands"] for c in h]
        )
        assert listed == in_hand


def test_class_list_uses_the_game_codes():
    assert len(CLASS_NAMES) == 53 and len(set(CLASS_NAMES)) == 53
    assert class_id("10d") == CLASS_NAMES.index("10D") and CLASS_NAMES[-1] == "JK"


def test_rendered_cards_keep_their_faces_bright(small_atlas):
    """Card faces are mostly white paper: in a rendered scene few card pixels are near black.
    (Card wear once brightened white past 255 and the uint8 cast wrapped it to black.)"""
    for seed in range(6):
        scene = build_scene(small_atlas, seed, (640, 360))
        image = render_scene(scene, small_atlas)
        face_up = [n for n, card in enumerate(scene.cards) if card.face_name is not None]
        on_faces = np.isin(scene.owners, face_up)
        if on_faces.sum() < 500:
            continue
        near_black = (image[on_faces].max(axis=1) < 40).mean()
        assert near_black < 0.2, (seed, near_black)


def test_synth_writes_only_the_splits_asked_for_with_the_scenes_of_the_whole_set(small_atlas_dir, tmp_path, capsys):
    from vision.__main__ import main

    run = ["synth", "--images", "20", "--seed", "4", "--size", "640x360", "--workers", "1", "--atlas",
           str(small_atlas_dir)]
    assert main(run + ["--out", str(tmp_path / "all")]) == 0
    assert main(run + ["--out", str(tmp_path / "test"), "--splits", "test"]) == 0
    assert "2 images in" in capsys.readouterr().out
    files = lambda folder, split: sorted((folder / "images" / split).glob("*.*"))  # noqa: E731
    assert files(tmp_path / "test", "train") == [] and len(files(tmp_path / "all", "test")) == 4  # jpg + json each
    for whole, alone in zip(files(tmp_path / "all", "test"), files(tmp_path / "test", "test"), strict=True):
        assert whole.name == alone.name and whole.read_bytes() == alone.read_bytes()
    assert main(run + ["--out", str(tmp_path / "bad"), "--splits", "tests"]) != 0
    assert "--splits takes train, val, test, not 'tests'" in capsys.readouterr().err


@pytest.mark.parametrize("workers", ["-1", "0"])
def test_synth_refuses_fewer_than_one_worker_naming_the_flag(tmp_path, capsys, workers):
    from vision.__main__ import main

    with pytest.raises(SystemExit) as exited:
        main(["synth", "--out", str(tmp_path / "out"), "--images", "1", "--workers", workers])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "argument --workers: must be a whole number of at least 1" in err
    assert "Traceback" not in err and not (tmp_path / "out").exists()


@pytest.mark.parametrize("files, cores", [
    ({"cpu.max": "200000 100000\n"}, 2),                       # cgroup v2: two cores' worth of a larger machine
    ({"cpu.max": "50000 100000\n"}, 1),
    ({"cpu.max": "max 100000\n"}, None),                       # no quota: the cores it may run on
    ({"cpu/cpu.cfs_quota_us": "100000\n", "cpu/cpu.cfs_period_us": "100000\n"}, 1),   # cgroup v1
    ({"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),
    ({}, None),
])
def test_synth_runs_a_worker_per_core_the_process_may_use(tmp_path, files, cores):
    """Not one per core of the whole machine (os.cpu_count()) in a container given two of them."""
    from vision.synth.dataset import usable_cores

    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    may_run_on = len(os.sched_getaffinity(0))
    assert usable_cores(tmp_path) == (may_run_on if cores is None else min(cores, may_run_on))
