from __future__ import annotations

import time
from datetime import date

import pytest

from findling.dates import parse_date
from findling.errors import MAX_QUERY_CHARS, QuerySyntaxError
from findling.search.query_parser import parse_query


def test_words_phrases_exclusions_or():
    q = parse_query('alpha OR beta gamma -delta "exact words" -"not this"')
    assert q.groups == (("alpha", "beta"), ("gamma",))
    assert q.phrases == (("exact", "words"),)
    assert q.excluded_words == ("delta",)
    assert q.excluded_phrases == (("not", "this"),)
    assert q.text == "alpha beta gamma exact words"


def test_filters():
    q = parse_query("report ext:md,.TXT path:Notes/ folder:/home/me after:2024-01-01 before:2024-02")
    assert q.filters.extensions == ("md", "txt")
    assert q.filters.path_contains == ("notes/",)
    assert q.filters.folders == ("/home/me",)
    assert q.filters.after == time.mktime(date(2024, 1, 1).timetuple())
    assert q.filters.before == time.mktime(date(2024, 2, 1).timetuple())
    assert q.groups == (("report",),)


def test_relative_dates():
    today = date(2024, 3, 10)
    assert parse_date("7d", today) == time.mktime(date(2024, 3, 3).timetuple())
    assert parse_date("yesterday", today) == time.mktime(date(2024, 3, 9).timetuple())


def test_bad_date_is_a_clear_error():
    with pytest.raises(QuerySyntaxError, match="cannot read the date"):
        parse_query("x after:soon")


@pytest.mark.parametrize(
    "query, words",
    [
        ("", ""),
        ("   ", ""),
        ("(((", ""),
        ('"', ""),
        ('"unclosed phrase', "unclosed phrase"),
        ("-", ""),
        ("--", ""),
        ("a OR", "a"),
        ("' OR 1=1; DROP TABLE documents; --", "OR 1=1; DROP TABLE documents;"),
        ("*?[]{}^~:\\", ""),
        ("x" * 10000, "x" * MAX_QUERY_CHARS),  # the cap every face has
        ("ext:", "ext:"),
        ("path:", "path:"),
    ],
)
def test_odd_input_parses_to_what_it_says(query, words):
    parsed = parse_query(query)
    assert parsed.text == words
    assert parsed.has_terms == bool(words)
    assert parsed.filters.empty


def test_unknown_prefix_is_plain_text():
    q = parse_query("http://example.org note:todo")
    assert q.groups == (("http://example.org",), ("note:todo",))


def test_leading_space_and_punctuation_ignored():
    assert parse_query("  , . cats !").groups == (("cats",),)
