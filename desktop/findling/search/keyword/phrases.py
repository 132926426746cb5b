"""Quoted phrases and NEAR, matched in every document by the word positions the index keeps
beside each posting (store: `positions`), as Xapian, tantivy and SQLite FTS5 match them: a phrase
is not looked for in the first keyword candidates only, so the one document holding
"alpha beta" among 400 holding both words apart is found at any list length.

Each document is matched in its own language: a phrase's words are analysed by every language
of the index, and the documents of each language are matched with that language's terms."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

import duckdb

from findling.store.sql import text_list
from findling.text.analyzer import DEFAULT_LANGUAGE, term_sequence
from findling.tuning import JOINED_WORDS

_NOTHING = "SELECT -1 AS doc_id WHERE false"


@lru_cache(maxsize=4096)
def phrase_in(words: tuple[str, ...], language: str) -> tuple[str, ...]:
    """A phrase's terms in a document of `language`, token by token: a page in English is matched
    by the English stems of "running shoes", a German one by the German."""
    return tuple(t for w in words for t in term_sequence(w, language or DEFAULT_LANGUAGE))


def near_in(words: tuple[str, ...], language: str) -> tuple[str, ...]:
    """A proximity set's terms in a document of `language` (phrase_in), a word the set repeats
    as often as it does: `alpha NEAR alpha` asks for two alphas close together."""
    return tuple(sorted(phrase_in(words, language)))


def lookup(cur: duckdb.DuckDBPyConnection, terms: set[str]) -> dict[str, tuple[int, int]]:
    """term -> (id, df) for the terms that occur in some document."""
    if not terms:
        return {}
    rows = cur.execute(f"SELECT term, id, df FROM terms WHERE term IN {text_list(sorted(terms))} AND df > 0").fetchall()
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
    return f" AND {column} IN (SELECT id FROM documents WHERE coalesce(language, '') IN {text_list(languages)})"


def phrase_sql(cur: duckdb.DuckDBPyConnection, words: tuple[str, ...], languages: Sequence[str]) -> str:
    """SQL selecting the documents (doc_id) whose text or title holds the phrase, word after word."""
    selects = []
    for terms, langs in _by_terms(words, languages).items():
        ids = lookup(cur, set(terms))
        if len(ids) < len(set(terms)):
            continue  # a word no document of these languages holds
        in_languages = _in_languages("p0.doc_id", langs, languages)
        if len(terms) <= JOINED_WORDS:
            joined = _joined_sql([(k, ids[t][0]) for k, t in enumerate(terms)], in_languages)
            selects.append(f"SELECT doc_id FROM ({joined})")
            continue
        held = _long_phrase_docs(cur, terms, ids, in_languages)
        selects.append(f"SELECT unnest([{', '.join(map(str, held))}]::INTEGER[]) AS doc_id" if held else _NOTHING)
    return " UNION ".join(selects) or _NOTHING


def _joined_sql(words: Sequence[tuple[int, int]], in_languages: str) -> str:
    """SQL selecting each document (doc_id) holding every (offset, term id) at its offset from
    one start of the phrase, with those starts (`starts`)."""
    (first_at, first_id), rest = words[0], words[1:]
    joins = "".join(
        f" JOIN positions p{k} ON p{k}.doc_id = p0.doc_id AND p{k}.term_id = {term_id}"
        for k, (_, term_id) in enumerate(rest, 1)
    )
    starts = f"list_transform(p0.pos, x -> x - {first_at})" if first_at else "p0.pos"
    for k, (at, _) in enumerate(rest, 1):  # where the phrase may start, narrowed by each next word
        starts = f"list_intersect({starts}, list_transform(p{k}.pos, x -> x - {at}))"
    return (
        f"SELECT p0.doc_id AS doc_id, {starts} AS starts FROM positions p0{joins} "
        f"WHERE p0.term_id = {first_id} AND len({starts}) > 0{in_languages}"
    )


def _long_phrase_docs(
    cur: duckdb.DuckDBPyConnection, terms: tuple[str, ...], ids: dict[str, tuple[int, int]], in_languages: str
) -> list[int]:
    """The documents holding a long phrase: those holding its JOINED_WORDS rarest words in their
    places (SQL), then each other word checked in its place in their positions."""
    by_rarity = sorted(enumerate(terms), key=lambda placed: (ids[placed[1]][1], placed[0]))
    rarest = sorted(by_rarity[:JOINED_WORDS])
    joined = _joined_sql([(k, ids[t][0]) for k, t in rarest], in_languages)
    starts = {
        int(doc): {int(p) for p in at} for doc, at in cur.execute(f"SELECT doc_id, starts FROM ({joined})").fetchall()
    }
    offsets: dict[int, list[int]] = defaultdict(list)  # term id -> where the rest of the phrase has it
    for k, t in by_rarity[JOINED_WORDS:]:
        offsets[ids[t][0]].append(k)
    if not starts or not offsets:
        return sorted(starts)
    rows = cur.execute(
        f"SELECT doc_id, term_id, pos FROM positions WHERE term_id IN ({', '.join(map(str, offsets))}) "
        f"AND doc_id IN ({', '.join(map(str, starts))})"
    ).fetchall()
    seen: dict[int, int] = defaultdict(int)  # how many of the rest's words each document holds
    for doc, term_id, positions in rows:
        held = starts[int(doc)]
        seen[int(doc)] += 1
        for k in offsets[int(term_id)]:
            held &= {int(p) - k for p in positions}
    return sorted(doc for doc, held in starts.items() if held and seen[doc] == len(offsets))


def near_docs(
    cur: duckdb.DuckDBPyConnection, words: tuple[str, ...], between: int, languages: Sequence[str]
) -> set[int]:
    """The documents holding every word of the set with at most `between` other words among them."""
    found: set[int] = set()
    for terms, langs in _by_terms(words, languages, near_in).items():
        ids = lookup(cur, set(terms))
        if len(ids) < len(set(terms)) or len(terms) < 2:
            continue
        by_id = {ids[t][0]: t for t in set(terms)}
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
        wanted = Counter(terms)
        found.update(doc for doc, held in marks.items() if near_marks(sorted(held), wanted, between))
    return found


def near_marks(marks: Sequence[tuple[int, str]], wanted: Mapping[str, int], between: int) -> bool:
    """Whether the (position, term) marks, in order, hold every wanted term as often as wanted
    (term -> count) with at most `between` other words among them: the narrowest stretch
    holding them (a sliding window)."""
    total = sum(wanted.values())
    seen: Counter[str] = Counter()
    short = len(wanted)  # the terms seen fewer times than wanted in the window
    lo = 0
    for position, term in marks:
        seen[term] += 1
        if seen[term] == wanted.get(term, 0):
            short -= 1
        while short == 0:
            start, first = marks[lo]
            if position - start + 1 - total <= between:
                return True
            if seen[first] == wanted.get(first, 0):
                short += 1
            seen[first] -= 1
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
