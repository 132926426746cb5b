"""The files that cost the most time to read, kept across runs for status: a tree's giant
generated files (the kernel's AMD register headers, 373 files of 373 MB) cost most of a run and
said nothing. Kept as JSON in `meta`, the costliest COSTLIEST of every run merged, a file's own
latest cost replacing its older one; status shows those still indexed."""

from __future__ import annotations

import json
from collections.abc import Iterable

import duckdb

from findling.records import CostlyFile
from findling.store.sql import scalar

COSTLIEST = 10
_KEY = "costliest_files"


def merged(kept: Iterable[CostlyFile], new: Iterable[CostlyFile], limit: int = COSTLIEST) -> list[CostlyFile]:
    """The `limit` costliest of both, a path's new cost replacing its kept one."""
    by_path = {f.path: f for f in kept}
    by_path.update((f.path, f) for f in new)
    return sorted(by_path.values(), key=lambda f: (-f.seconds, f.path))[:limit]


def record_costliest(tx: duckdb.DuckDBPyConnection, new: Iterable[CostlyFile]) -> None:
    files = merged(costliest(tx), new)
    value = json.dumps([[f.path, round(f.seconds, 3), f.size] for f in files])
    tx.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", [_KEY, value])


def costliest(cur: duckdb.DuckDBPyConnection) -> list[CostlyFile]:
    """The costliest files on record (a damaged record reads as none)."""
    raw = scalar(cur, "SELECT value FROM meta WHERE key = ?", [_KEY])
    try:
        return [CostlyFile(str(p), float(s), int(n)) for p, s, n in json.loads(raw or "[]")]
    except (ValueError, TypeError):
        return []


def indexed_costliest(cur: duckdb.DuckDBPyConnection) -> list[CostlyFile]:
    """The costliest files on record that are still in the index."""
    files = costliest(cur)
    if not files:
        return []
    held = {
        str(r[0])
        for r in cur.execute(
            "SELECT path FROM documents WHERE path IN (SELECT unnest(?::VARCHAR[]))", [[f.path for f in files]]
        ).fetchall()
    }
    return [f for f in files if f.path in held]
