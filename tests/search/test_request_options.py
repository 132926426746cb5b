"""One reading of a face's options as a SearchRequest: the CLI, MCP, HTTP and a thin client built
it in four places, and a keyword why-not read `min_score` where the search it explains did not."""

from __future__ import annotations

import pytest

from findling.errors import QuerySyntaxError
from findling.records import SearchMode
from findling.search.request_options import request_from_options


def test_options_become_one_request_whatever_face_gave_them():
    given = {"query": "fees", "limit": 5, "ext": ["md"], "folder": None, "after": "2024-01-01", "min_score": 0.3}
    keyword = request_from_options(SearchMode.KEYWORD, {**given, "match": "all"})
    assert (keyword.text, keyword.limit, keyword.match, keyword.min_score) == ("fees", 5, "all", 0.0)
    assert keyword.filters.extensions == ("md",) and keyword.filters.after is not None
    hybrid = request_from_options(SearchMode.HYBRID, {**given, "rerank": "off", "expand": False})
    assert (hybrid.min_score, hybrid.rerank, hybrid.expand, hybrid.match) == (0.3, "off", False, None)
    assert hybrid.filters == keyword.filters
    bare = request_from_options(SearchMode.SEMANTIC, {"query": "fees"})
    assert (bare.limit, bare.min_score, bare.rerank, bare.expand) == (None, 0.0, None, None)


def test_a_bad_filter_value_is_said_as_the_query_syntax_says_it():
    with pytest.raises(QuerySyntaxError):
        request_from_options(SearchMode.HYBRID, {"query": "x", "after": "next tuesday-ish"})
