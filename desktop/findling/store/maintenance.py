"""Keep the postings table sorted by term, so a query reads only its terms' row groups.

Appends from incremental indexing land at the end, unsorted; when that tail grows past a
share of the table, the table is rewritten in term order in one transaction."""

from __future__ import annotations

import duckdb

from findling.store.db import Database, scalar

_TAIL_KEY = "postings_unsorted_rows"
MIN_ROWS = 200_000
TAIL_SHARE = 0.10


def note_appended_postings(cur: duckdb.DuckDBPyConnection, count: int) -> None:
    if count:
        cur.execute(
            """INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE
               SET value = CAST(CAST(meta.value AS BIGINT) + CAST(excluded.value AS BIGINT) AS VARCHAR)""",
            [_TAIL_KEY, str(count)],
        )


def unsorted_rows(cur: duckdb.DuckDBPyConnection) -> int:
    value = scalar(cur, "SELECT value FROM meta WHERE key = ?", [_TAIL_KEY])
    return int(value) if value is not None else 0


def compact_postings(db: Database) -> None:
    with db.transaction() as tx:
        tx.execute(
            "CREATE TABLE postings_sorted (term_id INTEGER NOT NULL, doc_id INTEGER NOT NULL, tf REAL NOT NULL, "
            "dl REAL NOT NULL)"
        )
        tx.execute("INSERT INTO postings_sorted SELECT * FROM postings ORDER BY term_id, doc_id")
        tx.execute("DROP TABLE postings")
        tx.execute("ALTER TABLE postings_sorted RENAME TO postings")
        tx.execute("INSERT OR REPLACE INTO meta VALUES (?, '0')", [_TAIL_KEY])
    db.checkpoint()


def compact_postings_if_needed(db: Database) -> bool:
    cur = db.cursor()
    tail = unsorted_rows(cur)
    if tail == 0:
        return False
    total = int(scalar(cur, "SELECT count(*) FROM postings"))
    if total < MIN_ROWS or tail < total * TAIL_SHARE:
        return False
    compact_postings(db)
    return True
