"""The vector index kept between processes: a new index maps the last one's codes and floats
and reads from the database only what changed since, with the very results of a full load;
a snapshot of another index, of a later generation than the database (a backup put back),
whose rows hold other text there now, or a damaged one is ignored."""

from __future__ import annotations

import json
import os
import shutil
import stat

import numpy as np
import pytest

from findling.search import vector_snapshot
from findling.search.vector_index import VectorIndex
from findling.store import vectors as store_vectors
from findling.store.db import Database
from findling.store.vectors import delete_vectors, ensure_table, index_id
from tests.helpers import write_stand_in_vectors

DIM = 32


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.fixture
def store(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    db = Database(home / "index.duckdb")
    with db.transaction() as tx:
        table = ensure_table(tx, "m", DIM)
    yield db, table, home
    db.close()


def _index(db, table, home, persist=True) -> VectorIndex:
    where = (home, index_id(db.cursor())) if persist else None
    return VectorIndex(db.cursor, table, DIM, home, persist=where)


@pytest.fixture
def rows_read(monkeypatch):
    """How many rows indexes read out of the database."""
    count = {"rows": 0}
    real = store_vectors.read_vectors

    def counting(*args, **kwargs):
        for part in real(*args, **kwargs):
            count["rows"] += len(part[0])
            yield part

    monkeypatch.setattr("findling.search.vector_index.read_vectors", counting)
    return count


def _results(index: VectorIndex, queries: np.ndarray) -> list[list[tuple[int, float]]]:
    return [[(h.doc_id, h.cosine) for h in index.search(q, 10)] for q in queries]


@pytest.mark.slow
def test_a_new_index_maps_the_last_ones_and_reads_only_what_changed(store, rows_read):
    db, table, home = store
    rng = np.random.default_rng(5)
    write_stand_in_vectors(db, table, _unit(rng, 3000), 1)
    queries = _unit(rng, 12)
    first = _index(db, table, home)
    before = _results(first, queries)
    first.close()
    assert rows_read["rows"] == 3000

    second = _index(db, table, home)
    assert _results(second, queries) == before
    assert rows_read["rows"] == 3000  # nothing read again: the codes were mapped
    second.close()

    # between processes: rows deleted and added
    with db.transaction() as tx:
        delete_vectors(tx, "(SELECT unnest(range(1, 400)))")
    write_stand_in_vectors(db, table, _unit(rng, 500), 5000)
    third = _index(db, table, home)
    after = _results(third, queries)
    assert rows_read["rows"] == 3500  # only the 500 new rows
    third.close()
    full = _index(db, table, home, persist=False)
    assert after == _results(full, queries)  # what a full load finds
    full.close()
    fourth = _index(db, table, home)  # the third saved what changed
    assert _results(fourth, queries) == after and rows_read["rows"] == 3500 + 3101  # the full load only
    fourth.close()


def test_the_files_are_the_users_alone(store):
    db, table, home = store
    write_stand_in_vectors(db, table, _unit(np.random.default_rng(1), 50), 1)
    index = _index(db, table, home)
    index.search(_unit(np.random.default_rng(2), 1)[0], 3)
    index.close()
    where = vector_snapshot.folder(home)
    assert stat.S_IMODE(where.stat().st_mode) == 0o700
    for path in where.rglob("*"):
        assert stat.S_IMODE(path.stat().st_mode) == (0o700 if path.is_dir() else 0o600), path


def _saved(db, table, home, n=400, seed=3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    write_stand_in_vectors(db, table, _unit(rng, n), 1)
    index = _index(db, table, home)
    queries = _unit(rng, 5)
    _results(index, queries)
    index.close()
    return queries


def test_another_indexs_snapshot_is_ignored_and_a_copys_is_its_own(store, tmp_path, rows_read):
    db, table, home = store
    queries = _saved(db, table, home)
    other_home = tmp_path / "other"
    other_home.mkdir()
    other = Database(other_home / "index.duckdb")  # another index, with the first one's vector files
    try:
        with other.transaction() as tx:
            ensure_table(tx, "m", DIM)
        write_stand_in_vectors(other, table, _unit(np.random.default_rng(11), 400), 1)
        shutil.copytree(vector_snapshot.folder(home), vector_snapshot.folder(other_home))
        assert vector_snapshot.load(other_home, table, DIM, index_id(other.cursor())) is None
        read_before = rows_read["rows"]
        index = _index(other, table, other_home)
        found = _results(index, queries)
        assert rows_read["rows"] == read_before + 400  # loaded from its own database
        index.close()
        full = _index(other, table, other_home, persist=False)
        assert found == _results(full, queries)
        full.close()
    finally:
        other.close()
    db.close()
    copy = tmp_path / "copy"
    shutil.copytree(home, copy)  # a copy of the folder: the same index, its snapshot with it
    copied = Database(copy / "index.duckdb")
    try:
        read_before = rows_read["rows"]
        index = _index(copied, table, copy)
        _results(index, queries)
        assert rows_read["rows"] == read_before
        index.close()
    finally:
        copied.close()


@pytest.mark.parametrize("damage", ["meta", "short-floats", "other-text", "backup", "missing-codes"])
def test_a_damaged_snapshot_is_ignored(store, rows_read, damage):
    db, table, home = store
    queries = _saved(db, table, home)
    where = vector_snapshot.folder(home)
    (snap,) = where.glob(f"{table}.snap.*")
    (floats,) = where.glob(f"{table}.*.f32")
    if damage == "meta":
        (snap / "meta.json").write_text("{not json")
    elif damage == "short-floats":
        with open(floats, "r+b") as f:
            f.truncate(f.seek(0, os.SEEK_END) // 2)
    elif damage == "other-text":  # a seq the snapshot holds names another window's text now
        with db.transaction() as tx:
            tx.execute(f"UPDATE {table} SET hash = coalesce(hash, 0) + 1 WHERE seq = (SELECT max(seq) FROM {table})")
    elif damage == "backup":  # a database of an earlier generation than the snapshot put back
        meta = json.loads((snap / "meta.json").read_text())
        meta["generation"] += 5
        (snap / "meta.json").write_text(json.dumps(meta))
    else:
        (snap / "head.npy").unlink()
    read_before = rows_read["rows"]
    index = _index(db, table, home)
    results = _results(index, queries)
    assert rows_read["rows"] == read_before + 400  # a full load from the database
    index.close()
    full = _index(db, table, home, persist=False)
    assert results == _results(full, queries)
    full.close()


def test_a_process_killed_before_saving_leaves_the_older_snapshot(store, rows_read):
    db, table, home = store
    queries = _saved(db, table, home)
    rng = np.random.default_rng(9)
    write_stand_in_vectors(db, table, _unit(rng, 100), 1000)
    killed = _index(db, table, home)
    _results(killed, queries)  # appended the 100 rows to the float file, never saved
    # no close: the process died
    again = _index(db, table, home)
    results = _results(again, queries)
    full = _index(db, table, home, persist=False)
    assert results == _results(full, queries)
    again.close()
    full.close()


def test_a_removed_folders_vectors_leave_the_kept_files(tmp_path, settings, embedder_installed):
    """The vectors kept beside the index followed the database only in a process that searched
    them: a `findling remove` left a removed folder's vectors in the files for good."""
    from findling.engine import Engine
    from findling.records import SearchMode, SearchRequest
    from tests.helpers import write

    kept, gone = tmp_path / "kept", tmp_path / "gone"
    for i in range(3):
        write(kept / f"k{i}.md", f"garden note {i}: tomatoes want sun and water")
        write(gone / f"g{i}.md", f"private diary {i}: the tax letter came today")
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        engine.add_source(kept)
        engine.add_source(gone)
        engine.index()
        engine.find(SearchRequest("sunny garden", SearchMode.SEMANTIC))  # the vectors loaded, then kept
        table = engine.database.cursor().execute("SELECT table_name FROM vector_models").fetchone()[0]
        removed = {
            np.asarray(vec, dtype=np.float32).tobytes()
            for (vec,) in engine.database.cursor()
            .execute(
                f"SELECT v.vec FROM {table} v JOIN documents d ON d.id = v.doc_id WHERE d.path LIKE ?",
                [str(gone) + "%"],
            )
            .fetchall()
        }
    assert removed
    with Engine(home, settings=settings) as engine:  # a `findling remove`: no search in this process
        engine.remove_source(gone)
    where = vector_snapshot.folder(home)
    (floats,) = where.glob(f"{table}.*.f32")
    rows = np.fromfile(floats, dtype=np.float32).reshape(-1, 384)
    assert not {row.tobytes() for row in rows} & removed  # none of the removed vectors is left
    db = Database(home / "findling.duckdb")
    try:
        snap = vector_snapshot.load(home, table, 384, index_id(db.cursor()))
        assert snap is not None
        live = {int(s) for (s,) in db.cursor().execute(f"SELECT seq FROM {table}").fetchall()}
    finally:
        db.close()
    assert {int(s) for s in snap.rows["seqs"]} == live  # the snapshot holds what the database holds


def test_an_index_closed_without_searching_leaves_no_empty_float_file(store):
    """Each process that opened the vectors and closed them unsearched (a window quit at once, an
    engine closed after removing a folder) left an empty float file beside the index, for good."""
    db, table, home = store
    _saved(db, table, home)
    kept = sorted(vector_snapshot.folder(home).glob("*.f32"))
    for _ in range(3):
        _index(db, table, home).close()
    assert sorted(vector_snapshot.folder(home).glob("*.f32")) == kept


def test_a_process_that_ends_without_closing_leaves_no_empty_float_file(store):
    """Short CLI processes exit without closing their vector index: each one that opened it
    left an empty float file (13 beside the kernel's Documentation/ index in an hour), made at
    the index's start for rows that never came. The file is made at its first row."""
    db, table, home = store
    queries = _saved(db, table, home)
    kept = sorted(vector_snapshot.folder(home).glob("*.f32"))
    opened = [_index(db, table, home) for _ in range(3)]  # never searched, never closed
    assert sorted(vector_snapshot.folder(home).glob("*.f32")) == kept
    assert _results(opened[0], queries)  # mapped from the snapshot
    assert sorted(vector_snapshot.folder(home).glob("*.f32")) == kept


def _resident_kb(name: str) -> int:
    """This process's resident kilobytes of the mapped files called `name` (Linux)."""
    total, mapped = 0, False
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            if "-" in line.split(" ", 1)[0] and ":" not in line.split(" ", 1)[0]:
                mapped = line.rstrip().endswith("/" + name)
            elif mapped and line.startswith("Rss:"):
                total += int(line.split()[1])
    return total


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="reads Linux's account of the mappings")
def test_a_search_leaves_no_page_of_the_mapped_codes_it_read_resident(store):
    """A search reads its shortlist's whole codes, rows scattered over the mapped file: a window
    held 60 of 106 MB of them after six searches on the kernel's Documentation/ + arch/, and
    more with each search. The pages it read are let go (the OS keeps them in its file cache)."""
    db, table, home = store
    queries = _saved(db, table, home, n=3000)
    index = _index(db, table, home)
    try:
        before = _results(index, queries)
        assert index._from_disk and _resident_kb("rest.npy") == 0
        index._state[0].rest.sum()  # a read of every page, as many searches would
        assert _resident_kb("rest.npy") > 0
        assert _results(index, queries) == before
        assert _resident_kb("rest.npy") == 0
    finally:
        index.close()


def _rewrite(snap, name: str, change) -> None:
    """One of a snapshot's arrays changed in place, its meta left as saved (a damaged disk, a
    tampered folder)."""
    array = np.array(np.load(snap / f"{name}.npy", allow_pickle=False))
    np.save(snap / f"{name}.npy", change(array), allow_pickle=False)


@pytest.mark.parametrize("damage", ["doc-ids-shifted", "slots-shifted", "floats-garbled", "floats-nan"])
def test_a_tampered_snapshot_never_returns_another_document(store, damage):
    """The red team's damages: each result must be what the database says, whatever the files."""
    db, table, home = store
    queries = _saved(db, table, home)
    where = vector_snapshot.folder(home)
    (snap,) = where.glob(f"{table}.snap.*")
    (floats,) = where.glob(f"{table}.*.f32")
    if damage == "doc-ids-shifted":
        _rewrite(snap, "doc_ids", lambda a: np.roll(a, 1))
    elif damage == "slots-shifted":
        _rewrite(snap, "slots", lambda a: np.roll(a, 1))
    else:
        data = np.fromfile(floats, dtype=np.float32)
        if damage == "floats-garbled":
            data[: len(data) // 2] = np.random.default_rng(1).standard_normal(len(data) // 2)
        else:
            data[:] = np.nan
        data.tofile(floats)
    index = _index(db, table, home)
    results = _results(index, queries)
    index.close()
    full = _index(db, table, home, persist=False)
    assert results == _results(full, queries)
    full.close()


def test_a_kept_row_is_checked_against_the_database_once(store):
    """Every search checked the rows it returned by reading their vectors from the database: a
    scan of DuckDB's vector column, 0.23 s a hybrid search on the kernel's Documentation/ (57k
    vectors). A row found to hold is not read again; one never returned before still is."""
    db, table, home = store
    queries = _saved(db, table, home)
    checks: list[str] = []
    real = db.cursor

    def cursor():
        inner = real()

        class Counting:
            def execute(self, sql, *args):
                if "vec FROM" in sql and "WHERE seq IN" in sql:
                    checks.append(sql)
                return inner.execute(sql, *args)

            def __getattr__(self, name):
                return getattr(inner, name)

        return Counting()

    index = VectorIndex(cursor, table, DIM, home, persist=(home, index_id(db.cursor())))
    try:
        first = _results(index, queries[:1])
        assert len(checks) == 1
        assert _results(index, queries[:1]) == first and len(checks) == 1  # the same rows: held
        _results(index, -queries[:1])  # the farthest rows, never returned before: checked
        assert len(checks) == 2
    finally:
        index.close()


@pytest.mark.parametrize("damage", ["", "floats-garbled", "doc-ids-shifted"])
def test_doctor_tells_kept_vectors_that_do_not_match(store, damage):
    db, table, home = store
    _saved(db, table, home)
    where = vector_snapshot.folder(home)
    (snap,) = where.glob(f"{table}.snap.*")
    (floats,) = where.glob(f"{table}.*.f32")
    if damage == "floats-garbled":
        data = np.fromfile(floats, dtype=np.float32)
        data[::7] += 0.5
        data.tofile(floats)
    elif damage == "doc-ids-shifted":
        _rewrite(snap, "doc_ids", lambda a: np.roll(a, 1))
    problem = vector_snapshot.kept_problem(home, db.cursor(), table, DIM, index_id(db.cursor()))
    assert bool(problem) == bool(damage)
    if damage == "floats-garbled":
        assert "do not match the index" in problem
    elif damage:
        assert "damaged" in problem


def test_what_killed_saves_leave_is_swept_once_old(store):
    import time

    db, table, home = store
    _saved(db, table, home)
    where = vector_snapshot.folder(home)
    partial = where / f".{table}.snap.1.partial"
    partial.mkdir()
    (partial / "seqs.npy").write_bytes(b"half")
    empty = where / f"{table}.2.f32"
    empty.touch()
    fresh = where / f"{table}.3.f32"
    fresh.touch()
    hour_ago = time.time() - 7200
    for path in (partial, empty):
        os.utime(path, (hour_ago, hour_ago))
    assert vector_snapshot.sweep(home) == 2
    assert not partial.exists() and not empty.exists() and fresh.exists()  # a fresh one may be a live index's
    (snap,) = where.glob(f"{table}.snap.*")
    assert snap.is_dir()  # the snapshot itself stays


def test_a_read_only_data_folder_searches_without_kept_vectors(store, monkeypatch):
    """A data folder where vectors/ cannot be made: the index keeps its vectors to itself (an
    AssertionError once came out of vsearch and query)."""
    db, table, home = store
    write_stand_in_vectors(db, table, _unit(np.random.default_rng(2), 50), 1)

    def refused(_home):
        raise PermissionError("read-only file system")

    monkeypatch.setattr(vector_snapshot, "make_folder", refused)
    index = _index(db, table, home)
    assert _results(index, _unit(np.random.default_rng(4), 2))
    index.close()
