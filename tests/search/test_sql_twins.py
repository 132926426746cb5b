"""The formulas written twice, in Python for the pipeline and in SQL for the keyword lane, agree
on random inputs, one test per pair: the coverage of the query's idf mass (keyword/evidence.py,
keyword/sql.py), the priors against pages of links and giant documents (relevance.hub_prior,
giant_prior and sql.prior_sql), a document's long-page weight, and the extension a document's
type goes by (search/facets.py). "Under a folder" has its own: test_folder_filter_siblings.py."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from findling.search.facets import COMPRESSED, type_extension, type_extension_sql
from findling.search.keyword.evidence import coverage_of, long_page_weight
from findling.search.keyword.sql import coverage_sql, long_page_sql, prior_sql
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
    in_sql = _con.execute(f"SELECT {coverage_sql(tuple(idf), 'm.mask')} FROM (SELECT ?::BIGINT AS mask) m", [mask])
    in_sql = in_sql.fetchone()[0]
    assert in_sql == pytest.approx(coverage_of(tuple(idf), mask), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    share=st.one_of(st.none(), st.floats(min_value=0.0, max_value=1.0, allow_nan=False)),
    ratio=st.one_of(st.none(), st.floats(min_value=1.0, max_value=1000.0, allow_nan=False)),
    named=st.sampled_from([0.0, 0.5, NAMED, 1.0]),
)
def test_the_priors_in_sql_are_the_priors_in_python(share, ratio, named):
    giants = {7: ratio} if ratio is not None else {}
    sql = prior_sql(repr(named) + "::DOUBLE", giants)
    got = _con.execute(f"SELECT {sql} FROM (SELECT ?::DOUBLE AS share) h, (SELECT 7 AS doc_id) m", [share]).fetchone()[
        0
    ]
    expected = hub_prior(share or 0.0, named) * (
        giant_prior(ratio, named) if ratio is not None and named < NAMED else 1.0
    )
    assert got == pytest.approx(expected, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(length=st.floats(min_value=0.0, max_value=1e7, allow_nan=False))
def test_the_long_page_weight_in_sql_is_the_one_in_python(length):
    got = _con.execute(f"SELECT {long_page_sql('t.n')} FROM (SELECT ?::DOUBLE AS n) t", [length]).fetchone()[0]
    assert got == pytest.approx(long_page_weight(length), abs=1e-12)


@settings(max_examples=300, deadline=None)
@given(
    stem=st.text(alphabet="abAB1.-_ ", min_size=1, max_size=12),
    inner=st.sampled_from(["", ".rst", ".tar", ".2", ".TXT", ".md", ".x9"]),
    ext=st.sampled_from([*COMPRESSED, "md", "GZ", "zip", "txt", ""]),
)
def test_the_type_extension_in_sql_is_the_one_in_python(stem, inner, ext):
    path = f"/docs/{stem}{inner}.{ext}" if ext else f"/docs/{stem}{inner}"
    sql = type_extension_sql("d")
    got = _con.execute(f"SELECT {sql} FROM (SELECT ?::VARCHAR AS path, ?::VARCHAR AS ext) d", [path, ext]).fetchone()[0]
    assert got == type_extension(path, ext)
