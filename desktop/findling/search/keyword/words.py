"""The words of a query as the keyword lane reads them: its groups (a word, its stems in each of
the index's languages, its synonyms, what a prefix stands for), an identifier's parts, a pasted
paragraph's most telling words, their idf; and quoted phrases and NEAR sets checked in a text."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

import duckdb

from findling.search.keyword.phrases import lookup as _lookup
from findling.search.keyword.phrases import near_marks
from findling.search.query_parser import ParsedQuery
from findling.text.analyzer import (
    WORD_CONTINUES,
    fold,
    identifier_parts,
    is_stopword,
    query_terms,
    query_token_terms,
    stemmed_apart,
)
from findling.text.synonyms import with_synonyms
from findling.tuning import PREFIX_EXPANSIONS

_PREFIX = re.compile(rf"^((?:\w|[{WORD_CONTINUES}]){{2,}})\*$")


def idf_of(df: int, n_docs: int) -> float:
    return math.log10(1 + (n_docs - df + 0.5) / (df + 0.5))


def idf_of_group(terms: list[str], ids: Mapping[str, tuple[int, int]], n_docs: int) -> float:
    """One idf for all of a group's terms, its commonest's: the alternatives are one thing the
    query asks for (a word's stems in each language of the index, its synonyms, what a prefix
    stands for), not rarer words worth more. Each term's own idf let the Portuguese stem of
    "code" ("cod", in the one page of the Python docs read as Portuguese) weigh as a word
    found once, and that table of names ranked first for questions it does not answer. A
    group no document holds weighs the most."""
    return idf_of(max((ids[t][1] for t in terms if t in ids), default=0), n_docs)


def identifiers_by_parts(
    cur: duckdb.DuckDBPyConnection, planned: list[WordGroup], languages: list[str]
) -> list[WordGroup]:
    """An identifier no document holds whole is matched by its words, each a group as a split
    word's parts are: `parseKnownArgs` finds `parse_known_args`, `thread_pool_executor` finds
    `ThreadPoolExecutor` (a document indexes an identifier's words beside it)."""
    asked = {t for g in planned if g.parts for t in g.terms}
    if not asked:
        return planned
    known = _lookup(cur, asked)
    out: list[WordGroup] = []
    for group in planned:
        if not group.parts or any(t in known for t in group.terms):
            out.append(group)
            continue
        for part in group.parts:
            terms = tuple(query_terms(part, languages))
            apart = stemmed_apart([part], languages)
            out.append(WordGroup(group.label, terms, False, apart=tuple((t, apart[t]) for t in terms if t in apart)))
    return out


def languages_apart(planned: list[WordGroup]) -> dict[str, frozenset[str]]:
    """The query's terms matched only in some languages' documents, each with those languages:
    a term some group takes in any language (or a phrase takes) is matched in every document."""
    apart: dict[str, frozenset[str]] = {}
    free: set[str] = set()
    for group in planned:
        only = dict(group.apart)
        for term in group.terms:
            if term in only:
                apart[term] = apart.get(term, frozenset()) | only[term]
            else:
                free.add(term)
    return {term: languages for term, languages in apart.items() if term not in free}


def top_groups(
    cur: duckdb.DuckDBPyConnection, groups: list[tuple[list[str], bool]], keep: int, n_docs: int
) -> tuple[list[tuple[list[str], bool]], list[float], dict[str, tuple[int, int]]]:
    """A pasted paragraph's most telling words: each distinct group weighed by idf × how
    often the query repeats it, the best `keep` kept (with that count as their weight).
    Every query word is a scan of its postings; past a couple of dozen, the rare ones
    decide the ranking and the common ones only cost time (`findling eval` on paragraph
    queries measures how many to keep)."""
    counts: dict[tuple[str, ...], int] = {}
    for terms, _ in groups:
        key = tuple(terms)
        counts[key] = counts.get(key, 0) + 1
    ids = _lookup(cur, {t for key in counts for t in key})
    weight = {
        key: count * idf_of_group(list(key), ids, n_docs)
        for key, count in counts.items()
        if any(t in ids for t in key)  # words no document holds match nothing
    }
    kept = sorted(weight, key=lambda key: -weight[key])[:keep]
    return [(list(key), False) for key in kept], [float(counts[key]) for key in kept], ids


@dataclass(frozen=True)
class WordGroup:
    """One thing the query asks a document to hold: any of `terms` matches it."""

    label: str  # the words as the query wrote them ("cat or dog")
    terms: tuple[str, ...]
    stop: bool  # function words only ("how", "the")
    phrase: bool = False  # a word of a quoted phrase: always required, matched in order
    # terms only some of the index's languages make, each with them (analyzer.stemmed_apart)
    apart: tuple[tuple[str, frozenset[str]], ...] = ()
    # an identifier's words (`parseKnownArgs`: parse, Known, Args): what it is matched by where
    # no document holds it whole (identifiers_by_parts)
    parts: tuple[str, ...] = ()


def word_groups(
    parsed: ParsedQuery, languages: list[str], synonyms: Mapping[str, tuple[str, ...]] | None = None
) -> list[WordGroup]:
    """The query's words as the lane matches them, one rule for ranking, highlighting and
    why-not: each group of alternatives analysed in every language the index holds; a
    compound ("foo-bar", "a.b.c", the bigrams of 北京大学) split into parts (those of an
    unspaced script must match together: split_words); function and question words dropped
    unless nothing else is left ("how do I report a bug" keeps report and bug, "to be or not
    to be" keeps them all); then each distinct term of each quoted phrase, analysed as the
    phrase is matched. A word's synonyms (text/synonyms.py) are alternatives of its group."""
    groups: list[WordGroup] = []
    for words in parsed.groups:
        stop = all(is_stopword(w) for w in words)
        written = with_synonyms(words, synonyms or {})
        tokens = query_token_terms(written[0], languages) if len(written) == 1 and not prefix_term(written[0]) else []
        if len(tokens) > 1:
            # a split word: each part a group, matched in whichever language the index holds
            apart = stemmed_apart(written, languages)
            # a part that is a function word alone (the s of "cat's", the ll of "we'll") is one:
            # dropped beside the word's others, never required nor lit up in "Marmalade's"
            groups.extend(
                WordGroup(
                    words[0],
                    tuple(terms),
                    stop or all(is_stopword(t) for t in terms),
                    apart=tuple((t, apart[t]) for t in terms if t in apart),
                )
                for terms in tokens
            )
            continue
        alternatives = [[prefix] if (prefix := prefix_term(w)) else query_terms(w, languages) for w in written]
        terms = tuple(t for alt in alternatives for t in alt)
        apart = stemmed_apart([w for w in written if not prefix_term(w)], languages)
        groups.append(
            WordGroup(
                " or ".join(words),
                terms,
                stop,
                apart=tuple((t, apart[t]) for t in terms if t in apart),
                parts=tuple(identifier_parts(written[0])) if len(written) == 1 else (),
            )
        )
    if not all(g.stop for g in groups):
        groups = [g for g in groups if not g.stop]
    for phrase in (*parsed.phrases, *(words for _, words in parsed.near)):  # every word of both is required
        seen: set[tuple[str, ...]] = set()
        for word in phrase:
            apart = stemmed_apart([word], languages)
            for options in query_token_terms(word, languages):
                token = tuple(options)
                if token not in seen:
                    seen.add(token)
                    only = tuple((t, apart[t]) for t in token if t in apart)
                    groups.append(WordGroup(word, token, False, phrase=True, apart=only))
    return groups


def prefix_term(word: str) -> str | None:
    """`instal*` as the lane matches it: the folded beginning, marked with its `*` (terms never
    hold one); None for a plain word."""
    match = _PREFIX.match(word)
    return fold(match.group(1)).lower() + "*" if match else None


def _expand_prefixes(cur: duckdb.DuckDBPyConnection, prefixes: set[str]) -> dict[str, dict[str, tuple[int, int]]]:
    """Each prefix term's index terms (term -> (id, df)), most frequent first. The index holds
    stems ("installation" is "instal"), so a prefix longer than a word's stem ("installat*")
    also takes the stems it begins with, from four letters on."""
    found: dict[str, dict[str, tuple[int, int]]] = {}
    for prefix in prefixes:
        start = prefix[:-1]
        rows = cur.execute(
            """SELECT term, id, df FROM terms WHERE df > 0
               AND (starts_with(term, ?) OR (starts_with(?, term) AND length(term) >= 4))
               ORDER BY df DESC, term LIMIT ?""",
            [start, start, PREFIX_EXPANSIONS],
        ).fetchall()
        found[prefix] = {str(term): (int(term_id), int(df)) for term, term_id, df in rows}
    return found


def with_prefixes(
    cur: duckdb.DuckDBPyConnection, groups: list[tuple[list[str], bool]]
) -> tuple[list[tuple[list[str], bool]], dict[str, tuple[int, int]]]:
    """The groups with each prefix term replaced by the index terms it stands for (a prefix
    nothing begins stays, and matches nothing), and those terms' (id, df)."""
    prefixes = {t for terms, _ in groups for t in terms if t.endswith("*")}
    if not prefixes:
        return groups, {}
    expanded = _expand_prefixes(cur, prefixes)
    known = {term: ids for found in expanded.values() for term, ids in found.items()}

    def replaced(terms: list[str]) -> list[str]:
        return [x for t in terms for x in ((list(expanded[t]) or [t]) if t in expanded else [t])]

    return [(replaced(terms), stop) for terms, stop in groups], known


def holds_phrase(sequence: list[str], phrase: tuple[str, ...]) -> bool:
    n = len(phrase)
    first = phrase[0]
    for i, term in enumerate(sequence):
        if term == first and tuple(sequence[i : i + n]) == phrase:
            return True
    return False


def holds_near(sequence: list[str], terms: tuple[str, ...], between: int) -> bool:
    """Whether every term occurs in `sequence` with at most `between` other words among them."""
    wanted = Counter(terms)
    return near_marks([(i, t) for i, t in enumerate(sequence) if t in wanted], wanted, between)
