"""Chunk embeddings in DuckDB: one table of `FLOAT[dim]` per embedding model.

Each row is one embedding window of a chunk, with a `seq` from a sequence so an in-memory
index can tell new rows from ones it already holds. `vectors_generation` in meta changes
with every commit that adds or removes vectors."""

from __future__ import annotations

import re
from collections.abc import Sequence

import duckdb
import numpy as np
import pyarrow as pa

from findling.store.db import first_row, scalar

_GENERATION = "vectors_generation"


def table_for(cur: duckdb.DuckDBPyConnection, model: str) -> tuple[str, int] | None:
    row = first_row(cur, "SELECT table_name, dim FROM vector_models WHERE model = ?", [model])
    return (str(row[0]), int(row[1])) if row else None


def vector_tables(cur: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in cur.execute("SELECT table_name FROM vector_models").fetchall()]


def ensure_table(cur: duckdb.DuckDBPyConnection, model: str, dim: int) -> str:
    found = table_for(cur, model)
    if found is not None:
        if found[1] != dim:
            raise ValueError(f"vectors of {model} are {found[1]}-dimensional, not {dim}")
        return found[0]
    name = "vectors_" + re.sub(r"[^a-z0-9]+", "_", model.lower()).strip("_")
    cur.execute(
        f"""CREATE TABLE {name} (
            seq BIGINT NOT NULL DEFAULT nextval('vector_seq'), doc_id INTEGER NOT NULL,
            ordinal INTEGER NOT NULL, start_char INTEGER NOT NULL, end_char INTEGER NOT NULL,
            vec FLOAT[{int(dim)}] NOT NULL)"""
    )
    cur.execute("INSERT INTO vector_models (model, table_name, dim) VALUES (?, ?, ?)", [model, name, dim])
    return name


def drop_other_models(cur: duckdb.DuckDBPyConnection, keep: str) -> None:
    for model, table in cur.execute("SELECT model, table_name FROM vector_models WHERE model <> ?", [keep]).fetchall():
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute("DELETE FROM vector_models WHERE model = ?", [model])
    bump_generation(cur)


def bump_generation(cur: duckdb.DuckDBPyConnection) -> None:
    cur.execute(
        """INSERT INTO meta VALUES (?, '1') ON CONFLICT (key) DO UPDATE
           SET value = CAST(CAST(meta.value AS BIGINT) + 1 AS VARCHAR)""",
        [_GENERATION],
    )


def generation(cur: duckdb.DuckDBPyConnection) -> int:
    value = scalar(cur, "SELECT value FROM meta WHERE key = ?", [_GENERATION])
    return int(value) if value is not None else 0


def write_vectors(
    cur: duckdb.DuckDBPyConnection,
    table: str,
    doc_ids: Sequence[int],
    ordinals: Sequence[int],
    spans: Sequence[tuple[int, int]],
    vectors: np.ndarray,
) -> None:
    if len(doc_ids) == 0:
        return
    dim = vectors.shape[1]
    flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).reshape(-1))
    batch = pa.table({
        "doc_id": np.asarray(doc_ids, dtype=np.int32),
        "ordinal": np.asarray(ordinals, dtype=np.int32),
        "start_char": np.asarray([s for s, _ in spans], dtype=np.int32),
        "end_char": np.asarray([e for _, e in spans], dtype=np.int32),
        "vec": pa.FixedSizeListArray.from_arrays(flat, dim),
    })
    cur.register("batch_vectors", batch)
    try:
        cur.execute(
            f"""INSERT INTO {table} (doc_id, ordinal, start_char, end_char, vec)
                SELECT doc_id, ordinal, start_char, end_char, vec FROM batch_vectors"""
        )
    finally:
        cur.unregister("batch_vectors")
    bump_generation(cur)


def delete_vectors(cur: duckdb.DuckDBPyConnection, id_sql: str) -> None:
    """Remove the vectors of documents whose ids the SQL list or subquery yields."""
    tables = vector_tables(cur)
    for table in tables:
        cur.execute(f"DELETE FROM {table} WHERE doc_id IN {id_sql}")
    if tables:
        bump_generation(cur)


def pending_documents(cur: duckdb.DuckDBPyConnection, table: str, limit: int) -> list[tuple[int, str]]:
    """Indexed documents with text but no vectors yet: (id, title), oldest first."""
    return cur.execute(
        f"""SELECT d.id, coalesce(d.title, '') FROM documents d
            WHERE d.status = 'ok'
              AND EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)
              AND NOT EXISTS (SELECT 1 FROM {table} v WHERE v.doc_id = d.id)
            ORDER BY d.id LIMIT ?""",
        [limit],
    ).fetchall()


def count_pending(cur: duckdb.DuckDBPyConnection, table: str) -> int:
    return int(scalar(
        cur,
        f"""SELECT count(*) FROM documents d
            WHERE d.status = 'ok'
              AND EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)
              AND NOT EXISTS (SELECT 1 FROM {table} v WHERE v.doc_id = d.id)""",
    ))
