"""The keyword lane's plan of a query (its groups, their bits and idf, what a document must hold)
and the SQL pieces the lane's statements are made of: what a document matched, its coverage of
the query's idf mass, the priors against pages of links and giants, the languages a term is
read in. Pure functions of the plan (tests/search/test_sql_twins.py holds the SQL and the Python
twins equal)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from findling.search.keyword.words import (
    WordGroup,
)
from findling.search.relevance import giant_prior
from findling.text.analyzer import (
    is_unspaced,
)
from findling.tuning import HUB_FLOOR, HUB_FROM, HUB_TO, LONG_PAGE, NAMED, REFERENCE_LENGTH


@dataclass(frozen=True)
class _CorpusStats:
    at: float  # time.monotonic() when read
    documents: int
    average_length: float
    languages: tuple[str, ...]
    giants: dict[int, float]  # document -> its length over the average, where the prior against giants applies
    language_docs: dict[str, int]  # each language's documents ("": none detected)


@dataclass(frozen=True)
class _Plan:
    term_masks: dict[int, int]  # term id -> bitmask of the groups it serves
    dfs: dict[int, int]  # term id -> document frequency
    required: int
    excluded_ids: tuple[int, ...]
    # each quoted phrase's words as written, analysed in each document's own language (phrases.py)
    phrases: tuple[tuple[str, ...], ...]
    excluded_phrases: tuple[tuple[str, ...], ...]
    terms: tuple[str, ...]
    nears: tuple[tuple[int, tuple[str, ...]], ...] = ()  # (other words allowed between, the words)
    group_idf: tuple[float, ...] = ()  # each group's weight; a word no document holds weighs the most
    # each term's weight in the BM25 sum: its group's idf, times how often a long query repeats it
    term_idf: dict[int, float] = field(default_factory=dict)
    most: bool = False  # match "most": any word, the title field and nearness counting too
    every: int = 0  # the groups that match "all" requires
    word_groups: tuple[frozenset[str], ...] = ()  # those groups' terms, for their nearness in a text
    # the query has function words ("what is RCU"): it asks something, it does not name a page
    sentence: bool = False
    # a stem only some of the index's languages make is matched in their documents only: the
    # conditions on a posting row saying so (_language_sql), for the query's terms and for its
    # excluded words' terms; and each such term with those languages, for texts
    in_language: tuple[str, ...] = ()
    excluded_in_language: tuple[str, ...] = ()
    apart: dict[str, frozenset[str]] = field(default_factory=dict)
    # the query's best match's evidence score over its ranking score (REFERENCE_LENGTH): every
    # candidate's saturation is its score times this, so the evidence keeps the lane's order and
    # its level is the best match's own, whatever the folder's average length; 0: not known yet
    anchor: float = 0.0


def long_page_weight(avgdl: float) -> float:
    """How much a folder's pages are long pages, from its average length in words: 0 for
    abstracts and notes, toward 1 for a manual's pages."""
    ratio = (avgdl / LONG_PAGE) ** 2
    return ratio / (1.0 + ratio)


def _long_page_sql(length: str) -> str:
    """long_page_weight in SQL, of one document's length: the evidence's title bonus is the
    document's own, where the ranking's is the folder's average's."""
    ratio = f"(({length}) / {LONG_PAGE!r}::DOUBLE)"
    return f"({ratio} * {ratio} / (1 + {ratio} * {ratio}))"


def _posting_bm25_sql(idf: dict[int, float], k1: float, b: float, reference: bool = False) -> str:
    """A posting's BM25 part; its one parameter the average document length (`reference`:
    none, the length is REFERENCE_LENGTH: the evidence's score)."""
    idf_case = " ".join(f"WHEN {int(i)} THEN {idf[i]!r}" for i in sorted(idf))
    length = f"{REFERENCE_LENGTH!r}::DOUBLE" if reference else "?"
    return f"(CASE term_id {idf_case} END) * tf * {k1 + 1!r} / (tf + {k1!r} * ({1 - b!r} + {b!r} * dl / {length}))"


def _required(match: str, every: int, phrases: int, whole_words: int) -> int:
    """The groups a document must match: a quoted phrase's in every mode; with "all", every
    word (but stopwords); with "most", the parts of each split word together."""
    if match == "all":
        return phrases | every
    return phrases | (whole_words if match == "most" else 0)


def _split_words(planned: list[WordGroup]) -> list[int]:
    """The group bits of each query word of an unspaced script that was split into bigrams
    (one bit per bigram). The parts of a word joined by a hyphen or a dot (IL-6, β-blockers,
    os.path) are words of their own: coverage ranks a document that lacks one lower. Required
    together, they dropped every abstract that spells a claim's term another way (SciFact
    train nDCG@10 .588 -> .702 without; the other tuning sets unchanged)."""
    words: dict[str, int] = {}
    for bit, group in enumerate(g for g in planned if not g.phrase):
        if is_unspaced(group.label):
            words[group.label] = words.get(group.label, 0) | (1 << bit)
    return [bits for bits in words.values() if bits & (bits - 1)]


def _whole_words(compounds: list[int], term_masks: dict[int, int]) -> int:
    """The bits of the split words whose parts all occur in the index: each such word's parts
    are required together. A word with a part no document holds stays optional, as any
    other word the index lacks."""
    known = 0
    for mask in term_masks.values():
        known |= mask
    return sum(bits for bits in compounds if bits & known == bits)


def _prior_sql(named: str, giants: Mapping[int, float]) -> str:
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


def _language_sql(apart: Mapping[int, frozenset[str]], language_docs: Mapping[str, int]) -> tuple[str, ...]:
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
        listed = ", ".join("'" + language.replace("'", "''") + "'" for language in sorted(named)) or "NULL"
        out.append(
            f"""(term_id NOT IN ({", ".join(str(int(t)) for t in terms)})
                 OR doc_id {test} (SELECT id FROM documents WHERE coalesce(language, '') IN ({listed})))"""
        )
    return tuple(out)


def _mask_case(plan: _Plan) -> str:
    """The CASE arms giving each query term's group bits."""
    return " ".join(f"WHEN {int(i)} THEN {int(plan.term_masks[i])}" for i in sorted(plan.term_masks))


def _matched_sql(bm25: str, mask_case: str, conditions: list[str], fixed: str = "0") -> str:
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


def _dominant(plan: _Plan) -> int | None:
    """The query term whose postings outnumber all the others' four to one, if its groups are
    its own (so a document's mask tells whether it holds it): what MaxScore leaves unscored."""
    if len(plan.term_masks) < 2:
        return None
    term = max(plan.term_masks, key=lambda t: (plan.dfs[t], t))
    rest = sum(df for t, df in plan.dfs.items() if t != term and t in plan.term_masks)
    shared = any(m & plan.term_masks[term] for t, m in plan.term_masks.items() if t != term)
    return term if plan.dfs[term] >= 4 * rest and not shared else None


def _coverage(group_idf: tuple[float, ...], mask: int) -> float:
    """The share of the query's idf mass that the groups set in `mask` hold (_coverage_sql's);
    the mass is above 0."""
    mass = sum(group_idf)
    return sum(idf for bit, idf in enumerate(group_idf) if idf > 0 and mask >> bit & 1) / mass


def _coverage_sql(group_idf: tuple[float, ...], mask: str) -> str:
    """SQL for the share of the query's idf mass that the groups set in `mask` hold."""
    mass = sum(group_idf)
    # DOUBLE literals: DuckDB reads 0.98 as a DECIMAL, and a sum of sixteen of them can
    # overflow the DECIMAL type it infers
    parts = [f"(({mask} >> {bit}) & 1) * {idf!r}::DOUBLE" for bit, idf in enumerate(group_idf) if idf > 0]
    return f"(({' + '.join(parts)}) / {mass!r}::DOUBLE)"


def _evidence(plan: _Plan, mask: int, score: float, k1: float) -> tuple[float, float]:
    """(coverage, saturation): the idf mass of the query groups a document matched over
    the whole query's, and its evidence score (`score` times the plan's anchor) over the most
    any document could score (every group matched with a saturated term frequency)."""
    score *= plan.anchor or 1.0
    mass = sum(plan.group_idf)
    if mass <= 0:
        return 0.0, 0.0
    return min(1.0, _coverage(plan.group_idf, mask)), min(1.0, max(0.0, score / (mass * (k1 + 1))))
