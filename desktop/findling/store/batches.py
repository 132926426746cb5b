"""Python columns handed to DuckDB as a table for one statement.

DuckDB 1.5.5 types a numpy object column by sampling up to 1,000 of its values
(`pandas_analyze_sample`) each time a statement reads it: ~24 ms a statement whatever the
batch's size (a rescan of 150 pages spent a tenth of its time there), and a sample that holds
only None fails the statement ("'numpy.ndarray' object has no attribute 'first_valid_index'"):
an archive of 2,000 members with no error text, a file of 2,000 definitions without
docstrings. Every object column registered here holds text (str or None), so nothing is
sampled: the column is VARCHAR, None is NULL."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

import duckdb

if TYPE_CHECKING:
    import numpy as np


@contextmanager
def registered(cur: duckdb.DuckDBPyConnection, name: str, columns: Mapping[str, np.ndarray]) -> Iterator[str]:
    """`name` readable in SQL as a table of `columns` (equal lengths; an object column holds
    str or None) while the block runs."""
    row = cur.execute("SELECT current_setting('pandas_analyze_sample')").fetchone()
    before = int(row[0]) if row else 1000
    cur.execute("SET pandas_analyze_sample = 0")  # the cursor's own setting: read at each statement
    cur.register(name, dict(columns))
    try:
        yield name
    finally:
        cur.unregister(name)
        cur.execute(f"SET pandas_analyze_sample = {before}")
