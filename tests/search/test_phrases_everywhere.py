"""Quoted phrases and NEAR are matched in every document by the word positions the index keeps,
not only among the first keyword candidates: the one document holding "alpha beta" among 400
that hold both words apart is found at any list length, through the real command line."""

from __future__ import annotations

import json
import random

import pytest

from findling.records import SearchMode, SearchRequest
from findling.text.analyzer import term_sequence
from tests.helpers import index_files
from tests.test_integrity import _run, _search


@pytest.mark.slow
def test_the_one_document_with_the_phrase_is_found_at_any_length(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(400):  # both words, apart; ranked above the target by BM25 (more of each)
        (docs / f"n{i:03}.txt").write_text(f"beta alpha gamma beta then alpha again, alpha and beta {i}")
    (docs / "target.txt").write_text("the alpha beta release notes, and a long tail of other words " * 3)
    home = tmp_path / "home"
    _run("add", str(docs), home=home)
    for limit in ("5", "20", "500"):
        paths = [h["path"] for h in _search(home, '"alpha beta"', "-n", limit)]
        assert paths == [str(docs / "target.txt")], limit
    assert [h["path"] for h in _search(home, "alpha NEAR/0 release", "-n", "5")] == []
    assert [h["path"] for h in _search(home, "alpha NEAR/1 release", "-n", "5")] == [str(docs / "target.txt")]
    assert [h["path"] for h in _search(home, '"release notes"~3', "-n", "5")] == [str(docs / "target.txt")]
    kept = _search(home, 'alpha -"alpha beta"', "-n", "500")
    assert len(kept) == 400 and str(docs / "target.txt") not in {h["path"] for h in kept}
    payload = json.loads(_run("search", '"alpha beta"', "-n", "5", "--json", home=home).stdout)
    assert payload["total"] == 1


@pytest.mark.slow
def test_phrase_matches_equal_a_reading_of_every_text(engine, tmp_path):
    """Random texts over a few words: the documents a phrase search lists are exactly those whose
    words hold the phrase in order (the title included), for phrases of one to three words."""
    rng = random.Random(7)
    words = ["red", "green", "blue", "cyan", "plum"]
    texts = {  # a word of its own each: no two are copies, which a list names once
        f"d{i:03}.txt": " ".join(rng.choice(words) for _ in range(rng.randint(3, 40))) + f" x{i}q" for i in range(300)
    }
    folder = index_files(engine, tmp_path / "docs", texts)
    for _ in range(40):
        phrase = tuple(rng.choice(words) for _ in range(rng.randint(1, 3)))
        quoted = '"' + " ".join(phrase) + '"'
        found = {h.path for h in engine.find(SearchRequest(quoted, SearchMode.KEYWORD, 1000)).hits}
        expected = set()
        for name, text in texts.items():
            sequence = term_sequence(text)
            if any(tuple(sequence[i : i + len(phrase)]) == phrase for i in range(len(sequence))):
                expected.add(str(folder / name))
        assert found == expected, quoted
