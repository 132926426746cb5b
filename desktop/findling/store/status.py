"""Counts and problems for `findling status` and the app's folder list."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from findling.records import FailedFile
from findling.store.documents import delete_documents


@dataclass(frozen=True)
class SourceCounts:
    documents: int = 0
    indexed: int = 0
    failed: int = 0
    skipped: int = 0


@dataclass(frozen=True)
class Totals:
    chunks: int
    terms: int
    postings: int


def counts_by_source(cur: duckdb.DuckDBPyConnection) -> dict[int, SourceCounts]:
    rows = cur.execute(
        """SELECT source_id, count(*), count(*) FILTER (status = 'ok'),
                  count(*) FILTER (status = 'failed'), count(*) FILTER (status = 'skipped')
           FROM documents GROUP BY source_id"""
    ).fetchall()
    return {r[0]: SourceCounts(*r[1:]) for r in rows}


def problems(cur: duckdb.DuckDBPyConnection, limit: int) -> list[FailedFile]:
    """Failed and skipped files, and files indexed only in part (status ok, with a note)."""
    rows = cur.execute(
        """SELECT path, status, coalesce(error, '') FROM documents
           WHERE status <> 'ok' OR coalesce(error, '') <> ''
           ORDER BY status, path LIMIT ?""",
        [limit],
    ).fetchall()
    return [FailedFile(*r) for r in rows]


def totals(cur: duckdb.DuckDBPyConnection) -> Totals:
    row = cur.execute(
        "SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM terms), (SELECT count(*) FROM postings)"
    ).fetchall()[0]
    return Totals(*row)


def ocr_counts(cur: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """(documents, pages) whose words OCR read."""
    row = cur.execute("SELECT count(*), coalesce(sum(pages), 0) FROM ocr_pages").fetchall()[0]
    return int(row[0]), int(row[1])


def language_counts(cur: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Indexed documents by detected language, most first."""
    rows = cur.execute(
        """SELECT coalesce(language, 'en'), count(*) FROM documents WHERE status = 'ok'
           GROUP BY 1 ORDER BY 2 DESC, 1"""
    ).fetchall()
    return {str(language): int(n) for language, n in rows}


# (table, its document column) for every table whose rows belong to a document
_DOCUMENT_ROWS = (
    ("postings", "doc_id"),
    ("positions", "doc_id"),
    ("chunks", "doc_id"),
    ("pages", "doc_id"),
    ("doc_fields", "doc_id"),
    ("doc_dates", "doc_id"),
    ("title_postings", "doc_id"),
    ("link_shares", "doc_id"),
    ("ocr_pages", "doc_id"),
    ("members", "doc_id"),
    ("members", "container_id"),
    ("symbols", "doc_id"),
    ("near_signatures", "doc_id"),
    ("raw_paths", "doc_id"),
)
_SOURCELESS = "SELECT d.id FROM documents d ANTI JOIN sources s ON s.id = d.source_id"
# every copy of a path but the newest (the highest id: written last)
_DUPLICATES = (
    "SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY path ORDER BY id DESC) AS n FROM documents) WHERE n > 1"
)
_WITHOUT_POSTINGS = """SELECT d.id FROM documents d WHERE status = 'ok' AND length > 0
                       AND NOT EXISTS (SELECT 1 FROM postings p WHERE p.doc_id = d.id)"""
_WRONG_DF = """SELECT count(*) FROM terms t
               LEFT JOIN (SELECT term_id, count(*) AS n FROM postings GROUP BY term_id) p ON p.term_id = t.id
               WHERE t.df <> coalesce(p.n, 0)"""


def _vector_tables(cur: duckdb.DuckDBPyConnection) -> list[str]:
    # table names come from our own vector_models rows, never from user text
    return [table for (table,) in cur.execute("SELECT table_name FROM vector_models").fetchall()]


def _count(cur: duckdb.DuckDBPyConnection, select: str) -> int:
    return int(cur.execute(f"SELECT count(*) FROM ({select})").fetchall()[0][0])


def consistency_problems(cur: duckdb.DuckDBPyConnection) -> list[str]:
    """What would make the index lie: documents of a removed folder, duplicate or orphaned rows,
    documents visible without their postings, term document counts out of step. Empty when
    sound; `repair_problems` mends each."""
    found = []
    if n := _count(cur, _SOURCELESS):
        found.append(f"{n:,} documents of a folder that was removed")
    if n := _count(cur, _DUPLICATES):
        found.append(f"{n:,} duplicate documents")
    orphans = sum(
        _count(cur, f"SELECT 1 FROM {table} t ANTI JOIN documents d ON d.id = t.{column}")
        for table, column in _DOCUMENT_ROWS
    )
    if orphans:
        found.append("postings, chunks or pages without a document")
    if _count(cur, _WITHOUT_POSTINGS):
        found.append("a document visible without its postings")
    for table in _vector_tables(cur):
        if _count(cur, f"SELECT 1 FROM {table} v ANTI JOIN documents d ON d.id = v.doc_id"):
            found.append(f"vectors in {table} without a document")
    if cur.execute(_WRONG_DF).fetchall()[0][0]:
        found.append("term document counts out of step with postings")
    return found


def repair_problems(tx: duckdb.DuckDBPyConnection) -> int:
    """Mend what consistency_problems finds, in the writer's transaction: documents of removed
    folders and extra copies of a path go with everything they own; a document without its
    postings goes too (its file is read again by the next run); stray rows go; term counts are
    counted again. Returns the documents removed."""

    ids = [r[0] for select in (_SOURCELESS, _DUPLICATES, _WITHOUT_POSTINGS) for r in tx.execute(select).fetchall()]
    ids = list(dict.fromkeys(ids))
    delete_documents(tx, ids)
    for table, column in _DOCUMENT_ROWS:
        tx.execute(f"DELETE FROM {table} WHERE {column} NOT IN (SELECT id FROM documents)")
    for table in _vector_tables(tx):
        tx.execute(f"DELETE FROM {table} WHERE doc_id NOT IN (SELECT id FROM documents)")
    tx.execute(
        """UPDATE terms SET df = coalesce(p.n, 0)
           FROM terms t LEFT JOIN (SELECT term_id, count(*) AS n FROM postings GROUP BY term_id) p
                ON p.term_id = t.id
           WHERE terms.id = t.id AND terms.df <> coalesce(p.n, 0)"""
    )
    return len(ids)


def document_count(cur: duckdb.DuckDBPyConnection) -> int:
    return int(cur.execute("SELECT count(*) FROM documents").fetchall()[0][0])
