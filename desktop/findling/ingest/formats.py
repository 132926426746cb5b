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
DOCUMENTS = {".pdf": "pdf", ".docx": "docx", ".epub": "epub"}
# Never worth reading: their text, if any, is not the user's words.
BINARY = {
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".bmp",
    ".tif",
    ".tiff",
    ".webp",
    ".ico",
    ".icns",
    ".heic",
    ".psd",
    ".mp3",
    ".wav",
    ".flac",
    ".ogg",
    ".m4a",
    ".aac",
    ".mp4",
    ".mkv",
    ".avi",
    ".mov",
    ".webm",
    ".wmv",
    ".zip",
    ".gz",
    ".tgz",
    ".bz2",
    ".xz",
    ".zst",
    ".7z",
    ".rar",
    ".tar",
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
    ".doc",
    ".xls",
    ".xlsx",
    ".ppt",
    ".pptx",
    ".odt",
    ".ods",
    ".odp",
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


def kind_of(path: str) -> str | None:
    """The extractor kind for a path; "sniff" for unknown extensions; None for binary types."""
    name = PurePath(path).name.lower()
    suffix = PurePath(name).suffix
    if name.endswith(".rst.txt"):
        return "rst"
    if suffix in DOCUMENTS:
        return DOCUMENTS[suffix]
    if suffix in MARKDOWN:
        return "markdown"
    if suffix in RST:
        return "rst"
    if suffix in HTML:
        return "html"
    if suffix in CODE:
        return "code"
    if suffix in TEXT:
        return "text"
    if suffix in BINARY:
        return None
    return "sniff"


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
    }.get(kind, "text/plain")
