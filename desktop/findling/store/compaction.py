"""Giving back the space of what was removed. DuckDB reuses a file's free blocks but never returns
them: after 19,825 of the kernel's documents were removed, the index stayed 1.57 GB, where a copy
of what it held is 535 MB. Compaction copies the database into a new file beside it (COPY FROM
DATABASE: tables, sequences at their values, constraints), checks every table's rows, and puts the
copy in place with one rename: a stop at any step leaves the index as it was."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import duckdb

from findling.errors import StoreLockedError, StoreWriteError
from findling.settings import MEMORY_LIMIT_MB
from findling.store.db import ROW_GROUP_ROWS, connect_index, open_here
from findling.store.sql import sql_literal

# Worth offering when this share of the file is free and it frees at least WORTH_MB
WORTH_SHARE = 0.3
WORTH_MB = 32.0


@dataclass(frozen=True)
class Space:
    """What the index file holds: its size and what of it is free blocks."""

    file_bytes: int
    free_bytes: int

    @property
    def worth_compacting(self) -> bool:
        return self.file_bytes > 0 and (
            self.free_bytes / self.file_bytes >= WORTH_SHARE and self.free_bytes >= WORTH_MB * 1e6
        )


def space(cur: duckdb.DuckDBPyConnection, path: Path) -> Space:
    """The file's size and its free blocks' bytes (PRAGMA database_size)."""
    try:
        file_bytes = path.stat().st_size
    except OSError:
        file_bytes = 0
    try:
        row = cur.execute(
            "SELECT block_size, free_blocks FROM pragma_database_size() WHERE database_name = current_database()"
        ).fetchall()[0]
    except (duckdb.Error, IndexError):
        return Space(file_bytes, 0)
    return Space(file_bytes, int(row[0]) * int(row[1]))


def compact(path: Path, memory_limit_mb: int = MEMORY_LIMIT_MB) -> tuple[int, int]:
    """The index at `path` copied into a compact file and put in its place; (bytes before, after).
    The caller holds no connection to it; another process holding it raises StoreLockedError."""
    if open_here(path):
        raise StoreLockedError(f"the index at {path} is in use by another part of this Findling: it is unchanged")
    fresh = path.with_name(path.name + ".compact")
    fresh.unlink(missing_ok=True)  # what a stopped compaction left
    Path(str(fresh) + ".wal").unlink(missing_ok=True)
    before = path.stat().st_size
    con = connect_index(path, False, max(1, os.cpu_count() or 1), memory_limit_mb)
    try:
        # the words only removed documents held: an emptied index of the kernel's AMD headers kept
        # 1.3 million of them, 118 MB of its compacted 118 MB
        con.execute(
            """DELETE FROM terms WHERE df = 0
               AND id NOT IN (SELECT term_id FROM postings)
               AND id NOT IN (SELECT term_id FROM title_postings)
               AND id NOT IN (SELECT term_id FROM positions)"""
        )
        con.execute("CHECKPOINT")
        name = con.execute("SELECT current_database()").fetchall()[0][0]
        con.execute(f"ATTACH '{sql_literal(fresh)}' AS compacted (ROW_GROUP_SIZE {ROW_GROUP_ROWS})")
        try:
            con.execute(f'COPY FROM DATABASE "{name}" TO compacted')
            _same_rows(con, name)
        finally:
            con.execute("DETACH compacted")
    except duckdb.Error as exc:
        fresh.unlink(missing_ok=True)
        reason = str(exc).splitlines()[0]
        raise StoreWriteError(f"cannot compact the index at {path} ({reason}); it is unchanged") from exc
    finally:
        con.close()
    if Path(str(path) + ".wal").exists():  # not all written into the file: the copy may lack it
        fresh.unlink(missing_ok=True)
        raise StoreWriteError(f"cannot compact the index at {path}: its log was not written out; it is unchanged")
    with open(fresh, "rb+") as handle:
        os.fsync(handle.fileno())
    if os.name == "posix":
        os.chmod(fresh, 0o600)  # the index is its user's alone
    os.replace(fresh, path)
    return before, path.stat().st_size


def _same_rows(con: duckdb.DuckDBPyConnection, name: str) -> None:
    """Every table of the copy holds as many rows as the original's (a copy cut short is not used)."""
    tables = [
        r[0]
        for r in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND schema_name = 'main'", [name]
        ).fetchall()
    ]
    for table in tables:
        there = con.execute(f'SELECT count(*) FROM "{name}".main."{table}"').fetchall()[0][0]
        here = con.execute(f'SELECT count(*) FROM compacted.main."{table}"').fetchall()[0][0]
        if there != here:
            raise duckdb.Error(f"the copy of {table} holds {here} rows of {there}")
