"""The SQL pieces the keyword lane's statements are made of: a posting's BM25 part, what a
document matched, its coverage of the query's idf mass, the priors against pages of links and
giants, a document's long-page weight, the languages a term is read in. Pure functions of the
plan (keyword/plan.py); each Python twin (keyword/evidence.py, relevance.py) is held equal to
its SQL by tests/search/test_sql_twins.py."""

from __future__ import annotations

from collections.abc import Mapping

from findling.search.keyword.plan import KeywordPlan
from findling.search.relevance import giant_prior
from findling.store.sql import text_list
from findling.tuning import HUB_FLOOR, HUB_FROM, HUB_TO, LONG_PAGE, NAMED, REFERENCE_LENGTH


def long_page_sql(length: str) -> str:
    """long_page_weight in SQL, of one document's length: the evidence's title bonus is the
    document's own, where the ranking's is the folder's average's."""
    ratio = f"(({length}) / {LONG_PAGE!r}::DOUBLE)"
    return f"({ratio} * {ratio} / (1 + {ratio} * {ratio}))"


def posting_bm25_sql(idf: dict[int, float], k1: float, b: float, reference: bool = False) -> str:
    """A posting's BM25 part; its one parameter the average document length (`reference`:
    none, the length is REFERENCE_LENGTH: the evidence's score)."""
    idf_case = " ".join(f"WHEN {int(i)} THEN {idf[i]!r}" for i in sorted(idf))
    length = f"{REFERENCE_LENGTH!r}::DOUBLE" if reference else "?"
    return f"(CASE term_id {idf_case} END) * tf * {k1 + 1!r} / (tf + {k1!r} * ({1 - b!r} + {b!r} * dl / {length}))"


def prior_sql(named: str, giants: Mapping[int, float]) -> str:
    """The priors against pages of links and giant documents (relevance.hub_prior and
    giant_prior) in SQL, over `h.share` and `m.doc_id` (`giants`: each giant document's length
    over the average); 1 where `named` (SQL for the share of the query's weight in the title
    field) names the document."""
    links = (
        f"(1 - {1 - HUB_FLOOR!r}::DOUBLE * greatest(0, least(1, "
        f"(coalesce(h.share, 0) - {HUB_FROM!r}::DOUBLE) / {HUB_TO - HUB_FROM!r}::DOUBLE)))"
    )
    if giants:
        arms = " ".join(f"WHEN {int(d)} THEN {giant_prior(r)!r}::DOUBLE" for d, r in sorted(giants.items()))
        links = f"{links} * (CASE m.doc_id {arms} ELSE 1 END)"
    return f"(CASE WHEN {named} >= {NAMED!r} THEN 1 ELSE {links} END)"


def language_sql(apart: Mapping[int, frozenset[str]], language_docs: Mapping[str, int]) -> tuple[str, ...]:
    """Conditions on a posting row (term_id, doc_id): a term only some of the index's languages
    make counts in those languages' documents only (analyzer.stemmed_apart). None where every
    language stems the query alike, as in an index of one language. Each names the smaller
    side, the documents in those languages or those in the others: English among a few
    translated pages is the few."""
    by_languages: dict[frozenset[str], list[int]] = {}
    for term, languages in sorted(apart.items()):
        by_languages.setdefault(languages, []).append(term)
    out = []
    total = sum(language_docs.values())
    for languages, terms in sorted(by_languages.items(), key=lambda item: item[1]):
        inside = sum(count for language, count in language_docs.items() if language in languages)
        if inside <= total - inside:
            named, test = languages, "IN"
        else:
            named, test = frozenset(language_docs) - languages, "NOT IN"
        listed = text_list(sorted(named))
        out.append(
            f"""(term_id NOT IN ({", ".join(str(int(t)) for t in terms)})
                 OR doc_id {test} (SELECT id FROM documents WHERE coalesce(language, '') IN {listed}))"""
        )
    return tuple(out)


def mask_case_sql(plan: KeywordPlan) -> str:
    """The CASE arms giving each query term's group bits."""
    return " ".join(f"WHEN {int(i)} THEN {int(plan.term_masks[i])}" for i in sorted(plan.term_masks))


def matched_sql(bm25: str, mask_case: str, conditions: list[str], fixed: str = "0") -> str:
    """Every document holding a query term: its BM25 score and the groups it matched.
    Parameters: the average document length, then the required mask twice. Used as a
    MATERIALIZED CTE whose rows a scalar subquery counts: a window count over them cost 3 of a
    search's 14 ms at 100k documents (and DuckDB 1.5.5 once failed an internal check on a
    window over a join's output). `fixed`: the evidence's score (REFERENCE_LENGTH)."""
    return f"""
                SELECT doc_id,
                       sum({bm25}) AS score,
                       bit_or(CASE term_id {mask_case} END) AS mask,
                       sum({fixed}) AS fixed
                FROM postings
                WHERE {" AND ".join(conditions)}
                GROUP BY doc_id
                HAVING (mask & ?) = ?"""


def coverage_sql(group_idf: tuple[float, ...], mask: str) -> str:
    """SQL for the share of the query's idf mass that the groups set in `mask` hold."""
    mass = sum(group_idf)
    # DOUBLE literals: DuckDB reads 0.98 as a DECIMAL, and a sum of sixteen of them can
    # overflow the DECIMAL type it infers
    parts = [f"(({mask} >> {bit}) & 1) * {idf!r}::DOUBLE" for bit, idf in enumerate(group_idf) if idf > 0]
    return f"(({' + '.join(parts)}) / {mass!r}::DOUBLE)"
