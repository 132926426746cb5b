"""Python columns handed to DuckDB as a table for one statement.

DuckDB 1.5.5 reads a numpy object column by sampling it, and a column whose sample holds only
None fails the whole registration ("'numpy.ndarray' object has no attribute
'first_valid_index'") from about 2,000 rows on: an archive of 2,000 members with no error
text, a file of 2,000 definitions without docstrings. So None never reaches DuckDB in an
object column: it travels as a mask beside the column and becomes NULL in SQL."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:
    import numpy as np

_NULLS = "__null"


@contextmanager
def registered(cur: duckdb.DuckDBPyConnection, name: str, columns: Mapping[str, np.ndarray]) -> Iterator[str]:
    """`name` readable in SQL as a table of `columns` (equal lengths) while the block runs."""
    import numpy as np

    raw: dict[str, np.ndarray] = {}
    selected: list[str] = []
    for column, values in columns.items():
        if values.dtype == object:
            missing = np.fromiter((v is None for v in values), dtype=bool, count=len(values))
            if missing.any():
                values = values.copy()
                values[missing] = ""
                raw[column + _NULLS] = missing
                selected.append(f"CASE WHEN {column}{_NULLS} THEN NULL ELSE {column} END AS {column}")
                raw[column] = values
                continue
        raw[column] = values
        selected.append(column)
    source = name + "_columns"
    cur.register(source, raw)
    try:
        cur.execute(f"CREATE OR REPLACE TEMP VIEW {name} AS SELECT {', '.join(selected)} FROM {source}")
        try:
            yield name
        finally:
            cur.execute(f"DROP VIEW IF EXISTS {name}")
    finally:
        cur.unregister(source)
