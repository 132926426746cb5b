"""A stop asked while embedding ends the run within one model run, keeps every part committed
before it, and the next run embeds only what is left."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from findling.engine import Engine
from findling.ingest.embedding_windows import document_parts
from findling.models.embedder import EmbeddingStopped
from findling.models.runtime import Session
from findling.records import EmbedReport, IndexReport
from findling.server.handle import _handed_over
from tests.helpers import write

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each


@given(st.lists(st.integers(1, 30), min_size=0, max_size=40), st.integers(1, 50))
def test_parts_hold_whole_documents_side_by_side(windows_per_doc, least):
    doc_ids = [doc for doc, n in enumerate(windows_per_doc) for _ in range(n)]
    parts = document_parts(doc_ids, least)
    assert [i for lo, hi in parts for i in range(lo, hi)] == list(range(len(doc_ids)))  # all, in order, once
    for lo, _hi in parts:
        assert lo == 0 or doc_ids[lo] != doc_ids[lo - 1]  # a document is never cut
    for lo, hi in parts[:-1]:
        assert hi - lo >= least


def test_a_run_stops_between_model_runs_and_keeps_its_parts(tmp_path, settings, embedder_installed, monkeypatch):
    docs = tmp_path / "docs"
    for i in range(12):
        write(docs / f"n{i}.txt", f"note {i}\n\n" + " ".join(f"word{(i * j) % 211}" for j in range(2500)))
    monkeypatch.setattr("findling.models.embedder.Embedder.windows_per_call", 8)
    # 16 windows a model run, whatever their length: the counts below are of such runs
    monkeypatch.setattr("findling.models.embedder.RUN_TOKENS", 16 * 256)
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        embedder = engine.models.embedder()
        runs = {"n": 0}
        real_run = embedder._run
        cancel = threading.Event()

        def counted(encodings, shrink=False):
            runs["n"] += not shrink  # the run's end gives the arena back with a one-token run
            if runs["n"] == 5:  # mid-way through a part: the stop comes between two runs
                cancel.set()
            return real_run(encodings, shrink)

        monkeypatch.setattr(embedder, "_run", counted)
        first = engine.embed(cancel=cancel)
        assert first.cancelled and runs["n"] == 5  # no model run after the stop
        # every note got its first vector before any got its second; some were made whole
        assert first.documents == 12 and 0 < first.deepened < 12
        status = engine.status()  # what it reported is committed
        assert status.embedded == 12 and status.first_only == 12 - first.deepened
        second = engine.embed()
        assert not second.cancelled and second.documents == 0 and second.deepened == 12 - first.deepened
        assert engine.status().first_only == 0


def test_embed_raises_before_a_model_run_once_asked_to_stop(embedder_installed, engine):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(EmbeddingStopped):
        engine.models.embedder().embed(["a text"], cancel=cancel)
    assert engine.models.embedder().embed(["a text"]).shape[0] == 1
    assert np.isfinite(engine.models.embedder().embed(["a text"])).all()


def test_an_embedding_stopped_by_a_handover_goes_on_elsewhere():
    """The text was done and the embedding stopped because the owner let the index go: the
    caller's run goes on with the next owner (it was answered as stopped, exit 130)."""
    letting_go, asked = threading.Event(), threading.Event()
    letting_go.set()
    report = IndexReport(embedding=EmbedReport(cancelled=True))
    assert _handed_over(report, letting_go, asked)
    asked.set()  # the caller's own Ctrl-C: a stop
    assert not _handed_over(report, letting_go, asked)
    assert not _handed_over(IndexReport(embedding=EmbedReport()), letting_go, threading.Event())


def test_an_embedding_run_gives_the_model_arena_back_at_its_end(embedder_installed, engine, tmp_path, monkeypatch):
    """ONNX Runtime keeps the largest batch's tensors for the next run (300+ MB after a big
    run): the window and `serve` live on after it, so the run's last model call shrinks the
    arena, once, and the vectors after it are the same."""
    for i in range(6):
        write(tmp_path / "docs" / f"n{i}.txt", f"note {i}\n\n" + " ".join(f"word{(i * j) % 97}" for j in range(900)))
    engine.add_source(tmp_path / "docs")
    engine.index(embed=False)
    before = engine.models.embedder().embed(["a text about notes"])
    shrinks: list[bool] = []
    real = Session.run

    def recorded(self, outputs, feed, shrink=False):
        shrinks.append(shrink)
        return real(self, outputs, feed, shrink)

    monkeypatch.setattr(Session, "run", recorded)
    report = engine.embed()
    assert report.documents == 6 and len(shrinks) > 6
    assert shrinks[-1] and shrinks.count(True) == 1
    np.testing.assert_array_equal(engine.models.embedder().embed(["a text about notes"]), before)


def test_an_embedding_run_reads_on_the_reading_budget(embedder_installed, engine, tmp_path, monkeypatch):
    """DuckDB keeps every block it read cached up to its limit: a run held on the whole working
    budget kept ~60 MB more of the chunks' blocks than on the reading budget, at the same
    vectors a second. Between its writes the limit is the reading budget a search has."""
    for i in range(6):
        write(tmp_path / "docs" / f"n{i}.txt", f"note {i}\n\n" + " ".join(f"word{(i * j) % 97}" for j in range(900)))
    engine.add_source(tmp_path / "docs")
    engine.index(embed=False)
    db = engine._db
    reading = db.reading_memory_mb()
    assert reading < engine.settings.index.memory_limit_mb  # a small index: the floor, under the cap
    limits: list[float] = []
    real = Session.run

    def recorded(self, outputs, feed, shrink=False):
        with db._con.cursor() as cur:
            limits.append(cur.execute("SELECT current_setting('memory_limit')").fetchone()[0])
        return real(self, outputs, feed, shrink)

    monkeypatch.setattr(Session, "run", recorded)
    assert engine.embed().documents == 6
    with db._con.cursor() as cur:
        cur.execute(f"SET memory_limit = '{reading}MB'")
        expected = cur.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    assert limits and set(limits) == {expected}, (limits, expected)


def test_an_embedding_run_waits_for_the_warm_the_window_began(embedder_installed, engine, tmp_path, monkeypatch):
    """The window warms the text and the vectors as it opens and starts embedding beside it: the
    two bulk reads together were its peak (779 MB, 4 s after launch). A run begins its work once
    the warm has ended, and a stopped run does not wait for it."""
    write(tmp_path / "docs" / "n.txt", "note\n\n" + " ".join(f"word{j % 97}" for j in range(300)))
    engine.add_source(tmp_path / "docs")
    engine.index(embed=False)
    loading, release = threading.Event(), threading.Event()
    order: list[str] = []

    def slow_warm(cancel=None):
        loading.set()
        release.wait(10)
        order.append("warmed")

    monkeypatch.setattr(engine._documents, "warm", slow_warm)
    warming = threading.Thread(target=engine.warm)
    warming.start()
    assert loading.wait(10)
    real = Session.run

    def recorded(self, outputs, feed, shrink=False):
        order.append("model run")
        return real(self, outputs, feed, shrink)

    monkeypatch.setattr(Session, "run", recorded)
    stopped = threading.Event()
    stopped.set()
    assert engine.embed(cancel=stopped).documents == 0  # asked to stop: it does not wait
    order.clear()  # what loading the model ran
    embedding = threading.Thread(target=engine.embed)
    embedding.start()
    embedding.join(0.5)
    assert embedding.is_alive() and order == []  # waiting for the warm
    release.set()
    warming.join(10)
    embedding.join(30)
    assert order[0] == "warmed" and "model run" in order
