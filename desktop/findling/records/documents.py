"""A document as the faces read it: a slice of its text, several at once, a source file's outline."""

from __future__ import annotations

from dataclasses import dataclass

from findling.records.index import CodeSymbol


@dataclass(frozen=True)
class Outline:
    """A source file's definitions in the order of its text (what `symbols` returns)."""

    docid: str
    path: str
    title: str
    symbols: tuple[CodeSymbol, ...]
    language: str = ""  # the grammar that read it; "" when its type has none


@dataclass(frozen=True)
class DocumentSlice:
    """Lines of one indexed document's text (what `get` returns). Lines count from 1."""

    docid: str
    path: str
    title: str
    text: str
    first_line: int
    last_line: int
    total_lines: int
    mtime: float = 0.0
    size: int = 0


@dataclass(frozen=True)
class MultiGetResult:
    documents: tuple[DocumentSlice, ...]
    left_out: tuple[tuple[str, str], ...] = ()  # (path or reference, why): the first few
    left_out_total: int = 0  # how many were left out in all
