"""The explain record of a Keyword-mode search: the one list it ranked by, each result's place
and evidence in it, and the pipeline's other stages said to be off in this mode, so the
Explain panel tells the same kind of story in every mode."""

from __future__ import annotations

from collections.abc import Sequence

from findling.records import Evidence, ListScore, QueryExplain, ResultExplain, Stage
from findling.search.keyword.hits import Bm25Result
from findling.search.results import RankedEntry

KEYWORD_LIST = "bm25 original"
_OFF = "Keyword mode ranks by the words alone"


def keyword_explain(
    query: str, lane: Bm25Result, entries: Sequence[RankedEntry], lane_ms: float, listed: set[int]
) -> QueryExplain:
    """`entries`: the ranking as scored (raw BM25, the relevance shown); `listed`: the
    documents the list shows, whose rows the record keeps."""
    by_doc = {h.doc_id: h for h in lane.hits}
    top = max((e.raw for e in entries), default=0.0) or 1.0
    results = []
    for rank, entry in enumerate(entries, 1):
        if entry.doc_id not in listed:
            continue
        hit = by_doc.get(entry.doc_id)
        evidence = Evidence(coverage=hit.coverage, saturation=hit.saturation) if hit else Evidence()
        place = ListScore(KEYWORD_LIST, "bm25", rank, entry.raw, entry.raw / top, 1.0, 0.0)
        results.append(
            ResultExplain(
                entry.doc_id,
                (place,),
                rrf=0.0,
                bonus=0.0,
                fused=entry.score,
                fused_rank=rank,
                rerank=None,
                fusion_weight=None,
                blended=None,
                final=entry.score,
                evidence=evidence,
                relevance=entry.score,
            )
        )
    stages = (
        Stage("strong_signal", "skipped", _OFF),
        Stage("expansion", "skipped", _OFF),
        Stage("lanes", "ran", "keywords only", round(lane_ms, 2), {"bm25": lane.total}),
        Stage("fusion", "skipped", "one list: nothing to combine"),
        Stage("rerank", "skipped", _OFF),
        Stage("blend", "skipped", _OFF),
    )
    return QueryExplain(query, "bm25", stages, None, lane.total, tuple(results), {"bm25": round(lane_ms, 2)})
