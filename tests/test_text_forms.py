"""Text is found however it was encoded (the red team's 3): a file written decomposed (NFD, as
macOS file systems and some editors write é, ï, ç) is found by the composed word, a soft hyphen
(`&shy;`) does not split a word, a word of an Indic script stays one word; and the other way
round, a decomposed query finds composed text."""

from __future__ import annotations

import json
import unicodedata

from findling.cli import main
from findling.text.analyzer import iter_tokens, token_at
from tests.helpers import write


def _nfd(text: str) -> str:
    return unicodedata.normalize("NFD", text)


def _found(capsys, *args: str) -> list[str]:
    capsys.readouterr()
    assert main(["search", "--json", *args]) == 0
    return [hit["path"].rsplit("/", 1)[-1] for hit in json.loads(capsys.readouterr().out)["results"]]


def test_every_encoding_of_a_word_finds_it_through_the_cli(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    write(docs / "decomposed.txt", _nfd("A naïve reading of the façade of the old cinema."))
    write(docs / "shy.html", "<html><body><p>The data&shy;base of harbour tides.</p></body></html>")
    write(docs / "hindi.txt", "यह हिन्दी भाषा का पाठ है।")
    write(docs / "other.txt", "Nothing here about cinemas or tides, only naive notes.")
    assert main(["add", str(docs)]) == 0

    assert _found(capsys, "façade") == ["decomposed.txt"]
    assert "decomposed.txt" in _found(capsys, "naïve")
    assert _found(capsys, _nfd("façade")) == ["decomposed.txt"]  # a decomposed query too
    assert _found(capsys, "database") == ["shy.html"]
    assert _found(capsys, '"database of harbour"') == ["shy.html"]
    assert _found(capsys, "हिन्दी") == ["hindi.txt"]
    assert _found(capsys, "faça*") == ["decomposed.txt"]


def test_a_decomposed_word_is_one_token_spanning_it_as_written():
    text = _nfd("the naïve one")
    [_, naive, _] = list(iter_tokens(text))
    assert text[naive.start : naive.end] == _nfd("naïve")
    assert naive.term == next(iter(iter_tokens("naïve"))).term  # stemmed as the composed word
    assert token_at(text, naive.start + 4) == naive  # found again from inside, past the mark


def test_a_soft_hyphen_or_joiner_inside_a_word_is_the_word_without_it():
    for written in ("data\u00adbase", "data\u200dbase", "data\u2060base", "\ufeffdatabase"):
        assert [t.term for t in iter_tokens(written)] == [t.term for t in iter_tokens("database")], repr(written)


def test_a_snippet_lights_the_word_as_written(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    write(tmp_path / "docs" / "decomposed.txt", _nfd("The façade was painted blue."))
    assert main(["add", str(tmp_path / "docs")]) == 0
    capsys.readouterr()
    assert main(["search", "--json", "facade"]) == 0
    [hit] = json.loads(capsys.readouterr().out)["results"]
    lit = [hit["snippet"][start:end] for start, end, *_ in hit["highlights"]]
    assert lit == [_nfd("façade")]
