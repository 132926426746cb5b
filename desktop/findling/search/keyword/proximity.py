"""Nearness of the query's words in a document: how many of them one short stretch of its
text holds. A page that answers a question tends to use its words together; an index, a
glossary or a long page that mentions each somewhere does not. BM25 scores the words
wherever they are, so the keyword lane's first results are ordered again by

    score · (1 + NEARNESS_WEIGHT · (most words within NEARNESS_WIDTH characters of a paragraph) / (query words))

Tuned on the Python-docs questions, SciFact train and NFCorpus dev, windows kept to one
paragraph, 400 characters wide; the figures, tuning and held out, are in docs/eval/README.md
("nearness").
NEARNESS_WEIGHT counts in full among long pages only (keyword/evidence.py long_page_weight): in an abstract every
word is near every other."""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Sequence

from findling.search.snippets import term_hits
from findling.tuning import NEARNESS_WIDTH


def nearness(
    chunks: Sequence[tuple[int, int, str]],
    groups: Sequence[frozenset[str]],
    language: str,
    terms: frozenset[str] | None = None,
) -> float:
    """The share of the query's word groups (each the terms one word indexes under) that one
    stretch of NEARNESS_WIDTH characters holds, at its best in any chunk. `terms`: what to look for
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
            for start, _, term, _whole in term_hits(text, terms, language)
            for g, group in enumerate(groups)
            if term in group
        ]
        best = max(best, _most_in_window(found, NEARNESS_WIDTH, _paragraph_starts(text)))
        if best == len(groups):
            break
    return best / len(groups)


def _paragraph_starts(text: str) -> list[int]:
    """Where each paragraph after the first begins: extracted text parts them with a blank line."""
    starts = []
    at = text.find("\n\n")
    while at >= 0:
        starts.append(at + 2)
        at = text.find("\n\n", at + 2)
    return starts


def _most_in_window(found: list[tuple[int, int]], width: int, paragraphs: Sequence[int] = ()) -> int:
    """The most distinct groups among (position, group) pairs, in position order, that lie
    within `width` of one another and in one paragraph (`paragraphs`: where each after the
    first begins)."""
    inside: Counter[int] = Counter()
    first = 0
    best = 0
    for at, group in found:
        inside[group] += 1
        floor = paragraphs[index - 1] if (index := bisect.bisect_right(paragraphs, at)) else 0
        while found[first][0] < max(at - width, floor):
            gone = found[first][1]
            inside[gone] -= 1
            if not inside[gone]:
                del inside[gone]
            first += 1
        best = max(best, len(inside))
    return best


def boosted(score: float, share: float, weight: float) -> float:
    return score * (1 + weight * share)
