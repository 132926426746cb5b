"""Where Findling keeps its files. One place decides, so CLI, GUI and tests agree."""

from __future__ import annotations

import os
from pathlib import Path

from findling.datahome import APP, data_home_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

DB_FILENAME = "findling.duckdb"


def data_home(override: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding the database: --home, else FINDLING_HOME, else the platform data dir."""
    return Path(data_home_text(override))


def _platformdirs() -> ModuleType:
    import platformdirs

    return platformdirs


def config_dir(home_override: str | os.PathLike[str] | None = None) -> Path:
    """Settings live beside an explicit home (so a test or portable install is self-contained)."""
    if home_override or os.environ.get("FINDLING_HOME"):
        return data_home(home_override)
    return Path(_platformdirs().user_config_dir(APP, appauthor=False))


def cache_dir() -> Path:
    override = os.environ.get("FINDLING_CACHE")
    if override:
        return Path(override).expanduser().resolve()
    return Path(_platformdirs().user_cache_dir(APP, appauthor=False))


def resources_dir() -> Path:
    """`resources/` from a source checkout, or the copy bundled next to the package."""
    here = Path(__file__).resolve().parent
    for candidate in (here / "resources", here.parent.parent / "resources"):
        if candidate.is_dir():
            return candidate
    return here.parent.parent / "resources"
