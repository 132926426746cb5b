"""Counts and problems for `findling status` and the app's folder list."""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from findling.records import FailedFile


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


def consistency_problems(cur: duckdb.DuckDBPyConnection) -> list[str]:
    """What would make the index lie: duplicate or orphaned rows, documents visible without
    their postings, term document counts out of step. Empty when sound."""
    found = []
    total, distinct = cur.execute("SELECT count(*), count(DISTINCT path) FROM documents").fetchall()[0]
    if total != distinct:
        found.append("duplicate documents")
    orphans = cur.execute(
        """SELECT (SELECT count(*) FROM postings p ANTI JOIN documents d ON d.id = p.doc_id)
                + (SELECT count(*) FROM chunks c ANTI JOIN documents d ON d.id = c.doc_id)
                + (SELECT count(*) FROM pages g ANTI JOIN documents d ON d.id = g.doc_id)
                + (SELECT count(*) FROM doc_fields f ANTI JOIN documents d ON d.id = f.doc_id)
                + (SELECT count(*) FROM title_postings t ANTI JOIN documents d ON d.id = t.doc_id)
                + (SELECT count(*) FROM link_shares s ANTI JOIN documents d ON d.id = s.doc_id)
                + (SELECT count(*) FROM ocr_pages s ANTI JOIN documents d ON d.id = s.doc_id)
                + (SELECT count(*) FROM members m ANTI JOIN documents d ON d.id = m.doc_id)
                + (SELECT count(*) FROM members m ANTI JOIN documents d ON d.id = m.container_id)
                + (SELECT count(*) FROM symbols y ANTI JOIN documents d ON d.id = y.doc_id)
                + (SELECT count(*) FROM near_signatures n ANTI JOIN documents d ON d.id = n.doc_id)"""
    ).fetchall()[0][0]
    if orphans:
        found.append("postings, chunks or pages without a document")
    half = cur.execute(
        """SELECT count(*) FROM documents d WHERE status = 'ok' AND length > 0
           AND NOT EXISTS (SELECT 1 FROM postings p WHERE p.doc_id = d.id)"""
    ).fetchall()[0][0]
    if half:
        found.append("a document visible without its postings")
    for (table,) in cur.execute("SELECT table_name FROM vector_models").fetchall():
        # table names come from our own vector_models rows, never from user text
        stray = cur.execute(f"SELECT count(*) FROM {table} v ANTI JOIN documents d ON d.id = v.doc_id").fetchall()
        if stray[0][0]:
            found.append(f"vectors in {table} without a document")
    wrong_df = cur.execute(
        """SELECT count(*) FROM terms t
           LEFT JOIN (SELECT term_id, count(*) AS n FROM postings GROUP BY term_id) p ON p.term_id = t.id
           WHERE t.df <> coalesce(p.n, 0)"""
    ).fetchall()[0][0]
    if wrong_df:
        found.append("term document counts out of step with postings")
    return found


def document_count(cur: duckdb.DuckDBPyConnection) -> int:
    return int(cur.execute("SELECT count(*) FROM documents").fetchall()[0][0])
