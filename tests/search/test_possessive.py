"""The s of a possessive is no word of the query: `cat's` finds and lights "cat", never the s
of "Marmalade's" (it lit every one)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import write
from tests.test_cli import _run


@pytest.mark.slow
def test_a_possessive_lights_the_word_not_its_s(tmp_path, docs):
    write(docs / "pets.txt", "Marmalade's basket holds the cat's toy. The cat sleeps all day.\n")
    write(docs / "list.txt", "a list of s words: s, s and s\n")
    home = tmp_path / "clihome"
    _run("add", str(docs), home=home)
    for command in ("search", "query"):
        result = json.loads(_run(command, "cat's", "--json", home=home).stdout)
        assert [r["path"].rsplit("/", 1)[-1] for r in result["results"]] == ["pets.txt"], command
        (hit,) = result["results"]
        lit = {hit["snippet"][a:b] for a, b in hit["highlights"]}
        assert lit == {"cat"}, (command, lit)
