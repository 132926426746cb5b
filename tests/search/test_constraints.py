"""Quoted phrases, exclusions and filters are hard constraints in every mode and on every face;
semantic and hybrid lists are not padded with unrelated documents."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from findling.faces.presentation import semantic_line
from findling.records import SearchMode, SearchRequest
from tests.helpers import index_files

NOTES = {
    "pooling.md": "# Pooling\n\nConnection pooling with pgbouncer keeps server connections open for reuse.\n",
    "connect.md": "# Connecting\n\nA connection to the database server needs a host, a port and a user.\n",
    "autovacuum.md": "# Autovacuum\n\nThe autovacuum daemon runs vacuum on tables automatically.\n",
    "vacuum.md": "# Vacuum\n\nVacuum reclaims storage taken by dead tuples in the database.\n",
    "dessert.txt": "# Tiramisu\n\nWhip the mascarpone with sugar and layer it with coffee-soaked biscuits.\n",
}


@pytest.fixture
def indexed(engine, tmp_path, embedder_installed):
    index_files(engine, tmp_path / "docs", NOTES)
    return engine


def _names(result) -> list[str]:
    return [os.path.basename(h.path) for h in result.hits]


@pytest.mark.parametrize("mode", ["keyword", "semantic", "hybrid", "hybrid-vector-lane"])
def test_phrases_and_exclusions_hold_in_every_mode(indexed, mode):
    def run(text: str):
        if mode == "keyword":
            return indexed.find(SearchRequest(text, mode=SearchMode.KEYWORD))
        if mode == "semantic":
            return indexed.find(SearchRequest(text, mode=SearchMode.SEMANTIC))
        if mode == "hybrid":
            return indexed.find(SearchRequest(text, expand=False, rerank="off"))
        return indexed.find(SearchRequest(text, mode=SearchMode.SEMANTIC, expand=False, rerank="off"))

    assert _names(run('"connection pooling"')) == ["pooling.md"]
    excluded = _names(run("vacuum -autovacuum"))
    assert "vacuum.md" in excluded and "autovacuum.md" not in excluded
    assert "pooling.md" not in _names(run('database -"connection pooling"'))
    assert all(n.endswith(".txt") for n in _names(run("dessert recipe ext:txt")))


def test_hybrid_and_semantic_lists_hold_no_unrelated_documents(indexed):
    for result in (
        indexed.find(SearchRequest("database ext:md", expand=False, rerank="off")),
        indexed.find(SearchRequest("database ext:md", mode=SearchMode.SEMANTIC)),
    ):
        assert result.hits and not any(h.weak for h in result.hits)
        assert "dessert.txt" not in _names(result)
    nothing = indexed.find(SearchRequest("quantum chromodynamics of gluons", mode=SearchMode.SEMANTIC))
    assert len(nothing.hits) <= 3 and all(h.weak for h in nothing.hits)


def test_the_cli_query_keeps_a_phrase(indexed, tmp_path):
    indexed.close()
    env = dict(os.environ, FINDLING_HOME=str(indexed.home), NO_COLOR="1")
    out = subprocess.run(
        [sys.executable, "-m", "findling", "query", '"connection pooling"', "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert [os.path.basename(r["path"]) for r in json.loads(out.stdout)["results"]] == ["pooling.md"]


def test_status_says_how_much_of_the_index_is_embedded(indexed, engine):
    status = indexed.status()
    assert status.embedder and status.embedded == status.embeddable == len(NOTES)
    assert semantic_line(status, "terminal").endswith(f"{len(NOTES)} of {len(NOTES)} documents embedded (100 %)")


def test_status_without_an_embedder_says_semantic_search_is_off(engine, tmp_path):
    index_files(engine, tmp_path / "docs", {"a.md": "alpha"})
    status = engine.status()
    assert (status.embedder, status.embedded, status.embeddable) == ("", 0, 1)
    assert "off" in semantic_line(status, "terminal")
