"""The index that finds a word's row in `terms` (its id and df) for a query.

A query looks its words up by value: with this index 0.4 ms, without it a scan of every term
(22 ms at 1.3M terms). But DuckDB keeps the index whole in memory and writes it again at each
checkpoint, so a run that writes many files pays for it on every batch: on the kernel's AMD
register headers (436 files, 1.3M terms) the index cost 12 % of the time, a third of the bytes
written and a fifth of the file (docs/eval/disk-scale.md, "Bytes written"). Such a run drops
it and builds it again once at its end (0.9 s for 1.3M terms). Words stay unique without it:
only the writer adds terms, each batch only those the table lacks.

Searches while it is away read the same rows, only slower; a run killed before it was built
again leaves it missing, and the next writer to open the index builds it."""

from __future__ import annotations

import duckdb

NAME = "terms_by_word"

# A run that will read this many files, or this many bytes, writes without the index.
BULK_FILES = 2_000
BULK_BYTES = 64 * 1024 * 1024


def is_bulk(files: int, size: int) -> bool:
    return files >= BULK_FILES or size >= BULK_BYTES


def has_word_lookup(cur: duckdb.DuckDBPyConnection) -> bool:
    rows = cur.execute("SELECT count(*) FROM duckdb_indexes() WHERE index_name = ?", [NAME]).fetchall()
    return bool(rows[0][0])


def drop_word_lookup(cur: duckdb.DuckDBPyConnection) -> None:
    cur.execute(f"DROP INDEX IF EXISTS {NAME}")


def build_word_lookup(cur: duckdb.DuckDBPyConnection) -> bool:
    """Build it where it is missing; whether it was."""
    if has_word_lookup(cur):
        return False
    cur.execute(f"CREATE INDEX {NAME} ON terms (term)")
    return True
