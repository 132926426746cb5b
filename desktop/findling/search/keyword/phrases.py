"""Quoted phrases and NEAR, matched in every document by the word positions the index keeps
beside each posting (store: `positions`), as Xapian, tantivy and SQLite FTS5 match them: a phrase
is not looked for in the first keyword candidates only, so the one document holding
"alpha beta" among 400 holding both words apart is found at any list length.

Each document is matched in its own language: a phrase's words are analysed by every language
of the index, and the documents of each language are matched with that language's terms."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from functools import lru_cache

import duckdb

from findling.text.analyzer import DEFAULT_LANGUAGE, term_sequence

_NOTHING = "SELECT -1 AS doc_id WHERE false"


@lru_cache(maxsize=4096)
def phrase_in(words: tuple[str, ...], language: str) -> tuple[str, ...]:
    """A phrase's terms in a document of `language`, token by token: a page in English is matched
    by the English stems of "running shoes", a German one by the German."""
    return tuple(t for w in words for t in term_sequence(w, language or DEFAULT_LANGUAGE))


def near_in(words: tuple[str, ...], language: str) -> tuple[str, ...]:
    """A proximity set's distinct terms in a document of `language` (phrase_in)."""
    return tuple(dict.fromkeys(phrase_in(words, language)))


def lookup(cur: duckdb.DuckDBPyConnection, terms: set[str]) -> dict[str, tuple[int, int]]:
    """term -> (id, df) for the terms that occur in some document."""
    if not terms:
        return {}
    # Literals, not parameters: DuckDB's Python binding converts each parameter (and each
    # list element) with module lookups that cost more than the query for a pasted
    # paragraph. Terms are analyser output, word characters only; quotes are doubled anyway.
    literals = ", ".join("'" + t.replace("'", "''") + "'" for t in sorted(terms))
    rows = cur.execute(f"SELECT term, id, df FROM terms WHERE term IN ({literals}) AND df > 0").fetchall()
    return {term: (int(term_id), int(df)) for term, term_id, df in rows}


def index_languages(cur: duckdb.DuckDBPyConnection) -> list[str]:
    """The languages the index's documents were read in ("" for none detected)."""
    rows = cur.execute("SELECT DISTINCT coalesce(language, '') FROM documents WHERE status = 'ok'").fetchall()
    return sorted(str(r[0]) for r in rows)


def _by_terms(
    words: tuple[str, ...],
    languages: Sequence[str],
    analyse: Callable[[tuple[str, ...], str], tuple[str, ...]] = phrase_in,
) -> dict[tuple[str, ...], list[str]]:
    """The languages of the index grouped by the terms they make of the words."""
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for language in languages:
        groups[analyse(words, language)].append(language)
    return {terms: langs for terms, langs in groups.items() if terms}


def _in_languages(column: str, languages: list[str], every: Sequence[str]) -> str:
    if len(languages) == len(every):
        return ""
    listed = ", ".join("'" + lang.replace("'", "''") + "'" for lang in languages)
    return f" AND {column} IN (SELECT id FROM documents WHERE coalesce(language, '') IN ({listed}))"


def phrase_sql(cur: duckdb.DuckDBPyConnection, words: tuple[str, ...], languages: Sequence[str]) -> str:
    """SQL selecting the documents (doc_id) whose text or title holds the phrase, word after word."""
    selects = []
    for terms, langs in _by_terms(words, languages).items():
        ids = lookup(cur, set(terms))
        if len(ids) < len(set(terms)):
            continue  # a word no document of these languages holds
        term_ids = [ids[t][0] for t in terms]
        joins = "".join(
            f" JOIN positions p{k} ON p{k}.doc_id = p0.doc_id AND p{k}.term_id = {term_ids[k]}"
            for k in range(1, len(term_ids))
        )
        starts = "p0.pos"
        for k in range(1, len(term_ids)):  # where the phrase may start, narrowed by each next word
            starts = f"list_intersect({starts}, list_transform(p{k}.pos, x -> x - {k}))"
        holds = f" AND len({starts}) > 0" if len(term_ids) > 1 else ""
        selects.append(
            f"SELECT p0.doc_id FROM positions p0{joins} WHERE p0.term_id = {term_ids[0]}"
            f"{holds}{_in_languages('p0.doc_id', langs, languages)}"
        )
    return " UNION ".join(selects) or _NOTHING


def near_docs(
    cur: duckdb.DuckDBPyConnection, words: tuple[str, ...], between: int, languages: Sequence[str]
) -> set[int]:
    """The documents holding every word of the set with at most `between` other words among them."""
    found: set[int] = set()
    for terms, langs in _by_terms(words, languages, near_in).items():
        ids = lookup(cur, set(terms))
        if len(ids) < len(terms) or len(terms) < 2:
            continue
        by_id = {ids[t][0]: t for t in terms}
        listed = ", ".join(str(i) for i in by_id)
        rows = cur.execute(
            f"""SELECT doc_id, term_id, pos FROM positions
                WHERE term_id IN ({listed}) AND doc_id IN (
                    SELECT doc_id FROM positions WHERE term_id IN ({listed})
                    GROUP BY doc_id HAVING count(DISTINCT term_id) = {len(by_id)})
                {_in_languages("doc_id", langs, languages)}
                ORDER BY doc_id"""
        ).fetchall()
        marks: dict[int, list[tuple[int, str]]] = defaultdict(list)
        for doc_id, term_id, positions in rows:
            marks[int(doc_id)].extend((int(p), by_id[int(term_id)]) for p in positions)
        found.update(doc for doc, held in marks.items() if near_marks(sorted(held), set(terms), between))
    return found


def near_marks(marks: Sequence[tuple[int, str]], wanted: set[str], between: int) -> bool:
    """Whether the (position, term) marks, in order, hold every wanted term with at most `between`
    other words among them: the narrowest stretch holding each term once (a sliding window)."""
    seen: dict[str, int] = {}
    lo = 0
    for position, term in marks:
        seen[term] = seen.get(term, 0) + 1
        while len(seen) == len(wanted):
            start, first = marks[lo]
            if position - start + 1 - len(wanted) <= between:
                return True
            seen[first] -= 1
            if not seen[first]:
                del seen[first]
            lo += 1
    return False


def constraint_sql(
    cur: duckdb.DuckDBPyConnection,
    phrases: Sequence[tuple[str, ...]],
    excluded: Sequence[tuple[str, ...]],
    nears: Sequence[tuple[int, tuple[str, ...]]],
    column: str = "doc_id",
) -> list[str]:
    """SQL conditions on `column`: it holds every phrase and proximity set and no excluded phrase,
    decided over the whole index."""
    if not (phrases or excluded or nears):
        return []
    languages = index_languages(cur)
    conditions = [f"{column} IN ({phrase_sql(cur, p, languages)})" for p in phrases]
    conditions += [f"{column} NOT IN ({phrase_sql(cur, p, languages)})" for p in excluded]
    for between, words in nears:
        held = sorted(near_docs(cur, words, between, languages))
        conditions.append(f"{column} IN ({', '.join(map(str, held))})" if held else "false")
    return conditions
