"""The quantized vector index: int8 codes find the candidates, exact floats rank them, so
results match exact float search; it follows inserts, deletes and wider value ranges."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from findling.search.float_file import FloatFile
from findling.search.vector_codes import member_mask, principal_axes, quantize, query_code
from findling.search.vector_index import VectorIndex
from findling.store.db import Database
from findling.store.vectors import delete_vectors, ensure_table
from tests.helpers import write_stand_in_vectors

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


def _exact_top(vectors: dict[int, np.ndarray], q: np.ndarray, k: int) -> list[int]:
    return sorted(vectors, key=lambda d: -float(vectors[d] @ q))[:k]


@pytest.mark.slow
def test_results_and_scores_match_exact_float_search(store, tmp_path):
    db, table = store
    rng = np.random.default_rng(3)
    vectors = _unit(rng, 3000)
    docs = write_stand_in_vectors(db, table, vectors, 1)
    index = VectorIndex(db.cursor, table, DIM, tmp_path / "scratch")
    by_doc = dict(zip(docs, vectors))
    for q in _unit(rng, 20):
        hits = index.search(q, 10)
        assert [h.doc_id for h in hits] == _exact_top(by_doc, q, 10)
        assert all(np.isclose(h.cosine, float(by_doc[h.doc_id] @ q), atol=1e-6) for h in hits)
    assert index.resident_bytes < vectors.nbytes  # a byte a dimension, not four
    index.close()


def test_copies_are_listed_in_document_order_whatever_the_depth(store, tmp_path):
    """A file and its copies have the same vectors, so the same score: they come in document
    order however many results are asked for (the window asks for more than a terminal, and
    which copy a list names first must be the same on both)."""
    db, table = store
    rng = np.random.default_rng(5)
    others = _unit(rng, 400)
    write_stand_in_vectors(db, table, others, 1)
    copy = _unit(rng, 1)[0]
    copies = write_stand_in_vectors(db, table, np.stack([copy] * 6), 1000)
    index = VectorIndex(db.cursor, table, DIM, tmp_path / "scratch")
    query = copy + 0.05 * _unit(rng, 1)[0]
    query /= np.linalg.norm(query)
    for k in (1, 2, 3, 6, 10, 50, 200):
        found = [h.doc_id for h in index.search(query, k) if h.doc_id in copies]
        assert found == copies[: min(k, len(copies))], k
    index.close()


def test_follows_inserts_deletes_and_a_wider_range(store, tmp_path):
    db, table = store
    rng = np.random.default_rng(4)
    small = _unit(rng, 200) * np.float32(0.2)  # not unit: a narrow range first
    docs = write_stand_in_vectors(db, table, small, 1)
    index = VectorIndex(db.cursor, table, DIM, tmp_path)
    index.refresh()
    wide = _unit(rng, 200)  # values well past the first scale: the codes are made again
    docs += write_stand_in_vectors(db, table, wide, 1000)
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
    docs = write_stand_in_vectors(db, table, _unit(rng, 400), 1)
    index = VectorIndex(db.cursor, table, DIM, tmp_path)
    index.refresh()
    with db.transaction() as tx:
        delete_vectors(tx, f"({', '.join(map(str, docs[:300]))})")
    kept = write_stand_in_vectors(db, table, _unit(rng, 10), 5000)
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


def _topical(rng: np.random.Generator, n: int) -> np.ndarray:
    """Vectors like real embeddings: about topics, and longer along a few axes than the rest."""
    axes = np.linspace(3.0, 0.3, DIM).astype(np.float32)
    topics = rng.standard_normal((30, DIM)).astype(np.float32) * axes
    v = topics[rng.integers(0, 30, n)] + 0.6 * rng.standard_normal((n, DIM)).astype(np.float32) * axes
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def _recall(index: VectorIndex, by_doc: dict[int, np.ndarray], queries: np.ndarray) -> float:
    found = [{h.doc_id for h in index.search(q, 10)} for q in queries]
    return float(np.mean([len(set(_exact_top(by_doc, q, 10)) & f) / 10 for q, f in zip(queries, found)]))


@pytest.mark.slow
def test_the_rotated_heads_shortlist_finds_what_a_full_scan_finds(store, tmp_path):
    db, table = store
    rng = np.random.default_rng(8)
    vectors = _topical(rng, 6000)
    docs = write_stand_in_vectors(db, table, vectors, 1)
    index = VectorIndex(db.cursor, table, DIM, tmp_path)
    index.whole_below = 1000  # as at a million rows: the head's pass hands on a shortlist
    by_doc = dict(zip(docs, vectors))
    queries = _topical(rng, 40)
    assert _recall(index, by_doc, queries) >= 0.97
    index.whole_below = 1 << 40
    assert _recall(index, by_doc, queries) == 1.0  # every row scored whole: exact
    index.whole_below = 1000
    # a filter that leaves a few documents, whatever their head scores, finds all of them in order
    allowed = np.array(docs[:7], dtype=np.int32)
    hits = index.search(queries[0], 10, allowed)
    assert [h.doc_id for h in hits] == _exact_top({d: by_doc[d] for d in docs[:7]}, queries[0], 10)
    # more documents than the shortlist holds: it reads further, up to every row
    assert len(index.search(queries[0], 6000)) == 6000
    index.close()


def test_the_basis_is_fitted_again_when_the_rows_double(store, tmp_path):
    db, table = store
    rng = np.random.default_rng(12)
    first = _topical(rng, 300)
    docs = write_stand_in_vectors(db, table, first, 1)
    index = VectorIndex(db.cursor, table, DIM, tmp_path)
    index.refresh()
    basis = index._state[1].basis.copy()
    assert index._state[1].fitted_on == 300
    more = _unit(rng, 400)  # other vectors than the first: the axes change
    docs += write_stand_in_vectors(db, table, more, 5000)
    by_doc = dict(zip(docs, np.concatenate([first, more])))
    queries = _unit(rng, 10)
    assert [[h.doc_id for h in index.search(q, 5)] for q in queries] == [_exact_top(by_doc, q, 5) for q in queries]
    book = index._state[1]
    assert book.fitted_on == 700 and not np.allclose(book.basis, basis)
    index.close()


def test_principal_axes_are_orthonormal_and_longest_first():
    rng = np.random.default_rng(13)
    sample = rng.standard_normal((500, DIM)).astype(np.float32) * np.linspace(5, 0.1, DIM).astype(np.float32)
    axes = principal_axes(sample)
    assert np.allclose(axes.T @ axes, np.eye(DIM), atol=1e-4)
    spread = ((sample @ axes) ** 2).sum(axis=0)
    assert np.all(np.diff(spread) <= 1e-3 * spread[0])
    v, q = _unit(rng, 2)
    assert np.isclose(float((v @ axes) @ (q @ axes)), float(v @ q), atol=1e-5)  # a rotation keeps dot products


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 50), max_size=40), st.lists(st.integers(-5, 60), max_size=20))
def test_member_mask_is_isin(doc_ids, wanted):
    ids = np.asarray(doc_ids, dtype=np.int32)
    assert np.array_equal(member_mask(ids, np.asarray(wanted, dtype=np.int64)), np.isin(ids, wanted))


def test_the_float_file_reads_rows_back_in_the_order_asked(tmp_path):
    floats = FloatFile(tmp_path, DIM)
    rows = np.random.default_rng(11).standard_normal((50, DIM)).astype(np.float32)
    floats.append(rows[:20])
    floats.append(rows[20:])
    slots = np.array([49, 3, 4, 5, 3, 0, 48, 49], dtype=np.int64)
    assert np.array_equal(floats.read(slots), rows[slots])
    assert floats.read(np.zeros(0, dtype=np.int64)).shape == (0, DIM)
    floats.close()


def test_the_float_file_reads_a_run_of_rows_into_its_answer_alone(tmp_path):
    """A load codes its rows again in batches read back from this file: each read held the
    batch twice (the bytes read, then their copy), which was the window's peak at start."""
    import tracemalloc

    floats = FloatFile(tmp_path, 384)
    rows = np.random.default_rng(12).standard_normal((4096, 384)).astype(np.float32)
    floats.append(rows)
    tracemalloc.start()
    try:
        back = floats.read(np.arange(4096, dtype=np.int64))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.array_equal(back, rows)
    assert peak < 1.25 * rows.nbytes, peak
    floats.close()


def test_quantizing_a_batch_holds_one_float_copy_of_it():
    """Rounding, clipping and offsetting a batch worked on one copy, not a copy a step."""
    import tracemalloc

    rng = np.random.default_rng(13)
    batch = rng.standard_normal((8192, 384)).astype(np.float32)
    scale = (np.abs(batch).max(axis=0) / 127).astype(np.float32)
    expected = (np.clip(np.rint(batch / scale), -127, 127) + 128).astype(np.uint8)
    tracemalloc.start()
    try:
        codes = quantize(batch, scale)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.array_equal(codes, expected)
    assert peak < 1.5 * batch.nbytes, peak


def test_a_refresh_after_new_rows_copies_the_codes_once(tmp_path):
    """Every search after an embedding run's commit brings the new rows in: keeping the live rows
    by a mask when all are live, then joining, copied every code twice (a window's transient)."""
    import tracemalloc

    dim = 384
    db = Database(tmp_path / "wide.duckdb")
    with db.transaction() as tx:
        table = ensure_table(tx, "wide", dim)
    rng = np.random.default_rng(14)
    unit = rng.standard_normal((6000, dim)).astype(np.float32)
    unit /= np.linalg.norm(unit, axis=1, keepdims=True)
    write_stand_in_vectors(db, table, unit, 1)
    index = VectorIndex(db.cursor, table, dim, tmp_path / "scratch")
    index.refresh()
    codes = index._state[0].head.nbytes + index._state[0].rest.nbytes
    write_stand_in_vectors(db, table, unit[:10], 7000)  # within the codes' scale: no coding again
    tracemalloc.start()
    try:
        index.refresh()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(index._state[0].seqs) == 6010
    assert peak < 1.5 * codes, (peak, codes)
    index.close()
    db.close()


def test_the_first_load_runs_inside_the_databases_bulk_read(store, tmp_path):
    from contextlib import contextmanager

    db, table = store
    rng = np.random.default_rng(5)
    write_stand_in_vectors(db, table, _unit(rng, 1200), 1)
    reads: list[str] = []

    @contextmanager
    def bulk_read():
        reads.append("begin")
        yield
        reads.append("end")

    index = VectorIndex(db.cursor, table, DIM, tmp_path / "scratch", bulk_read)
    index.search(_unit(rng, 1)[0], 5)
    assert reads == ["begin", "end"]  # every row read inside it
    write_stand_in_vectors(db, table, _unit(rng, 10), 5000)
    assert len(index.search(_unit(rng, 1)[0], 2000)) == 1210
    assert reads == ["begin", "end"]  # a few new rows: read as any search reads
    index.close()
