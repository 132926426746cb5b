"""File names that are not valid Unicode, and text from files that must not reach a terminal.

On POSIX a file name is bytes; Python hands names that are not valid UTF-8 over with lone
surrogates (PEP 383), which DuckDB and Arrow refuse. Such a path is stored twice: a
readable form (undecodable bytes as `\\xNN`, like `ls -b`) that the index shows and
filters on, and its exact bytes, so the file can still be opened."""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Sequence


def needs_bytes(path: str) -> bool:
    """True when `path` holds bytes that are not valid UTF-8 (lone surrogates)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def display_path(path: str) -> str:
    """A readable, lossless-looking form that always encodes: bad bytes become `\\xNN`."""
    if not needs_bytes(path):
        return path
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def path_bytes(path: str) -> bytes | None:
    """The exact bytes to keep beside the display form, or None when the form is exact."""
    return os.fsencode(path) if needs_bytes(path) else None


def stored_path(display: str, raw: bytes | None) -> str:
    """The path to open, from what `display_path` and `path_bytes` stored."""
    return os.fsdecode(raw) if raw is not None else display


def _western(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    bad = exc.object[exc.start : exc.end]
    return bad.decode("cp1252", errors="replace"), exc.end


codecs.register_error("findling-western", _western)


def readable_name(name: str) -> str:
    """A name for titles and search: undecodable bytes read as Windows-1252, the usual
    encoding of old archives (`m\\xe9moire` → `mémoire`), valid UTF-8 parts kept."""
    if not needs_bytes(name):
        return name
    return os.fsencode(name).decode("utf-8", "findling-western")


def clean_text(text: str) -> str:
    """Text that encodes as UTF-8: lone surrogates become U+FFFD."""
    if not needs_bytes(text):
        return text
    return text.encode("utf-8", "replace").decode("utf-8")


# C0 controls but tab and newline, DEL, and C1 controls (U+009B is a one-character CSI).
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LINE_BREAKS = re.compile(r"[\n\r\t\u2028\u2029]")
# Bidirectional overrides can make a printed name read differently from what it is.
_BIDI = re.compile(r"[\u202a-\u202e\u2066-\u2069]")


def printable(text: str, one_line: bool = True) -> str:
    """Text from a file made safe for a terminal: no escape sequences, no control
    characters (so no screen clearing, title setting, OSC 52 clipboard writes or OSC 8
    links), no bidi overrides; surrogates shown as `\\xNN`."""
    text = display_path(text)
    if one_line:
        text = _LINE_BREAKS.sub(" ", text)
    else:  # a file's lines as they are; a lone CR would return the cursor over what came before
        text = text.replace("\r\n", "\n")
    text = _CONTROLS.sub("\ufffd", text)
    return _BIDI.sub("", text)


def distinct_names(paths: Sequence[str]) -> list[str]:
    """Each folder's shortest tail of names that no other folder in the list shares: `html`
    alone, but `python3.11/html` beside `rust/html`."""
    from pathlib import PurePath  # here, not above: the thin search path imports this module (3 ms)

    parts = [PurePath(p).parts or (p,) for p in paths]
    depth = [1] * len(paths)
    while True:
        tails = [str(PurePath(*ps[-d:])) for ps, d in zip(parts, depth, strict=True)]
        shared = {t for t in tails if tails.count(t) > 1}
        grown = False
        for i, tail in enumerate(tails):
            if tail in shared and depth[i] < len(parts[i]):
                depth[i] += 1
                grown = True
        if not grown:
            return tails


# Between a file and a document inside it (an archive's member): `bundle.zip › docs/inner.md`
MEMBER_SEPARATOR = " › "


def member_path(container: str, name: str) -> str:
    """The address of the document `name` inside the file (or member) `container`."""
    return f"{container}{MEMBER_SEPARATOR}{name}"


def folder_of(path: str) -> str:
    """Where a document is: its folder, or for a document inside a file what holds it
    (`a/bundle.zip › docs` for `a/bundle.zip › docs/inner.md`, `a/message.eml` for
    `a/message.eml › report.docx`)."""
    inside = path.rfind(MEMBER_SEPARATOR)
    if inside != -1 and not any(sep in path[inside:] for sep in {"/", os.sep}):
        return path[:inside]
    return os.path.dirname(path)


def container_file(path: str) -> str:
    """The file on disk that holds the document at `path`: the path itself for a file, the
    outermost archive for a member. A file's own name may hold the separator, so the file is
    the shortest prefix before one that exists as a file."""
    at = path.find(MEMBER_SEPARATOR)
    while at != -1:
        if os.path.isfile(path[:at]):
            return path[:at]
        at = path.find(MEMBER_SEPARATOR, at + 1)
    return path


def absolute_address(path: str, resolve: bool = False) -> str:
    """A path or a member's address (`a.zip › x.md`) made absolute in this process's folder. The
    file part is normalised (with `resolve`, its links followed too); what follows a separator
    is a member's name as written: `names.zip › ../../evil.md` is a member of names.zip, never
    `/…/evil.md`."""
    absolute = os.path.realpath if resolve else os.path.abspath
    expanded = os.path.expanduser(path)
    at = expanded.find(MEMBER_SEPARATOR)
    while at != -1:
        head = absolute(expanded[:at])
        if os.path.isfile(head):
            return head + expanded[at:]
        at = expanded.find(MEMBER_SEPARATOR, at + 1)
    return absolute(expanded)


def folder_filter(value: str) -> str:
    """A folder a search is kept to, as every face reads it (`--folder`, `folder:` in a query, MCP
    and HTTP fields, the window): `~` expanded, made absolute in this process's working folder."""
    return os.path.abspath(os.path.expanduser(value))


def under(path: str, folder: str) -> bool:
    """Is `path` the folder (or file) itself or somewhere below it: the one rule for "under this
    folder" (sources, the folder filter, facets); `/x/notes` holds `/x/notes/a.md`, never
    `/x/notes-old/a.md` nor `/x/notes.txt`. The filter's SQL is `under_sql`, held to this by a test."""
    root = folder.rstrip(os.sep) or os.sep
    return path in (folder, root) or path.startswith(root if root.endswith(os.sep) else root + os.sep)


def under_sql(column: str, folder: str) -> tuple[str, list[str]]:
    """`under(column, folder)` in SQL, with its parameters."""
    root = folder.rstrip(os.sep) or os.sep
    prefix = root if root.endswith(os.sep) else root + os.sep
    return f"({column} = ? OR {column} = ? OR starts_with({column}, ?))", [folder, root, prefix]
