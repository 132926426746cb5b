"""One record of progress that every face reads: the window's bar, `findling status` and MCP say
the same "Embedding 16 of 40 documents", in the index's terms (issue: a folder row said "0
indexed", the summary "39 of 39 embedded (100 %)" and the bar "Embedding 16/1173" at once)."""

from __future__ import annotations

import json
import threading

import pytest

from findling.faces.presentation import activity_line
from findling.records import Activity, IndexProgress
from findling.store.activity import ActivityTracker
from tests.helpers import write
from tests.test_cli import _run


def test_embedding_counts_documents_of_the_whole_index():
    tracker = ActivityTracker()  # 39 embedded before; 1,173 found pending
    tracker.note(IndexProgress("embedding", 0, 1173, base=39))
    tracker.note(IndexProgress("embedding", 16, 1173, current="Backup and Restore", base=39))
    now = tracker.now()
    assert (now.done, now.total, now.unit, now.done_at_start) == (55, 1212, "documents", 39)
    assert activity_line(now, now.started) == "Embedding 55 of 1,212 documents"
    tracker.note(IndexProgress("done", 0, 0))  # the text part's end: embedding goes on
    assert tracker.now() is now
    tracker.idle()  # the engine's run ended
    assert tracker.now() is None


def test_the_line_tells_time_left_from_this_runs_pace_and_how_long_a_phase_without_counts_takes():
    reading = Activity("indexing", 300, 1200, "files", started=1000.0, done_at_start=0)
    assert activity_line(reading, 1060.0) == "Reading 300 of 1,200 files, about 3 min left"
    optimizing = Activity("optimizing", 0, 0, "files", started=1000.0)
    assert activity_line(optimizing, 1125.0) == "Optimizing the index for search speed… (2 min so far)"
    assert activity_line(Activity("scanning", 0, 0, "files", started=5.0), 12.0).startswith("Scanning the folders")


def test_a_run_begun_again_after_stepping_aside_counts_from_the_index_again():
    tracker = ActivityTracker()
    tracker.note(IndexProgress("embedding", 0, 40))
    tracker.note(IndexProgress("embedding", 16, 40))
    tracker.note(IndexProgress("indexing", 1, 1))  # a text run took the index
    tracker.note(IndexProgress("embedding", 0, 24, base=16))  # the rest, with what is embedded already
    assert (tracker.now().done, tracker.now().total, tracker.now().done_at_start) == (16, 40, 16)


@pytest.fixture
def held_embedding(tmp_path, settings, embedder_installed, monkeypatch):
    """An owner of an index of 40 notes, its embedding held after the first batch of 16."""
    from findling.server.handle import IndexHandle

    monkeypatch.setattr("findling.ingest.embedding.FIRST_PER_BATCH", 16)

    docs = tmp_path / "docs"
    for i in range(40):
        write(docs / f"note{i:02}.txt", f"Note {i}: the harbour ferry leaves at {i % 12 + 1} o'clock from pier {i}.")
    home = tmp_path / "home"
    reached, release = threading.Event(), threading.Event()

    def progress(p: IndexProgress) -> None:
        if p.phase == "embedding" and p.done > 0 and not release.is_set():
            reached.set()
            release.wait(60)

    with IndexHandle.open(home, settings=settings) as handle:
        handle.add_source(str(docs))
        run = threading.Thread(target=lambda: handle.index(progress=progress))
        run.start()
        assert reached.wait(60), "embedding did not start"
        try:
            yield home, handle
        finally:
            release.set()
            run.join(60)


def test_status_and_mcp_say_what_the_owner_is_doing(held_embedding):
    home, handle = held_embedding
    status = handle.status()
    assert status.activity is not None and status.activity.phase == "embedding"
    assert (status.activity.done, status.activity.total) == (status.embedded, status.embeddable) == (16, 40)
    out = _run("status", home=home).stdout  # another process: a client of the owner
    assert "now: Embedding: 16 of 40 documents searchable by meaning" in out
    assert "semantic search: 16 of 40 documents embedded" in out  # the same numbers, one story
    payload = json.loads(_run("status", "--json", home=home).stdout)
    assert payload["activity"]["phase"] == "embedding" and payload["activity_line"].startswith("Embedding: 16 of 40")


def test_the_mcp_status_tool_says_it_too(held_embedding):
    import anyio
    from mcp import Client

    from tests.server.test_mcp import _payload, _stdio

    home, _handle = held_embedding

    async def ask() -> dict:
        async with Client(_stdio(home)) as client:
            return _payload(await client.call_tool("status", {}))

    status = anyio.run(ask)
    assert status["activity"]["line"].startswith("Embedding: 16 of 40 documents")
    assert status["embedded"]["documents"] == status["activity"]["done"] == 16
