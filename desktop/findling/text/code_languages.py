"""Which source files have a grammar that finds their definitions (ingest/code_symbols.py),
by extension: shared by the indexer and the schema's migration that reads them again."""

from __future__ import annotations

from findling.file_kinds import KINDS

# extension (no dot) -> the grammar that reads it: the file-kind table's source files with one
LANGUAGE_OF_EXTENSION = {ext: kind.language for ext, kind in KINDS.items() if kind.language}


def language_of(ext: str) -> str | None:
    """The grammar that reads files with this extension (no dot), if any."""
    return LANGUAGE_OF_EXTENSION.get(ext.lower())
