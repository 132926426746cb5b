"""Documents as results show them (metadata and chunk texts), cached for search as you type.

DuckDB reads a few documents' rows by scanning whole string columns (an IN list is only a
zone-map hint to its scan): 0.5 s for the chunks of 20 results at 100k documents, 6 ms a
document one by one, 10–25 ms for their paths and titles. So a long-running process copies
every chunk's text once, streaming, into an unnamed temporary file, keeps offsets and
metadata in memory, and a result becomes one read of its document's bytes (a document's
chunks lie one after another in the file). Read by position, not through a memory map: every
page a search touched stayed mapped and counted in the process's resident memory.

Entries are keyed by the document's `indexed_at`, which changes whenever its row is
written (store/documents.py). While the process has written nothing since every entry was
last found current (Database.writes: an index file has one writer, this process), entries
are used as they are. After a write they are checked against the database on each use (a
read of two fixed-width columns: 1 of a search's 12 ms at 100k documents), until the second
search at the same count checks them all at once and trusts them again. A document written
since the copy is read from the database and added to it."""

from __future__ import annotations

import os
import threading
from array import array
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import duckdb

from findling.scratch import scratch_file
from findling.store.db import index_cursor
from findling.store.documents import META_SQL, Chunk, DocumentMeta, chunks_by_document, meta_of
from findling.store.sql import id_list

_DOCS_A_READ = 1_024  # documents a read while warming: their chunks, sorted, are all it holds
_RECENT = 128  # documents kept from the last reads before warming
# A document's chunks in the file, four int64 a chunk: (start_char, end_char, byte offset, byte
# length), packed: 9 MB for the kernel's Documentation/ + arch/ (25k documents, 128k chunks),
# where tuples of ints took 28 and a numpy array a document 13 (and a keyword search loads no numpy).
_Spans = bytes
_NO_SPANS = b""


@dataclass(frozen=True)
class CachedDocument:
    meta: DocumentMeta
    chunks: list[Chunk]


class DocumentCache:
    def __init__(
        self,
        cursor: Callable[[], duckdb.DuckDBPyConnection],
        scratch: Path | None = None,
        writes: Callable[[], int] | None = None,
        bulk_read: Callable[[], AbstractContextManager[None]] | None = None,
    ) -> None:
        self._cursor = cursor
        # around the copy: its blocks live in the file afterwards, and DuckDB would keep them
        # cached up to its limit (180 MB of a window on the kernel's Documentation/ + arch/)
        self._bulk_read = bulk_read or nullcontext
        self._writes = writes  # the writer's count of transactions; None: check every use
        self._current_at: int | None = None  # the count at which every entry was last found current
        self._seen: int | None = None  # the count the last use saw
        self._recent: dict[int, CachedDocument] = {}  # before warming: the last documents read
        self._recent_at: int | None = None
        self._scratch = scratch
        self._file: IO[bytes] | None = None
        self._size = 0
        self._entries: dict[int, tuple[Any, DocumentMeta, _Spans]] = {}  # id -> (version, meta, spans)
        self._lock = threading.Lock()
        self.warmed = False

    def close(self) -> None:
        with self._lock:
            self._entries.clear()
            self._recent.clear()
            self.warmed = False
            if self._file is not None:
                self._file.close()
                self._file = None

    def warm(self, cancel: threading.Event | None = None) -> None:
        """Copy every document (once; later writes are picked up on use). Read in slices of
        documents, on a cursor of its own: one sorted read of every chunk held the whole
        text twice over while it ran (1 GB at 100k documents), and the thread's cursor kept
        the finished result until its next query, which a background thread may never make."""
        if self.warmed:
            return
        before = self._write_count()
        with self._bulk_read(), index_cursor(self._cursor()) as reader:
            metas = {row[0]: (row[8], meta_of(row)) for row in reader.execute(META_SQL).fetchall()}
            ids = sorted(metas)
            for at in range(0, len(ids), _DOCS_A_READ):
                if cancel is not None and cancel.is_set():
                    return
                first, last = ids[at], ids[min(at + _DOCS_A_READ, len(ids)) - 1]
                rows = reader.execute(
                    "SELECT doc_id, start_char, end_char, text FROM chunks"
                    " WHERE doc_id BETWEEN ? AND ? ORDER BY doc_id, ordinal",
                    [first, last],
                ).fetchall()
                self._add(rows, metas)
        self.warmed = True
        if before is not None and self._write_count() == before:
            self._current_at = before  # nothing was written while the slices were read

    def _add(self, rows: list[tuple[int, int, int, str]], metas: dict[int, tuple[Any, DocumentMeta]]) -> None:
        """Append whole documents' chunk rows (doc_id, start, end, text), in order."""
        blobs: list[bytes] = []
        fresh: dict[int, tuple[Any, DocumentMeta, array[int]]] = {}
        with self._lock:
            if self._file is None:
                self._file = scratch_file(self._scratch, "findling-text-")
            offset = self._size
            for doc_id, start, end, text in rows:
                known = metas.get(doc_id)
                if known is None:
                    continue  # removed between the two reads
                data = text.encode("utf-8")
                entry = fresh.get(doc_id)
                if entry is None:
                    entry = fresh[doc_id] = (known[0], known[1], array("q"))
                entry[2].extend((start, end, offset, len(data)))
                blobs.append(data)
                offset += len(data)
            self._file.seek(0, os.SEEK_END)
            self._file.write(b"".join(blobs))
            self._file.flush()
            self._size = offset
            for doc_id, (version, meta, spans) in fresh.items():
                self._entries[doc_id] = (version, meta, spans.tobytes())

    def _read(self, packed: _Spans) -> list[Chunk]:
        if not packed:
            return []
        flat = array("q")
        flat.frombytes(packed)
        spans = list(zip(*[iter(flat)] * 4, strict=True))
        first = min(offset for _, _, offset, _ in spans)
        last = max(offset + length for _, _, offset, length in spans)
        with self._lock:
            if self._file is None:
                return []
            self._file.seek(first)
            data = self._file.read(last - first)
        return [
            (start, end, data[offset - first : offset - first + length].decode("utf-8"))
            for start, end, offset, length in spans
        ]

    def documents(self, cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> dict[int, CachedDocument]:
        """Each document's metadata and chunks (documents gone since are left out): from
        the copy where it is current, else from the database (and then copied)."""
        if not ids:
            return {}
        if not self.warmed:
            return self._unwarmed(cur, ids)
        writes = self._write_count()
        if writes is not None and writes == self._seen and writes != self._current_at:
            self._check_all(cur, writes)
        if writes is not None and writes == self._current_at:
            return self._served(cur, ids, None)
        self._seen = writes
        versions = dict(cur.execute(f"SELECT id, indexed_at FROM documents WHERE id IN {id_list(ids)}").fetchall())
        return self._served(cur, ids, versions)

    def _served(
        self, cur: duckdb.DuckDBPyConnection, ids: Sequence[int], versions: dict[int, Any] | None
    ) -> dict[int, CachedDocument]:
        """The entries for `ids`: all of them when known current (`versions` None), else those
        at the database's version (an id it lacks is gone: left out). The rest are read from
        the database and copied (one gone since the caller's search is left out there)."""
        out: dict[int, CachedDocument] = {}
        stale: list[int] = []
        for doc_id in dict.fromkeys(ids) if versions is None else versions:
            entry = self._entries.get(doc_id)
            if entry is not None and (versions is None or entry[0] == versions[doc_id]):
                out[doc_id] = CachedDocument(entry[1], self._read(entry[2]))
            else:
                stale.append(doc_id)
        if stale:
            out.update(self._from_database(cur, stale, copy=True))
        return out

    def _write_count(self) -> int | None:
        return self._writes() if self._writes is not None else None

    def _unwarmed(self, cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> dict[int, CachedDocument]:
        """From the database, keeping the last _RECENT documents read while nothing is written:
        a keyword search reads its first results for their nearness, then for their snippets,
        and each read scans whole columns."""
        writes = self._write_count()
        if writes is None:
            return self._from_database(cur, ids, copy=False)
        with self._lock:
            if self._recent_at != writes:
                self._recent, self._recent_at = {}, writes
            known = dict(self._recent)
        missing = [doc_id for doc_id in dict.fromkeys(ids) if doc_id not in known]
        if missing:
            found = self._from_database(cur, missing, copy=False)
            known.update(found)
            with self._lock:
                if self._recent_at == writes:
                    self._recent.update(found)
                    for doc_id in list(self._recent)[: max(0, len(self._recent) - _RECENT)]:
                        del self._recent[doc_id]
        return {doc_id: known[doc_id] for doc_id in ids if doc_id in known}

    def _check_all(self, cur: duckdb.DuckDBPyConnection, writes: int) -> None:
        """Drop every entry the database no longer has at its version (20 ms at 100k
        documents): the rest are current at `writes`, if nothing was written meanwhile."""
        versions = dict(cur.execute("SELECT id, indexed_at FROM documents").fetchall())
        with self._lock:
            for doc_id in [d for d, entry in self._entries.items() if versions.get(d) != entry[0]]:
                del self._entries[doc_id]
        if self._write_count() == writes:
            self._current_at = writes

    def _from_database(
        self, cur: duckdb.DuckDBPyConnection, ids: Sequence[int], copy: bool
    ) -> dict[int, CachedDocument]:
        metas = {
            row[0]: (row[8], meta_of(row)) for row in cur.execute(f"{META_SQL} WHERE d.id IN {id_list(ids)}").fetchall()
        }
        chunks = chunks_by_document(cur, list(metas))
        if copy:
            self._add([(doc_id, *chunk) for doc_id in metas for chunk in chunks.get(doc_id, [])], metas)
            with self._lock:
                for doc_id, (version, meta) in metas.items():
                    self._entries.setdefault(doc_id, (version, meta, _NO_SPANS))  # a document without text
        return {doc_id: CachedDocument(meta, chunks.get(doc_id, [])) for doc_id, (_, meta) in metas.items()}
