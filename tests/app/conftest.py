import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from companion.app.store import Store  # noqa: E402

KINGS = ["KH", "KS", "KD", "KC", "KH", "KS", "KD"]


def hand_out(team="A", left=("5C",)):
    """A small legal hand: ``team`` goes out with a natural canasta of kings; the other holds ``left``."""
    other = "B" if team == "A" else "A"
    return {"went_out": team, "teams": {team: {"melds": [KINGS], "hands": [[], []]},
                                        other: {"melds": [], "hands": [list(left), []]}}}


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "sheet.sqlite3")
    yield s
    s.close()


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Never touch the real user's score sheets."""
    monkeypatch.setenv("CANASTA_COMPANION_DATA", str(tmp_path / "data"))
