"""The one reading of a face's options as a SearchRequest: the command line's flags, MCP's and
HTTP's fields and a thin client's options are the same names (filter_options.OPTIONS and the
request's own), so `why-not` explains the list the command showed and no face drifts."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from findling.filter_options import OPTIONS
from findling.records import SearchMode, SearchRequest
from findling.search.filter_table import filters_from_options


def request_from_options(mode: SearchMode, options: Mapping[str, Any]) -> SearchRequest:
    """The request for `options`: `query` and `limit`; the filters by their option names; keyword
    mode's `match`; the other modes' `min_score`, `expand` and `rerank`. A missing or None option
    is the settings' choice. Filter values are checked as the query syntax checks them (a
    QuerySyntaxError names a bad one)."""
    filters = filters_from_options(**{option.name: options.get(option.name) for option in OPTIONS})
    text, limit = options["query"], options.get("limit")
    if mode is SearchMode.KEYWORD:
        return SearchRequest(text, mode, limit, filters, match=options.get("match"))
    return SearchRequest(
        text, mode, limit, filters, options.get("min_score") or 0.0, options.get("expand"), options.get("rerank")
    )
