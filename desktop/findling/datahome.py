"""The folder that holds the index, as a string, found without pathlib or platformdirs: the thin
`findling search` (thin.py) needs only this, and counts every millisecond. paths.py gives it as a Path,
with the other folders."""

from __future__ import annotations

import os
import sys

APP = "findling"
INDEX_FILE = "findling.duckdb"  # the index itself, in the data home


def data_home_text(override: str | os.PathLike[str] | None = None) -> str:
    """The folder holding the database: --home, else FINDLING_HOME, else the platform data dir."""
    chosen = override or os.environ.get("FINDLING_HOME")
    if chosen:
        return os.path.realpath(os.path.expanduser(chosen))
    return _linux_data_dir() or _platformdirs_data_dir()


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


def _platformdirs_data_dir() -> str:
    import platformdirs

    return platformdirs.user_data_dir(APP, appauthor=False)
