"""One table of filters that the query parser, every lane's SQL and why-not read: a new filter is
one row (and its field in records.Filters). `lang:` was added so."""

from __future__ import annotations

import json

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


def test_every_face_offers_every_filter_option_as_declared():
    """The options (--ext, MCP's and HTTP's fields) were written out by hand in six places; `lang`
    reached none of them. Each face now reads filter_options.OPTIONS, and each option is one row's."""
    import anyio
    from mcp import Client

    from findling.cli import build_parser
    from findling.filter_options import OPTIONS
    from findling.search.filter_table import FILTERS
    from findling.server.handle import IndexHandle
    from findling.server.http_api import QueryBody
    from findling.server.mcp_server import build_server
    from findling.thin import search_options

    names = {o.name for o in OPTIONS}
    assert sorted(row.option.name for row in FILTERS if row.option) == sorted(names)
    parser = build_parser()
    for command in ("search", "query", "vsearch", "why-not"):
        args = parser.parse_args([command, "x", *(["y"] if command == "why-not" else []), "--lang", "de"])
        assert names <= set(vars(args)) and args.lang == ["de"], command
    assert names <= set(QueryBody.model_fields)
    home, options = search_options(["search", "x", "--lang", "de", "--path", "notes"]) or (None, {})
    assert options["lang"] == ["de"] and options["path"] == ["notes"]

    async def schemas() -> dict[str, set[str]]:
        with IndexHandle.open(tmp) as handle:
            async with Client(build_server(handle)) as client:
                return {t.name: set(t.input_schema["properties"]) for t in (await client.list_tools()).tools}

    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        tools = anyio.run(schemas)
    for tool in ("query", "search", "vsearch", "similar"):
        assert names <= tools[tool], tool
    assert names - {"path"} <= tools["why_not"]  # there `path` names the file asked about


def test_the_language_option_keeps_documents_in_that_language_on_the_command_line(tmp_path):
    from tests.test_cli import _run

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "de.txt").write_text("Die Kindergartengebühren steigen im September, und die Kinder gehen gern.\n")
    (docs / "en.txt").write_text("The kindergarten fees rise in September, and the children like it.\n")
    home = tmp_path / "home"
    _run("add", str(docs), home=home)
    out = _run("search", "september", "--lang", "de", "--json", home=home).stdout
    assert [h["path"].rsplit("/", 1)[-1] for h in json.loads(out)["results"]] == ["de.txt"]
