"""What the keyword lane reads besides postings: a candidate's text checked for the query's phrases,
NEAR sets and excluded phrases; an identifier's definition put first; a query of filters alone
listed. Each works on candidates the lane's SQL found."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import duckdb

from findling.records import Filters
from findling.search.filter_table import filter_sql
from findling.search.keyword.hits import LaneHit
from findling.search.keyword.phrases import near_in as _near_in
from findling.search.keyword.phrases import phrase_in as _phrase_in
from findling.search.keyword.plan import KeywordPlan
from findling.search.keyword.words import holds_near, holds_phrase
from findling.search.query_parser import ParsedQuery
from findling.store.documents import dated_sql
from findling.store.sql import id_list
from findling.store.symbols import matching_symbols, needle_name
from findling.text.analyzer import DEFAULT_LANGUAGE, fold, identifier_term, term_sequence


def definitions_first(
    cur: duckdb.DuckDBPyConnection, parsed: ParsedQuery, hits: tuple[LaneHit, ...]
) -> tuple[LaneHit, ...]:
    """An identifier the query names (`rotate_backups`, `readFileSync`) goes to its definition:
    the files among the hits that define it by that very name rank first, scored as the best
    hit (a README naming it ten times outscored the module defining it once), their evidence
    halfway from the best hit's to full: a definition is a better match than any mention, and
    its relevance says so (the module and a file calling it both showed .71, the caller first
    as the newer)."""
    names = {fold(w).lower() for words in parsed.groups if len(words) == 1 for w in words if identifier_term(w)}
    if not hits or not names:
        return hits
    ids = [h.doc_id for h in hits]
    defining = {
        doc
        for name in names
        for doc, symbol in matching_symbols(cur, [name], ids, 4 * len(ids))
        if symbol.name.lower() == name
    }
    if not defining or all(h.doc_id in defining for h in hits[: len(defining)]):
        return hits
    top = hits[0]
    lifted = [
        replace(h, score=top.score * (1 + 1e-6), saturation=max(h.saturation, (1 + top.saturation) / 2))
        if h.doc_id in defining
        else h
        for h in hits
    ]
    ordered = sorted(lifted, key=lambda h: h.doc_id not in defining)  # stable: each side keeps its order
    return tuple(replace(h, rank=i) for i, h in enumerate(ordered, 1))


def check_phrases(
    cur: duckdb.DuckDBPyConnection, rows: list[tuple[Any, ...]], plan: KeywordPlan, limit: int
) -> list[tuple[Any, ...]]:
    """Keep candidates whose text holds every phrase and proximity set and no excluded phrase,
    best first. A proximity set is checked within one chunk, as a phrase is (a chunk is about
    800 tokens, far wider than any NEAR)."""
    kept: list[tuple[Any, ...]] = []
    step = max(limit * 2, 50)
    for offset in range(0, len(rows), step):
        part = rows[offset : offset + step]
        ids = [int(r[0]) for r in part]
        texts: dict[int, list[tuple[str, str]]] = {}
        for doc_id, text, language, _ordinal in cur.execute(
            f"""SELECT id, title, language, -1 AS ordinal FROM documents WHERE id IN {id_list(ids)}
               UNION ALL
               SELECT c.doc_id, c.text, d.language, c.ordinal FROM chunks c JOIN documents d ON d.id = c.doc_id
               WHERE c.doc_id IN {id_list(ids)} ORDER BY 1, 4"""
        ).fetchall():
            texts.setdefault(doc_id, []).append((text or "", language or ""))
        for row in part:
            chunks = texts.get(int(row[0]), [])
            sequences = [(term_sequence(text, lang or DEFAULT_LANGUAGE), lang) for text, lang in chunks]
            if (
                all(any(holds_phrase(seq, _phrase_in(p, lang)) for seq, lang in sequences) for p in plan.phrases)
                and all(
                    any(holds_near(seq, _near_in(words, lang), window) for seq, lang in sequences)
                    for window, words in plan.nears
                )
                and not any(
                    any(holds_phrase(seq, _phrase_in(p, lang)) for seq, lang in sequences)
                    for p in plan.excluded_phrases
                )
            ):
                kept.append(row)
                if len(kept) >= limit:
                    return kept
    return kept


def browse(cur: duckdb.DuckDBPyConnection, filters: Filters, limit: int) -> tuple[tuple[LaneHit, ...], int]:
    """A query of filters only (`ext:pdf after:7d`): newest first; with `sym:`, the files whose
    definitions match it best first (an exact name before longer ones)."""
    where, params = filter_sql(filters)
    if filters.symbols:
        ids = [r[0] for r in cur.execute(f"SELECT id FROM documents d WHERE status = 'ok'{where}", params).fetchall()]
        best: dict[int, float] = {}
        wanted = needle_name(filters.symbols[-1])
        for doc, symbol in matching_symbols(cur, filters.symbols, ids, 20 * limit):
            # an exact name scores 1; a longer one, the share of it the query spells, halved
            name = symbol.name.lower()
            best.setdefault(doc, 1.0 if name == wanted else 0.5 * len(wanted) / max(1, len(name)))
        ranked = list(best.items())[:limit]
        return tuple(LaneHit(doc, score, i + 1) for i, (doc, score) in enumerate(ranked)), len(ids)
    rows = cur.execute(
        f"""SELECT id, count(*) OVER () FROM documents d WHERE status = 'ok'{where}
            ORDER BY {dated_sql("d")} DESC, id LIMIT ?""",
        [*params, limit],
    ).fetchall()
    return tuple(LaneHit(int(r[0]), 0.0, i + 1) for i, r in enumerate(rows)), (rows[0][1] if rows else 0)
