"""The same text is embedded once: copies, repeated windows and the unchanged parts of an
edited document get stored vectors instead of model runs."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from findling.engine import Engine
from findling.ingest.embedding import text_hash
from findling.records import SearchMode, SearchRequest
from tests.helpers import assert_index_consistent, write

PARAGRAPHS = [
    f"Paragraph {i}: the {topic} section explains how the nightly import handles {topic} in detail, "
    f"with examples of configuration, failure modes and recovery for {topic}. " * 3
    for i, topic in enumerate(["invoices", "receipts", "payroll", "shipping", "returns", "taxes", "audits", "loans"])
]


@pytest.fixture
def engine(tmp_path, settings, embedder_installed):
    settings.models.threads = 2
    settings.index.chunk_tokens = 64  # several chunks, so an edit leaves most of them alone
    with Engine(tmp_path / "home", settings=settings) as engine:
        yield engine


def _vectors(engine: Engine) -> list[tuple]:
    cur = engine.database.cursor()
    table = cur.execute("SELECT table_name FROM vector_models").fetchall()[0][0]
    return cur.execute(
        f"SELECT doc_id, start_char, end_char, hash, vec FROM {table} ORDER BY doc_id, start_char"
    ).fetchall()


def test_a_copied_file_embeds_nothing_new(engine, docs):
    write(docs / "handbook.md", "# Handbook\n\n" + "\n\n".join(PARAGRAPHS))
    engine.add_source(docs)
    first = engine.index().embedding
    assert 4 < first.computed <= first.vectors
    shutil.copy(docs / "handbook.md", docs / "handbook copy.md")
    second = engine.index().embedding
    assert second.documents == 1 and second.vectors == first.vectors and second.computed == 0
    rows = _vectors(engine)
    by_doc: dict[int, list] = {}
    for doc_id, *rest in rows:
        by_doc.setdefault(doc_id, []).append(rest)
    original, copy = by_doc.values()
    assert [r[:3] for r in original] == [r[:3] for r in copy]
    assert all(np.allclose(a[3], b[3]) for a, b in zip(original, copy))
    hits = engine.find(SearchRequest("payroll failure recovery", mode=SearchMode.SEMANTIC, limit=5)).hits
    assert len(hits) == 1  # the same bytes: one result, which names its copy
    assert {p.rsplit("/", 1)[-1] for p in (hits[0].path, *hits[0].copies)} == {"handbook.md", "handbook copy.md"}
    assert_index_consistent(engine)


def test_repeated_windows_in_one_run_are_embedded_once(engine, docs):
    boilerplate = "# Notice\n\nConfidential. Property of Example Corp. Do not distribute outside the finance team."
    for i in range(3):
        write(docs / f"memo{i}.md", boilerplate)  # same text and title: what the model reads is the same
    engine.add_source(docs)
    report = engine.index().embedding
    assert report.vectors == 3 and report.computed == 1


def test_editing_one_paragraph_re_embeds_only_what_changed(engine, docs):
    path = write(docs / "handbook.md", "# Handbook\n\n" + "\n\n".join(PARAGRAPHS))
    engine.add_source(docs)
    first = engine.index().embedding
    before = {r[3] for r in _vectors(engine)}
    edited = PARAGRAPHS.copy()
    edited[-1] = edited[-1].replace("loans", "mortgages")
    path.write_text("# Handbook\n\n" + "\n\n".join(edited), encoding="utf-8")
    second = engine.index().embedding
    after = {r[3] for r in _vectors(engine)}
    assert second.documents == 1 and second.vectors >= first.vectors - 1
    assert 0 < second.computed <= 3 < second.vectors  # only the windows around the edit
    assert len(after - before) == second.computed
    assert (
        engine.find(SearchRequest("mortgages", mode=SearchMode.SEMANTIC, limit=1)).hits[0].path.endswith("handbook.md")
    )
    stale = engine.database.cursor().execute("SELECT count(*) FROM stale_vectors").fetchall()[0][0]
    assert stale == 0  # kept only until the run that could reuse them is done
    assert_index_consistent(engine)


def test_a_deleted_file_leaves_nothing_to_reuse(engine, docs):
    path = write(docs / "a.md", PARAGRAPHS[0])
    engine.add_source(docs)
    engine.index()
    path.unlink()
    engine.index()
    cur = engine.database.cursor()
    assert cur.execute("SELECT count(*) FROM stale_vectors").fetchall()[0][0] == 0
    assert _vectors(engine) == []


def test_text_hash_is_stable_and_never_zero():
    assert text_hash("abc") == text_hash("abc") != text_hash("abd")
    assert all(text_hash(str(i)) > 0 for i in range(1000))


def test_windows_cover_each_chunk_once_and_machine_data_once():
    from findling.ingest.embedding_windows import document_windows

    text = " ".join(f"w{i}" for i in range(3000))  # ~15,000 characters
    chunks = [(0, 0, text[:6000]), (1, 5000, text[5000:11000]), (2, 10000, text[10000:])]
    windows = document_windows(chunks, 128)
    assert [w[0] for w in windows] == sorted(w[0] for w in windows)
    covered = sum(end - start for _, start, end, _ in windows)
    assert len(text) <= covered < len(text) * 1.2  # every character, the chunks' shared text not twice
    assert all(text[start:end] == window for _, start, end, window in windows)
    assert max(end for _, _, end, _ in windows) == len(text)

    minified = "var a={" + ",".join(f'"k{i}":{i}' for i in range(20000)) + "};"
    one = document_windows([(0, 0, minified)], 128)
    assert len(one) == 1 and one[0][1] == 0
    wrapped = "\n".join(minified[i : i + 80] for i in range(0, len(minified), 80))
    assert len(document_windows([(0, 0, wrapped)], 128)) > 100  # long, but lines of a normal length


def test_partly_embedded_index_says_how_much_the_semantic_lane_sees(engine, docs):
    for i in range(4):
        write(docs / f"n{i}.md", f"# Note {i}\n\n{PARAGRAPHS[i]}")
    engine.add_source(docs)
    engine.index()
    assert not any(
        n.startswith("semantic:") for n in engine.find(SearchRequest("payroll", mode=SearchMode.SEMANTIC)).notes
    )
    from findling.store.vectors import delete_vectors

    with engine.database.transaction() as tx:
        delete_vectors(tx, "(SELECT id FROM documents WHERE path LIKE '%n0.md' OR path LIKE '%n1.md')")
    semantic = engine.find(SearchRequest("payroll", mode=SearchMode.SEMANTIC))
    assert "semantic: 50 % of documents" in semantic.notes[0].text
    assert any(n.text.startswith("semantic: 50 %") for n in engine.find(SearchRequest("payroll")).notes)


def test_coverage_note_never_says_all_before_it_is():
    from findling.search.vector_lane import coverage_note

    assert coverage_note(10, 10) is None and coverage_note(0, 0) is None
    assert coverage_note(999, 1000).startswith("semantic: 99 %")
    assert coverage_note(0, 7).startswith("semantic: 0 %")


def test_most_recently_modified_documents_are_embedded_first(tmp_path, settings, docs):
    import os

    from findling.store.vectors import ensure_table, pending_first

    for i, name in enumerate(["old", "newest", "middle"]):
        path = write(docs / f"{name}.md", f"# {name}\n\nText of {name}.")
        os.utime(path, (1_000_000 + i, {"old": 1_000_000, "newest": 3_000_000, "middle": 2_000_000}[name]))
    with Engine(tmp_path / "plain", settings=settings) as plain:
        plain.add_source(docs)
        plain.index()
        with plain.database.transaction() as tx:
            table = ensure_table(tx, "m", 3)
        assert [title for _, title in pending_first(plain.database.cursor(), table, 3)] == [
            "newest",
            "middle",
            "old",
        ]


def test_an_empty_file_does_not_keep_semantic_search_partial(engine, tmp_path):
    """An empty file has terms (its name) but no text to embed: once the rest is embedded,
    searches say nothing of a share still being embedded."""
    docs = tmp_path / "empty-docs"
    write(docs / "__init__.py", "")
    write(docs / "notes.md", "# Notes\n\nThe nightly import handles invoices and receipts.\n")
    engine.add_source(docs)
    engine.index()
    result = engine.find(SearchRequest("nightly import invoices", mode=SearchMode.HYBRID, rerank="off"))
    assert result.hits and not any("documents so far" in note for note in result.notes), result.notes
