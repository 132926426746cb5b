"""Which files Findling reads, and as what."""

from __future__ import annotations

import mimetypes
import os

from findling.file_kinds import KINDS, extensions_read_by


def _dotted(extensions: frozenset[str]) -> set[str]:
    return {f".{ext}" for ext in extensions}


# the kinds of file read (file_kinds.py, one row per extension), as the suffixes ingest matches
MARKDOWN = _dotted(extensions_read_by("markdown"))
RST = _dotted(extensions_read_by("rst"))
HTML = _dotted(extensions_read_by("html"))
CODE = _dotted(extensions_read_by("code"))
TEXT = _dotted(extensions_read_by("text"))
# what OCR adds words to (pictures and PDF pages): read again when it is turned on or off
OCR_EXTENSIONS = _dotted(frozenset(ext for ext, kind in KINDS.items() if kind.ocr))
# formats recognised but not read: the reason the skipped list gives
LEGACY = {f".{ext}": kind.unread for ext, kind in KINDS.items() if kind.unread}
# the legacy Office formats: a file so named whose bytes are not one is read as text, if it is
LEGACY_OFFICE = _dotted(extensions_read_by("legacy-office"))
# never read, never listed
BINARY = _dotted(extensions_read_by("never"))

# Each extension's kind: the table's reader, "legacy" for a format recognised but not read
_KINDS: dict[str, str] = {
    f".{ext}": "legacy" if kind.unread else kind.reader for ext, kind in KINDS.items() if kind.reader != "never"
}
_TAR_NAMES = (".tar.gz", ".tar.bz2", ".tar.xz")


def _suffix(name: str) -> str:
    """PurePath(name).suffix without building a path (a rescan asks it of every file): the last
    dot's part, none for a dot file (`.bashrc`) or a name ending in a dot."""
    dot = name.rfind(".")
    return name[dot:] if 0 < dot < len(name) - 1 else ""


def kind_of(path: str) -> str | None:
    """The extractor kind for a path; "sniff" for unknown extensions; None for binary types."""
    name = os.path.basename(path).lower()
    if name.endswith(".rst.txt"):
        return "rst"
    if name.endswith(_TAR_NAMES):
        return "tar"
    suffix = _suffix(name)
    if suffix in BINARY:
        return None
    return _KINDS.get(suffix, "sniff")


def extension_of(path: str) -> str:
    return _suffix(os.path.basename(path).lower()).lstrip(".")


def mime_of(path: str, kind: str) -> str:
    guessed, _ = mimetypes.guess_type(path, strict=False)
    if guessed:
        return guessed
    return {
        "markdown": "text/markdown",
        "rst": "text/x-rst",
        "html": "text/html",
        "pdf": "application/pdf",
        "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "epub": "application/epub+zip",
        "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "odt": "application/vnd.oasis.opendocument.text",
        "ods": "application/vnd.oasis.opendocument.spreadsheet",
        "odp": "application/vnd.oasis.opendocument.presentation",
        "rtf": "application/rtf",
        "notebook": "application/x-ipynb+json",
        "eml": "message/rfc822",
        "mbox": "application/mbox",
    }.get(kind, "text/plain")
