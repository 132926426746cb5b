"""Where Findling keeps its files. One place decides, so CLI, GUI and tests agree."""

from __future__ import annotations

import os
from pathlib import Path

from findling.datahome import APP, INDEX_FILE, data_home_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType

DB_FILENAME = INDEX_FILE


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


def demo_folder() -> Path:
    """The few documents the first run offers to index, to try Findling on."""
    return resources_dir() / "demo"


def keep_private(folder: Path) -> None:
    """The index folder and what Findling writes there are its user's alone (0700/0600): the
    index holds the text of files that may be 0600 to their owner. The process's umask keeps
    every later file private too (DuckDB's WAL and spill files come and go); a folder made
    before this rule, and its files, are tightened when they are the user's own."""
    if os.name != "posix":
        return  # Windows: the per-user profile folder's ACL already keeps others out
    os.umask(os.umask(0o077) | 0o077)
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = folder.stat()
    if info.st_uid != os.getuid():
        return  # someone else's folder (a shared index): not ours to change
    if info.st_mode & 0o077:
        folder.chmod(0o700)
    for entry in folder.iterdir():
        try:
            mode = entry.lstat()
        except OSError:
            continue
        if mode.st_uid == os.getuid() and mode.st_mode & 0o077 and not entry.is_symlink():
            entry.chmod((mode.st_mode & 0o700) | (0o700 if entry.is_dir() else 0))
