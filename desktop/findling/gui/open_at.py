"""Opening a result at its line in an editor: the system's default app can only open a file
at the top, so this is a command the person chooses (search.open_at_line in settings.toml),
with VS Code's `code -g` used when it is on PATH and nothing is set."""

from __future__ import annotations

import shlex
import shutil


def editor_command(template: str, path: str, line: int) -> list[str] | None:
    """The argument list that opens `path` at `line`, or None when no editor is known."""
    if not template.strip():
        code = shutil.which("code")
        return [code, "-g", f"{path}:{line}"] if code else None
    try:
        parts = shlex.split(template)
    except ValueError:
        return None
    if not parts:
        return None
    # filled in after splitting, so a path with spaces or quotes stays one argument
    return [p.replace("{path}", path).replace("{line}", str(line)) for p in parts]
