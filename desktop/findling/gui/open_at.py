"""Opening a result at its line in an editor, or a PDF at its page in a viewer.

The system's default app opens a file at the top: no desktop (xdg-open, macOS `open`,
Windows' shell) passes a place on. So this is a command the person chooses
(search.open_at_line / search.open_at_page in settings.toml), or, when nothing is set, a
program known to take a place on its command line: VS Code for lines; for pages the
system's default PDF viewer when it is one of those (Linux), else the first found on PATH.
macOS' Preview takes no page: there only a chosen command opens at a page."""

from __future__ import annotations

import functools
import shlex
import shutil
import subprocess
import sys

# (program, its arguments): {path}, {line} and {page} are filled in
_EDITORS = (("code", ("-g", "{path}:{line}")),)
_PDF_VIEWERS = (
    ("evince", ("--page-index={page}", "{path}")),
    ("okular", ("--page", "{page}", "{path}")),
    ("atril", ("--page-index={page}", "{path}")),
    ("xreader", ("--page-index={page}", "{path}")),
    ("zathura", ("--page={page}", "{path}")),
    ("qpdfview", ("--unique", "{path}#{page}")),
    ("mupdf", ("{path}", "{page}")),
    ("SumatraPDF", ("-page", "{page}", "{path}")),
)


def editor_command(template: str, path: str, line: int) -> list[str] | None:
    """The argument list that opens `path` at `line`, or None when no editor is known."""
    return _command(template, _EDITORS, {"path": path, "line": str(line)})


def viewer_command(template: str, path: str, page: int) -> list[str] | None:
    """The argument list that opens the PDF at `path` at `page` (from 1), or None when no
    viewer that takes a page is known."""
    known = sorted(_PDF_VIEWERS, key=lambda viewer: viewer[0].lower() != default_pdf_viewer())
    return _command(template, tuple(known), {"path": path, "page": str(page)})


def _command(template: str, known: tuple[tuple[str, tuple[str, ...]], ...], values: dict[str, str]) -> list[str] | None:
    if template.strip():
        try:
            parts = shlex.split(template)
        except ValueError:
            return None
        return _fill(parts, values) if parts else None
    for program, arguments in known:
        found = shutil.which(program)
        if found:
            return [found, *_fill(list(arguments), values)]
    return None


def _fill(parts: list[str], values: dict[str, str]) -> list[str]:
    # filled in after splitting, so a path with spaces or quotes stays one argument
    filled = []
    for part in parts:
        for key, value in values.items():
            part = part.replace("{" + key + "}", value)
        filled.append(part)
    return filled


@functools.cache
def default_pdf_viewer() -> str:
    """The program of the desktop's default PDF application where it can be asked (Linux's
    xdg-mime), lower-cased; "" when unknown."""
    if not sys.platform.startswith("linux") or shutil.which("xdg-mime") is None:
        return ""
    try:
        desktop_file = (
            subprocess.run(
                ["xdg-mime", "query", "default", "application/pdf"],
                capture_output=True,
                text=True,
                timeout=2,
                check=False,
            )
            .stdout.strip()
            .lower()
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return next((program for program, _ in _PDF_VIEWERS if program.lower() in desktop_file), "")
