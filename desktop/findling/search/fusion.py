"""Weighted Reciprocal Rank Fusion with a top-rank bonus: a pure function over ranked lists.

    score(d) = Σ_lists w_list / (k + rank_list(d))   (rank 1-based)
             + 0.05 if d was first in any list, else 0.02 if it was 2nd or 3rd in any list

Ties break by first appearance: lists are read in the order given, each best first."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from findling.records import Lane


@dataclass(frozen=True)
class RankedList:
    name: str  # e.g. "bm25 original", "vector hyde"
    lane: Lane
    weight: float
    doc_ids: tuple[int, ...]  # best first
    scores: tuple[float, ...] = ()  # the lane's own scores, for the explain record


@dataclass(frozen=True)
class Contribution:
    list_name: str
    lane: Lane
    rank: int
    weight: float
    rrf: float  # weight / (k + rank)
    lane_score: float | None


@dataclass(frozen=True)
class Fused:
    doc_id: int
    score: float  # rrf + bonus
    rrf: float
    bonus: float
    best_rank: int
    contributions: tuple[Contribution, ...]


def rank_bonus(best_rank: int, first: float = 0.05, top3: float = 0.02) -> float:
    if best_rank == 1:
        return first
    if best_rank <= 3:
        return top3
    return 0.0


def weighted_rrf(
    lists: Sequence[RankedList], k: float = 60.0, bonus_first: float = 0.05, bonus_top3: float = 0.02
) -> list[Fused]:
    contributions: dict[int, list[Contribution]] = {}
    first_seen: dict[int, int] = {}
    for ranked in lists:
        for position, doc_id in enumerate(ranked.doc_ids):
            rank = position + 1
            score = ranked.scores[position] if position < len(ranked.scores) else None
            contributions.setdefault(doc_id, []).append(
                Contribution(ranked.name, ranked.lane, rank, ranked.weight, ranked.weight / (k + rank), score)
            )
            first_seen.setdefault(doc_id, len(first_seen))
    fused = []
    for doc_id, parts in contributions.items():
        rrf = sum(c.rrf for c in parts)
        best = min(c.rank for c in parts)
        bonus = rank_bonus(best, bonus_first, bonus_top3)
        fused.append(Fused(doc_id, rrf + bonus, rrf, bonus, best, tuple(parts)))
    fused.sort(key=lambda f: (-f.score, first_seen[f.doc_id]))
    return fused
