"""Which files Findling reads, and as what."""

from __future__ import annotations

import mimetypes
from pathlib import PurePath

from findling.file_kinds import KINDS, extensions_read_by


def _dotted(extensions: frozenset[str]) -> set[str]:
    return {f".{ext}" for ext in extensions}


# the kinds of file read (file_kinds.py, one row per extension), as the suffixes ingest matches
MARKDOWN = _dotted(extensions_read_by("markdown"))
RST = _dotted(extensions_read_by("rst"))
HTML = _dotted(extensions_read_by("html"))
CODE = _dotted(extensions_read_by("code"))
TEXT = _dotted(extensions_read_by("text"))
# pictures whose words OCR reads (Pillow decodes them; HEIC it cannot: its metadata is read)
OCR_PICTURES = frozenset({".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp"})
# what OCR adds words to: read again when it is turned on or off
OCR_EXTENSIONS = frozenset({*OCR_PICTURES, ".pdf"})
# Formats recognised but not read (no maintained reader): listed with the reason, never read as bytes.
LEGACY = {
    ".doc": "legacy Word format (.doc): not read; saved as .docx it is",
    ".xls": "legacy Excel format (.xls): not read; saved as .xlsx it is",
    ".ppt": "legacy PowerPoint format (.ppt): not read; saved as .pptx it is",
    # its reader (unrar) is not free to ship: named, so a search that misses a file inside one says why
    ".rar": "RAR archive: its members are not read (zip, 7-Zip and tar archives' are)",
    # its one reader (extract-msg) is GPL-licensed and brings oletools and a GUI toolkit along
    ".msg": "Outlook message (.msg): not read; saved as .eml (Outlook: Save As) it is",
}
# The legacy Office formats: a file so named whose bytes are not one is read as text, if it is
LEGACY_OFFICE = frozenset({".doc", ".xls", ".ppt"})
# Never worth reading: their text, if any, is not the user's words.
BINARY = {
    ".gif",
    ".bmp",
    ".ico",
    ".icns",
    ".psd",
    ".aac",
    ".mp4",
    ".mkv",
    ".avi",
    ".mov",
    ".webm",
    ".wmv",
    ".zst",
    ".jar",
    ".war",
    ".whl",
    ".deb",
    ".rpm",
    ".dmg",
    ".iso",
    ".img",
    ".exe",
    ".dll",
    ".so",
    ".dylib",
    ".o",
    ".a",
    ".lib",
    ".obj",
    ".class",
    ".pyc",
    ".pyo",
    ".wasm",
    ".bin",
    ".dat",
    ".db",
    ".sqlite",
    ".duckdb",
    ".wal",
    ".onnx",
    ".pt",
    ".safetensors",
    ".gguf",
    ".npy",
    ".npz",
    ".parquet",
    ".arrow",
    ".ttf",
    ".otf",
    ".woff",
    ".woff2",
    ".eot",
    ".key",
    ".pages",
    ".numbers",
    ".sketch",
    ".fig",
    ".blend",
    ".fbx",
    ".stl",
    ".glb",
    ".lock",
    ".pdb",
    ".idx",
    ".pack",
    ".swp",
}


# Each extension's kind: the table's reader, and the formats recognised but not read
_KINDS: dict[str, str] = {
    **{f".{ext}": kind.reader for ext, kind in KINDS.items()},
    **{suffix: "legacy" for suffix in LEGACY},
}
_TAR_NAMES = (".tar.gz", ".tar.bz2", ".tar.xz")


def kind_of(path: str) -> str | None:
    """The extractor kind for a path; "sniff" for unknown extensions; None for binary types."""
    name = PurePath(path).name.lower()
    if name.endswith(".rst.txt"):
        return "rst"
    if name.endswith(_TAR_NAMES):
        return "tar"
    suffix = PurePath(name).suffix
    if suffix in BINARY:
        return None
    return _KINDS.get(suffix, "sniff")


def extension_of(path: str) -> str:
    return PurePath(path).suffix.lower().lstrip(".")


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
