"""The folders (or single files) the user added, and which of them holds a path."""

from __future__ import annotations

from collections.abc import Sequence

import duckdb

from findling.pathnames import display_path, path_bytes, stored_path, under
from findling.records import Source
from findling.store.sql import scalar


def inside(path: str, root: str) -> bool:
    """Is `path` the folder `root` or somewhere below it? (Both absolute and normalised.)"""
    return under(path, root)


def owner_of(sources: Sequence[Source], path: str) -> Source | None:
    return next((source for source in sources if inside(path, source.path)), None)


def list_sources(cur: duckdb.DuckDBPyConnection) -> list[Source]:
    rows = cur.execute(
        "SELECT s.id, s.path, r.raw, s.include, s.exclude, coalesce(o.gitignore, true), coalesce(a.uri, '') "
        "FROM sources s LEFT JOIN source_raw_paths r ON r.source_id = s.id "
        "LEFT JOIN source_options o ON o.source_id = s.id "
        "LEFT JOIN attached a ON a.source_id = s.id ORDER BY s.path"
    ).fetchall()
    return [Source(r[0], stored_path(r[1], r[2]), tuple(r[3] or ()), tuple(r[4] or ()), bool(r[5]), r[6]) for r in rows]


def set_gitignore(tx: duckdb.DuckDBPyConnection, source_id: int, follow: bool) -> None:
    """Whether the folder's .gitignore files leave files out (a row only where they do not)."""
    tx.execute("DELETE FROM source_options WHERE source_id = ?", [source_id])
    tx.execute("DELETE FROM lane_weights WHERE source_id = ?", [source_id])
    if not follow:
        tx.execute("INSERT INTO source_options VALUES (?, false)", [source_id])


def set_rules(tx: duckdb.DuckDBPyConnection, source_id: int, include: Sequence[str], exclude: Sequence[str]) -> None:
    tx.execute("UPDATE sources SET include = ?, exclude = ? WHERE id = ?", [list(include), list(exclude), source_id])


def insert_source(
    tx: duckdb.DuckDBPyConnection,
    path: str,
    include: Sequence[str],
    exclude: Sequence[str],
    absorb: Sequence[Source] = (),
    gitignore: bool = True,
) -> Source:
    """A new source; the documents of the sources in `absorb` (folders inside it) move to it."""
    source_id = int(scalar(tx, "SELECT nextval('source_ids')"))
    tx.execute(
        "INSERT INTO sources (id, path, include, exclude) VALUES (?, ?, ?, ?)",
        [source_id, display_path(path), list(include), list(exclude)],
    )
    raw = path_bytes(path)
    if raw is not None:
        tx.execute("INSERT INTO source_raw_paths VALUES (?, ?)", [source_id, raw])
    for old in absorb:
        tx.execute("UPDATE documents SET source_id = ? WHERE source_id = ?", [source_id, old.id])
        delete_source(tx, old.id)
    set_gitignore(tx, source_id, gitignore)
    return Source(source_id, path, tuple(include), tuple(exclude), gitignore)


def source_document_ids(cur: duckdb.DuckDBPyConnection, source_id: int) -> list[int]:
    return [r[0] for r in cur.execute("SELECT id FROM documents WHERE source_id = ?", [source_id]).fetchall()]


def delete_source(tx: duckdb.DuckDBPyConnection, source_id: int) -> None:
    tx.execute("DELETE FROM sources WHERE id = ?", [source_id])
    tx.execute("DELETE FROM source_raw_paths WHERE source_id = ?", [source_id])
    tx.execute("DELETE FROM meta WHERE key IN (?, ?)", [_WAITING + str(source_id), _LEFT_OUT + str(source_id)])
    tx.execute("DELETE FROM source_options WHERE source_id = ?", [source_id])
    tx.execute("DELETE FROM lane_weights WHERE source_id = ?", [source_id])
    tx.execute("DELETE FROM attached WHERE source_id = ?", [source_id])


# Files of a folder found new or changed and not yet read, kept with each batch the run commits:
# a run stopped (Ctrl-C, a closed window, kill -9) leaves the count of what it did not reach, for
# status to say, until a run reads them.
_WAITING = "waiting:"


def set_waiting(tx: duckdb.DuckDBPyConnection, source_id: int, files: int) -> None:
    """How many of the folder's files wait to be read (0: none, the key goes)."""
    _set_count(tx, _WAITING, source_id, files)


def waiting_by_source(cur: duckdb.DuckDBPyConnection) -> dict[int, int]:
    """Source id -> files found by a run that stopped before reading them."""
    return _counts(cur, _WAITING)


# What the folder's .gitignore files left out at the last scan (files and folders, each folder
# once): status says it beside the folder.
_LEFT_OUT = "left_out:"


def set_left_out(tx: duckdb.DuckDBPyConnection, source_id: int, entries: int) -> None:
    _set_count(tx, _LEFT_OUT, source_id, entries)


def left_out_by_source(cur: duckdb.DuckDBPyConnection) -> dict[int, int]:
    """Source id -> files and folders its .gitignore files left out at the last scan."""
    return _counts(cur, _LEFT_OUT)


def _set_count(tx: duckdb.DuckDBPyConnection, prefix: str, source_id: int, count: int) -> None:
    """A folder's count under `prefix` in meta; 0 takes the key away."""
    key = prefix + str(source_id)
    if count > 0:
        tx.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [key, str(int(count))])
    else:
        tx.execute("DELETE FROM meta WHERE key = ?", [key])


def _counts(cur: duckdb.DuckDBPyConnection, prefix: str) -> dict[int, int]:
    rows = cur.execute("SELECT key, value FROM meta WHERE starts_with(key, ?)", [prefix]).fetchall()
    return {int(key[len(prefix) :]): int(value) for key, value in rows}
