"""Queries a folder's documents make of themselves, for its self-test (search/lane_balance.py).

Each sampled document gives a few queries of the kinds users ask, each knowing its source:

- words: two to four of its words, drawn by how much they say of it (tf · idf over the
  sample), as simulated known-item queries are made (Azzopardi, de Rijke and Balog, SIGIR 2007);
- a sentence of 8 to 30 words, or a passage of 40 to 60, with a quarter of its words left
  out (a user's query never holds the source's text as it is);
- in a code file, one of the names it defines.

The same documents give the same queries (a seed from each document's key), so a folder's
weights are a function of the folder."""

from __future__ import annotations

import hashlib
import math
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from findling.search.lane_balance import query_kind
from findling.text.analyzer import STOPWORDS
from findling.tuning import SELF_TEST_DROPPED, SELF_TEST_PASSAGE_WORDS, SELF_TEST_SENTENCE_WORDS
from findling.vocabulary import QueryKind

_WORD = re.compile(r"[^\W\d_]{3,}")
_TOKEN = re.compile(r"[\w'’-]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n\s*\n")
_DEFINED = re.compile(
    r"\b(?:def|class|function|fn|func|struct|enum|interface|trait|type|module|sub|macro)\s+([A-Za-z_][A-Za-z0-9_]{3,})"
)


@dataclass(frozen=True)
class SelfTestDocument:
    doc_id: int
    key: str  # what seeds its queries: its path
    text: str  # its text (the first part of a long one)
    code: bool  # a source file: one of its names is a query


@dataclass(frozen=True)
class SelfQuery:
    doc_id: int  # the document it was made from, the one it is to find
    kind: QueryKind  # as lane_balance.query_kind reads it, as it reads a user's query
    text: str


def _rng(key: str) -> random.Random:
    return random.Random(int.from_bytes(hashlib.sha1(key.encode("utf-8", "surrogatepass")).digest()[:8], "big"))


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


def _some_words(rng: random.Random, words: list[str], df: Counter[str], documents: int) -> str | None:
    """Two to four distinct words of the document, each drawn with its tf · idf as its weight."""
    tf = Counter(words)
    if len(tf) < 4:
        return None
    pool = list(tf)
    weights = [tf[w] * math.log(1 + documents / df[w]) for w in pool]
    chosen: list[str] = []
    for _ in range(rng.choice((2, 3, 3, 4))):
        pick = rng.choices(range(len(pool)), weights)[0]
        chosen.append(pool.pop(pick))
        weights.pop(pick)
    return " ".join(chosen)


def _plain(token: str) -> str:
    """A word as a word to the query syntax: no leading minus (an exclusion), no operator."""
    token = token.lstrip("-'’")
    return token.lower() if token in ("OR", "NEAR", "AND", "NOT") else token


def _thinned(rng: random.Random, tokens: list[str]) -> str:
    kept = [t for t in tokens if rng.random() >= SELF_TEST_DROPPED]
    return " ".join(filter(None, map(_plain, kept if len(kept) >= len(tokens) // 2 else tokens)))


def _sentence(rng: random.Random, text: str) -> str | None:
    low, high = SELF_TEST_SENTENCE_WORDS
    sentences = [s for s in (_TOKEN.findall(p) for p in _SENTENCE_END.split(text)) if low <= len(s) <= high]
    return _thinned(rng, rng.choice(sentences)) if sentences else None


def _passage(rng: random.Random, text: str) -> str | None:
    low, high = SELF_TEST_PASSAGE_WORDS
    tokens = _TOKEN.findall(text)
    if len(tokens) < high:
        return None
    length = rng.randint(low, high)
    start = rng.randint(0, len(tokens) - length)
    return _thinned(rng, tokens[start : start + length])


def _name(rng: random.Random, text: str) -> str | None:
    names = sorted(set(_DEFINED.findall(text)))
    return rng.choice(names) if names else None


def self_queries(documents: Sequence[SelfTestDocument]) -> list[SelfQuery]:
    """Each document's queries: its words, a sentence or a passage (a passage where it is long
    enough, every other document), and a code file's defined name."""
    words = {d.doc_id: _words(d.text) for d in documents}
    df: Counter[str] = Counter()
    for found in words.values():
        df.update(set(found))
    out: list[SelfQuery] = []
    for doc in documents:
        rng = _rng(doc.key)
        made = [_some_words(rng, words[doc.doc_id], df, len(documents))]
        made.append(_passage(rng, doc.text) if rng.random() < 0.5 else _sentence(rng, doc.text))
        if doc.code:
            made.append(_name(rng, doc.text))
        out.extend(SelfQuery(doc.doc_id, query_kind(text), text) for text in made if text)
    return out
