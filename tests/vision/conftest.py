"""A small face atlas built once for the vision tests: two training decks (one real, one drawn by
the project) and one held-out deck, so every split has decks and jokers."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.synth.atlas import FaceAtlas

ATLAS_DECKS = ("gnome-anglo", "project-classic", "gnome-plastic")
CARD_HEIGHT = 160


@pytest.fixture(scope="package")
def small_atlas_dir(tmp_path_factory) -> Path:
    from vision.synth.decks import installed_decks
    from vision.synth.drawn_deck import write_drawn_decks
    from vision.synth.faces import build_atlas

    atlas_dir = tmp_path_factory.mktemp("atlas")
    decks = [d for d in installed_decks() + write_drawn_decks(atlas_dir / "svg") if d.deck_id in ATLAS_DECKS]
    assert len(decks) == len(ATLAS_DECKS), "the Debian card decks are missing: run ./run.sh test"
    build_atlas(decks, atlas_dir, CARD_HEIGHT)
    return atlas_dir


@pytest.fixture(scope="package")
def small_atlas(small_atlas_dir) -> FaceAtlas:
    return FaceAtlas(small_atlas_dir)
