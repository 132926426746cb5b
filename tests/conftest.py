from __future__ import annotations

from pathlib import Path

import pytest

from findling.engine import Engine
from findling.settings import Settings

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    """No test touches the real user data or cache dirs."""
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FINDLING_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def settings() -> Settings:
    s = Settings()
    s.index.workers = 1
    return s


@pytest.fixture
def engine(tmp_path, settings):
    eng = Engine(tmp_path / "home", settings=settings)
    yield eng
    eng.close()


@pytest.fixture
def docs(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    return folder
