"""The store on its own: documents in and out, exact paths, sources, counts, the
consistency check, the expansion cache. No engine, no search."""

from __future__ import annotations

import os

import pytest

from findling.records import ChunkSpan, DocumentRow, SearchMode, SearchRequest, Source
from findling.store.db import Database
from findling.store.documents import (
    allocate_ids,
    chunks_by_document,
    delete_documents,
    document_at,
    document_meta,
    known_documents,
    update_stat,
    write_documents,
)
from findling.store.expansions import cached_expansion, save_expansion
from findling.store.sources import delete_source, insert_source, inside, list_sources, owner_of
from findling.store.sql import scalar
from findling.store.status import consistency_problems, counts_by_source, problems, totals


@pytest.fixture
def db(tmp_path):
    database = Database(tmp_path / "store.duckdb")
    yield database
    database.close()


def _row(path: str, text: str = "alpha beta", status: str = "ok", error: str = "") -> DocumentRow:
    return DocumentRow(
        path=path,
        ext="txt",
        size=len(text),
        mtime=1.0,
        hash="h",
        status=status,
        title=os.path.basename(path),
        error=error,
        length=2.0,
        chunks=[(ChunkSpan(0, len(text)), text)],
        terms={"alpha": 1.0, "beta": 1.0},
    )


def _add(db: Database, source_id: int, *rows: DocumentRow) -> list[int]:
    with db.transaction() as tx:
        # documents are written for a folder the index holds (a removed one takes none)
        tx.execute(
            """INSERT INTO sources (id, path, include, exclude) SELECT ?, ?, [], []
               WHERE NOT EXISTS (SELECT 1 FROM sources WHERE id = ?)""",
            [source_id, f"/docs-{source_id}", source_id],
        )
        ids = allocate_ids(tx, len(rows))
        for row, doc_id in zip(rows, ids):
            row.doc_id = doc_id
        write_documents(tx, source_id, list(rows))
    return ids


def test_documents_round_trip_with_an_undecodable_name(db):
    odd = os.fsdecode(b"/docs/m\xe9moire.txt")
    ids = _add(db, 1, _row("/docs/plain.txt"), _row(odd, "gamma"))
    cur = db.cursor()
    known = known_documents(cur, 1)
    assert set(known) == {"/docs/plain.txt", odd}  # exact paths, surrogates and all
    assert document_at(cur, odd).id == ids[1]
    meta = document_meta(cur, ids)
    assert meta[ids[1]].path == odd
    assert scalar(cur, "SELECT path FROM documents WHERE id = ?", [ids[1]]) == "/docs/m\\xe9moire.txt"
    assert chunks_by_document(cur, ids)[ids[1]] == [(0, 5, "gamma")]


def test_delete_keeps_document_counts_in_step(db):
    ids = _add(db, 1, _row("/a.txt"), _row("/b.txt"))
    assert scalar(db.cursor(), "SELECT df FROM terms WHERE term = 'alpha'") == 2
    with db.transaction() as tx:
        delete_documents(tx, [ids[0]])
    assert scalar(db.cursor(), "SELECT df FROM terms WHERE term = 'alpha'") == 1
    assert consistency_problems(db.cursor()) == []
    assert totals(db.cursor()).postings == 2


def test_a_move_keeps_the_document(db):
    [doc_id] = _add(db, 1, _row("/old.txt"))
    moved = os.fsdecode(b"/new-\xff.txt")
    with db.transaction() as tx:
        update_stat(tx, doc_id, 10, 2.0, (moved, "txt"))
    assert document_at(db.cursor(), moved).id == doc_id
    assert document_at(db.cursor(), "/old.txt") is None


def test_consistency_check_finds_counts_out_of_step(db):
    _add(db, 1, _row("/a.txt"))
    with db.transaction() as tx:
        tx.execute("UPDATE terms SET df = 5 WHERE term = 'alpha'")
    assert consistency_problems(db.cursor()) == ["term document counts out of step with postings"]


def test_problems_list_failed_skipped_and_partly_indexed(db):
    _add(
        db,
        1,
        _row("/ok.txt"),
        _row("/bad.pdf", status="failed", error="damaged"),
        _row("/part.html", error="the page nests too deeply"),
    )
    listed = {(p.path, p.status) for p in problems(db.cursor(), 10)}
    assert listed == {("/bad.pdf", "failed"), ("/part.html", "ok")}
    assert counts_by_source(db.cursor())[1].failed == 1


def test_sources_with_exact_paths_and_containment(db):
    odd = os.fsdecode(b"/home/u/Dokumente-\xe4")
    with db.transaction() as tx:
        inner = insert_source(tx, odd + "/sub", (), ())
    with db.transaction() as tx:
        outer = insert_source(tx, odd, ("*.md",), (), absorb=[inner])
    assert [s.path for s in list_sources(db.cursor())] == [odd]
    assert inside(odd + "/sub/x.md", odd) and not inside(odd + "-other/x.md", odd)
    assert owner_of([Source(outer.id, odd)], odd + "/a.txt").id == outer.id
    with db.transaction() as tx:
        delete_source(tx, outer.id)
    assert list_sources(db.cursor()) == []


def test_expansion_cache_goes_through_a_transaction(db):
    assert cached_expansion(db.cursor(), "q", "m") is None
    with db.transaction() as tx:
        save_expansion(tx, "q", "m", "lex: a")
    assert cached_expansion(db.cursor(), "q", "m") == "lex: a"


def test_checkpoint_is_not_blocked_by_an_open_read(db):
    _add(db, 1, _row("/a.txt"))
    scalar(db.cursor(), "SELECT count(*) FROM documents")  # reads close their results
    assert db.checkpoint() is True


def test_upgrade_reads_unspaced_script_documents_again(tmp_path, settings):
    """Schema 5 changed how Chinese, Japanese, Thai... are analysed: an index written before
    re-reads exactly those documents on the next `index`, and keeps the rest."""
    import duckdb

    from findling.engine import Engine
    from tests.helpers import write

    docs = tmp_path / "docs"
    write(docs / "beijing.txt", "北京は中国の首都です。")
    write(docs / "english.txt", "Plain English notes about the capital.")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
    con = duckdb.connect(str(tmp_path / "home" / "findling.duckdb"))
    con.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    con.close()
    with Engine(tmp_path / "home", settings=settings) as engine:
        report = engine.index()
        assert (report.updated, report.unchanged) == (1, 1)
        assert [os.path.basename(h.path) for h in engine.find(SearchRequest("北京", mode=SearchMode.KEYWORD)).hits] == [
            "beijing.txt"
        ]
        assert engine.index().unchanged == 2


def test_schema_6_keeps_vectors_adds_hashes_and_rereads_html(tmp_path):
    """An index written by schema 5 (vector tables without hashes) opens with its vectors
    intact, and its HTML pages are marked to be read again for their main content."""
    import duckdb
    import numpy as np

    from findling.store.db import Database
    from findling.store.schema import MIGRATIONS
    from findling.store.vectors import known_vectors, write_vectors

    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE IF NOT EXISTS meta (key VARCHAR PRIMARY KEY, value VARCHAR)")
    for migration in MIGRATIONS[:5]:
        for statement in migration:
            con.execute(statement)
    con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', '5')")
    con.execute("""CREATE TABLE vectors_old (seq BIGINT NOT NULL DEFAULT nextval('vector_seq'), doc_id INTEGER NOT NULL,
                   ordinal INTEGER NOT NULL, start_char INTEGER NOT NULL, end_char INTEGER NOT NULL,
                   vec FLOAT[3] NOT NULL)""")
    con.execute("INSERT INTO vector_models (model, table_name, dim) VALUES ('m', 'vectors_old', 3)")
    con.execute("INSERT INTO vectors_old (doc_id, ordinal, start_char, end_char, vec) VALUES (1, 0, 0, 5, [1, 0, 0])")
    for doc_id, ext in [(1, "html"), (2, "md")]:
        con.execute(
            """INSERT INTO documents (id, source_id, path, ext, size, mtime, hash, status)
                       VALUES (?, 1, ?, ?, 10, 1.0, 'h', 'ok')""",
            [doc_id, f"/d/{doc_id}.{ext}", ext],
        )
    con.close()

    db = Database(path)
    cur = db.cursor()
    table = cur.execute("SELECT table_name FROM vector_models WHERE model = 'm'").fetchall()[0][0]
    assert cur.execute(f"SELECT seq, doc_id, vec, hash FROM {table}").fetchall() == [(1, 1, (1.0, 0.0, 0.0), None)]
    assert cur.execute("SELECT ext, size, hash FROM documents ORDER BY id").fetchall() == [
        ("html", -1, None),
        ("md", 10, "h"),
    ]
    with db.transaction() as tx:
        write_vectors(tx, table, [2], [0], [(0, 4)], np.array([[0, 1, 0]], np.float32), np.array([7], np.uint64))
    assert set(known_vectors(db.cursor(), table, np.array([7, 8], np.uint64))) == {7}
    db.close()
    reopened = Database(path)  # and it survives a reopen (no ALTER for the WAL to replay)
    assert reopened.cursor().execute(f"SELECT count(*) FROM {table}").fetchall()[0][0] == 2
    reopened.close()


def _limit_mb(db: Database) -> float:
    text = scalar(db.cursor(), "SELECT current_setting('memory_limit')")
    number, unit = text.split()
    return float(number) * {"MiB": 1.048576, "GiB": 1073.741824}[unit]


def test_searching_keeps_a_small_cache_and_a_run_gets_the_configured_memory(tmp_path):
    from findling.store.db import READING_FLOOR_MB

    db = Database(tmp_path / "f.duckdb", memory_limit_mb=640)
    try:
        assert db.reading_memory_mb() == READING_FLOOR_MB  # a small file: the floor
        assert _limit_mb(db) == pytest.approx(READING_FLOOR_MB, rel=0.01)
        with db.working_memory():
            assert _limit_mb(db) == pytest.approx(640, rel=0.01)
            with db.working_memory():  # a second run at once (text, then embedding)
                pass
            assert _limit_mb(db) == pytest.approx(640, rel=0.01)  # the first is still running
        assert _limit_mb(db) == pytest.approx(READING_FLOOR_MB, rel=0.01)
    finally:
        db.close()


def test_a_bulk_read_lets_its_cached_blocks_go_and_spares_a_working_run(tmp_path, monkeypatch):
    import findling.store.db as store_db

    monkeypatch.setattr(store_db, "READING_FLOOR_MB", 4)  # a small file can then cache past the floor
    monkeypatch.setattr(store_db, "READING_SHARE", 2)
    db = Database(tmp_path / "f.duckdb", memory_limit_mb=640)

    def cached_mb() -> float:
        return (scalar(db.cursor(), "SELECT sum(memory_usage_bytes) FROM duckdb_memory()") or 0) / 1e6

    def read_everything() -> None:
        db.cursor().execute("SELECT sum(length(s)) FROM t").fetchall()

    try:
        with db.working_memory():
            with db.transaction() as tx:
                tx.execute(
                    "CREATE TABLE t AS SELECT md5(range::VARCHAR) || md5((range * 7)::VARCHAR) AS s FROM range(800000)"
                )
            db.checkpoint()
        budget = db.reading_memory_mb()
        assert budget > 8 and _limit_mb(db) == pytest.approx(budget, rel=0.02)
        read_everything()
        assert cached_mb() > 8  # a plain read keeps its blocks, up to the budget
        with db.bulk_read():
            read_everything()
            assert _limit_mb(db) == pytest.approx(640, rel=0.01)  # room for the searches beside it
        assert cached_mb() <= 4.5  # let go
        assert _limit_mb(db) == pytest.approx(budget, rel=0.02)
        with db.working_memory():
            with db.bulk_read():
                read_everything()
            assert _limit_mb(db) == pytest.approx(640, rel=0.01)  # the writer keeps its budget
        assert _limit_mb(db) == pytest.approx(budget, rel=0.02)
    finally:
        db.close()


def test_the_reading_budget_follows_the_file_within_its_bounds():
    from findling.store.db import reading_budget_mb

    cases = ((0, 512, 128), (1300, 512, 128), (4000, 512, 250), (10000, 512, 512), (339, 100, 100))
    for size_mb, cap, budget in cases:
        assert reading_budget_mb(size_mb * 1_000_000, cap) == budget


def test_compaction_sorts_both_fields_postings_by_term_and_keeps_them(db):
    from findling.store.maintenance import compact_postings

    rows = []
    for i in range(40):  # each title holds a word of its own and one they share
        row = _row(f"/docs/{i:02d}.txt")
        row.terms = {f"w{i}": 1.0, "shared": 1.0}
        row.title_terms = frozenset({f"w{i}", "shared"})
        rows.append(row)
    _add(db, 1, *rows)
    cur = db.cursor()
    before = sorted(cur.execute("SELECT term_id, doc_id FROM title_postings").fetchall())
    order = [r[0] for r in cur.execute("SELECT term_id FROM title_postings").fetchall()]
    assert order != sorted(order)  # appended by document
    compact_postings(db)
    order = cur.execute("SELECT term_id, doc_id FROM title_postings").fetchall()
    assert order == sorted(order) == before
    body = cur.execute("SELECT term_id, doc_id FROM postings").fetchall()
    assert body == sorted(body)


def test_a_write_outside_any_run_gets_the_configured_memory(tmp_path, monkeypatch):
    """The reading budget is for searching: a transaction of its own (an add, a removal, a tool
    writing vectors) still has the configured limit, and the budget comes back after it."""
    import findling.store.db as store_db

    monkeypatch.setattr(store_db, "READING_FLOOR_MB", 4)
    db = Database(tmp_path / "f.duckdb", memory_limit_mb=640)
    try:
        with db.transaction() as tx:
            assert _limit_mb(db) == pytest.approx(640, rel=0.01)
            tx.execute("CREATE TABLE t AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(300000)")
            tx.execute("CREATE TABLE u AS SELECT s, count(*) AS n FROM t GROUP BY s ORDER BY s")
        assert _limit_mb(db) == pytest.approx(db.reading_memory_mb(), rel=0.02)
    finally:
        db.close()
