"""Proximity: `"rename table"~3` and `rename NEAR table` find the words close together, in any
order, in every mode and face, as a hard constraint like a quoted phrase."""

from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.search.keyword.words import holds_near
from findling.search.query_parser import parse_query
from findling.tuning import NEAR_WORDS
from tests.helpers import write


def test_the_syntax():
    assert parse_query('"rename table"~3 column').near == ((3, ("rename", "table")),)
    assert parse_query('"rename table"~3 column').groups == (("column",),)
    assert parse_query("rename NEAR table").near == ((NEAR_WORDS, ("rename", "table")),)
    assert parse_query("x rename NEAR/2 table NEAR column y").near == ((NEAR_WORDS, ("rename", "table", "column")),)
    assert parse_query("x rename NEAR/2 table NEAR column y").groups == (("x",), ("y",))
    assert parse_query("NEAR").groups == (("NEAR",),)  # a word where it cannot be an operator
    assert parse_query("what is NEAR").groups == (("what",), ("is",), ("NEAR",))
    assert parse_query('"one word"~2').text == "one word"  # what the vector lane embeds


def _brute(sequence: list[str], terms: tuple[str, ...], between: int) -> bool:
    places = [[i for i, t in enumerate(sequence) if t == term] for term in terms]
    return any(max(c) - min(c) + 1 - len(terms) <= between for c in itertools.product(*places))


@given(
    st.lists(st.sampled_from("abcde"), max_size=14),
    st.lists(st.sampled_from("abc"), min_size=2, max_size=3, unique=True),
    st.integers(0, 6),
)
def test_near_is_the_narrowest_stretch(sequence, terms, between):
    assert holds_near(sequence, tuple(terms), between) == _brute(sequence, tuple(terms), between)


@pytest.fixture()
def docs(tmp_path, settings):
    folder = tmp_path / "docs"
    write(folder / "close.md", "To rename a table, use ALTER TABLE with RENAME TO.")
    write(folder / "reversed.md", "The table that you rename keeps its data.")
    write(folder / "apart.md", "Rename the file first. " + "Other words go here for a while. " * 6 + "Then the table.")
    engine = Engine(tmp_path / "home", settings=settings)
    engine.add_source(folder)
    engine.index(embed=False)
    yield engine
    engine.close()


def _names(engine, query, mode=SearchMode.KEYWORD):
    return sorted(os.path.basename(h.path) for h in engine.find(SearchRequest(query, mode, rerank="off")).hits)


def test_close_words_in_any_order_and_never_far_apart(docs):
    assert _names(docs, "rename table", SearchMode.KEYWORD) == ["apart.md", "close.md", "reversed.md"]
    assert _names(docs, '"rename table"~2') == ["close.md", "reversed.md"]
    assert _names(docs, '"rename table"~1') == ["close.md"]  # "rename a table": one word between
    assert _names(docs, "rename NEAR table") == ["close.md", "reversed.md"]
    assert _names(docs, "rename NEAR table", SearchMode.HYBRID) == ["close.md", "reversed.md"]
    # why-not says what the constraint keeps out
    apart = next(p for p in docs.document_paths().values() if p.endswith("apart.md"))
    answer = docs.why_not(SearchRequest("rename NEAR table", SearchMode.KEYWORD), apart)
    assert answer.reason == "no_match" and answer.rank is None
    assert "has every word, but not together" in answer.details[0]
    phrase = docs.why_not(SearchRequest('"rename table"', SearchMode.KEYWORD), apart)  # the same for a phrase
    assert phrase.reason == "no_match" and "not together" in phrase.details[0]
