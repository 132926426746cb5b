"""The literal lists the store and the keyword lane write into SQL: what DuckDB reads back is
exactly the values given, whatever quotes they hold."""

from __future__ import annotations

import duckdb
from hypothesis import given
from hypothesis import strategies as st

from findling.store.sql import id_list, text_list

_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)


@given(st.lists(_TEXT, max_size=8))
def test_a_text_list_reads_back_as_its_values(values):
    con = duckdb.connect()
    try:
        wanted = sorted(set(values))
        con.execute("CREATE TABLE t (v VARCHAR)")
        con.executemany("INSERT INTO t VALUES (?)", [(v,) for v in wanted + ["o'clock", "x"]])
        found = sorted(r[0] for r in con.execute(f"SELECT v FROM t WHERE v IN {text_list(values)}").fetchall())
        assert found == wanted
    finally:
        con.close()


def test_empty_lists_match_nothing():
    con = duckdb.connect()
    try:
        assert con.execute(f"SELECT count(*) FROM range(3) WHERE range IN {id_list([])}").fetchone() == (0,)
        assert con.execute(f"SELECT count(*) FROM (SELECT 'a' AS v) WHERE v IN {text_list([])}").fetchone() == (0,)
    finally:
        con.close()
