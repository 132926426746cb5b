"""PDF results name the page of their passage: kept at index time, carried by results, the
preview's text, the CLI and JSON, and dropped with the document."""

from __future__ import annotations

import json

import duckdb

from findling.cli import main
from findling.records import SearchMode, SearchRequest
from findling.search.results import page_at, rebuilt_offsets
from tests.helpers import make_pdf

FILLER = "Plain words about nothing in particular fill this page of the report. " * 30


def _report(folder):
    folder.mkdir(parents=True, exist_ok=True)
    return make_pdf(
        folder / "report.pdf",
        [
            "Annual report. " + FILLER,
            FILLER,
            FILLER + "\nThe chlorophyll measurements rose in spring.",
            FILLER,
        ],
    )


def test_page_at_counts_from_one_and_is_zero_without_pages():
    assert page_at((0, 10, 25), 0) == 1
    assert page_at((0, 10, 25), 9) == 1
    assert page_at((0, 10, 25), 10) == 2
    assert page_at((0, 10, 25), 400) == 3
    assert page_at((), 5) == 0


def test_rebuilt_offsets_leave_out_the_gaps_between_chunks():
    chunks = [(0, 10, "a" * 10), (8, 20, "b" * 12), (24, 30, "c" * 6)]  # 20..24 is not in any chunk
    assert rebuilt_offsets(chunks, [0, 5, 19, 24, 26]) == [0, 5, 19, 20, 22]
    assert rebuilt_offsets([], [3]) == [3]


def test_a_pdf_result_names_the_page_of_its_passage(engine, tmp_path, capsys):
    _report(tmp_path / "docs")
    engine.add_source(tmp_path / "docs")
    engine.index()
    hit = engine.find(SearchRequest("chlorophyll", mode=SearchMode.KEYWORD)).hits[0]
    assert hit.page == 3
    doc = engine.document_text(hit.doc_id, engine.find(SearchRequest("chlorophyll", mode=SearchMode.KEYWORD)).terms)
    assert len(doc.pages) == 4
    match = doc.highlights[0].start
    assert page_at(doc.pages, match) == 3
    assert page_at(doc.pages, doc.text.index("Annual report")) == 1


def test_cli_and_json_say_the_page(tmp_path, capsys):
    _report(tmp_path / "docs")
    home = str(tmp_path / "home")
    assert main(["--home", home, "add", str(tmp_path / "docs")]) == 0
    assert main(["--home", home, "index"]) == 0
    capsys.readouterr()
    assert main(["--home", home, "search", "chlorophyll"]) == 0
    assert "(page 3)" in capsys.readouterr().out
    assert main(["--home", home, "search", "chlorophyll", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["page"] == 3
    assert main(["--home", home, "search", "annual", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["results"][0]["page"] == 1


def test_text_files_have_no_page_and_pages_go_with_their_document(engine, tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "notes.md").write_text("chlorophyll in a markdown note")
    pdf = _report(tmp_path / "docs")
    engine.add_source(tmp_path / "docs")
    engine.index()
    hits = {h.ext: h for h in engine.find(SearchRequest("chlorophyll", mode=SearchMode.KEYWORD)).hits}
    assert hits["md"].page == 0 and hits["pdf"].page == 3
    pdf.unlink()
    engine.index()
    assert engine.check_index() == []
    engine.close()
    con = duckdb.connect(str(tmp_path / "home" / "findling.duckdb"), read_only=True)
    assert con.execute("SELECT count(*) FROM pages").fetchall()[0][0] == 0
    con.close()


def test_schema_7_reads_pdfs_again_for_their_pages(tmp_path, settings):
    from findling.engine import Engine

    _report(tmp_path / "docs")
    (tmp_path / "docs" / "notes.md").write_text("plain notes")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(tmp_path / "docs")
        engine.index()
    con = duckdb.connect(str(tmp_path / "home" / "findling.duckdb"))
    con.execute("DROP TABLE pages")  # as schema 6 left it
    con.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")
    con.close()
    with Engine(tmp_path / "home", settings=settings) as engine:
        assert (
            engine.find(SearchRequest("chlorophyll", mode=SearchMode.KEYWORD)).hits[0].page == 0
        )  # not known until read again
        report = engine.index()
        assert (report.updated, report.unchanged) == (1, 1)
        assert engine.find(SearchRequest("chlorophyll", mode=SearchMode.KEYWORD)).hits[0].page == 3
