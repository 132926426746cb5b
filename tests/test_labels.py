"""What status says is so: an empty index with an embedder has nothing to embed, and says
how to give it something (it said "0 of 0 documents embedded (100 %)")."""

from __future__ import annotations

from tests.test_cli import _run


def test_an_empty_index_says_what_to_do_not_a_full_percentage(tmp_path, embedder_installed):
    out = _run("status", home=tmp_path / "clihome").stdout
    assert "0 of 0" not in out and "100 %" not in out
    assert "nothing to embed yet" in out and "add" in out
