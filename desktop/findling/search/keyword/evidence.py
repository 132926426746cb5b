"""What a keyword match is evidence of, in Python: how much of the query's idf mass a document
holds (coverage), how saturated its score is, and how much a folder's pages are long pages. The
SQL twins of these (keyword/sql.py) are held equal to them by tests/search/test_sql_twins.py."""

from __future__ import annotations

from findling.search.keyword.plan import KeywordPlan
from findling.tuning import LONG_PAGE


def long_page_weight(avgdl: float) -> float:
    """How much a folder's pages are long pages, from its average length in words: 0 for
    abstracts and notes, toward 1 for a manual's pages."""
    ratio = (avgdl / LONG_PAGE) ** 2
    return ratio / (1.0 + ratio)


def coverage_of(group_idf: tuple[float, ...], mask: int) -> float:
    """The share of the query's idf mass that the groups set in `mask` hold (coverage_sql's);
    the mass is above 0."""
    mass = sum(group_idf)
    return sum(idf for bit, idf in enumerate(group_idf) if idf > 0 and mask >> bit & 1) / mass


def evidence_of(plan: KeywordPlan, mask: int, score: float, k1: float) -> tuple[float, float]:
    """(coverage, saturation): the idf mass of the query groups a document matched over
    the whole query's, and its evidence score (`score` times the plan's anchor) over the most
    any document could score (every group matched with a saturated term frequency)."""
    score *= plan.anchor or 1.0
    mass = sum(plan.group_idf)
    if mass <= 0:
        return 0.0, 0.0
    return min(1.0, coverage_of(plan.group_idf, mask)), min(1.0, max(0.0, score / (mass * (k1 + 1))))
