"""A web page's share of text in entries pointing elsewhere (ingest/extractors/html.py,
entry_share): a module index whose rows carry a line of description, an API index, a
glossary, a table of contents count as pages of links even where little of their text lies
inside the links themselves."""

from __future__ import annotations

import os

import duckdb
import pytest

from findling.engine import Engine
from findling.ingest.extractors.html import entry_share, html_to_text, link_share
from findling.records import SearchMode, SearchRequest
from findling.search.keyword import lane as bm25
from findling.search.query_parser import parse_query
from findling.settings import Settings
from tests.helpers import write

MODULES = [
    ("tomllib", "Parse TOML files and read configuration written in that format."),
    ("tempfile", "Generate temporary files and directories that go away when closed."),
    ("zipfile", "Read and write ZIP-format archive files with compression."),
    ("socketserver", "A framework for network servers that listen and accept connections."),
    ("shutil", "High-level file operations, including copying whole directory trees."),
    ("glob", "Unix shell style pathname pattern expansion for finding files by name."),
] * 3


def module_index() -> str:
    rows = "".join(
        f'<tr><td><img src="minus.png"></td><td><a href="library/{name}.html"><code>{name}</code></a></td>'
        f"<td><em>{line}</em></td></tr>"
        for name, line in MODULES
    )
    return (
        f'<html><head><title>Module Index</title></head><body><table class="modindextable">{rows}</table></body></html>'
    )


def glossary(entries: list[tuple[str, str]]) -> str:
    body = "".join(f'<dt id="term-{t}">{t}</dt><dd><p>{d}</p></dd>' for t, d in entries)
    head = "<html><head><title>Glossary</title></head><body><h1>Glossary</h1>"
    return f'{head}<dl class="glossary">{body}</dl></body></html>'


TERMS = [
    (f"term{i}", f"A definition of the {i}th word in a sentence or two, as glossaries hold them.") for i in range(20)
]

CONTENT = (
    "<html><head><title>tempfile</title></head><body>"
    '<ul class="nav"><li><a href="index.html">Index</a></li><li><a href="next.html">Next</a></li></ul>'
    "<h1>tempfile — Generate temporary files</h1>"
    + "<p>This module creates temporary files and directories. See <a href='os.html'>os</a> for more, "
    "and the <a href='glob.html'>glob</a> module to find them again later by their names.</p>"
    * 6
    + "<ul><li>Use <a href='x.html'>mkstemp()</a> when the file must stay.</li>"
    "<li>Files made by TemporaryFile() go away when closed.</li></ul></body></html>"
)


def test_a_module_index_is_entries_though_little_of_it_is_links():
    page = module_index()
    assert link_share(page) < 0.25  # each row's line of description lies outside its link
    assert entry_share(page) > 0.9
    assert html_to_text(page).link_share == entry_share(page)


def test_a_glossary_marked_by_its_generator_is_entries():
    sphinx = glossary(TERMS)
    docbook = sphinx.replace('<dl class="glossary">', '<div class="glossary"><div class="glosslist"><dl>').replace(
        "</dl></body>", "</dl></div></div></body>"
    )
    for page in (sphinx, docbook):
        assert link_share(page) == 0.0
        assert entry_share(page) > 0.9
    # a class that only begins or ends like one of the names is another class
    other = sphinx.replace('class="glossary"', 'class="glossary-like definitions"')
    assert entry_share(other) == 0.0


def test_a_page_of_content_with_a_few_link_led_items_is_not_entries():
    share = entry_share(CONTENT)
    assert 0.0 < share < 0.1  # its navigation's two items and "Use mkstemp()" lead with links
    assert html_to_text(CONTENT).link_share == max(link_share(CONTENT), share) < 0.25


def test_an_entry_leads_with_a_link_only_where_its_first_text_is_inside_one():
    led = "<li><!-- note --><script>var x = 'words';</script><span></span><a href='a.html'>alpha</a> a line</li>"
    not_led = "<li>See <a href='a.html'>alpha</a> a line</li>"
    tail_first = "<li><span><a href='a.html'></a></span>first words <a href='b.html'>beta</a></li>"
    for items, expected in ((led, True), (not_led, False), (tail_first, False)):
        page = f"<html><body><ul>{items * 40}</ul></body></html>"
        assert (entry_share(page) > 0.9) is expected, items


def test_nested_entries_count_once():
    inner = "".join(f"<li><a href='s{i}.html'>Section {i}</a> with a line about it</li>" for i in range(5))
    outer = "".join(f"<li><a href='c{i}.html'>Chapter {i}</a><ul>{inner}</ul></li>" for i in range(6))
    page = f"<html><body><div class='toctree-wrapper'><ul>{outer}</ul></div><p>{'words ' * 20}</p></body></html>"
    listed = 6 * (len("Chapter0") + 5 * len("Section0withalineaboutit"))
    assert entry_share(page) == pytest.approx(listed / (listed + len("words") * 20))


def test_too_little_text_or_no_html_is_no_share():
    assert entry_share("<ul><li><a href='a.html'>a</a></li></ul>") == 0.0
    assert entry_share("") == 0.0
    assert entry_share("   ") == 0.0


@pytest.fixture()
def settings():
    settings = Settings()
    settings.index.workers = 1
    return settings


def _names(engine, query):
    result = engine.find(SearchRequest(query, SearchMode.KEYWORD, limit=10))
    return [os.path.basename(h.path) for h in result.hits]


def _folder(tmp_path):
    docs = tmp_path / "docs"
    lookup = (
        "descriptor",
        "An object whose class defines __get__: attribute lookup on an instance calls it. Descriptors are "
        "how attribute lookup finds properties, methods and class methods; see the descriptor guide.",
    )
    others = [(f"word{i}", f"An attribute lookup of the {i}th kind, in a line or two.") for i in range(12)]
    write(docs / "glossary.html", glossary([*TERMS[:8], lookup, *others]))
    write(
        docs / "descriptor.html",
        "<title>How objects find their values</title><p>"
        + "Descriptors let objects customize attribute lookup, storage and deletion. "
        + "A class whose instances hold values, and the methods that read them. " * 12
        + "</p>",
    )
    for i in range(8):
        write(docs / f"other{i}.html", f"<title>Other {i}</title><p>Unrelated page {i} about files and folders.</p>")
    return docs


def test_a_glossary_ranks_below_the_page_it_defines_a_term_for(tmp_path, settings):
    docs = _folder(tmp_path)
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        assert _names(engine, "descriptors attribute lookup")[:2] == ["descriptor.html", "glossary.html"]
        # measured by its links alone, as before entries counted, the glossary has no share and ranks first
        engine._db.cursor().execute("DELETE FROM link_shares")
        assert _names(engine, "descriptors attribute lookup")[0] == "glossary.html"


def test_an_index_from_before_entries_counted_reads_its_web_pages_again(tmp_path, settings):
    docs = _folder(tmp_path)
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
    con = duckdb.connect(str(home / "findling.duckdb"))
    con.execute("DELETE FROM link_shares")  # as schema 17 left a glossary: no links
    con.execute("UPDATE meta SET value = '17' WHERE key = 'schema_version'")
    con.close()
    with Engine(home, settings=settings) as engine:
        report = engine.index(embed=False)
        assert report.updated == 10 and report.unchanged == 0
        shares = dict(engine._db.cursor().execute("SELECT doc_id, share FROM link_shares").fetchall())
        paths = engine.document_paths()
        by_name = {os.path.basename(paths[d]): s for d, s in shares.items()}
        assert by_name["glossary.html"] > 0.9 and "descriptor.html" not in by_name
        assert _names(engine, "descriptors attribute lookup")[0] == "descriptor.html"


def devhelp(names: list[str]) -> str:
    lines = "\n".join(
        f'  <keyword type="function" name="{n}()" link="library/{n.split(".")[0]}.html#{n}"/>' for n in names
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<book title="Manual" link="index.html">\n'
        f"<functions>\n{lines}\n</functions>\n</book>\n"
    )


GATHERS = ["asyncio.gather", "asyncio.Task.gather", "asyncio.gather_all", "asyncio.run", "asyncio.sleep"]


def test_a_markup_index_of_links_read_as_text_is_links():
    from findling.ingest.extract import extract

    index = extract("/docs/python.devhelp", devhelp(GATHERS * 4).encode())
    assert index.kind == "text" and index.link_share > 0.9
    pom = "<project>\n  <groupId>org.example</groupId>\n  <artifactId>demo</artifactId>\n" * 5 + "</project>\n"
    assert extract("/docs/pom.xml", pom.encode()).link_share == 0.0
    readme = "# Demo\n\n" + '<img src="logo.png">\n' * 20  # a link on every line, but no markup file
    assert extract("/docs/README.md", readme.encode()).link_share == 0.0


def test_a_markup_index_ranks_below_the_page_it_links_to(tmp_path, settings):
    docs = tmp_path / "docs"
    write(docs / "python.devhelp", devhelp(GATHERS * 2 + [f"os.func{i}" for i in range(10)]))
    write(
        docs / "asyncio.html",
        "<title>Coroutines and Tasks</title><p>"
        + "Run awaitable objects concurrently and wait for their results; a sleeping task lets others run. " * 6
        + "</p><dl><dt>asyncio.gather(*aws)</dt><dd>Run awaitables concurrently.</dd></dl>",
    )
    for i in range(8):
        write(docs / f"other{i}.html", f"<title>Other {i}</title><p>Unrelated page {i} about files and folders.</p>")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        assert _names(engine, "asyncio.gather")[:2] == ["asyncio.html", "python.devhelp"]
        engine._db.cursor().execute("DELETE FROM link_shares")  # as before markup counted its links
        assert _names(engine, "asyncio.gather")[0] == "python.devhelp"


def test_an_index_from_before_markup_counted_its_links_reads_markup_again(tmp_path, settings):
    docs = tmp_path / "docs"
    write(docs / "python.devhelp", devhelp(GATHERS * 4))
    write(docs / "notes.txt", "Plain notes about asyncio and gather, " * 10)
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
    con = duckdb.connect(str(home / "findling.duckdb"))
    con.execute("DELETE FROM link_shares")  # as schema 18 left a markup file
    con.execute("UPDATE meta SET value = '18' WHERE key = 'schema_version'")
    con.close()
    with Engine(home, settings=settings) as engine:
        report = engine.index(embed=False)
        assert report.updated == 1 and report.unchanged == 1  # the markup file alone
        assert engine._db.cursor().execute("SELECT share FROM link_shares").fetchall()[0][0] > 0.9


def test_a_layout_table_around_the_whole_page_is_no_entry():
    """Old pages lay themselves out in one table whose first cell links home: the row holds the
    whole page and is no line of an index; the lists inside it still count as theirs."""
    content = "<p>" + "The tree module builds and walks documents, node by node, with its functions. " * 8 + "</p>"
    page = f"<html><body><table><tr><td><a href='index.html'>Home</a></td><td>{content}</td></tr></table></body></html>"
    assert entry_share(page) == 0.0
    listing = "".join(f"<li><a href='f{i}.html'>xmlFunction{i}</a>: builds a node</li>" for i in range(40))
    page = f"<html><body><table><tr><td><a href='index.html'>Home</a></td><td><ul>{listing}</ul></td></tr></table>"
    assert entry_share(page) > 0.9


def test_a_page_of_links_the_query_names_is_what_it_asks_for(tmp_path, settings, long_pages, monkeypatch):
    """ "glossary" or "module index": the person wants that page, list of entries as it is; its
    title field holding the query lifts the prior (a page only mentioning it ranks below)."""
    docs = _folder(tmp_path)
    write(
        docs / "about.html",
        "<title>About these documents</title><p>"
        + "The glossary explains the terms; see the glossary when a word is new. " * 3
        + "</p>",
    )
    write(docs / "modindex.html", module_index())
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        assert _names(engine, "glossary")[:2] == ["glossary.html", "about.html"]
        assert _names(engine, "module index")[0] == "modindex.html"
        # a question names no page: "what is RCU" asks for the explanation, not the RCU chapter's
        # list of pages titled "RCU concepts"
        assert _names(engine, "what is in the glossary")[0] == "about.html"
        lane = engine._bm25
        ids = list(engine.document_paths())
        assert lane.named(parse_query("glossary"), ids) and not lane.named(parse_query("what is the glossary"), ids)
        # not named, the module index ranks below the page it lists
        write(docs / "tempfile.html", "<title>tempfile</title><p>" + "Temporary files and directories. " * 5)
        engine.index(embed=False)
        assert _names(engine, "temporary files directories")[0] == "tempfile.html"
        # the prior in full whatever the title says: the page only mentioning the glossary ranks first
        full = bm25.prior_sql
        monkeypatch.setattr(bm25, "prior_sql", lambda named, giants: full("0", giants))
        assert _names(engine, "glossary")[0] == "about.html"
