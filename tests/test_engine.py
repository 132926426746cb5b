"""Incremental indexing, deletes, moves, failures, sources: through the engine API."""

from __future__ import annotations

import os

import pytest

from findling.errors import SourceError
from findling.records import SearchMode, SearchRequest
from tests.helpers import assert_index_consistent, make_docx, make_pdf, write


def _names(result):
    return sorted(os.path.basename(h.path) for h in result.hits)


def _bump(path):
    st = path.stat()
    os.utime(path, (st.st_atime, st.st_mtime + 5))


def test_add_index_and_search_every_format(engine, docs):
    write(docs / "a.md", "# Alpha\n\nzebra crossing")
    write(docs / "b.html", "<title>Beta</title><p>zebra stripes</p>")
    make_pdf(docs / "c.pdf", ["zebra in a pdf"])
    make_docx(docs / "d.docx", "Delta", "Head", ["zebra in word"])
    engine.add_source(docs)
    report = engine.index()
    assert report.added == 4 and report.failed == 0
    assert _names(engine.find(SearchRequest("zebra", mode=SearchMode.KEYWORD))) == ["a.md", "b.html", "c.pdf", "d.docx"]


def test_incremental_only_changed_files_processed(engine, docs):
    for i in range(5):
        write(docs / f"f{i}.txt", f"file number {i} original")
    engine.add_source(docs)
    assert engine.index().added == 5
    again = engine.index()
    assert (again.added, again.updated, again.unchanged) == (0, 0, 5)
    write(docs / "f1.txt", "file number 1 rewritten with kiwi")
    _bump(docs / "f1.txt")
    report = engine.index()
    assert (report.updated, report.unchanged) == (1, 4)
    assert _names(engine.find(SearchRequest("kiwi", mode=SearchMode.KEYWORD))) == ["f1.txt"]
    assert _names(engine.find(SearchRequest("original", mode=SearchMode.KEYWORD))) == [
        "f0.txt",
        "f2.txt",
        "f3.txt",
        "f4.txt",
    ]
    assert assert_index_consistent(engine) == 5


def test_touched_file_with_same_bytes_is_not_reextracted(engine, docs):
    path = write(docs / "t.txt", "same bytes")
    engine.add_source(docs)
    engine.index()
    doc_id = engine.find(SearchRequest("bytes", mode=SearchMode.KEYWORD)).hits[0].doc_id
    _bump(path)
    report = engine.index()
    assert report.updated == 0 and report.unchanged == 1
    assert engine.find(SearchRequest("bytes", mode=SearchMode.KEYWORD)).hits[0].doc_id == doc_id
    assert engine.index().unchanged == 1  # the new mtime was stored


def test_deleted_file_leaves_index(engine, docs):
    write(docs / "keep.txt", "lemon")
    gone = write(docs / "gone.txt", "lemon tart")
    engine.add_source(docs)
    engine.index()
    gone.unlink()
    report = engine.index()
    assert report.removed == 1
    assert _names(engine.find(SearchRequest("lemon", mode=SearchMode.KEYWORD))) == ["keep.txt"]
    assert _names(engine.find(SearchRequest("tart", mode=SearchMode.KEYWORD))) == []
    assert assert_index_consistent(engine) == 1


def test_moved_file_keeps_its_document(engine, docs):
    write(docs / "old" / "report.md", "# Report\n\nquarterly mango numbers")
    engine.add_source(docs)
    engine.index()
    doc_id = engine.find(SearchRequest("mango", mode=SearchMode.KEYWORD)).hits[0].doc_id
    (docs / "new").mkdir()
    os.rename(docs / "old" / "report.md", docs / "new" / "report.md")
    report = engine.index()
    assert report.moved == 1 and report.added == 0
    hit = engine.find(SearchRequest("mango", mode=SearchMode.KEYWORD)).hits[0]
    assert hit.doc_id == doc_id and hit.path == str(docs / "new" / "report.md")


def test_bad_files_recorded_and_skipped(engine, docs):
    write(docs / "good.txt", "healthy papaya")
    write(docs / "broken.pdf", "%PDF-1.4 garbage that is no pdf")
    write(docs / "fake.docx", "not a zip at all")
    (docs / "binary.txt").write_bytes(b"\x00\xff" * 500)
    write(docs / "empty.txt", "")
    engine.add_source(docs)
    report = engine.index()
    assert report.failed == 3
    assert _names(engine.find(SearchRequest("papaya", mode=SearchMode.KEYWORD))) == ["good.txt"]
    problems = {os.path.basename(p.path): p.error for p in engine.status().problems}
    assert set(problems) == {"broken.pdf", "fake.docx", "binary.txt"}
    assert all(problems.values())
    # a failed file is not retried until it changes
    assert engine.index().failed == 0
    write(docs / "broken.pdf", "still broken but different")
    _bump(docs / "broken.pdf")
    assert engine.index().failed == 1


def test_too_large_file_is_skipped_with_reason(engine, docs, settings):
    settings.index.max_file_mb = 0.001
    write(docs / "big.txt", "x " * 2000)
    write(docs / "small.txt", "tiny")
    engine.add_source(docs)
    report = engine.index()
    assert report.skipped == 1 and report.added == 1
    problems = engine.status().problems
    assert [(os.path.basename(p.path), p.status) for p in problems] == [("big.txt", "skipped")]
    assert "limit" in problems[0].error
    assert engine.index().skipped == 0  # not rewritten every run


def test_unreadable_file_fails_with_reason(engine, docs):
    if os.geteuid() == 0:
        pytest.skip("root can read files without permission")
    path = write(docs / "secret.txt", "hidden")
    path.chmod(0)
    engine.add_source(docs)
    report = engine.index()
    assert report.failed == 1
    assert "cannot read" in engine.status().problems[0].error


def test_read_error_is_recorded(engine, docs, monkeypatch):
    import findling.ingest.prepare as prepare

    write(docs / "ok.txt", "fine")
    write(docs / "locked.txt", "locked")
    real = prepare.read_file

    def deny(path, *rest):
        if path.endswith("locked.txt"):
            raise PermissionError(13, "Permission denied")
        return real(path, *rest)

    monkeypatch.setattr(prepare, "read_file", deny)
    engine.add_source(docs)
    assert engine.index().failed == 1
    problem = engine.status().problems[0]
    assert problem.path.endswith("locked.txt") and "Permission denied" in problem.error


def test_sources_nested_and_removed(engine, docs, tmp_path):
    write(docs / "sub" / "a.txt", "cherry")
    write(docs / "b.txt", "cherry pie")
    inner = engine.add_source(docs / "sub")
    engine.index()
    assert engine.add_source(docs / "sub") == inner
    outer = engine.add_source(docs)
    assert [s.path for s in engine.sources()] == [outer.path]
    report = engine.index()
    assert report.added == 1 and report.unchanged == 1  # the inner document was taken over
    assert engine.remove_source(docs) == 2
    assert engine.find(SearchRequest("cherry", mode=SearchMode.KEYWORD)).hits == ()
    with pytest.raises(SourceError):
        engine.remove_source(tmp_path / "never-added")
    with pytest.raises(SourceError):
        engine.add_source(tmp_path / "missing")


def test_missing_source_folder_keeps_index(engine, tmp_path):
    folder = tmp_path / "usb"
    write(folder / "a.txt", "durian")
    engine.add_source(folder)
    engine.index()
    os.rename(folder, tmp_path / "unplugged")
    report = engine.index()
    assert report.removed == 0 and any("missing" in w for w in report.warnings)
    assert _names(engine.find(SearchRequest("durian", mode=SearchMode.KEYWORD))) == ["a.txt"]


def test_update_paths_for_live_changes(engine, docs):
    a = write(docs / "a.txt", "grape")
    engine.add_source(docs)
    engine.index()
    write(a, "grape and fig")
    _bump(a)
    new = write(docs / "n.md", "fig jam")
    ignored = write(docs / ".hidden.md", "fig hidden")
    report = engine.update_paths([a, new, ignored])
    assert (report.updated, report.added) == (1, 1)
    assert _names(engine.find(SearchRequest("fig", mode=SearchMode.KEYWORD))) == ["a.txt", "n.md"]
    new.unlink()
    assert engine.update_paths([new]).removed == 1
    assert _names(engine.find(SearchRequest("fig", mode=SearchMode.KEYWORD))) == ["a.txt"]
    assert_index_consistent(engine)


def test_progress_reports_and_cancel(engine, docs):
    import threading

    for i in range(60):
        write(docs / f"p{i}.txt", f"document {i}")
    engine.add_source(docs)
    seen = []
    engine.index(progress=seen.append)
    phases = [p.phase for p in seen]
    assert phases[0] == "scanning" and phases[-1] == "done"
    assert seen[-1].done == seen[-1].total == 60
    cancel = threading.Event()
    cancel.set()
    for i in range(60, 70):
        write(docs / f"p{i}.txt", "more")
    report = engine.index(cancel=cancel)
    assert report.cancelled


def test_document_text_rebuilt_from_chunks(engine, docs, settings):
    settings.index.chunk_tokens = 60
    text = "# Title\n\n" + " ".join(f"Sentence {i} is here." for i in range(300))
    write(docs / "long.md", text)
    engine.add_source(docs)
    engine.index()
    doc_id = engine.find(SearchRequest("sentence", mode=SearchMode.KEYWORD)).hits[0].doc_id
    assert engine.document_text(doc_id).text == text


def test_parallel_workers_index_same_as_inline(engine, docs, settings):
    settings.index.workers = 2
    for i in range(220):  # above the threshold where worker processes start
        write(docs / f"w{i}.md", f"# Doc {i}\n\nbanana number{i}")
    engine.add_source(docs)
    report = engine.index()
    assert report.added == 220
    assert engine.find(SearchRequest("banana", mode=SearchMode.KEYWORD, limit=100)).total_matched == 220
    assert len(engine.find(SearchRequest("number42", mode=SearchMode.KEYWORD)).hits) == 1


def test_a_rescan_of_a_few_small_text_files_starts_no_worker(engine, docs, monkeypatch):
    """Starting the workers cost a rescan of 150 changed pages 0.45 s of its 1.85 (issue 62, 8):
    small plain-text files below 200 and 2 MB are read in the process; a big one still goes out."""
    from findling.ingest import workers

    started: list[int] = []
    real = workers.ExtractionPool

    def pool(workers, budget):
        started.append(workers)
        return real(workers, budget)

    monkeypatch.setattr(workers, "ExtractionPool", pool)  # the indexer imports it where files are read
    for i in range(150):
        write(docs / f"page{i}.rst", f"Page {i}\n=======\n\nwombat number{i} " + "filler " * 1000)
    engine.add_source(docs)
    assert engine.index(embed=False).added == 150 and started == []
    assert len(engine.find(SearchRequest("number42", mode=SearchMode.KEYWORD)).hits) == 1
    write(docs / "big.txt", "wombat " * 400_000)  # 2.8 MB: read under the workers' budgets
    assert engine.index(embed=False).added == 1 and started == [1]


def test_search_timings_recorded(engine, docs, monkeypatch):
    """The timings measure the work: a keyword lane made 50 ms slower shows in the stage that ran
    it and in the total, the total is the time the call took, and no part counts more than it."""
    import time

    from findling.search.keyword.lane import Bm25Lane

    write(docs / "a.txt", "timing test")
    engine.add_source(docs)
    engine.index()
    search = Bm25Lane.search

    def slow_search(self, *args, **kwargs):
        time.sleep(0.05)
        return search(self, *args, **kwargs)

    monkeypatch.setattr(Bm25Lane, "search", slow_search)
    for mode in (SearchMode.KEYWORD, SearchMode.HYBRID):
        started = time.perf_counter()
        result = engine.find(SearchRequest("timing", mode, rerank="off"))
        wall_ms = (time.perf_counter() - started) * 1000
        timings = result.timings_ms
        assert result.hits, mode
        assert 0.9 * wall_ms <= timings["total"] <= wall_ms + 0.01, (mode, timings, wall_ms)
        assert 50 <= timings["total"] and 0 < timings.get("bm25", timings.get("lanes", 0)), timings
        parts = sum(ms for name, ms in timings.items() if name != "total")
        assert parts <= timings["total"] + 0.05, timings
    stages = {s.name: s.ms for s in result.explain.stages if s.status == "ran"}
    assert 50 <= stages["lanes"] == pytest.approx(timings["lanes"], abs=0.01)


def test_preview_highlights_what_search_matched(engine, docs):
    """One analysis for snippets and the preview: a stemmed match lights up in both."""
    write(docs / "server.txt", "The server restarted twice. Restarting it again fixed the listener.")
    engine.add_source(docs)
    engine.index()
    result = engine.find(SearchRequest("restart", mode=SearchMode.KEYWORD))
    doc = engine.document_text(result.hits[0].doc_id, result.terms)
    marked = [doc.text[h.start : h.end] for h in doc.highlights]
    assert marked == ["restarted", "Restarting"]


def test_a_batch_holds_up_to_a_thousand_files_and_is_bounded_by_bytes(engine, docs, monkeypatch):
    """Each commit goes through DuckDB's log and a checkpoint: batches of 256 files wrote the
    kernel's docs 1.5 times over (issue 62, 3). A batch now holds up to 1,000 files, or what
    12 MB of files give (giant generated files stay in small batches)."""
    from findling.ingest import indexer

    batches: list[int] = []
    real = indexer.Indexer._commit

    def commit(self, source, batch, known, report):
        if batch.rows:
            batches.append(len(batch.rows))
        return real(self, source, batch, known, report)

    monkeypatch.setattr(indexer.Indexer, "_commit", commit)
    for i in range(300):
        write(docs / "small" / f"n{i}.txt", f"note {i} quokka")
    engine.add_source(docs)
    assert engine.index(embed=False).added == 300 and batches == [300]
    monkeypatch.setattr(indexer, "_BATCH_BYTES", 100_000)
    batches.clear()
    for i in range(6):
        write(docs / "big" / f"b{i}.txt", f"big {i} " + "wombat " * 9_000)  # 63 kB each
    assert engine.index(embed=False).added == 6 and batches == [2, 2, 2]
