"""One table of filters that the query parser, every lane's SQL and why-not read: a new filter is
one row (and its field in records.Filters). `lang:` was added so."""

from __future__ import annotations

from findling.records import Filters, SearchMode, SearchRequest
from findling.search.filter_table import FILTERS, every_field_has_a_row, filter_names
from findling.search.query_parser import parse_query
from tests.helpers import index_files


def test_every_filter_field_has_one_row_and_every_key_parses():
    assert every_field_has_a_row()
    for row in FILTERS:
        for key in row.keys:
            value = "2024-01-01" if row.field in ("after", "before") else "abc"
            parsed = parse_query(f"words {key}:{value}")
            assert getattr(parsed.filters, row.field), (key, parsed.filters)
            assert parsed.groups == (("words",),)  # the filter is no word to search for


def test_why_not_names_each_filter_as_the_query_writes_it():
    filters = parse_query("x lang:de,fr ext:md after:2024-03-01 sym:Parser").filters
    assert [name for name, _ in filter_names(filters)] == [
        "ext:md",
        "sym:Parser",
        "lang:de",
        "lang:fr",
        "after:2024-03-01",
    ]


def test_merging_keeps_every_value_and_the_narrower_dates():
    a = Filters(extensions=("md",), after=10.0, before=100.0, languages=("de",))
    b = Filters(extensions=("pdf",), after=20.0, before=90.0)
    assert a.merged(b) == Filters(extensions=("md", "pdf"), after=20.0, before=90.0, languages=("de",))


def test_a_language_filter_keeps_documents_in_that_language(engine, tmp_path):
    index_files(
        engine,
        tmp_path / "docs",
        {
            "de.txt": "Die Kindergartengebühren steigen im September, und die Kinder gehen gern in den Garten.",
            "en.txt": "The kindergarten fees rise in September, and the children like going to the garden.",
        },
    )
    for query, expected in (
        ("september lang:de", ["de.txt"]),
        ("september lang:en", ["en.txt"]),
        ("lang:de", ["de.txt"]),
    ):
        for mode in (SearchMode.KEYWORD, SearchMode.HYBRID):  # no embedder here: semantic finds none
            hits = engine.find(SearchRequest(query, mode)).hits
            assert [h.path.rsplit("/", 1)[-1] for h in hits] == expected, (query, mode)
    answer = engine.why_not(SearchRequest("september lang:de", SearchMode.KEYWORD), tmp_path / "docs" / "en.txt")
    assert answer.reason == "filtered" and "lang:de" in answer.summary


def test_a_faces_options_are_read_by_the_rows_as_the_query_reads_them():
    from findling.search.filter_table import filters_from_options

    options = filters_from_options(ext=[".MD", "pdf"], folder="~/notes", after="2024-03-01", path="Drafts", lang="de")
    written = parse_query("x ext:md,pdf folder:~/notes after:2024-03-01 path:Drafts lang:de").filters
    assert options == written
    assert filters_from_options(ext="md") == Filters(extensions=("md",))  # one string is one value
