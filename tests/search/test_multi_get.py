"""multi_get stops at its byte budget and keeps its reply bounded, however many documents a
pattern matches."""

from __future__ import annotations

from findling.search.fetch import LEFT_OUT_SHOWN
from tests.helpers import index_files


def test_multi_get_stops_reading_at_the_budget_and_counts_what_it_left_out(engine, tmp_path):
    index_files(engine, tmp_path / "docs", {f"n{i:03}.md": f"note {i} " + "word " * 60 for i in range(120)})
    found = engine.multi_get(["*.md"], max_bytes=1000)
    assert 1 <= len(found.documents) <= 3
    assert sum(len(d.text.encode()) for d in found.documents) <= 1000
    assert found.left_out_total == 120 - len(found.documents)
    assert len(found.left_out) == LEFT_OUT_SHOWN
    # the first one over the budget was read and measured; the rest were only named
    assert "byte budget (" in found.left_out[0][1]
    assert all(why.startswith("not read: the 1000-byte budget") for _, why in found.left_out[1:])


def test_multi_get_within_the_budget_lists_every_miss(engine, tmp_path):
    index_files(engine, tmp_path / "docs", {"a.md": "alpha", "b.md": "beta"})
    found = engine.multi_get(["*.md", "#ffffff"], max_bytes=10_000)
    assert [d.path.rsplit("/", 1)[-1] for d in found.documents] == ["a.md", "b.md"]
    assert found.left_out_total == 1 and "#ffffff" in found.left_out[0][1]
