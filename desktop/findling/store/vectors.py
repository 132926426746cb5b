"""Chunk embeddings in DuckDB: one table of `FLOAT[dim]` per embedding model.

Each row is one embedding window of a chunk, with a `seq` from a sequence so an in-memory
index can tell new rows from ones it already holds, and a 64-bit hash of the exact text the
model read, so the same text is never embedded twice. `vectors_generation` in meta changes
with every commit that adds or removes vectors.

A changed document's old vectors move to `stale_vectors` rather than vanish: the windows
its edit left alone are found there by hash and copied back instead of embedded again.
The next complete embedding run empties it.

A large index is embedded in passes (ingest/embedding.py): every document's first window, then
each prose document's opening, then the rest. `vector_reach` lists the documents not embedded
whole yet (their first vector, and for prose the opening's windows), with why the rest is held
back ("" while it waits its turn)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence

import duckdb

from findling.store.batches import registered
from findling.store.sql import by_row_id, first_row, id_list, scalar

TYPE_CHECKING = False
if TYPE_CHECKING:
    import numpy as np  # the vector functions import it: a keyword search loads this module without it

_GENERATION = "vectors_generation"


def table_for(cur: duckdb.DuckDBPyConnection, model: str) -> tuple[str, int] | None:
    row = first_row(cur, "SELECT table_name, dim FROM vector_models WHERE model = ?", [model])
    return (str(row[0]), int(row[1])) if row else None


def vector_models(cur: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """Each model's vector table and its dimension."""
    return [(str(t), int(d)) for t, d in cur.execute("SELECT table_name, dim FROM vector_models").fetchall()]


def vector_tables(cur: duckdb.DuckDBPyConnection) -> list[str]:
    return [r[0] for r in cur.execute("SELECT table_name FROM vector_models").fetchall()]


def vector_bytes(cur: duckdb.DuckDBPyConnection) -> int:
    """What the float vectors take in the file (rows × dimensions × 4), every model's."""
    return sum(row_count(cur, table) * dim * 4 for table, dim in vector_models(cur))


def create_vector_table(cur: duckdb.DuckDBPyConnection, name: str, dim: int) -> None:
    cur.execute(
        f"""CREATE TABLE {name} (
            seq BIGINT NOT NULL DEFAULT nextval('vector_seq'), doc_id INTEGER NOT NULL,
            ordinal INTEGER NOT NULL, start_char INTEGER NOT NULL, end_char INTEGER NOT NULL,
            vec FLOAT[{int(dim)}] NOT NULL, hash UBIGINT)"""
    )


def ensure_table(cur: duckdb.DuckDBPyConnection, model: str, dim: int) -> str:
    found = table_for(cur, model)
    if found is not None:
        if found[1] != dim:
            raise ValueError(f"vectors of {model} are {found[1]}-dimensional, not {dim}")
        return found[0]
    name = "vectors_" + re.sub(r"[^a-z0-9]+", "_", model.lower()).strip("_")
    create_vector_table(cur, name, dim)
    cur.execute("INSERT INTO vector_models (model, table_name, dim) VALUES (?, ?, ?)", [model, name, dim])
    return name


def fingerprint(cur: duckdb.DuckDBPyConnection, model: str) -> list[float] | None:
    """The probe vector the model's vectors were made with (a model server's: a changed model
    behind the same name answers another)."""
    value = scalar(cur, "SELECT value FROM meta WHERE key = ?", [f"fingerprint:{model}"])
    return [float(x) for x in json.loads(str(value))] if value else None


def set_fingerprint(cur: duckdb.DuckDBPyConnection, model: str, probe: Sequence[float]) -> None:
    cur.execute(
        "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [f"fingerprint:{model}", json.dumps([round(float(x), 5) for x in probe])],
    )


def drop_model(cur: duckdb.DuckDBPyConnection, model: str) -> None:
    """Every vector of the model, for a model that is no longer the one that made them."""
    for (table,) in cur.execute("SELECT table_name FROM vector_models WHERE model = ?", [model]).fetchall():
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute("DELETE FROM stale_vectors WHERE table_name = ?", [table])
        cur.execute("DELETE FROM vector_reach WHERE table_name = ?", [table])
    cur.execute("DELETE FROM vector_models WHERE model = ?", [model])
    bump_generation(cur)


def drop_other_models(cur: duckdb.DuckDBPyConnection, keep: str) -> None:
    for model, table in cur.execute("SELECT model, table_name FROM vector_models WHERE model <> ?", [keep]).fetchall():
        cur.execute(f"DROP TABLE IF EXISTS {table}")
        cur.execute("DELETE FROM stale_vectors WHERE table_name = ?", [table])
        cur.execute("DELETE FROM vector_reach WHERE table_name = ?", [table])
        cur.execute("DELETE FROM vector_models WHERE model = ?", [model])
    bump_generation(cur)


def bump_generation(cur: duckdb.DuckDBPyConnection) -> None:
    cur.execute(
        """INSERT INTO meta VALUES (?, '1') ON CONFLICT (key) DO UPDATE
           SET value = CAST(CAST(meta.value AS BIGINT) + 1 AS VARCHAR)""",
        [_GENERATION],
    )


def index_id(cur: duckdb.DuckDBPyConnection) -> str:
    """The index's name (schema 25), kept by its copies."""
    return str(scalar(cur, "SELECT value FROM meta WHERE key = 'index_id'") or "")


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
    hashes: np.ndarray | None = None,
) -> None:
    import numpy as np

    if len(doc_ids) == 0:
        return
    count, dim = vectors.shape
    rows: dict[str, np.ndarray] = {
        "doc_id": np.asarray(doc_ids, dtype=np.int32),
        "ordinal": np.asarray(ordinals, dtype=np.int32),
        "start_char": np.asarray([s for s, _ in spans], dtype=np.int32),
        "end_char": np.asarray([e for _, e in spans], dtype=np.int32),
        "hash": np.asarray(hashes if hashes is not None else np.zeros(count), dtype=np.uint64),
    }
    values = np.ascontiguousarray(vectors, dtype=np.float32)
    for lo in range(0, count, _WRITE_ROWS):
        n = min(count, lo + _WRITE_ROWS) - lo
        # DuckDB scans numpy columns of one value per row only: the vectors go in flat, with each
        # value's row and position, and are put back together as FLOAT[dim] in SQL.
        batch_rows = {"row": np.arange(n, dtype=np.int64)} | {k: v[lo : lo + n] for k, v in rows.items()}
        batch_values = {
            "row": np.repeat(np.arange(n, dtype=np.int64), dim),
            "pos": np.tile(np.arange(dim, dtype=np.int32), n),
            "x": values[lo : lo + n].reshape(-1),
        }
        with registered(cur, "batch_rows", batch_rows), registered(cur, "batch_values", batch_values):
            cur.execute(
                f"""INSERT INTO {table} (doc_id, ordinal, start_char, end_char, vec, hash)
                    SELECT r.doc_id, r.ordinal, r.start_char, r.end_char, v.vec::FLOAT[{int(dim)}], nullif(r.hash, 0)
                    FROM batch_rows r
                    JOIN (SELECT row, list(x ORDER BY pos) AS vec FROM batch_values GROUP BY row) v USING (row)
                    -- a document removed while its vectors were computed (its folder removed) gets none
                    SEMI JOIN documents d ON d.id = r.doc_id
                    ORDER BY r.row"""
            )
    bump_generation(cur)


# Rows a statement: each vector is put back together from its values by a sorted list aggregate,
# which takes ~12 kB a row of DuckDB's memory; 20,000 rows at once failed its 256 MB budget.
_WRITE_ROWS = 2048


def known_vectors(cur: duckdb.DuckDBPyConnection, table: str, hashes: np.ndarray) -> dict[int, np.ndarray]:
    """Vectors already computed for these text hashes, live or kept from an edited document."""
    import numpy as np

    if len(hashes) == 0:
        return {}
    wanted = id_list(np.unique(np.asarray(hashes, dtype=np.uint64)).tolist())
    found = cur.execute(
        f"""SELECT hash, any_value(vec) AS vec FROM (
                SELECT hash, vec::FLOAT[] AS vec FROM {table} WHERE {by_row_id(table, f"hash IN {wanted}")}
                UNION ALL
                SELECT hash, vec FROM stale_vectors WHERE table_name = ? AND hash IN {wanted})
            GROUP BY hash""",
        [table],
    ).fetchnumpy()
    return {int(k): np.asarray(v, dtype=np.float32) for k, v in zip(found["hash"], found["vec"], strict=True)}


def read_vectors(
    cur: duckdb.DuckDBPyConnection, table: str, after_seq: int, batch: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The table's rows with seq > after_seq in seq order, in batches of at most `batch` rows, as
    (seqs, doc_ids, ordinals, starts, ends, float32 matrix): a million vectors never sit in
    memory as Python objects all at once. Batches are ranges of seq, not ORDER BY … LIMIT: a
    top-N over every later row made reading a million vectors take 11.4 s instead of 6.0 s."""
    import numpy as np

    top = scalar(cur, f"SELECT max(seq) FROM {table} WHERE seq > ?", [after_seq])
    while top is not None and after_seq < int(top):
        part = cur.execute(
            f"""SELECT seq, doc_id, ordinal, start_char, end_char, vec FROM {table}
                WHERE seq > ? AND seq <= ? ORDER BY seq""",
            [after_seq, after_seq + batch],
        ).fetchnumpy()
        if len(part["seq"]) == 0:  # a gap in the seqs (deleted rows, another model's): skip it
            after_seq = int(scalar(cur, f"SELECT min(seq) FROM {table} WHERE seq > ?", [after_seq]) or top) - 1
            continue
        # DuckDB hands the vectors over as one array a row; once stacked they go, before the
        # caller rotates and quantizes the batch (83 of a first load's 390 MB at its peak)
        floats = np.stack(list(part.pop("vec"))).astype(np.float32, copy=False)
        yield part["seq"], part["doc_id"], part["ordinal"], part["start_char"], part["end_char"], floats
        after_seq += batch


def row_count(cur: duckdb.DuckDBPyConnection, table: str) -> int:
    return int(scalar(cur, f"SELECT count(*) FROM {table}") or 0)


def live_seqs(cur: duckdb.DuckDBPyConnection, table: str) -> np.ndarray:
    return cur.execute(f"SELECT seq FROM {table}").fetchnumpy()["seq"]


def seq_span(cur: duckdb.DuckDBPyConnection, table: str) -> tuple[int, int]:
    """(rows, highest seq; -1 when empty): seqs only grow, so equal spans mean the same rows."""
    row = first_row(cur, f"SELECT count(*), coalesce(max(seq), -1) FROM {table}")
    return (int(row[0]), int(row[1])) if row else (0, -1)


def hashes_at(cur: duckdb.DuckDBPyConnection, table: str, seqs: Sequence[int]) -> dict[int, int]:
    """The text hashes of these seqs' rows, of those still there (two small columns read: the
    vectors themselves would be the whole table)."""
    wanted = [int(s) for s in seqs]
    if not wanted:
        return {}
    found = cur.execute(
        f"SELECT seq, coalesce(hash, 0) FROM {table} WHERE seq IN ({', '.join('?' * len(wanted))})", wanted
    ).fetchall()
    return {int(seq): int(h) for seq, h in found}


def delete_vectors(cur: duckdb.DuckDBPyConnection, id_sql: str, keep_for_reuse: bool = False) -> None:
    """Remove the vectors of documents whose ids the SQL list or subquery yields; with
    `keep_for_reuse` (the document changed, not gone) they wait in stale_vectors."""
    tables = vector_tables(cur)
    for table in tables:
        if keep_for_reuse:
            cur.execute(
                f"""INSERT INTO stale_vectors SELECT ?, hash, vec FROM {table}
                    WHERE {by_row_id(table, f"doc_id IN {id_sql} AND hash IS NOT NULL")}""",
                [table],
            )
        cur.execute(f"DELETE FROM {table} WHERE doc_id IN {id_sql}")
    if tables:
        cur.execute(f"DELETE FROM vector_reach WHERE doc_id IN {id_sql}")
        bump_generation(cur)


def forget_stale(cur: duckdb.DuckDBPyConnection, table: str) -> None:
    cur.execute("DELETE FROM stale_vectors WHERE table_name = ?", [table])


def _prose_sql() -> str:
    from findling.file_kinds import PROSE_EXTENSIONS

    return "(d.ext = '' OR d.ext IN (" + ", ".join(f"'{e}'" for e in PROSE_EXTENSIONS) + "))"


def pending_first(cur: duckdb.DuckDBPyConnection, table: str, limit: int) -> list[tuple[int, str]]:
    """Indexed documents with text and no vector yet: (id, title), prose first, then the most
    recently modified (what a person works on now is what they search for)."""
    return cur.execute(
        f"""SELECT d.id, coalesce(d.title, '') FROM documents d
            WHERE d.status = 'ok'
              AND EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)
              AND NOT EXISTS (SELECT 1 FROM {table} v WHERE v.doc_id = d.id)
            ORDER BY {_prose_sql()} DESC, d.mtime DESC, d.id LIMIT ?""",
        [limit],
    ).fetchall()


def pending_depth(cur: duckdb.DuckDBPyConnection, table: str, limit: int) -> list[tuple[int, str]]:
    """Documents with their first vector only that wait for the rest: (id, title), prose before
    code, small before giant, recent before old; those held back (machine-made) never."""
    return cur.execute(
        f"""SELECT d.id, coalesce(d.title, '') FROM vector_reach r JOIN documents d ON d.id = r.doc_id
            WHERE r.table_name = ? AND r.held = ''
            ORDER BY {_prose_sql()} DESC,
                     CASE WHEN d.size < 32768 THEN 0 WHEN d.size < 262144 THEN 1 ELSE 2 END,
                     d.mtime DESC, d.id
            LIMIT ?""",
        [table, limit],
    ).fetchall()


def pending_opening(cur: duckdb.DuckDBPyConnection, table: str, limit: int) -> list[tuple[int, str]]:
    """Prose documents with their first vector alone that wait for the rest: (id, title), most
    recently modified first (ingest/embedding.py gives them their opening's next windows)."""
    return cur.execute(
        f"""SELECT d.id, coalesce(d.title, '') FROM vector_reach r JOIN documents d ON d.id = r.doc_id
            WHERE r.table_name = ? AND r.held = '' AND {_prose_sql()}
              AND (SELECT count(*) FROM {table} v WHERE v.doc_id = d.id) = 1
            ORDER BY d.mtime DESC, d.id
            LIMIT ?""",
        [table, limit],
    ).fetchall()


def mark_first_only(cur: duckdb.DuckDBPyConnection, table: str, held: Sequence[tuple[int, str]]) -> None:
    """These documents have their first vector only: (id, why the rest is held back, "" when it waits)."""
    if held:
        cur.executemany("INSERT INTO vector_reach VALUES (?, ?, ?)", [(table, int(d), h) for d, h in held])


def replace_document_vectors(cur: duckdb.DuckDBPyConnection, table: str, doc_ids: Sequence[int]) -> int:
    """Remove these documents' first vectors (and opening windows) before their whole ones are
    written: a document's vectors are its opening's or all its windows', never both. Returns
    how many vectors went."""
    if not doc_ids:
        return 0
    ids = id_list(doc_ids)
    row = cur.execute(f"DELETE FROM {table} WHERE doc_id IN {ids}").fetchone()
    cur.execute(f"DELETE FROM vector_reach WHERE table_name = ? AND doc_id IN {ids}", [table])
    return int(row[0]) if row else 0


def reach(cur: duckdb.DuckDBPyConnection, table: str | None) -> dict[str, int]:
    """Documents embedded by their first window only, by why ("" : the rest waits; else the
    machine_made reason that holds it back)."""
    if table is None:
        return {}
    rows = cur.execute("SELECT held, count(*) FROM vector_reach WHERE table_name = ? GROUP BY held", [table]).fetchall()
    return {str(h): int(n) for h, n in rows}


def _waiting_sql(table: str) -> str:
    """Each document with text, its extension and length, and whether it waits for a first
    vector (`first`) or for whole vectors (`whole`: longer than one window (the parameter) and
    without a vector, or at its first vector with nothing held back)."""
    return f"""WITH lengths AS (
                SELECT c.doc_id, d.ext, sum(c.end_char - c.start_char) AS n FROM chunks c
                JOIN documents d ON d.id = c.doc_id AND d.status = 'ok' GROUP BY c.doc_id, d.ext),
            waiting AS (
                SELECT l.doc_id, l.ext, l.n, v.doc_id IS NULL AND r.doc_id IS NULL AS first,
                       (v.doc_id IS NULL AND r.doc_id IS NULL AND l.n > ?) OR r.held = '' AS whole
                FROM lengths l
                LEFT JOIN (SELECT DISTINCT doc_id FROM {table}) v ON v.doc_id = l.doc_id
                LEFT JOIN (SELECT doc_id, held FROM vector_reach WHERE table_name = ?) r ON r.doc_id = l.doc_id)"""


def work_waiting(cur: duckdb.DuckDBPyConnection, table: str, one_window: int) -> tuple[int, dict[str, int]]:
    """(documents without a vector, characters of text waiting for whole vectors by extension:
    those documents' longer than `one_window` characters, and those with their first vector only)."""
    rows = cur.execute(
        f"""{_waiting_sql(table)}
            SELECT ext, count(*) FILTER (WHERE first), coalesce(sum(n) FILTER (WHERE whole), 0)
            FROM waiting GROUP BY ext""",
        [one_window, table],
    ).fetchall()
    return sum(int(first) for _, first, _ in rows), {ext: int(chars) for ext, _, chars in rows if chars}


def waiting_sample(
    cur: duckdb.DuckDBPyConnection, table: str, one_window: int, per_ext: int
) -> list[tuple[int, str, str]]:
    """Up to `per_ext` documents of each extension among those waiting for whole vectors, picked
    by a hash of their id (the same each time, spread over the folder): (id, extension, title)."""
    return cur.execute(
        f"""{_waiting_sql(table)}
            SELECT w.doc_id, w.ext, coalesce(d.title, '') FROM (
                SELECT doc_id, ext, row_number() OVER (PARTITION BY ext ORDER BY hash(doc_id)) AS pick
                FROM waiting WHERE whole) w
            JOIN documents d ON d.id = w.doc_id WHERE w.pick <= ? ORDER BY w.ext, w.doc_id""",
        [one_window, table, per_ext],
    ).fetchall()


def first_only(cur: duckdb.DuckDBPyConnection, table: str, doc_ids: Sequence[int]) -> set[int]:
    """Of these documents, those embedded by their first window only."""
    if not doc_ids:
        return set()
    rows = cur.execute(
        f"SELECT doc_id FROM vector_reach WHERE table_name = ? AND doc_id IN {id_list(doc_ids)}", [table]
    ).fetchall()
    return {int(r[0]) for r in rows}


def embedded_share(cur: duckdb.DuckDBPyConnection, table: str | None) -> tuple[int, int]:
    """(documents with vectors in `table`, documents with text to embed)."""
    with_text = "FROM documents d WHERE d.status = 'ok' AND EXISTS (SELECT 1 FROM chunks c WHERE c.doc_id = d.id)"
    if table is None:
        return 0, int(scalar(cur, f"SELECT count(*) {with_text}"))
    row = first_row(
        cur,
        f"""SELECT count(*) FILTER (WHERE EXISTS (SELECT 1 FROM {table} v WHERE v.doc_id = d.id)),
                                    count(*) {with_text}""",
    )
    return (int(row[0]), int(row[1])) if row else (0, 0)
