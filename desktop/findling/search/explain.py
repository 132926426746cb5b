"""The explain record: every stage's numbers, typed, for the CLI table, JSON and the GUI."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass(frozen=True)
class ListScore:
    """One result's place in one ranked list."""

    list_name: str  # "bm25 original", "bm25 lex 1", "vector original", "vector sem 2", "vector hyde"
    lane: str  # bm25 | vector
    rank: int
    raw: float  # BM25 score, or cosine similarity
    normalized: float  # BM25 min-max within the list, or cosine mapped to [0, 1]
    weight: float
    rrf: float  # weight / (k + rank)


@dataclass(frozen=True)
class ResultExplain:
    doc_id: int
    lists: tuple[ListScore, ...]
    rrf: float
    bonus: float
    fused: float
    fused_rank: int
    rerank: float | None  # None when no reranker ran
    fusion_weight: float | None  # the blend's weight on the fusion score
    blended: float | None
    final: float
    chunk_start: int | None = None
    chunk_end: int | None = None


@dataclass(frozen=True)
class Stage:
    name: str  # strong_signal, expansion, lanes, fusion, rerank, blend
    status: str  # ran | skipped
    reason: str = ""
    ms: float = 0.0
    detail: dict = field(default_factory=dict)


@dataclass(frozen=True)
class QueryExplain:
    query: str
    mode: str
    stages: tuple[Stage, ...]
    expansion: dict | None  # {"lexical": [...], "semantic": [...], "hyde": "...", "cached": bool}
    candidates: int
    results: tuple[ResultExplain, ...]
    timings_ms: dict[str, float]

    def to_dict(self) -> dict:
        return asdict(self)

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)
