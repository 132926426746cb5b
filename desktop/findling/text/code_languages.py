"""Which source files have a grammar that finds their definitions (ingest/code_symbols.py),
by extension: shared by the indexer and the schema's migration that reads them again."""

from __future__ import annotations

LANGUAGE_OF_EXTENSION = {
    "py": "python",
    "pyi": "python",
    "js": "javascript",
    "mjs": "javascript",
    "cjs": "javascript",
    "jsx": "javascript",
    "ts": "typescript",
    "mts": "typescript",
    "cts": "typescript",
    "tsx": "tsx",
    "go": "go",
    "rs": "rust",
    "java": "java",
    "c": "c",
    "h": "cpp",  # a header may be either; C++'s grammar reads C's declarations too
    "cc": "cpp",
    "cpp": "cpp",
    "cxx": "cpp",
    "hpp": "cpp",
    "hh": "cpp",
    "hxx": "cpp",
    "cs": "csharp",
    "rb": "ruby",
    "sh": "bash",
    "bash": "bash",
    "zsh": "bash",
}


def language_of(ext: str) -> str | None:
    """The grammar that reads files with this extension (no dot), if any."""
    return LANGUAGE_OF_EXTENSION.get(ext.lower())
