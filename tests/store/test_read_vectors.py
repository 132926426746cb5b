"""Reading vectors in batches of seq ranges: every live row once, in seq order, across gaps."""

from __future__ import annotations

import numpy as np

from findling.store.db import Database
from findling.store.vectors import delete_vectors, ensure_table, read_vectors, write_vectors
from tests.helpers import stand_in_documents


def test_batches_hold_every_live_row_once_in_order_across_gaps(tmp_path):
    db = Database(tmp_path / "v.duckdb")
    with db.transaction() as tx:
        table = ensure_table(tx, "m", 4)
        other = ensure_table(tx, "other", 4)  # shares the seq sequence: this table's seqs get gaps
    vectors = np.arange(1200, dtype=np.float32).reshape(300, 4)
    for lo in range(0, 300, 50):
        with db.transaction() as tx:
            docs = list(range(lo, lo + 50))
            stand_in_documents(tx, docs)
            write_vectors(tx, table, docs, [0] * 50, [(0, 1)] * 50, vectors[lo : lo + 50])
            write_vectors(tx, other, docs, [0] * 50, [(0, 1)] * 50, vectors[lo : lo + 50])
    with db.transaction() as tx:
        delete_vectors(tx, "(SELECT unnest(range(60, 240)))")  # a long run of deleted rows
    cur = db.cursor()
    batches = list(read_vectors(cur, table, -1, 16))
    seqs = np.concatenate([b[0] for b in batches])
    docs = np.concatenate([b[1] for b in batches])
    assert all(len(b[0]) <= 16 for b in batches)
    assert np.all(np.diff(seqs) > 0)
    assert docs.tolist() == list(range(60)) + list(range(240, 300))
    assert np.array_equal(np.concatenate([b[5] for b in batches]), vectors[docs])
    later = list(read_vectors(cur, table, int(seqs[70]), 16))  # after a seq: only the rows past it
    assert np.concatenate([b[0] for b in later]).tolist() == seqs[71:].tolist()
    assert list(read_vectors(cur, table, int(seqs[-1]), 16)) == []
    db.close()


def test_many_vectors_in_one_write_stay_within_duckdbs_budget(tmp_path):
    """A write of 20,000 MiniLM-sized vectors (`findling bench --vectors`, an attached collection's)
    failed DuckDB's 256 MB budget in one statement; written a slice at a time it holds them all,
    in order, each with its document and hash."""
    db = Database(tmp_path / "v.duckdb")
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((20_000, 384)).astype(np.float32)
    docs = (np.arange(20_000) // 4 + 1).tolist()
    with db.transaction() as tx:
        table = ensure_table(tx, "m", 384)
        stand_in_documents(tx, sorted(set(docs)))
        write_vectors(
            tx,
            table,
            docs,
            [i % 4 for i in range(20_000)],
            [(0, 1)] * 20_000,
            vectors,
            np.arange(1, 20_001, dtype=np.uint64),
        )
    batches = list(read_vectors(db.cursor(), table, -1, 5_000))
    assert np.concatenate([b[1] for b in batches]).tolist() == docs
    assert np.array_equal(np.concatenate([b[5] for b in batches]), vectors)
    assert db.cursor().execute(f"SELECT count(DISTINCT hash), max(hash) FROM {table}").fetchone() == (20_000, 20_000)
    db.close()
