"""Source files' definitions: written with their document, read for `sym:`, outlines and for
naming the function a result falls in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb

from findling.records import CodeSymbol, DocumentRow
from findling.store.batches import registered
from findling.store.sql import id_list

_COLUMNS = "name, qualname, kind, start_char, end_char, line, end_line, signature, doc"


def write_symbols(cur: duckdb.DuckDBPyConnection, rows: Sequence[DocumentRow]) -> None:
    import numpy as np

    coded = [(r.doc_id, s) for r in rows for s in r.symbols]
    if not coded:
        return
    symbols = {
        "doc_id": np.array([d for d, _ in coded], dtype=np.int32),
        # short strings as fixed-width numpy text: DuckDB reads those faster than object columns
        "name": np.array([s.name for _, s in coded], dtype=str),
        "qualname": np.array([s.qualname for _, s in coded], dtype=str),
        "kind": np.array([s.kind for _, s in coded], dtype=str),
        "start_char": np.array([s.start for _, s in coded], dtype=np.int32),
        "end_char": np.array([s.end for _, s in coded], dtype=np.int32),
        "line": np.array([s.line for _, s in coded], dtype=np.int32),
        "end_line": np.array([s.end_line for _, s in coded], dtype=np.int32),
        "signature": np.array([s.signature for _, s in coded], dtype=str),
        "doc": np.array([s.doc for _, s in coded], dtype=object),
    }
    with registered(cur, "batch_symbols", symbols):
        cur.execute(f"INSERT INTO symbols SELECT doc_id, {_COLUMNS} FROM batch_symbols")


def _symbol(row: Sequence[Any]) -> CodeSymbol:
    return CodeSymbol(*row)  # _COLUMNS are CodeSymbol's fields, in order


def symbols_of(cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> dict[int, list[CodeSymbol]]:
    """Each document's definitions, in the order of the text."""
    if not ids:
        return {}
    rows = cur.execute(
        f"""SELECT doc_id, {_COLUMNS} FROM symbols WHERE doc_id IN {id_list(ids)}
            ORDER BY doc_id, start_char, end_char DESC"""
    ).fetchall()
    out: dict[int, list[CodeSymbol]] = {}
    for row in rows:
        out.setdefault(int(row[0]), []).append(_symbol(row[1:]))
    return out


def needle_path(needle: str) -> str:
    """A `sym:` needle as a dotted qualified name: `std::io::Read*` -> `std.io.Read` (case kept)."""
    return needle.replace("::", ".").rstrip("*")


def needle_name(needle: str) -> str:
    """The definition's own name a `sym:` needle asks for: its last part, lower case."""
    return needle_path(needle).split(".")[-1].lower()


def symbol_match_sql(needle: str) -> tuple[str, list[object]]:
    """How `sym:needle` matches a definition: its name begins with the needle, or, for a qualified
    needle (`Parser.parse_known_args`, `std::io::Read`), its qualified name ends with it or
    begins with it. Case-insensitive; `*` at the end is allowed and changes nothing."""
    wanted = needle_path(needle).lower()
    if "." in wanted:
        return (
            "(starts_with(lower(qualname), ?) OR ends_with(lower(qualname), ?) OR contains(lower(qualname), ?))",
            [wanted, "." + wanted, "." + wanted + "."],
        )
    return "starts_with(lower(name), ?)", [wanted]


def matching_symbols(
    cur: duckdb.DuckDBPyConnection, needles: Sequence[str], ids: Sequence[int] | None = None, limit: int = 200
) -> list[tuple[int, CodeSymbol]]:
    """(doc_id, definition) of those every needle matches, best first: an exact name before a
    longer one, a type before its members, then the order of the files' text."""
    clauses, params = [], []
    for needle in needles:
        clause, values = symbol_match_sql(needle)
        clauses.append(clause)
        params += values
    exact = needle_name(needles[-1]) if needles else ""
    where = " AND ".join(clauses) or "TRUE"
    if ids is not None:
        if not ids:
            return []
        where += f" AND doc_id IN {id_list(ids)}"
    rows = cur.execute(
        f"""SELECT doc_id, {_COLUMNS} FROM symbols WHERE {where}
            ORDER BY lower(name) <> ?, length(name), length(qualname), doc_id, start_char LIMIT ?""",
        [*params, exact, limit],
    ).fetchall()
    return [(int(r[0]), _symbol(r[1:])) for r in rows]
