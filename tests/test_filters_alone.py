"""A filter alone lists what it lets through in every mode (README), on the command line as
in the window: Hybrid and Semantic said "the query has no words to search for"."""

from __future__ import annotations

import json

import pytest

from tests.helpers import write
from tests.test_cli import _run


@pytest.fixture
def home(tmp_path, docs):
    write(docs / "plan.md", "# Plan\n\nthe garden plan for spring")
    write(docs / "notes.txt", "garden notes")
    write(docs / "app.py", "def sow_seeds(tray):\n    return tray\n")
    home = tmp_path / "clihome"
    _run("add", str(docs), home=home)
    return home


@pytest.mark.parametrize("command", ["search", "query", "vsearch"])
def test_a_filter_alone_lists_its_documents_in_every_mode(home, command):
    listed = json.loads(_run(command, "ext:md", "--json", home=home).stdout)
    assert [r["path"].rsplit("/", 1)[-1] for r in listed["results"]] == ["plan.md"]
    symbol = json.loads(_run(command, "sym:sow_seeds", "--json", home=home).stdout)
    assert [r["path"].rsplit("/", 1)[-1] for r in symbol["results"]] == ["app.py"]


def test_an_empty_query_still_says_there_is_nothing_to_search_for(home):
    out = json.loads(_run("query", " ", "--json", home=home).stdout)
    assert out["results"] == [] and "no words to search for" in json.dumps(out)
