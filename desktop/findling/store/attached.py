"""Collections shared between Findlings (ingest/sharing.py): the rows a publication reads from a
folder here, and the collections attached here from another's publication, one row each beside
its source, with the publication its documents come from and how the last attempt to reach it
went."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import duckdb

from findling.records import Attached
from findling.store.sql import by_row_id, id_list

if TYPE_CHECKING:
    import numpy


def attached_by_source(cur: duckdb.DuckDBPyConnection, model: str | None = None) -> dict[int, Attached]:
    """Source id -> its attached collection; `model`: the vector key of the embedder in use
    here, which decides whether a collection's vectors serve semantic search."""
    rows = cur.execute(
        "SELECT source_id, uri, name, version, embedder, documents, checked, error FROM attached"
    ).fetchall()
    return {
        r[0]: Attached(r[1], r[2], int(r[3]), r[4], int(r[5]), float(r[6]), r[7], bool(r[4]) and r[4] == model)
        for r in rows
    }


def attached_roots(cur: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(the folder it was published from, its name here) of each attached collection."""
    return cur.execute("SELECT s.path, a.name FROM attached a JOIN sources s ON s.id = a.source_id").fetchall()


def insert_attached(tx: duckdb.DuckDBPyConnection, source_id: int, uri: str, name: str) -> None:
    tx.execute("INSERT INTO attached VALUES (?, ?, ?, 0, '', 0, 0, '')", [source_id, uri, name])


def record_reached(
    tx: duckdb.DuckDBPyConnection, source_id: int, version: int, embedder: str, documents: int, when: float
) -> None:
    tx.execute(
        "UPDATE attached SET version = ?, embedder = ?, documents = ?, checked = ?, error = '' WHERE source_id = ?",
        [version, embedder, documents, when, source_id],
    )


def record_unreachable(tx: duckdb.DuckDBPyConnection, source_id: int, error: str) -> None:
    tx.execute("UPDATE attached SET error = ? WHERE source_id = ?", [error, source_id])


# -- what a publication reads, and what a reader keeps of its vectors ------------------------


def published_fields(cur: duckdb.DuckDBPyConnection, source_id: int) -> list[tuple[Any, ...]]:
    """The folder's readable documents as a publication needs them (a path as it reads: a name
    that is not UTF-8 is published in its readable form): (id, path, ext, size, mtime,
    hash, title, mime, notes, author, dated, link share, OCR pages, page starts, has symbols)."""
    return cur.execute(
        """SELECT d.id, d.path, d.ext, d.size, d.mtime, coalesce(d.hash, ''),
                  coalesce(d.title, ''), coalesce(d.mime, ''), coalesce(d.error, ''),
                  coalesce(f.author, ''), coalesce(dd.dated, 0), coalesce(l.share, 0), coalesce(o.pages, 0),
                  (SELECT list(start_char ORDER BY page) FROM pages p WHERE p.doc_id = d.id),
                  EXISTS (SELECT 1 FROM symbols s WHERE s.doc_id = d.id)
           FROM documents d
           LEFT JOIN doc_fields f ON f.doc_id = d.id
           LEFT JOIN doc_dates dd ON dd.doc_id = d.id
           LEFT JOIN link_shares l ON l.doc_id = d.id
           LEFT JOIN ocr_pages o ON o.doc_id = d.id
           WHERE d.source_id = ? AND d.status = 'ok' ORDER BY d.id""",
        [source_id],
    ).fetchall()


def chunk_spans(cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> dict[int, list[tuple[int, int, str, str]]]:
    """Each document's chunks in order: (start, end, heading, text)."""
    out: dict[int, list[tuple[int, int, str, str]]] = {}
    for doc_id, start, end, heading, text in cur.execute(
        f"SELECT doc_id, start_char, end_char, heading, text FROM chunks WHERE doc_id IN {id_list(ids)} "
        "ORDER BY doc_id, ordinal"
    ).fetchall():
        out.setdefault(doc_id, []).append((start, end, heading, text))
    return out


def window_vectors(
    cur: duckdb.DuckDBPyConnection, table: str, ids: Sequence[int]
) -> dict[int, tuple[list[int], list[list[float]]]]:
    """Each document's embedded windows: their text hashes and vectors, in order."""
    out: dict[int, tuple[list[int], list[list[float]]]] = {}
    for doc_id, hashed, vec in cur.execute(
        f"SELECT doc_id, hash, vec::FLOAT[] FROM {table} "
        f"WHERE {by_row_id(table, f'doc_id IN {id_list(ids)} AND hash IS NOT NULL')} ORDER BY doc_id, ordinal"
    ).fetchall():
        hashes, vectors = out.setdefault(doc_id, ([], []))
        hashes.append(int(hashed))
        vectors.append(vec)
    return out


def window_counts(cur: duckdb.DuckDBPyConnection, table: str | None, source_id: int) -> dict[int, int]:
    """Document id -> its embedded windows, for the folder's documents."""
    if table is None:
        return {}
    return dict(
        cur.execute(
            f"SELECT v.doc_id, count(*) FROM {table} v JOIN documents d ON d.id = v.doc_id "
            "WHERE d.source_id = ? GROUP BY v.doc_id",
            [source_id],
        ).fetchall()
    )


def stash_vectors(tx: duckdb.DuckDBPyConnection, table: str, hashes: numpy.ndarray, vectors: numpy.ndarray) -> None:
    """Vectors another Findling computed, waiting by text hash for the embedding run that copies
    them in instead of running the model (store/vectors.py known_vectors)."""
    import numpy as np

    if len(hashes) == 0:
        return
    count, dim = vectors.shape
    # flat, as store/vectors.py write_vectors registers them: DuckDB scans one value per row
    tx.register(
        "shared_vectors",
        {
            "row": np.repeat(np.arange(count, dtype=np.int64), dim),
            "pos": np.tile(np.arange(dim, dtype=np.int32), count),
            "x": np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1),
        },
    )
    tx.register("shared_hashes", {"row": np.arange(count, dtype=np.int64), "hash": hashes.astype(np.uint64)})
    try:
        tx.execute(
            """INSERT INTO stale_vectors
               SELECT ?, h.hash, v.vec FROM shared_hashes h
               JOIN (SELECT row, list(x ORDER BY pos) AS vec FROM shared_vectors GROUP BY row) v USING (row)""",
            [table],
        )
    finally:
        tx.unregister("shared_vectors")
        tx.unregister("shared_hashes")
