"""Why is this file not among the results of this query? The search half of the answer:
where the document stands in each lane, which filter removes it, whether the result limit or
the score floor cut it. The engine checks the file half first (missing, outside the added
folders, excluded, not indexed, failed) and hands the rest here.

`gather_*` read the index; `judge` is a pure function from those facts to the answer, so
each reason is tested on its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

import duckdb

from findling.errors import Remedy
from findling.records import Filters, Note
from findling.search.filter_table import filter_names, filter_sql
from findling.search.keyword.lane import Bm25Lane
from findling.search.query_parser import ParsedQuery
from findling.store.documents import document_matches, document_meta, terms_in_document
from findling.tuning import WHY_NOT_KEYWORD_DEPTH, WHY_NOT_SEMANTIC_DEPTH, WHY_NOT_WIDE_LIMIT

if TYPE_CHECKING:
    from findling.models.embedder import TextEmbedder
    from findling.search.vector_lane import VectorLane


@dataclass(frozen=True)
class KeywordStanding:
    rank: int | None  # among the documents the keyword lane matches; None: not matched
    matched: int  # how many documents it matches
    missing: tuple[str, ...]  # query words the document does not contain
    words: tuple[str, ...]  # the query words the lane searches for
    relaxed: bool  # no document had every word, so any word was allowed
    every_word: bool = True  # the search needs every word (match "all"); else it ranks partial matches
    constrained: bool = False  # the query has a quoted phrase or a NEAR set, which the document must hold


@dataclass(frozen=True)
class SemanticStanding:
    rank: int | None  # among documents by meaning; None: further down than WHY_NOT_SEMANTIC_DEPTH
    cosine: float | None  # its best passage's similarity to the query; None: no vectors
    passage: str = ""  # the start of that passage


@dataclass(frozen=True)
class SearchFacts:
    mode: str  # "hybrid", "keyword" or "semantic"
    limit: int
    min_score: float
    shown_rank: int | None  # where the document is in the results as asked for
    wider_rank: int | None  # where it is when WHY_NOT_WIDE_LIMIT results are asked for, without a floor
    wider_score: float | None
    weak_cut: bool = False  # nothing scored well, so only the closest few were shown
    too_weak: bool = False  # it would rank, but below the weak score while better ones are shown
    weak_floor: float = 0.0
    filter_reason: str | None = None
    keyword: KeywordStanding | None = None
    semantic: SemanticStanding | None = None
    semantic_off: Note | None = None  # why the semantic lane did not run


def without_filters(parsed: ParsedQuery) -> ParsedQuery:
    return replace(parsed, filters=Filters())


def _words(items: Sequence[str]) -> str:
    quoted = [f"“{w}”" for w in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _keyword_line(k: KeywordStanding) -> str:
    if k.rank is not None:
        line = f"keyword: #{k.rank} of {k.matched} matching documents"
        return line + (f"; it lacks {_words(k.missing)}" if k.missing else "; it has every query word")
    if not k.words:
        return "keyword: the query has no words the keyword search uses"
    if len(k.missing) == len(k.words):
        return f"keyword: no match: it contains none of {_words(k.words)}"
    if not k.missing:  # every word is there: a phrase or proximity set is not
        return "keyword: no match: it has every word, but not together as the quoted phrase or NEAR asks"
    if k.every_word:
        return f"keyword: no match: it lacks {_words(k.missing)}, and this search needs every word"
    if k.constrained:
        return f"keyword: no match: it lacks {_words(k.missing)}, or the quoted phrase or NEAR"
    return f"keyword: below #{WHY_NOT_KEYWORD_DEPTH}: it lacks {_words(k.missing)}"


def _semantic_line(s: SemanticStanding | None, off: Note | None, mode: str) -> str:
    if off:
        return f"semantic: off ({off.text})"
    if s is None:
        return "semantic: not used in this mode"
    if s.cosine is None:
        if mode == "hybrid":
            return (
                "semantic: not embedded yet (it is waiting to be embedded); until then its meaning counts as "
                "that of the embedded documents matching the keywords as well"
            )
        return "semantic: not embedded yet: it is waiting to be embedded, and search by meaning finds it after"
    where = f"#{s.rank}" if s.rank is not None else f"below #{WHY_NOT_SEMANTIC_DEPTH}"
    text = f"semantic: {where} by meaning; its closest passage has similarity {s.cosine:.2f}"
    return text + (f": “{s.passage}”" if s.passage else "")


def _lanes_told(facts: SearchFacts) -> str:
    """In hybrid mode, how the combined rank came about from each lane's, in the same sentence:
    "#32 in the combined list (#40 by keywords, #8 by meaning)"."""
    if facts.mode != "hybrid":
        return ""
    parts = []
    if facts.keyword is not None:
        parts.append(f"#{facts.keyword.rank} by keywords" if facts.keyword.rank else "no keyword match")
    if facts.semantic is not None and facts.semantic.rank is not None:
        parts.append(f"#{facts.semantic.rank} by meaning")
    elif facts.semantic is not None and facts.semantic.cosine is None:
        parts.append("not embedded yet")
    return f" in the combined list ({', '.join(parts)})" if parts else ""


def _below(score: float, floor: float) -> str:
    """ "0.03 is below": with as many decimals as it takes for a score not to look equal to its floor."""
    digits = next((d for d in range(2, 7) if f"{score:.{d}f}" != f"{floor:.{d}f}"), 6)
    return f"{score:.{digits}f} is below"


class Verdict(NamedTuple):
    reason: str  # one of WHY_NOT_REASONS
    summary: str  # one sentence
    details: tuple[str, ...]  # where it stands in each lane
    remedy: Remedy | None = None  # what would bring it in, for the face to word
    subject: str = ""


def judge(facts: SearchFacts) -> Verdict:  # noqa: C901 - one branch per verdict, in the order asked
    """The verdict on a document that is indexed and searchable."""
    lines: list[str] = []
    if facts.mode != "semantic" and facts.keyword is not None:
        lines.append(_keyword_line(facts.keyword))
    if facts.mode != "keyword":
        lines.append(_semantic_line(facts.semantic, facts.semantic_off, facts.mode))
    details = tuple(lines)
    if facts.shown_rank is not None:
        return Verdict("shown", f"It is in the results, at #{facts.shown_rank}.", details)
    if facts.filter_reason:
        return Verdict("filtered", f"The filter {facts.filter_reason} removes it.", details)
    if facts.wider_rank is not None:
        if facts.wider_score is not None and facts.wider_score < facts.min_score:
            return Verdict(
                "below_floor",
                f"Its score {_below(facts.wider_score, facts.min_score)} the score floor {facts.min_score:.2f} "
                f"(it would rank #{facts.wider_rank}).",
                details,
            )
        if facts.too_weak:
            return Verdict(
                "too_weak",
                f"It matches too weakly: its score {_below(facts.wider_score or 0.0, facts.weak_floor)} "
                f"{facts.weak_floor:.2f}, and weak results are left out when better ones exist (it would "
                f"rank #{facts.wider_rank}).",
                details,
            )
        if facts.weak_cut:
            return Verdict(
                "weak_cut",
                f"Nothing matched well, so only the closest few were shown; it ranked #{facts.wider_rank}.",
                details,
            )
        return Verdict(
            "cut_by_limit",
            f"The result limit cut it: it ranked #{facts.wider_rank}{_lanes_told(facts)} and "
            f"{facts.limit} results are shown.",
            details,
            Remedy.SHOW_MORE,
            str(facts.wider_rank),
        )
    keyword_matched = facts.keyword is not None and facts.keyword.rank is not None
    semantic_near = facts.semantic is not None and facts.semantic.rank is not None
    candidate = {"keyword": keyword_matched, "semantic": semantic_near}.get(
        facts.mode, keyword_matched or semantic_near
    )
    if not candidate and facts.mode == "semantic" and facts.semantic_off:
        off = facts.semantic_off
        return Verdict(
            "no_match",
            f"Semantic search is off, so this mode finds nothing: {off.text}.",
            details,
            off.remedy,
            off.subject,
        )
    if not candidate:
        return Verdict("no_match", "Nothing in it matches the query closely enough to be a candidate.", details)
    return Verdict(
        "ranked_low",
        f"Other documents ranked higher: it is not within the first {WHY_NOT_WIDE_LIMIT} results.",
        details,
    )


def keyword_standing(
    bm25: Bm25Lane, cur: duckdb.DuckDBPyConnection, parsed: ParsedQuery, doc_id: int, match: str
) -> KeywordStanding:
    """Where the document stands in the keyword lane for the query (filters aside)."""
    parsed = without_filters(parsed)
    meta = document_meta(cur, [doc_id]).get(doc_id)
    words = bm25.query_words(parsed, (meta.language or "") if meta is not None else None)
    present = terms_in_document(cur, doc_id, [t for _, terms in words for t in terms])
    missing = tuple(word for word, terms in words if not present.intersection(terms))
    if not parsed.has_terms:
        return KeywordStanding(None, 0, missing, tuple(w for w, _ in words), False)
    found = bm25.search(parsed, WHY_NOT_KEYWORD_DEPTH, match)
    rank = next((h.rank for h in found.hits if h.doc_id == doc_id), None)
    constrained = bool(parsed.phrases or parsed.near)
    return KeywordStanding(
        rank, found.total, missing, tuple(w for w, _ in words), found.relaxed, match == "all", constrained
    )


def semantic_standing(
    vectors: VectorLane,
    embedder: TextEmbedder,
    parsed: ParsedQuery,
    doc_id: int,
    passage: Callable[[int, int, int], str],
) -> SemanticStanding:
    """Where the document stands by meaning, and its closest passage (filters aside)."""
    model = embedder.spec.vector_key
    found = vectors.search(embedder, parsed.text, WHY_NOT_SEMANTIC_DEPTH)
    rank = next((h.rank for h in found.hits if h.doc_id == doc_id), None)
    if found.query_vector is None:
        return SemanticStanding(None, None)
    best = vectors.evidence(model, found.query_vector, [doc_id]).get(doc_id)
    if best is None:
        return SemanticStanding(None, None)
    text = " ".join(passage(doc_id, best.start_char, best.end_char).split())
    return SemanticStanding(rank, best.cosine, text[:140] + ("…" if len(text) > 140 else ""))


def filter_reason(cur: duckdb.DuckDBPyConnection, doc_id: int, filters: Filters) -> str | None:
    """The first of the query's restrictions that the document fails, as the query wrote it."""
    for name, single in filter_names(filters):
        where, params = filter_sql(single)
        if not document_matches(cur, doc_id, where, params):
            return name
    return None
