"""Nearest-neighbour search over one model's chunk vectors: int8 codes in memory, exact
float vectors in a scratch file, rescored exactly for the top candidates.

Why not the vss extension's HNSW index: measured on DuckDB 1.5.5 it took 191 s to build at
100k vectors, reached recall@10 0.91, returned too few rows under a WHERE filter, grew
without bound under delete+insert, and lost entries after a crash when opened without vss.

Why codes and a scratch file: float32 vectors of a million chunks take 1.5 GB, too much to
hold for a desktop app, and DuckDB cannot fetch a few hundred of them by id without reading
the whole column (2.3 s at 1M). So every vector is held as one byte a dimension (scalar
quantization, a scale per dimension), scored by an integer kernel, and the best few hundred
candidates are scored again with their exact floats, read from a scratch file by position.
Filters are a mask.

Why a rotation and a head: at a million vectors, reading every byte of every code took 21 ms
of integer products and 52 ms a search in all. The vectors are first turned onto their
principal axes (an orthonormal basis fitted to a sample, so dot products do not change),
largest first: the first third of the axes carries about four fifths of a real embedding's
length. A search reads only those bytes of every code, takes the best half a percent, scores
those with the rest of their bytes, then the best few hundred with exact floats. On 105k real
chunk vectors and 4,541 real questions this finds the full scan's top ten documents 98-99 %
of the time (`python -m findling.devtools.vector_recall`); rotated codes cost nothing extra
in memory. See `findling bench --vectors N` for speed and memory at a million.

The index is loaded once, streaming, then kept in step incrementally: rows carry a `seq`;
a new database generation brings in rows with a higher seq and drops rows whose seq is gone.
The basis is fitted to the first rows loaded and again whenever the rows have doubled since.

Given the index's folder (`persist`), the exact floats live in a file there and the codes are
saved at close (search/vector_snapshot.py): the next process maps them and reads from the
database only what changed since, so a cold search does not pay for the whole load."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np

from findling.allocator import return_freed_memory
from findling.models.int8_dot import Int8Dot
from findling.search import vector_snapshot
from findling.search.float_file import FloatFile
from findling.search.vector_codes import Codebook, head_size, member_mask, principal_axes, quantize, query_code
from findling.store.sql import by_row_id, id_list
from findling.store.vectors import generation, hashes_at, live_seqs, read_vectors, row_count, seq_span
from findling.tuning import RESCORE, SHORTLIST_SHARE, WHOLE_BELOW

log = logging.getLogger(__name__)

# Rows read from the database at a time. A batch passes through DuckDB's result, a NumPy array a
# row, their stack and its rotation at once: the first semantic search of a window on ~50k vectors
# peaked 745-830 MB reading 65,536 at a time, 512-521 MB at 16,384 (docs/eval/disk-scale.md).
_LOAD_BATCH = 16_384
_BASIS_SAMPLE = 65_536


@dataclass(frozen=True)
class VectorHit:
    doc_id: int
    cosine: float
    ordinal: int
    start_char: int
    end_char: int


@dataclass
class _Rows:
    seqs: np.ndarray  # int64 [n]
    doc_ids: np.ndarray  # int32 [n]
    ordinals: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    head: np.ndarray  # uint8 [n, h]: the codes of the first h rotated dimensions
    rest: np.ndarray  # uint8 [n, dim - h]: the codes of the others
    slots: np.ndarray  # int64 [n]: the row's place in the float file

    _FIELDS = ("seqs", "doc_ids", "ordinals", "starts", "ends", "head", "rest", "slots")

    @classmethod
    def empty(cls, dim: int, head: int) -> _Rows:
        z = np.zeros(0, dtype=np.int32)
        return cls(
            np.zeros(0, dtype=np.int64),
            z,
            z,
            z,
            z,
            np.zeros((0, head), dtype=np.uint8),
            np.zeros((0, dim - head), dtype=np.uint8),
            np.zeros(0, dtype=np.int64),
        )

    def take(self, keep: np.ndarray) -> _Rows:
        return _Rows(*(getattr(self, name)[keep] for name in self._FIELDS))

    def replace(self, **changes: np.ndarray) -> _Rows:
        return _Rows(*(changes.get(name, getattr(self, name)) for name in self._FIELDS))

    @staticmethod
    def concat(parts: list[_Rows]) -> _Rows:
        parts = [p for p in parts if len(p.seqs)] or parts[:1]
        if len(parts) == 1:  # nothing to join: the same arrays, not a copy of every code
            return parts[0]
        return _Rows(*(np.concatenate([getattr(p, name) for p in parts]) for name in _Rows._FIELDS))

    @property
    def nbytes(self) -> int:
        return sum(getattr(self, name).nbytes for name in self._FIELDS)


class VectorIndex:
    def __init__(
        self,
        cursor: Callable[[], duckdb.DuckDBPyConnection],
        table: str,
        dim: int,
        scratch: Path | None = None,
        bulk_read: Callable[[], AbstractContextManager[object]] = nullcontext,
        persist: tuple[Path, str] | None = None,
    ) -> None:
        """`persist`: (the index's folder, its index_id): the floats and codes are kept there for
        the next process (vector_snapshot)."""
        self._cursor = cursor
        # around the first load (every row): the database's memory for it, and its cache let go after
        self._bulk_read = bulk_read
        self.table = table
        self.dim = dim
        self.head = head_size(dim)
        self._scratch = scratch
        self._persist = persist
        self._floats = self._float_file()
        self._unsaved = False  # rows or codebook changed since the snapshot this index started from
        self._tried_snapshot = self._persist is None  # none where the data folder is read-only
        self._from_disk = False  # rows mapped from the kept snapshot: checked before they are returned
        # the kept snapshot's rows (by seq) found to say what the database says: each is checked
        # once, not at every search (reading 40 rows' vectors scans DuckDB's vector column)
        self._held: set[int] = set()
        self.distrusted = False  # a kept snapshot did not hold and was dropped (doctor says so)
        self._book = Codebook.identity(dim)
        # rows and the codebook their codes were made with, swapped together under the lock
        self._state: tuple[_Rows, Codebook] = (_Rows.empty(dim, self.head), self._book)
        self._generation = -1
        self._documents = 0
        self._lock = threading.Lock()
        self._dot = Int8Dot()
        self.shortlist_share = SHORTLIST_SHARE
        self.whole_below = WHOLE_BELOW

    def __len__(self) -> int:
        return len(self._state[0].seqs)

    @property
    def resident_bytes(self) -> int:
        """Memory the index holds (codes, row data, the basis; the float file is on disk)."""
        rows, book = self._state
        return rows.nbytes + book.basis.nbytes + book.scale.nbytes

    @property
    def documents(self) -> int:
        """Documents with vectors, as of the last refresh."""
        return self._documents

    def _float_file(self) -> FloatFile:
        """The index's own float file where it may keep one, else a scratch file."""
        if self._persist is not None:
            try:
                vector_snapshot.make_folder(self._persist[0])
                return FloatFile(None, self.dim, vector_snapshot.float_file(self._persist[0], self.table))
            except OSError:
                self._persist = None  # a read-only data folder: this process keeps its vectors to itself
        return FloatFile(self._scratch, self.dim)

    def close(self) -> None:
        """Save the snapshot when the rows changed since this index started (best effort: without
        it the next process reads from the database what changed), then let the files go."""
        with self._lock:
            if self._persist is not None and self._unsaved and self._floats.path is not None:
                rows, book = self._state
                try:
                    cur = self._cursor()
                    sampled = rows.seqs[vector_snapshot.sample_rows(len(rows.seqs))].tolist()
                    vector_snapshot.save(
                        self._persist[0],
                        self.table,
                        {name: getattr(rows, name) for name in _Rows._FIELDS},
                        book.basis,
                        book.scale,
                        book.fitted_on,
                        self._floats.path,
                        self._persist[1],
                        self._generation,
                        hashes_at(cur, self.table, sampled),
                    )
                except (OSError, duckdb.Error):
                    pass
            self._floats.close()

    def refresh(self) -> None:
        cur = self._cursor()
        current = generation(cur)
        if current == self._generation:
            return
        with self._lock:
            if current == self._generation:
                return
            before = self._state
            rows = self._state[0]
            mapped = None  # the saved snapshot's rows, when this refresh started from them
            if len(rows.seqs) == 0 and not self._tried_snapshot:
                self._tried_snapshot = True
                mapped = self._from_snapshot(cur)
                rows = mapped or rows
                self._from_disk = mapped is not None
            if len(rows.seqs) == 0:
                with self._bulk_read():
                    rows = self._load(cur, -1, _Rows.empty(self.dim, self.head))
            elif seq_span(cur, self.table) != (len(rows.seqs), int(rows.seqs[-1])):
                # seqs only grow: the same count and the same last seq is the same rows
                live = np.isin(rows.seqs, live_seqs(cur, self.table), assume_unique=True)
                if not live.all() and self._floats.path is not None:
                    self._floats.erase(rows.slots[~live])
                # a search's refresh while an embedding run commits: each copy of the codes
                # was a transient of the window (~20 MB at 50k rows)
                rows = self._load(cur, int(rows.seqs[-1]), rows if live.all() else rows.take(live))
            if len(rows.seqs) < self._floats.count // 2:
                rows = self._compact(rows)
            if len(rows.seqs) >= 2 * max(1, self._book.fitted_on):
                rows = self._refitted(rows)
            grown = len(rows.seqs) - len(before[0].seqs)
            if rows is not mapped and (rows is not before[0] or self._book is not before[1]):
                self._unsaved = True  # what the next process would otherwise read again
            self._state = (rows, self._book)
            self._documents = len(np.unique(rows.doc_ids))
            self._generation = current
        if grown >= _LOAD_BATCH:
            return_freed_memory()  # what the load's batches of floats and Python arrays held

    def _from_snapshot(self, cur: duckdb.DuckDBPyConnection) -> _Rows | None:
        """The rows of the saved snapshot, memory-mapped, when it belongs to this index as it is
        now: not of a later generation (a backup put back since), its sampled rows holding the
        same text there still. Its float file becomes this index's."""
        assert self._persist is not None
        snap = vector_snapshot.load(self._persist[0], self.table, self.dim, self._persist[1])
        if snap is None or len(snap.rows["seqs"]) == 0 or snap.rows["head"].shape[1] != self.head:
            return None
        if snap.generation > generation(cur):
            return None
        now = hashes_at(cur, self.table, list(snap.sample))
        if any(now.get(seq, h) != h for seq, h in snap.sample.items()):
            return None  # a seq holds another text: not these vectors
        try:
            floats = FloatFile(None, self.dim, snap.floats)
        except OSError:
            return None
        rows = _Rows(*(snap.rows[name] for name in _Rows._FIELDS))
        old, self._floats = self._floats, floats
        old.close()  # never written: its file was never made (FloatFile)
        self._book = Codebook(snap.basis, snap.scale, snap.fitted_on)
        return rows

    def _load(self, cur: duckdb.DuckDBPyConnection, after_seq: int, kept: _Rows) -> _Rows:
        """`kept` and the database's rows after `after_seq`, read in batches so that a
        million vectors never sit in memory as floats all at once."""
        parts = [kept]
        for seqs, doc_ids, ordinals, starts, ends, floats in read_vectors(cur, self.table, after_seq, _LOAD_BATCH):
            if self._book.fitted_on == 0:  # the first rows ever: fitted to them, for every row there is
                self._book = Codebook(principal_axes(floats), self._book.scale, max(1, row_count(cur, self.table)))
            rotated = self._book.rotate(floats)
            widened = self._book.widened(rotated)
            if widened is not None:
                self._book = widened
                parts = [self._requantized(part) for part in parts]
            head, rest = self._codes(rotated)
            parts.append(
                _Rows(
                    seqs.astype(np.int64),
                    doc_ids.astype(np.int32),
                    ordinals.astype(np.int32),
                    starts.astype(np.int32),
                    ends.astype(np.int32),
                    head,
                    rest,
                    self._floats.append(floats),
                )
            )
        return _Rows.concat(parts)

    def _codes(self, rotated: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        codes = quantize(rotated, self._book.scale)
        return np.ascontiguousarray(codes[:, : self.head]), np.ascontiguousarray(codes[:, self.head :])

    def _requantized(self, rows: _Rows) -> _Rows:
        """The rows' codes made again from their exact floats with the current codebook; when
        a batch reaches past its scale, the scale widens and the pass starts over."""
        while True:
            head = np.empty_like(rows.head)
            rest = np.empty_like(rows.rest)
            book = self._book
            for lo in range(0, len(rows.slots), _LOAD_BATCH):
                rotated = book.rotate(self._floats.read(rows.slots[lo : lo + _LOAD_BATCH]))
                widened = book.widened(rotated)
                if widened is not None:
                    self._book = widened
                    break
                head[lo : lo + _LOAD_BATCH], rest[lo : lo + _LOAD_BATCH] = self._codes(rotated)
            else:
                return rows.replace(head=head, rest=rest)

    def _refitted(self, rows: _Rows) -> _Rows:
        """A basis fitted to a sample of all the rows, and their codes made again with it."""
        n = len(rows.slots)
        sample = np.unique(np.linspace(0, n - 1, min(n, _BASIS_SAMPLE)).astype(np.int64))  # every part of the index
        floats = self._floats.read(rows.slots[sample])
        basis = principal_axes(floats)
        self._book = Codebook(basis, np.zeros(self.dim, dtype=np.float32), n)
        widened = self._book.widened(self._book.rotate(floats))
        if widened is not None:
            self._book = widened
        return self._requantized(rows)

    def _compact(self, rows: _Rows) -> _Rows:
        """After many deletions, a fresh float file holding only the live rows."""
        fresh = self._float_file()
        for lo in range(0, len(rows.slots), _LOAD_BATCH):
            fresh.append(self._floats.read(rows.slots[lo : lo + _LOAD_BATCH]))
        old, self._floats = self._floats, fresh
        old.close()
        return rows.replace(slots=np.arange(len(rows.slots), dtype=np.int64))

    def _exact(self, rows: _Rows, picked: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Cosines to a millionth: a matrix product gives the same row a last bit that varies with
        its place among the rows read, and a file and its copy (the same vectors) must score alike
        in every search and in every candidate's evidence."""
        scores: np.ndarray = self._floats.read(rows.slots[picked]) @ query.astype(np.float32).reshape(-1)
        return np.round(scores, 6)

    def search(self, query: np.ndarray, k: int, allowed_doc_ids: np.ndarray | None = None) -> list[VectorHit]:
        """The k best documents by their best chunk's cosine similarity. Rows that came from the
        kept snapshot are checked against the database before they are returned: a damaged
        snapshot (shifted ids or slots, garbled floats) is dropped and the rows read again, never
        a wrong document returned."""
        hits, used = self._search(query, k, allowed_doc_ids)
        if self._from_disk and not self._rows_hold(used):
            self.read_again()
            hits, _ = self._search(query, k, allowed_doc_ids)
        return hits

    def _search(
        self, query: np.ndarray, k: int, allowed_doc_ids: np.ndarray | None
    ) -> tuple[list[VectorHit], tuple[_Rows, np.ndarray]]:
        self.refresh()
        rows, book = self._state
        n = len(rows.seqs)
        if n == 0 or k <= 0:
            return [], (rows, np.zeros(0, dtype=np.int64))
        code, step = query_code(book.rotate(query.reshape(1, -1))[0], book.scale)
        first = self._dot(rows.head, code[: self.head])
        pool = None  # the rows a filter allows; None: every row
        if allowed_doc_ids is not None:
            # only the allowed rows go on: a selection over scores that are mostly one masked
            # value degenerates (16 ms at a million rows, a tenth allowed)
            pool = np.flatnonzero(member_mask(rows.doc_ids, allowed_doc_ids))
            first = first[pool]
        size = len(first)
        offset = 128 * int(code.astype(np.int64).sum())
        want = max(RESCORE, k * 8)
        shortlist = self.shortlist(n, k) or size
        while True:
            read = min(size, shortlist)
            chosen = np.argpartition(first, size - read)[size - read :] if read < size else np.arange(size)
            candidates = chosen if pool is None else pool[chosen]
            whole = first[chosen].astype(np.int64) + self._dot(rows.rest[candidates], code[self.head :])
            vector_snapshot.let_go(rows.rest)
            approx = ((whole - offset) * step).astype(np.float32)
            hits, complete, used = self._best_documents(rows, candidates, approx, query, k, want)
            if complete or read >= size:
                return hits, (rows, used)
            want, shortlist = want * 4, shortlist * 4  # duplicates of a few documents filled it: read further

    def shortlist(self, n: int, k: int) -> int:
        """Rows a search for k documents among n rows scores with their whole codes after the
        head's pass; 0 below `whole_below` rows, where every row is scored whole."""
        return 0 if n < self.whole_below else max(int(n * self.shortlist_share), 4 * max(RESCORE, k * 8))

    def _best_documents(
        self, rows: _Rows, candidates: np.ndarray, approx: np.ndarray, query: np.ndarray, k: int, want: int
    ) -> tuple[list[VectorHit], bool, np.ndarray]:
        """The k best documents among the candidates, their best `want` rescored with exact
        floats; whether k were found; and their rows."""
        n = len(candidates)
        want = min(n, want)
        if n == 0:
            return [], False, np.zeros(0, dtype=np.int64)
        top = np.argpartition(-approx, want - 1)[:want] if want < n else np.arange(n)
        picked = candidates[top]
        exact = self._exact(rows, picked, query)
        hits: list[VectorHit] = []
        used: list[int] = []
        seen: set[int] = set()
        # equal scores (a file and its copy) in document order, however many candidates were
        # read: which copy is listed must not depend on the result limit
        for i in np.lexsort((rows.doc_ids[picked], -exact)):
            row = int(picked[i])
            doc = int(rows.doc_ids[row])
            if doc in seen:
                continue
            seen.add(doc)
            hits.append(
                VectorHit(doc, float(exact[i]), int(rows.ordinals[row]), int(rows.starts[row]), int(rows.ends[row]))
            )
            used.append(row)
            if len(hits) == k:
                return hits, True, np.asarray(used, dtype=np.int64)
        return hits, False, np.asarray(used, dtype=np.int64)

    def _rows_hold(self, used: tuple[_Rows, np.ndarray]) -> bool:
        """Whether these rows say what the database says: the same document, place and vector."""
        rows, picked = used
        unchecked = [i for i, s in enumerate(rows.seqs[picked].tolist()) if s not in self._held]
        picked = picked[unchecked]
        if len(picked) == 0:
            return True
        seqs = [int(s) for s in rows.seqs[picked]]
        found = (
            self._cursor()
            .execute(
                f"""SELECT seq, doc_id, ordinal, start_char, end_char, vec FROM {self.table}
                WHERE {by_row_id(self.table, f"seq IN {id_list(seqs)}")}"""
            )
            .fetchall()
        )
        by_seq = {int(r[0]): r for r in found}
        floats = self._floats.read(rows.slots[picked])
        for i, (seq, row) in enumerate(zip(seqs, picked.tolist(), strict=True)):
            db = by_seq.get(seq)
            if db is None:
                continue  # removed since the refresh: the next one drops it
            place = (int(rows.doc_ids[row]), int(rows.ordinals[row]), int(rows.starts[row]), int(rows.ends[row]))
            if place != (int(db[1]), int(db[2]), int(db[3]), int(db[4])):
                return False
            if not np.allclose(floats[i], np.asarray(db[5], dtype=np.float32), atol=1e-6):
                return False  # NaN is never close
        self._held.update(seqs)
        return True

    def read_again(self) -> None:
        """Drop the kept snapshot, which did not hold, and read every row from the database."""
        log.warning("the vectors kept in %s did not match the index: reading them again from it", self.table)
        with self._lock:
            if self._persist is not None:
                self._floats.close()
                vector_snapshot.forget(self._persist[0], self.table)
            self.distrusted = True
            self._from_disk = False
            self._held.clear()
            self._tried_snapshot = True
            self._floats = self._float_file()
            self._book = Codebook.identity(self.dim)
            self._state = (_Rows.empty(self.dim, self.head), self._book)
            self._generation = -1
        self.refresh()

    def document_vector(self, doc_id: int) -> np.ndarray | None:
        """The mean of a document's exact chunk vectors, normalised: what "documents like this one"
        searches with. None when the document has no vectors."""
        self.refresh()
        rows = self._state[0]
        picked = np.flatnonzero(rows.doc_ids == doc_id)
        if len(picked) == 0:
            return None
        mean = self._floats.read(rows.slots[picked]).mean(axis=0)
        norm = float(np.linalg.norm(mean))
        return (mean / norm).astype(np.float32) if norm > 0 else None

    def best_chunks(self, query: np.ndarray, doc_ids: list[int]) -> dict[int, VectorHit]:
        """Each given document's best chunk for the query (documents with no vectors are
        left out): the vector evidence for candidates another lane found. Checked as `search`'s."""
        best, used = self._best_chunks(query, doc_ids)
        if self._from_disk and not self._rows_hold(used):
            self.read_again()
            best, _ = self._best_chunks(query, doc_ids)
        return best

    def _best_chunks(
        self, query: np.ndarray, doc_ids: list[int]
    ) -> tuple[dict[int, VectorHit], tuple[_Rows, np.ndarray]]:
        self.refresh()
        rows = self._state[0]
        none = (rows, np.zeros(0, dtype=np.int64))
        if len(rows.seqs) == 0 or not doc_ids:
            return {}, none
        picked = np.flatnonzero(member_mask(rows.doc_ids, np.asarray(doc_ids, dtype=np.int64)))
        if len(picked) == 0:
            return {}, none
        scores = self._exact(rows, picked, query)
        best: dict[int, VectorHit] = {}
        used: list[int] = []
        for i in np.argsort(-scores, kind="stable"):
            row = int(picked[i])
            doc = int(rows.doc_ids[row])
            if doc not in best:
                best[doc] = VectorHit(
                    doc, float(scores[i]), int(rows.ordinals[row]), int(rows.starts[row]), int(rows.ends[row])
                )
                used.append(row)
        return best, (rows, np.asarray(used, dtype=np.int64))
