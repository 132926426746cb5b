"""The index is stored in small row groups: each checkpoint rewrites the growing last group of a
table whole, so a group of 122,880 chunks (DuckDB's own size) had a checkpoint hold ~300 MB of
their text at once. DuckDB keeps no row group size in the file: every open must ask for it."""

from __future__ import annotations

import threading

import duckdb

from findling.store.db import ROW_GROUP_ROWS, Database


def _groups(cur: duckdb.DuckDBPyConnection, table: str) -> list[int]:
    rows = cur.execute(
        f"""SELECT row_group_id, max("count") FROM pragma_storage_info('{table}')
            WHERE column_name = 'doc_id' GROUP BY row_group_id ORDER BY row_group_id"""
    ).fetchall()
    return [int(r[1]) for r in rows]


def _append_chunks(db: Database, first: int, count: int) -> None:
    with db.transaction() as tx:
        tx.execute(
            """INSERT INTO chunks (doc_id, ordinal, text, start_char, end_char)
               SELECT ? + i, 0, 'register ' || i || repeat(' field mask shift', 8), 0, 10 FROM range(?) t(i)""",
            [first, count],
        )


def test_batches_committed_one_after_another_fill_small_row_groups(tmp_path):
    db = Database(tmp_path / "index.duckdb")
    for batch in range(6):  # as an indexing run commits: a batch, a checkpoint, the next batch
        _append_chunks(db, batch * 5000, 5000)
        assert db.checkpoint()
    db.close()
    db = Database(tmp_path / "index.duckdb")
    groups = _groups(db.cursor(), "chunks")
    assert sum(groups) == 30_000
    assert max(groups) <= ROW_GROUP_ROWS < 30_000
    db.close()


def test_an_index_written_in_large_row_groups_opens_takes_writes_and_stays_readable(tmp_path):
    path = tmp_path / "index.duckdb"
    Database(path).close()  # the schema
    con = duckdb.connect(str(path))  # as DuckDB writes it alone: 122,880 rows a group
    con.execute(
        "INSERT INTO chunks (doc_id, ordinal, text, start_char, end_char) "
        "SELECT i, 0, 'old ' || i, 0, 3 FROM range(20000) t(i)"
    )
    con.close()
    db = Database(path)
    assert _groups(db.cursor(), "chunks") == [20_000]
    _append_chunks(db, 20_000, 20_000)
    with db.transaction() as tx:
        tx.execute("DELETE FROM chunks WHERE doc_id % 3 = 0")
    assert db.checkpoint()
    assert db.cursor().execute("SELECT count(*), count(DISTINCT doc_id) FROM chunks").fetchall() == [(26_666, 26_666)]
    db.close()
    con = duckdb.connect(str(path), read_only=True)  # an earlier Findling opens it as DuckDB does
    assert con.execute("SELECT count(*) FROM chunks WHERE doc_id % 3 = 0").fetchall() == [(0,)]
    con.close()


def test_every_threads_cursor_and_a_second_handle_read_the_index(tmp_path):
    path = tmp_path / "index.duckdb"
    db = Database(path)
    _append_chunks(db, 0, 10)
    seen: list[object] = []
    reader = threading.Thread(target=lambda: seen.append(db.cursor().execute("SELECT count(*) FROM chunks").fetchall()))
    reader.start()
    reader.join()
    other = Database(path)  # the same process again (the app's window and its server): one open file
    assert other.cursor().execute("SELECT count(*) FROM chunks").fetchall() == [(10,)]
    db.close()
    assert other.cursor().execute("SELECT count(*) FROM chunks").fetchall() == [(10,)]
    other.close()
    assert seen == [[(10,)]]
