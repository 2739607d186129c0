import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from companion.app.store import Store  # noqa: E402


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "sheet.sqlite3")
    yield s
    s.close()


@pytest.fixture(autouse=True)
def data_dir(tmp_path, monkeypatch):
    """Never touch the real user's score sheets."""
    monkeypatch.setenv("CANASTA_COMPANION_DATA", str(tmp_path / "data"))
