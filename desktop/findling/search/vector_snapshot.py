"""The vector index kept on disk between processes, so a cold `findling query` maps it instead
of reading every vector out of DuckDB and coding it again (0.4 s at 18k chunks, some 20 s at
a million).

Beside the index, in `vectors/` (0700, files 0600):

- `<table>.<n>.f32`: the exact float vectors, appended row by row, read by position. Append
  only: a snapshot's rows stay where it says. Rewritten under a new `<n>` when half its rows
  are deleted ones.
- `<table>.snap.<ns>/`: one snapshot: the rows' seq, document, place, codes and float slot
  as .npy files (memory-mapped when loaded), and `meta.json`, written last, naming the float
  file, the index it belongs to (its `index_id`, kept by copies), the database's vector
  generation then, and the text hashes of 64 of its rows. The newest complete one is used;
  older ones and unreferenced float files go when a newer one is saved.

A snapshot is a starting point, never the truth: the loader compares it with the database
(rows deleted since, rows added after its last seq) exactly as a running index does. One of
another index, of a later generation than the database (a backup put back), or whose
sampled rows hold other text there now is ignored, as is a damaged one (its row arrays'
checksums): a full load. The rows a search returns are checked against the database as well
(VectorIndex.search): codes and floats are too large to hash at every start. A
process killed before it saved leaves the older snapshot, and the rows after it are read
from the database."""

from __future__ import annotations

import json
import mmap
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT = 1
ROW_FIELDS = ("seqs", "doc_ids", "ordinals", "starts", "ends", "head", "rest", "slots")
_FOLDER = "vectors"
_META = "meta.json"
_META_LIMIT = 64 * 1024  # bytes: a meta.json is a few kilobytes
SAMPLE = 64  # rows whose text hashes a snapshot keeps, to be compared with the database's
# The row arrays checked against a checksum written at save: small (28 bytes a row, 11 MB at
# 400,000 rows, hashed in ~15 ms), and a shifted document id or slot in them would return
# another document. The codes and floats are not hashed (hundreds of MB); a result's row is
# checked against the database instead (VectorIndex.search).
CHECKED = ("seqs", "doc_ids", "ordinals", "starts", "ends", "slots")


def checksum(array: np.ndarray) -> str:
    import hashlib

    return hashlib.blake2b(np.ascontiguousarray(array).view(np.uint8).reshape(-1).data, digest_size=16).hexdigest()


@dataclass
class Snapshot:
    rows: dict[str, np.ndarray]  # ROW_FIELDS, read-only memory maps
    basis: np.ndarray
    scale: np.ndarray
    fitted_on: int
    floats: Path  # the float file its slots point into
    generation: int  # the database's vector generation when it was saved
    sample: dict[int, int]  # seq -> text hash of some of its rows, as the database held them


def let_go(array: np.ndarray) -> None:
    """Unmap the pages of a mapped snapshot array that a search read (they stay in the OS's file
    cache). A search reads the whole codes of its shortlist only, rows scattered over the file:
    ~2,000 pages a search at 414k vectors, so a window held more of the file with each search
    (60 of its 106 MB after six) until it held all of it. Nothing for an array in memory, or
    where the platform has no madvise."""
    mapped = getattr(array, "_mmap", None)  # numpy's memmap keeps its mmap here
    if mapped is not None and hasattr(mapped, "madvise") and hasattr(mmap, "MADV_DONTNEED"):
        try:
            mapped.madvise(mmap.MADV_DONTNEED)
        except (OSError, ValueError):
            pass


def folder(home: Path) -> Path:
    return home / _FOLDER


def float_file(home: Path, table: str) -> Path:
    """A fresh name for the table's float file (the first, or a compacted one)."""
    return folder(home) / f"{table}.{time.time_ns()}.f32"


def make_folder(home: Path) -> Path:
    where = folder(home)
    where.mkdir(mode=0o700, exist_ok=True)
    os.chmod(where, 0o700)
    return where


def sample_rows(count: int) -> list[int]:
    """The rows (positions) whose hashes a snapshot keeps: spread over all of them, last included."""
    return sorted({int(i) for i in np.linspace(0, count - 1, min(count, SAMPLE))}) if count else []


def load(home: Path, table: str, dim: int, belongs_to: str) -> Snapshot | None:
    """The newest complete snapshot of the table, memory-mapped; None when there is none that
    fits (another index, dimension or format, a missing or short file)."""
    where = folder(home)
    try:
        candidates = sorted(where.glob(f"{table}.snap.*"), key=_stamp, reverse=True)
    except OSError:
        return None
    for snap in candidates:
        loaded = _load_one(snap, dim, belongs_to)
        if loaded is not None:
            return loaded
    return None


def _stamp(path: Path) -> int:
    try:
        return int(path.name.rsplit(".", 1)[1])
    except (IndexError, ValueError):
        return -1


def _load_one(snap: Path, dim: int, belongs_to: str) -> Snapshot | None:
    try:
        with open(snap / _META, "rb") as f:
            meta = json.loads(f.read(_META_LIMIT))
        if meta.get("format") != FORMAT or meta.get("dim") != dim or meta.get("index") != belongs_to:
            return None
        rows = {name: np.load(snap / f"{name}.npy", mmap_mode="r", allow_pickle=False) for name in ROW_FIELDS}
        basis = np.load(snap / "basis.npy", allow_pickle=False)
        scale = np.load(snap / "scale.npy", allow_pickle=False)
        floats = snap.parent / str(meta["floats"])
        count = int(meta["rows"])
        generation = int(meta["generation"])
        sample = {int(seq): int(h) for seq, h in meta["sample"]}
        row_bytes = dim * 4
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if any(len(rows[name]) != count for name in ROW_FIELDS) or basis.shape != (dim, dim) or scale.shape != (dim,):
        return None
    sums = meta.get("checksums")
    if not isinstance(sums, dict) or any(sums.get(name) != checksum(rows[name]) for name in CHECKED):
        return None  # damaged, or saved before checksums: read from the database
    head = rows["head"].shape[1] if rows["head"].ndim == 2 else -1
    if head < 0 or rows["rest"].shape[1:] != (dim - head,):
        return None
    try:
        stored = floats.stat().st_size // row_bytes
    except OSError:
        return None
    if count and int(np.max(rows["slots"])) >= stored:
        return None  # the float file is shorter than the rows say
    return Snapshot(rows, basis, scale, int(meta["fitted_on"]), floats, generation, sample)


def save(
    home: Path,
    table: str,
    rows: dict[str, np.ndarray],
    basis: np.ndarray,
    scale: np.ndarray,
    fitted_on: int,
    floats: Path,
    belongs_to: str,
    generation: int,
    sample: dict[int, int],
) -> Path:
    """Write a snapshot (meta.json last: a half-written one is never loaded), then remove the
    table's older snapshots and the float files no snapshot uses now."""
    where = make_folder(home)
    snap = where / f"{table}.snap.{time.time_ns()}"
    partial = where / f".{snap.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(mode=0o700)
    try:
        for name in ROW_FIELDS:
            np.save(partial / f"{name}.npy", np.ascontiguousarray(rows[name]), allow_pickle=False)
        np.save(partial / "basis.npy", basis, allow_pickle=False)
        np.save(partial / "scale.npy", scale, allow_pickle=False)
        meta = {
            "format": FORMAT,
            "dim": int(basis.shape[0]),
            "rows": len(rows["seqs"]),
            "fitted_on": int(fitted_on),
            "floats": floats.name,
            "index": belongs_to,
            "generation": int(generation),
            "sample": sorted(sample.items()),
            "checksums": {name: checksum(rows[name]) for name in CHECKED},
        }
        (partial / _META).write_text(json.dumps(meta), encoding="utf-8")
        for path in partial.iterdir():
            os.chmod(path, 0o600)
        os.replace(partial, snap)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    _forget_older(where, table, snap, floats)
    return snap


_LEFTOVER_AGE_S = 3600.0  # a save or a fresh float file this old belongs to no live process


def sweep(home: Path, now: float | None = None) -> int:
    """Remove what killed processes left in vectors/: half-written snapshots (`.*.partial`) and
    float files never written (0 bytes), each older than an hour so that no live save or fresh
    index loses its file. Returns how many went."""
    where = folder(home)
    now = time.time() if now is None else now
    gone = 0
    try:
        entries = list(where.iterdir())
    except OSError:
        return 0
    for path in entries:
        try:
            info = path.lstat()
            old = now - info.st_mtime > _LEFTOVER_AGE_S
            if old and path.name.startswith(".") and path.name.endswith(".partial") and path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
                gone += 1
            elif old and path.suffix == ".f32" and info.st_size == 0:
                path.unlink()
                gone += 1
        except OSError:
            continue
    return gone


def _forget_older(where: Path, table: str, kept: Path, floats: Path) -> None:
    """Best effort: a file still mapped elsewhere (Windows) stays until a later save."""
    for old in where.glob(f"{table}.snap.*"):
        if old != kept:
            shutil.rmtree(old, ignore_errors=True)
    for old in where.glob(f"{table}.*.f32"):
        if old != floats:
            try:
                old.unlink()
            except OSError:
                pass


def tables_kept(home: Path) -> set[str]:
    """The tables that have files here."""
    names = set()
    for path in folder(home).glob("*"):
        if not path.name.startswith(".") and (".snap." in path.name or path.suffix == ".f32"):
            names.add(path.name.split(".", 1)[0])
    return names


def forget(home: Path, table: str) -> None:
    """Remove every file of a table (its model's vectors were dropped)."""
    where = folder(home)
    for old in [*where.glob(f"{table}.snap.*"), *where.glob(f".{table}.snap.*")]:
        shutil.rmtree(old, ignore_errors=True)
    for old in where.glob(f"{table}.*.f32"):
        try:
            old.unlink()
        except OSError:
            pass


def kept_problem(home: Path, cur: object, table: str, dim: int, belongs_to: str) -> str:
    """What is wrong with the table's kept snapshot, checked row by row against the database
    (`findling doctor`); "" when it holds or there is none. A snapshot whose checksums fail is
    never used; one whose rows or floats say other than the database would be caught at each
    search (VectorIndex.search) but is told here too."""
    from findling.store.vectors import read_vectors

    try:
        kept = list(folder(home).glob(f"{table}.snap.*"))
    except OSError:
        return ""
    if not kept:
        return ""
    snap = load(home, table, dim, belongs_to)
    if snap is None:
        return f"the vectors kept in {folder(home)} for {table} are damaged or not this index's (they are not used)"
    seqs = np.asarray(snap.rows["seqs"])
    if len(seqs) == 0:
        return ""
    try:
        floats = np.memmap(snap.floats, dtype=np.float32, mode="r").reshape(-1, dim)
    except (OSError, ValueError):
        return f"the float file kept in {folder(home)} for {table} cannot be read"
    for part_seqs, doc_ids, ordinals, starts, ends, vectors in read_vectors(cur, table, -1, 65_536):  # type: ignore[arg-type]
        at = np.searchsorted(seqs, part_seqs)
        held = (at < len(seqs)) & (seqs[np.minimum(at, len(seqs) - 1)] == part_seqs)
        rows = at[held]
        same = (
            np.array_equal(snap.rows["doc_ids"][rows], doc_ids[held])
            and np.array_equal(snap.rows["ordinals"][rows], ordinals[held])
            and np.array_equal(snap.rows["starts"][rows], starts[held])
            and np.array_equal(snap.rows["ends"][rows], ends[held])
            and np.allclose(floats[np.asarray(snap.rows["slots"])[rows]], vectors[held], atol=1e-6)
        )
        if not same:
            return (
                f"the vectors kept in {folder(home)} for {table} do not match the index (searches check "
                "their results and read the vectors again from the index)"
            )
    return ""
