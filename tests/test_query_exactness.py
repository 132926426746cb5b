"""A query's syntax means what it says at any length (the red team's 4 and 5): NEAR on a repeated
word counts its occurrences and their distance; a quoted phrase past 40 words stays a phrase; a
pasted paragraph whose quotes are read as words says so."""

from __future__ import annotations

import json

from findling.cli import main
from findling.search.keyword.phrases import near_marks
from findling.search.query_parser import parse_query
from findling.tuning import PLAIN_TEXT_WORDS
from tests.helpers import write

RIVER = (
    "the river ran past the old mill where a miller kept seven cats and one very patient dog that "
    "watched the water turn the great wheel every single day of the long summer while children "
    "played near the bank and fishermen cast their lines into the deep green pool below the weir"
).split()


def _found(capsys, query: str) -> tuple[list[str], list[str]]:
    capsys.readouterr()
    assert main(["search", "--json", query]) == 0
    said = json.loads(capsys.readouterr().out)
    return sorted(h["path"].rsplit("/", 1)[-1] for h in said["results"]), list(said.get("notes", []))


def test_near_on_a_repeated_word_counts_it_and_its_distance(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    write(docs / "apart.txt", "alpha one two three four five six alpha end")
    write(docs / "one.txt", "only one alpha here")
    write(docs / "together.txt", "alpha alpha together")
    assert main(["add", str(docs)]) == 0
    assert _found(capsys, '"alpha alpha"~0')[0] == ["together.txt"]
    assert _found(capsys, "alpha NEAR/5 alpha")[0] == ["together.txt"]
    assert _found(capsys, '"alpha alpha"~6')[0] == ["apart.txt", "together.txt"]
    assert _found(capsys, "alpha NEAR alpha")[0] == ["apart.txt", "together.txt"]


def test_a_repeated_term_needs_as_many_marks_within_the_window():
    marks = [(0, "a"), (7, "a"), (8, "b")]
    assert not near_marks(marks, {"a": 2}, 5)
    assert near_marks(marks, {"a": 2}, 6)
    assert near_marks(marks, {"a": 1, "b": 1}, 0)
    assert not near_marks(marks, {"a": 2, "b": 1}, 5)
    assert near_marks(marks, {"a": 2, "b": 1}, 6)


def test_a_long_quoted_phrase_stays_a_phrase(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    write(docs / "in_order.txt", "Preface.\n" + " ".join(RIVER) + ".\nEnd.")
    swapped = list(RIVER)
    swapped[10], swapped[11] = swapped[11], swapped[10]
    write(docs / "swapped.txt", " ".join(swapped))
    write(docs / "reversed.txt", " ".join(reversed(RIVER)))
    assert main(["add", str(docs)]) == 0
    assert len(RIVER) > PLAIN_TEXT_WORDS
    assert _found(capsys, '"' + " ".join(RIVER) + '"') == (["in_order.txt"], [])
    assert _found(capsys, '"' + " ".join(swapped) + '"') == (["swapped.txt"], [])
    found, notes = _found(capsys, " ".join(RIVER[30:]) + ' "' + " ".join(RIVER[:30]) + '"')
    assert found == ["in_order.txt"] and notes == []  # 25 words and a quoted 30: still a phrase


def test_a_pasted_paragraph_says_its_quotes_were_read_as_words(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    write(tmp_path / "docs" / "river.txt", " ".join(RIVER))
    assert main(["add", str(tmp_path / "docs")]) == 0
    pasted = " ".join(RIVER) + ' and "seven cats" -dog'
    parsed = parse_query(pasted)
    assert parsed.read_as_text and not parsed.phrases and not parsed.excluded_words
    found, notes = _found(capsys, pasted)
    assert found == ["river.txt"]
    assert any("read as plain text" in n for n in notes), notes
