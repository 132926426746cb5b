"""What the keyword lane answers: its hits, each with the evidence of how much of the query it
matched, and the result of one search."""

from __future__ import annotations

from dataclasses import dataclass

from findling.search.keyword.plan import KeywordPlan


@dataclass(frozen=True)
class LaneHit:
    doc_id: int
    score: float
    rank: int  # 1-based
    coverage: float = 0.0  # share of the query's idf mass this document matched, [0, 1]
    saturation: float = 0.0  # score / the most any document could score for the query, [0, 1)


@dataclass(frozen=True)
class Bm25Result:
    hits: tuple[LaneHit, ...]
    total: int  # documents matching, before the limit
    relaxed: bool  # "all terms" found nothing, so any term was allowed
    terms: tuple[str, ...]  # the analysed terms used, for highlighting
    ms: float
    plan: KeywordPlan | None = None  # what was scored: evidence for other documents reuses it
