"""Which files Findling reads, and as what."""

from __future__ import annotations

import mimetypes
from pathlib import PurePath

MARKDOWN = {".md", ".markdown", ".mdown", ".mkd", ".mdx"}
RST = {".rst", ".rest"}
HTML = {".html", ".htm", ".xhtml", ".shtml"}
CODE = {
    ".py",
    ".pyi",
    ".js",
    ".mjs",
    ".cjs",
    ".ts",
    ".tsx",
    ".jsx",
    ".c",
    ".h",
    ".cc",
    ".cpp",
    ".cxx",
    ".hpp",
    ".hh",
    ".rs",
    ".go",
    ".java",
    ".kt",
    ".kts",
    ".scala",
    ".rb",
    ".php",
    ".cs",
    ".swift",
    ".m",
    ".mm",
    ".sh",
    ".bash",
    ".zsh",
    ".fish",
    ".ps1",
    ".sql",
    ".lua",
    ".pl",
    ".pm",
    ".r",
    ".jl",
    ".hs",
    ".ml",
    ".mli",
    ".ex",
    ".exs",
    ".erl",
    ".clj",
    ".el",
    ".vim",
    ".dart",
    ".zig",
    ".nim",
    ".css",
    ".scss",
    ".less",
    ".vue",
    ".svelte",
    ".toml",
    ".yaml",
    ".yml",
    ".ini",
    ".cfg",
    ".conf",
    ".json",
    ".xml",
    ".gradle",
    ".cmake",
    ".mk",
    ".proto",
    ".graphql",
    ".tf",
}
TEXT = {".txt", ".text", ".log", ".csv", ".tsv", ".org", ".adoc", ".asciidoc", ".tex", ".bib", ".srt", ".vtt", ".nfo"}
DOCUMENTS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".docm": "docx",
    ".epub": "epub",
    ".xlsx": "xlsx",
    ".xlsm": "xlsx",
    ".pptx": "pptx",
    ".pptm": "pptx",
    ".odt": "odt",
    ".ods": "ods",
    ".odp": "odp",
    ".rtf": "rtf",
    ".ipynb": "notebook",
    ".eml": "eml",
    ".mbox": "mbox",
    # pictures: the words in their metadata (ingest/extractors/image.py); one without is skipped
    ".jpg": "image",
    ".jpeg": "image",
    ".png": "image",
    ".tif": "image",
    ".tiff": "image",
    ".webp": "image",
    ".heic": "image",
    # recordings: their tags (ingest/extractors/audio.py); one without is skipped
    ".mp3": "audio",
    ".flac": "audio",
    ".ogg": "audio",
    ".opus": "audio",
    ".m4a": "audio",
    ".wav": "audio",
    ".aiff": "audio",
    ".aif": "audio",
    ".wma": "audio",
}
COMPRESSED = {".gz", ".bz2", ".xz"}
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


# Each extension's kind; the sets above are disjoint, so the order of this merge does not matter.
_KINDS: dict[str, str] = {
    **{suffix: "text" for suffix in TEXT},
    **{suffix: "code" for suffix in CODE},
    **{suffix: "html" for suffix in HTML},
    **{suffix: "rst" for suffix in RST},
    **{suffix: "markdown" for suffix in MARKDOWN},
    **{suffix: "legacy" for suffix in LEGACY},
    **DOCUMENTS,
    **{suffix: "compressed" for suffix in COMPRESSED},  # one file, compressed: read as the file it holds
    ".zip": "zip",
    ".7z": "7z",
    ".tar": "tar",
    ".tgz": "tar",
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
