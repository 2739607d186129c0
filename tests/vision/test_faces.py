"""The face atlas: every card rendered, indexes measured where the glyphs are."""

import json

import numpy as np

from vision.reader.classes import CLASS_NAMES
from vision.synth.decks import HELD_OUT_DECKS, installed_decks


def test_atlas_holds_every_card_of_each_deck_with_a_top_left_index(small_atlas):
    for deck in small_atlas.decks("train") + small_atlas.decks("test"):
        for code in CLASS_NAMES[:-1]:
            assert "top_left" in small_atlas.face(deck, code).index_boxes, (deck, code)
        assert small_atlas.joker_names(deck), f"{deck} should carry a joker with an index"


def test_held_out_decks_form_the_test_split(small_atlas):
    assert small_atlas.decks("test") == ["gnome-plastic"]
    assert not set(small_atlas.decks("train")) & HELD_OUT_DECKS
    assert len({d.deck_id for d in installed_decks()} & HELD_OUT_DECKS) >= 3


def test_measured_index_box_covers_the_ink_of_the_corner(small_atlas):
    """Inside the top-left quarter, the ink near the corner lies inside the measured box."""
    face = small_atlas.face("project-classic", "10D")
    x0, y0, x1, y1 = face.index_boxes["top_left"]
    h, w = face.image.shape[:2]
    red_ink = (face.image[..., 2] > 150) & (face.image[..., 1] < 100) & (face.image[..., 3] > 200)
    corner = red_ink[: int(0.25 * h), : int(0.2 * w)]
    ys, xs = np.nonzero(corner)
    assert len(xs) > 20
    inside = (xs >= x0) & (xs < x1) & (ys >= y0) & (ys < y1)
    assert inside.mean() > 0.95
    assert (x1 - x0) < 0.3 * w and (y1 - y0) < 0.35 * h  # the index, not half the card


def test_bottom_right_index_is_the_top_left_turned_round(small_atlas):
    face = small_atlas.face("gnome-anglo", "KH")
    h, w = face.image.shape[:2]
    tl, br = face.index_boxes["top_left"], face.index_boxes["bottom_right"]
    assert abs((w - br[2]) - tl[0]) <= 0.03 * w and abs((h - br[3]) - tl[1]) <= 0.03 * h


def test_every_drawn_deck_renders_with_its_indexes_measured(tmp_path):
    """The project's drawn decks vary typeface, layout and colour; each designed deck must give all 52
    cards a measured top-left index (else the atlas drops the deck), and four-corner decks all four.
    Random decks may fail (a glyph run into its neighbour), but the atlas must drop those, keep most,
    and keep none with an index left unmeasured."""
    from vision.synth.drawn_deck import DRAWN_STYLES, random_styles, write_drawn_decks
    from vision.synth.faces import build_atlas

    styles = DRAWN_STYLES + random_styles(12)  # the atlas's first 12 random decks (of RANDOM_DECKS)
    index = build_atlas(write_drawn_decks(tmp_path / "svg", styles), tmp_path / "atlas", 120)
    designed = {style.name for style in DRAWN_STYLES}
    assert not designed & set(index["rejected"])
    assert set(index["decks"]) | set(index["rejected"]) == {style.name for style in styles}
    assert len(set(index["decks"]) - designed) >= 9
    for style in styles:
        if style.name not in index["decks"]:
            continue
        manifest = json.loads((tmp_path / "atlas" / style.name / "manifest.json").read_text())
        expected = {"top_left", "top_right", "bottom_left", "bottom_right"} if style.four_corners \
            else {"top_left", "bottom_right"}
        # An index printed but not measured would be a visible index without a label.
        unlabelled = [name for name, face in manifest["faces"].items() if set(face["index_boxes"]) != expected]
        assert unlabelled == [], style.name
        if style.joker_star:  # the star in the joker's corners is measured as its index
            assert "JK-1" in manifest["faces"], style.name
    assert sum(style.joker_star is not None for style in styles if style.name in index["decks"]) >= 4


def test_random_decks_are_the_same_for_a_seed_and_differ_between_decks():
    from vision.synth.drawn_deck import random_styles

    first, again, other = random_styles(6, seed=1), random_styles(6, seed=1), random_styles(6, seed=2)
    assert first == again and first != other
    assert len({(s.font, s.font_weight, s.paper, round(s.index_scale, 3)) for s in first}) == 6
    assert len({s.name for s in random_styles()}) == len(random_styles())


def test_the_later_random_decks_add_typefaces_and_leave_the_first_ones_as_they_were():
    from vision.synth.drawn_deck import _FONTS, _SUIT_FONTS, FIRST_RANDOM_DECKS, random_styles

    first, every = random_styles(FIRST_RANDOM_DECKS), random_styles()
    assert every[:FIRST_RANDOM_DECKS] == first  # the older scene sets' decks can be drawn again
    assert all(s.font in _FONTS and s.suit_font in (None,) + _SUIT_FONTS for s in first)
    later = every[FIRST_RANDOM_DECKS:]
    assert sum(s.font not in _FONTS for s in later) > len(later) // 2
    assert any(s.suit_font not in (None,) + _SUIT_FONTS for s in later)


def test_the_third_random_decks_add_the_held_out_decks_looks_and_leave_the_others_as_they_were():
    from vision.synth.drawn_deck import THIRD_RANDOM_DECKS, DrawnStyle, random_styles

    every = random_styles(THIRD_RANDOM_DECKS + 32)
    assert every[:THIRD_RANDOM_DECKS] == random_styles(THIRD_RANDOM_DECKS)
    plain = DrawnStyle("plain", "DejaVu Sans", "normal", "#ffffff", "#000000", 1.0, ("#000000", "#ffffff"))
    looks = ("squeeze", "outline", "court_art", "inner_frame", "paper_edge", "pip_spread", "upright_bottom")
    # The first decks keep every new look at its default, so their SVG (and older scene sets) are unchanged.
    assert all(getattr(style, look) == getattr(plain, look) for style in every[:THIRD_RANDOM_DECKS] for look in looks)
    third = every[THIRD_RANDOM_DECKS:]
    assert sum(style.squeeze < 0.9 for style in third) >= len(third) // 3  # condensed, as Dondorf's
    for look in looks:
        assert sum(getattr(style, look) != getattr(plain, look) for style in third) >= 3, look


def test_a_deck_with_every_new_look_is_measured_at_its_index_on_every_card(tmp_path):
    """Condensed outlined letters, a court figure and a frame close by, shaded paper, crowded pips and an
    upright bottom index: the atlas must still measure each card's index, the same size on every card
    (a figure or frame taken into it would make the courts' boxes bigger), in both corners."""
    from vision.synth.drawn_deck import DrawnStyle, _index_extent, write_drawn_decks
    from vision.synth.faces import build_atlas

    style = DrawnStyle("project-every-look", "Nimbus Roman", "bold", "#fbf8f0", "#7a1f1f", 1.0,
                       ("#1f4f7a", "#e8e0c8"), squeeze=0.7, outline=0.05, outline_tint=0.3, court_art=True,
                       inner_frame="#996633", paper_edge="#e0d2b4", pip_spread=1.12, pip_scale=1.15,
                       upright_bottom=True)
    index = build_atlas(write_drawn_decks(tmp_path / "svg", (style,)), tmp_path / "atlas", 350)
    assert style.name in index["decks"], index["rejected"]
    faces = json.loads((tmp_path / "atlas" / style.name / "manifest.json").read_text())["faces"]
    right, bottom = _index_extent(style)
    for name, face in faces.items():
        if face["code"] == "JK":
            continue
        assert set(face["index_boxes"]) == {"top_left", "bottom_right"}, name
        x0, y0, x1, y1 = face["index_boxes"]["top_left"]
        # Inside the extent the frame, figure and pips keep clear of (a few pixels' slack), and
        # taller than a rank alone: rank and suit both.
        assert x1 <= right + 4 and y1 <= bottom + 4, name
        assert y1 - y0 > 0.13 * 350, name
        bx0, by0, bx1, by1 = face["index_boxes"]["bottom_right"]
        assert abs((bx1 - bx0) - (x1 - x0)) <= 3 and abs((by1 - by0) - (y1 - y0)) <= 3, name


def test_a_drawn_deck_with_a_card_measured_in_fewer_corners_is_not_used():
    from vision.synth.faces import _uneven_corners

    two = {"top_left": [0, 0, 5, 9], "bottom_right": [40, 60, 45, 69]}
    faces = {code: {"code": code, "index_boxes": two} for code in ("AS", "KS", "QS", "JS")}
    faces["JK-1"] = {"code": "JK", "index_boxes": {"top_left": [0, 0, 5, 9]}}  # jokers are judged apart
    assert _uneven_corners({"faces": faces}) == []
    faces["QS"] = {"code": "QS", "index_boxes": {"top_left": [0, 0, 5, 9]}}
    assert _uneven_corners({"faces": faces}) == ["QS"]


def _face_with_index(stem: bool, gap: int, stem_width: int = 3, point: bool = False,
                     stem_length: int = 150) -> np.ndarray:
    """A 300×400 white face: a rank (a 28×48 block) near the top-left corner and a suit (a 30×30
    disc) ``gap`` pixels under it, hanging from a ``stem_width``-pixel stem running ``stem_length``
    pixels down if ``stem``; with ``point`` the suit's top is a 10×10 point on a 3-pixel neck, as a
    spade's tip."""
    import cv2

    face = np.zeros((400, 300, 4), np.uint8)
    face[...] = (255, 255, 255, 255)
    ink = (0, 0, 0, 255)
    face[20:68, 25:53] = ink
    top = 68 + gap
    if point:
        face[top:top + 10, 34:44] = ink
        face[top + 10:top + 14, 38:41] = ink
        top += 14
    cv2.circle(face, (39, top + 15), 15, ink, -1)
    if stem:
        face[top + 15:top + 15 + stem_length, 39 - stem_width // 2:39 - stem_width // 2 + stem_width] = ink
    return face


def test_a_suit_hanging_from_a_thin_rule_is_measured_with_its_rank():
    """ancient-egyptians hangs each corner suit from a stem that runs down its frame; the measurement
    used to stop at the rank (the stem makes suit and rule one shape too big for a glyph)."""
    from vision.synth.corner_index import measure_index_boxes

    plain = measure_index_boxes(_face_with_index(stem=False, gap=10))["top_left"]
    hanging = measure_index_boxes(_face_with_index(stem=True, gap=10))["top_left"]
    assert plain[1] <= 20 and plain[3] >= 68 + 10 + 28  # rank and suit
    assert abs(hanging[3] - plain[3]) <= 3 and hanging[1] == plain[1]  # the stem cut away, the suit kept
    # A shape far under the rank is not its suit.
    assert measure_index_boxes(_face_with_index(stem=True, gap=60))["top_left"][3] <= 70


def test_a_suit_on_a_thick_stem_or_cut_at_its_point_is_measured_whole():
    """ancient-egyptians' spades: where the stem meets the suit it is thicker than a rule, and
    cutting the stem away cut the spade's point from its body, so the bottom-right index was
    measured as the point alone (three quarters the top-left's height) and a card's two indexes
    read as two cards."""
    from vision.synth.corner_index import measure_index_boxes

    plain = measure_index_boxes(_face_with_index(stem=False, gap=10))["top_left"]
    thick = measure_index_boxes(_face_with_index(stem=True, gap=10, stem_width=7))["top_left"]
    assert abs(thick[3] - plain[3]) <= 3
    # A stem thick near the suit and thin further down: a narrow opening leaves the suit and the
    # stem's thick part one glyph-sized shape, a wider one the suit alone (ancient-egyptians' KH,
    # whose bottom-right index went unmeasured, the shape being taller than the top-left index).
    tapered = _face_with_index(stem=True, gap=10, stem_width=7, stem_length=40)
    tapered[68 + 10 + 15 + 40:68 + 10 + 15 + 190, 38:41] = (0, 0, 0, 255)
    assert abs(measure_index_boxes(tapered)["top_left"][3] - plain[3]) <= 3
    pointed = measure_index_boxes(_face_with_index(stem=True, gap=10, point=True))["top_left"]
    assert pointed[3] >= plain[3] + 14 - 3  # the point, its neck and the body under them


def test_rendering_some_decks_keeps_the_atlas_others(tmp_path):
    from vision.__main__ import main

    atlas = tmp_path / "atlas"
    assert main(["faces", "--atlas", str(atlas), "--card-height", "120", "--decks", "project-classic"]) == 0
    assert main(["faces", "--atlas", str(atlas), "--card-height", "120", "--decks", "project-bold"]) == 0
    assert set(json.loads((atlas / "atlas.json").read_text())["decks"]) == {"project-classic", "project-bold"}


def test_the_third_generation_of_random_decks_is_drawn_only_when_asked(tmp_path, capsys):
    from vision.__main__ import main

    atlas = tmp_path / "atlas"
    # The default atlas stops at the first RANDOM_DECKS: the third generation's names are unknown to it.
    assert main(["faces", "--atlas", str(atlas), "--card-height", "120", "--decks", "project-random-70"]) != 0
    assert "unknown deck(s): project-random-70" in capsys.readouterr().err
    assert main(["faces", "--atlas", str(atlas), "--card-height", "120", "--decks", "project-random-70",
                 "--random-decks", "96"]) == 0
    assert set(json.loads((atlas / "atlas.json").read_text())["decks"]) == {"project-random-70"}
    assert main(["faces", "--atlas", str(atlas), "--random-decks", "-1"]) != 0


def test_the_faces_command_refuses_a_card_height_below_one_pixel_naming_the_flag(tmp_path, capsys):
    import pytest

    from vision.__main__ import main

    for height in ("0", "-5"):
        with pytest.raises(SystemExit) as exited:
            main(["faces", "--atlas", str(tmp_path / "atlas"), "--card-height", height])
        err = capsys.readouterr().err
        assert exited.value.code == 2 and "argument --card-height: must be a whole number of at least 1" in err
        assert "Traceback" not in err
    assert not (tmp_path / "atlas").exists()
