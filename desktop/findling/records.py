"""Typed records that cross layers. No Qt or DuckDB types in here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from findling.search.explain import QueryExplain


@dataclass(frozen=True)
class Source:
    id: int
    path: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceStatus:
    source: Source
    documents: int
    indexed: int
    failed: int
    skipped: int


@dataclass(frozen=True)
class ChunkSpan:
    """A piece of a document's text for the vector lane and for snippets."""

    start: int
    end: int
    heading: str = ""


@dataclass
class DocumentRow:
    """Everything the indexer writes for one file."""

    path: str
    ext: str
    size: int
    mtime: float
    hash: str | None
    status: str  # ok | failed | skipped
    title: str = ""
    language: str = ""
    mime: str = ""
    error: str = ""  # why it failed or was skipped; for "ok", what was left out ("partly")
    length: float = 0.0
    chunks: Sequence[tuple[ChunkSpan, str]] = ()
    terms: dict[str, float] = field(default_factory=dict)
    doc_id: int = 0


@dataclass(frozen=True)
class FailedFile:
    path: str
    status: str  # "failed" or "skipped"
    error: str


@dataclass(frozen=True)
class IndexProgress:
    phase: str  # "scanning", "indexing", "optimizing", "done"
    done: int
    total: int
    current: str = ""
    failed: int = 0


@dataclass
class EmbedReport:
    model: str = ""
    documents: int = 0
    vectors: int = 0
    seconds: float = 0.0
    cancelled: bool = False
    skipped: str = ""  # why nothing was embedded (no model, no runtime)


@dataclass
class IndexReport:
    scanned: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    moved: int = 0
    removed: int = 0
    failed: int = 0
    skipped: int = 0
    cancelled: bool = False
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    embedding: EmbedReport | None = None  # the vector step after the text, when it ran or was skipped


@dataclass(frozen=True)
class Highlight:
    start: int
    end: int


@dataclass(frozen=True)
class Hit:
    """One result. `score` is in [0, 1] within one result list."""

    doc_id: int
    path: str
    title: str
    score: float
    snippet: str = ""
    highlights: tuple[Highlight, ...] = ()
    mtime: float = 0.0
    size: int = 0
    ext: str = ""
    raw_score: float = 0.0
    chunk_start: int | None = None
    chunk_end: int | None = None


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: tuple[Hit, ...]
    total_matched: int
    relaxed: bool = False
    notes: tuple[str, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    explain: QueryExplain | None = None  # the pipeline's record, for `query`


@dataclass(frozen=True)
class StoreStatus:
    home: str
    database: str
    documents: int
    indexed: int
    failed: int
    skipped: int
    chunks: int
    terms: int
    postings: int
    size_bytes: int
    sources: tuple[SourceStatus, ...]
    problems: tuple[FailedFile, ...]


@dataclass(frozen=True)
class Check:
    """One line of `findling doctor`."""

    name: str
    ok: bool
    detail: str
