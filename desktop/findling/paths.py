"""Where Findling keeps its files. One place decides, so CLI, GUI and tests agree."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import ModuleType

APP = "findling"
DB_FILENAME = "findling.duckdb"


def data_home(override: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding the database: --home, else FINDLING_HOME, else the platform data dir."""
    chosen = override or os.environ.get("FINDLING_HOME")
    if chosen:
        return Path(chosen).expanduser().resolve()
    return Path(_linux_data_dir() or _platformdirs().user_data_dir(APP, appauthor=False))


def _linux_data_dir() -> str | None:
    """platformdirs' answer on Linux in the usual case ($XDG_DATA_HOME when absolute, else
    ~/.local/share), without importing it: platformdirs costs a thin `findling search` 8 ms of
    its 50. None for anything else (another system, Android, a HOME that is not absolute)."""
    if sys.platform != "linux" or hasattr(sys, "getandroidapilevel"):
        return None
    xdg = os.environ.get("XDG_DATA_HOME", "")
    if xdg.startswith("/"):
        return os.path.join(xdg, APP)
    home = os.environ.get("HOME", "")
    if home.startswith("/") and not os.environ.get("ANDROID_DATA"):
        return os.path.join(home, ".local", "share", APP)
    return None


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
