"""Nearness of the query's words in a document: how many of them one short stretch of its
text holds. A page that answers a question tends to use its words together; an index, a
glossary or a long page that mentions each somewhere does not. BM25 scores the words
wherever they are, so the keyword lane's first results are ordered again by

    score · (1 + WEIGHT · (most words within WIDTH characters) / (words in the query))

Tuned on the Python-docs questions, SciFact train and NFCorpus dev (docs/eval/README.md):
keyword search MRR@10 .690 → .707, nDCG@10 .697 → .702 and .285 → .287. Held out:
pgdocs-questions .536 → .562, NFCorpus test .313 → .315, SciFact test .682 → .683."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from findling.search.snippets import term_hits

POOL = 10  # results ordered again: the same first results whatever the number asked for
# Results read with the pool for their snippets; a deeper list (why-not ranks 100,000) reads the pool alone.
READ_WITH_POOL = 100
WIDTH = 200  # characters, about 30 words
WEIGHT = 2.0


def nearness(
    chunks: Sequence[tuple[int, int, str]],
    groups: Sequence[frozenset[str]],
    language: str,
    terms: frozenset[str] | None = None,
) -> float:
    """The share of the query's word groups (each the terms one word indexes under) that one
    stretch of WIDTH characters holds, at its best in any chunk. `terms`: what to look for
    (all the query's, so that its snippets find the same search done); the groups' by
    default."""
    if not groups:
        return 0.0
    if terms is None:
        terms = frozenset(t for group in groups for t in group)
    best = 0
    for _, _, text in chunks:
        found = [
            (start, g)
            for start, _, term in term_hits(text, terms, language)
            for g, group in enumerate(groups)
            if term in group
        ]
        best = max(best, _most_in_window(found, WIDTH))
        if best == len(groups):
            break
    return best / len(groups)


def _most_in_window(found: list[tuple[int, int]], width: int) -> int:
    """The most distinct groups among (position, group) pairs, in position order, that lie
    within `width` of one another."""
    inside: Counter[int] = Counter()
    first = 0
    best = 0
    for at, group in found:
        inside[group] += 1
        while found[first][0] < at - width:
            gone = found[first][1]
            inside[gone] -= 1
            if not inside[gone]:
                del inside[gone]
            first += 1
        best = max(best, len(inside))
    return best


def boosted(score: float, share: float) -> float:
    return score * (1 + WEIGHT * share)
