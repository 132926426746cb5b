"""SQL helpers every part of the store uses, with no other part of the store below them: the leaf
that keeps store/ free of import circles (db opens the file and migrates it; the tables' modules
read and write through these)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb


def sql_literal(text: Path | str) -> str:
    """Text (a path, a term) as the inside of a single-quoted SQL string: its quotes doubled."""
    return str(text).replace("'", "''")


def text_list(values: Iterable[str]) -> str:
    """Strings as an SQL list literal, `('a', 'b')` (`(NULL)` for none). Literals, not
    parameters: DuckDB's Python binding converts each parameter with lookups that cost more
    than the query for a pasted paragraph's terms (and Lance's filters take no parameters)."""
    quoted = ", ".join(f"'{sql_literal(v)}'" for v in values)
    return f"({quoted})" if quoted else "(NULL)"


def id_list(ids: Sequence[int]) -> str:
    """Ids as an SQL list literal. A literal `IN (1, 2, 3)` lets DuckDB skip row groups by
    their min/max; a bound list (`IN (SELECT unnest(?))`) makes it scan the whole table.
    The values are ints from our own tables, never user text."""
    return "(" + ", ".join(str(int(i)) for i in ids) + ")" if ids else "(NULL)"


# DuckDB reads a literal IN list only to skip row groups by their min/max: every row of a
# row group it keeps is read in full, its text too, before a join drops the others. For
# the chunks of a search's ten results that was 30,000 chunks' text, 60 ms on a fresh
# connection (Linux kernel docs, 36,000 chunks); an equality is applied in the scan itself,
# which then reads the text of the matching rows alone: 9 ms. Past a few dozen ids the
# union of equalities costs more than the one scan (warm, 40 ids: 6.7 ms against 4.4).
FEW_IDS = 32


def rows_for_ids(select: str, column: str, ids: Sequence[int]) -> str:
    """`select` (a SELECT ... FROM ... without WHERE) kept to the rows whose `column` is one
    of `ids`: a UNION ALL of equalities for a few ids, a literal IN list for more."""
    unique = list(dict.fromkeys(int(i) for i in ids))
    if 0 < len(unique) <= FEW_IDS:
        return " UNION ALL ".join(f"{select} WHERE {column} = {i}" for i in unique)
    return f"{select} WHERE {column} IN {id_list(unique)}"


def by_row_id(table: str, where: str) -> str:
    """A condition on `table`'s rows that `where` selects, reached through their row ids. A
    filter on a narrow column made DuckDB decompress every block of the wide columns read
    beside it (a vector table's FLOAT[384]): 100 of 104,000 vectors by seq took 128 ms, the row
    ids found from the narrow column first and the rows then fetched by id 13 ms; 64 text
    hashes 224 -> 13 ms. A literal list in `where` keeps it fast (a join there does not)."""
    return f"rowid IN (SELECT rowid FROM {table} WHERE {where})"


def scalar(cur: duckdb.DuckDBPyConnection, sql: str, params: list[object] | None = None) -> Any:
    """The one value a query returns (None for no row). Read with fetchall: a result left
    open by fetchone keeps its transaction open, which makes DuckDB refuse CHECKPOINT."""
    rows = cur.execute(sql, params or []).fetchall()
    return rows[0][0] if rows else None


def first_row(cur: duckdb.DuckDBPyConnection, sql: str, params: list[object] | None = None) -> tuple[Any, ...] | None:
    rows = cur.execute(sql, params or []).fetchall()
    return tuple(rows[0]) if rows else None
