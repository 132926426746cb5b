"""Columns handed to DuckDB for one statement: text columns are never sampled, so a column of
only None is NULL text (DuckDB's sampling failed the whole statement on it), and the cursor's
own sampling is as it was once the block ends."""

from __future__ import annotations

import duckdb
import numpy as np

import findling.store.db  # noqa: F401  (keeps pandas out of DuckDB's reach, as the app does)
from findling.store.batches import registered


def _text(values: list[str | None]) -> np.ndarray:
    column = np.empty(len(values), dtype=object)
    column[:] = values
    return column


def test_a_text_column_of_only_none_is_null_text():
    cur = duckdb.connect().cursor()
    columns = {"id": np.arange(3000, dtype=np.int32), "error": _text([None] * 3000)}
    with registered(cur, "batch", columns) as name:
        assert cur.execute(f"SELECT typeof(error), count(*), count(error) FROM {name} GROUP BY ALL").fetchall() == [
            ("VARCHAR", 3000, 0)
        ]


def test_text_keeps_its_characters_and_its_nulls():
    cur = duckdb.connect().cursor()
    values = ["plain", None, "é\u2028z", "", "a'b"]
    with registered(cur, "batch", {"v": _text(values)}) as name:
        assert [r[0] for r in cur.execute(f"SELECT v FROM {name}").fetchall()] == values


def test_the_cursor_samples_other_columns_again_afterwards():
    cur = duckdb.connect().cursor()
    with registered(cur, "batch", {"v": _text(["x"])}):
        pass
    lists = np.empty(2, dtype=object)
    lists[:] = [[1, 2], [3]]
    cur.register("lists", {"v": lists})
    assert cur.execute("SELECT typeof(v) FROM lists LIMIT 1").fetchall() == [("INTEGER[]",)]
    assert cur.execute("SELECT count(*) FROM duckdb_views() WHERE view_name = 'batch'").fetchall() == [(0,)]
