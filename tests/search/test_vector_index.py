"""The quantized vector index: int8 codes find the candidates, exact floats rank them, so
results match exact float search; it follows inserts, deletes and wider value ranges."""

from __future__ import annotations

import numpy as np
import pytest

from findling.search.vector_index import VectorIndex, quantize, query_code
from findling.store.db import Database
from findling.store.vectors import delete_vectors, ensure_table, write_vectors

DIM = 32


def _unit(rng: np.random.Generator, n: int, spread: float = 1.0) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32) * spread
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture
def store(tmp_path):
    db = Database(tmp_path / "v.duckdb")
    with db.transaction() as tx:
        table = ensure_table(tx, "m", DIM)
    yield db, table
    db.close()


def _write(db, table, vectors, first_doc):
    docs = list(range(first_doc, first_doc + len(vectors)))
    with db.transaction() as tx:
        write_vectors(tx, table, docs, [0] * len(docs), [(0, 1)] * len(docs), vectors)
    return docs


def _exact_top(vectors: dict[int, np.ndarray], q: np.ndarray, k: int) -> list[int]:
    return sorted(vectors, key=lambda d: -float(vectors[d] @ q))[:k]


def test_results_and_scores_match_exact_float_search(store, tmp_path):
    db, table = store
    rng = np.random.default_rng(3)
    vectors = _unit(rng, 3000)
    docs = _write(db, table, vectors, 1)
    index = VectorIndex(db.cursor, table, DIM, tmp_path / "scratch")
    by_doc = dict(zip(docs, vectors))
    for q in _unit(rng, 20):
        hits = index.search(q, 10)
        assert [h.doc_id for h in hits] == _exact_top(by_doc, q, 10)
        assert all(np.isclose(h.cosine, float(by_doc[h.doc_id] @ q), atol=1e-6) for h in hits)
    assert index.resident_bytes < vectors.nbytes  # a byte a dimension, not four
    index.close()


def test_follows_inserts_deletes_and_a_wider_range(store, tmp_path):
    db, table = store
    rng = np.random.default_rng(4)
    small = _unit(rng, 200) * np.float32(0.2)  # not unit: a narrow range first
    docs = _write(db, table, small, 1)
    index = VectorIndex(db.cursor, table, DIM, tmp_path)
    index.refresh()
    wide = _unit(rng, 200)  # values well past the first scale: the codes are made again
    docs += _write(db, table, wide, 1000)
    with db.transaction() as tx:
        delete_vectors(tx, f"({', '.join(map(str, docs[:150]))})")
    by_doc = dict(zip(docs[150:], np.concatenate([small, wide])[150:]))
    for q in _unit(rng, 10):
        assert [h.doc_id for h in index.search(q, 5)] == _exact_top(by_doc, q, 5)
    assert len(index) == 250
    allowed = np.array(docs[150:170], dtype=np.int32)
    assert {h.doc_id for h in index.search(_unit(rng, 1)[0], 50, allowed)} == set(allowed.tolist())
    best = index.best_chunks(wide[0], [1000, 1001, 1])
    assert set(best) == {1000, 1001} and np.isclose(best[1000].cosine, 1.0, atol=1e-5)
    index.close()


def test_compacts_its_float_file_after_many_deletions(store, tmp_path):
    db, table = store
    rng = np.random.default_rng(5)
    docs = _write(db, table, _unit(rng, 400), 1)
    index = VectorIndex(db.cursor, table, DIM, tmp_path)
    index.refresh()
    with db.transaction() as tx:
        delete_vectors(tx, f"({', '.join(map(str, docs[:300]))})")
    kept = _write(db, table, _unit(rng, 10), 5000)
    q = _unit(rng, 1)[0]
    hits = index.search(q, 400)
    assert index._floats.count == 110 and len(hits) == 110
    assert set(kept) <= {h.doc_id for h in hits}
    index.close()


def test_integer_dot_products_approximate_floats():
    rng = np.random.default_rng(6)
    v = _unit(rng, 500)
    scale = np.abs(v).max(axis=0) / 127
    codes = quantize(v, scale)
    q = _unit(rng, 1)[0]
    code, step = query_code(q, scale)
    approx = ((codes.astype(np.int64) - 128) @ code.astype(np.int64)) * step
    assert np.abs(approx - v @ q).max() < 0.02
