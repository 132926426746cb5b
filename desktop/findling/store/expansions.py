"""Query expansions, cached by (query, model): generation is the slowest stage."""

from __future__ import annotations

import duckdb


def cached_expansion(cur: duckdb.DuckDBPyConnection, query: str, model: str) -> str | None:
    rows = cur.execute(
        "SELECT raw FROM expansions WHERE query = ? AND model = ? ORDER BY created_at DESC LIMIT 1", [query, model]
    ).fetchall()
    return rows[0][0] if rows else None


def save_expansion(tx: duckdb.DuckDBPyConnection, query: str, model: str, raw: str) -> None:
    tx.execute("INSERT INTO expansions (query, model, raw) VALUES (?, ?, ?)", [query, model, raw])
