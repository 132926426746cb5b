"""Where this installation's `findling` command is, and putting it on the user's PATH.

The installed app on Windows is two executables: a windowed Findling.exe for the desktop and
a console findling-cli.exe for terminals and agents (a windowed process has no stdout to
print to). Elsewhere one executable is both. From a source checkout the command is the
`findling` script of the environment, or `python -m findling`."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from findling.errors import FindlingError

CONSOLE_EXE = "findling-cli.exe"  # Windows only


def frozen() -> bool:
    return bool(getattr(sys, "frozen", False))


def app_executables() -> list[Path]:
    """The executables an installed app must have beside each other; none from source."""
    if not frozen():
        return []
    folder = Path(sys.executable).parent
    if sys.platform == "win32":
        return [folder / "Findling.exe", folder / CONSOLE_EXE]
    return [Path(sys.executable)]


def command_line() -> list[str]:
    """How to run this installation's `findling` command in a new process."""
    if frozen():
        exe = Path(sys.executable)
        return [str(exe.with_name(CONSOLE_EXE) if sys.platform == "win32" else exe)]
    script = Path(sys.executable).with_name("findling.exe" if sys.platform == "win32" else "findling")
    if script.is_file():
        return [str(script)]
    found = shutil.which("findling")
    return [os.path.abspath(found)] if found else [sys.executable, "-m", "findling"]


def default_link_dir() -> Path:
    return Path.home() / ".local" / "bin"


def install_command(folder: Path | None = None) -> tuple[Path, bool]:
    """Link `findling` in `folder` (default ~/.local/bin) to this installation's command, so
    that a terminal or an agent can run it: the macOS .app and the Linux folder keep their
    executable inside. Returns the link and whether the folder is on PATH. Windows gets its
    PATH entry from the installer instead."""
    if sys.platform == "win32":
        raise FindlingError("on Windows the installer puts findling on PATH (its 'Add to PATH' option)")
    target = Path(command_line()[0])
    if not target.is_file() or target.name.startswith("python"):
        raise FindlingError(f"no findling executable to link to (found {target})")
    folder = (folder or default_link_dir()).expanduser().absolute()
    link = folder / "findling"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if link.is_symlink() or link.exists():
            if link.resolve() == target.resolve():
                return link, _on_path(folder)
            if not link.is_symlink():
                raise FindlingError(f"{link} exists and is not a link: remove it first")
            link.unlink()
        link.symlink_to(target)
    except OSError as exc:
        raise FindlingError(f"cannot create {link}: {exc.strerror or exc}") from exc
    return link, _on_path(folder)


def _on_path(folder: Path) -> bool:
    entries = os.environ.get("PATH", "").split(os.pathsep)
    return any(e and Path(e).expanduser().absolute() == folder for e in entries)
