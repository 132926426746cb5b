"""Position-aware blending of fusion and rerank scores.

The fused order is trusted most at the top (exact keyword and vector agreement is rarely
wrong there) and the reranker more further down:
ranks 1–3: 0.75·fusion + 0.25·rerank; 4–10: 0.60/0.40; 11+: 0.40/0.60. Both inputs are
absolute relevance estimates in [0, 1] (search/relevance.py and the reranker's
probability), so the blend is one too: never rescaled by the list it is in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from findling.tuning import BLEND_BANDS


@dataclass(frozen=True)
class Blended:
    index: int  # position in the fused input
    fusion: float
    rerank: float
    fusion_weight: float
    score: float


def fusion_weight(rank: int, bands: Sequence[tuple[int, float]] = BLEND_BANDS) -> float:
    for last_rank, weight in bands:
        if rank <= last_rank:
            return weight
    return bands[-1][1]


def blend(
    fusion_scores: Sequence[float], rerank_scores: Sequence[float], bands: Sequence[tuple[int, float]] = BLEND_BANDS
) -> list[Blended]:
    """Inputs in fused order (rank 1 first); output sorted by blended score, ties keeping
    the fused order."""
    if len(fusion_scores) != len(rerank_scores):
        raise ValueError("one rerank score per fused candidate")
    out = []
    for i, (fn, rr) in enumerate(zip(fusion_scores, rerank_scores)):
        w = fusion_weight(i + 1, bands)
        out.append(Blended(i, fn, rr, w, w * fn + (1 - w) * rr))
    out.sort(key=lambda b: (-b.score, b.index))
    return out
