"""The formulas written twice, in Python for the pipeline and in SQL for the keyword lane, agree
on random inputs: the coverage of the query's idf mass, and the priors against pages of links
and giant documents (relevance.hub_prior, giant_prior and bm25._prior_sql)."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from findling.search.keyword.sql import _coverage, _coverage_sql, _prior_sql
from findling.search.relevance import giant_prior, hub_prior
from findling.tuning import NAMED

_con = duckdb.connect()


@settings(max_examples=200, deadline=None)
@given(
    idf=st.lists(st.floats(min_value=0.0, max_value=5.0, allow_nan=False), min_size=1, max_size=16).filter(
        lambda v: sum(v) > 0
    ),
    mask=st.integers(min_value=0, max_value=(1 << 16) - 1),
)
def test_coverage_in_sql_is_coverage_in_python(idf, mask):
    in_sql = _con.execute(f"SELECT {_coverage_sql(tuple(idf), 'm.mask')} FROM (SELECT ?::BIGINT AS mask) m", [mask])
    in_sql = in_sql.fetchone()[0]
    assert in_sql == pytest.approx(_coverage(tuple(idf), mask), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    share=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0, allow_nan=False)),
    ratio=st.one_of(st.none(), st.floats(min_value=1.0, max_value=1000.0, allow_nan=False)),
    named=st.sampled_from([0.0, 0.5, NAMED, 1.0]),
)
def test_the_priors_in_sql_are_the_priors_in_python(share, ratio, named):
    giants = {7: ratio} if ratio is not None else {}
    sql = _prior_sql(repr(named) + "::DOUBLE", giants)
    got = _con.execute(f"SELECT {sql} FROM (SELECT ?::DOUBLE AS share) h, (SELECT 7 AS doc_id) m", [share]).fetchone()[
        0
    ]
    expected = hub_prior(share or 0.0, named) * (
        giant_prior(ratio, named) if ratio is not None and named < NAMED else 1.0
    )
    assert got == pytest.approx(expected, abs=1e-12)
