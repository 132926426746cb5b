"""Copies of one file (the same bytes in two places) are listed once, under the better-ranked
of them, with the other paths: in every mode, in JSON, in the terminal and to why-not."""

from __future__ import annotations

import os

import pytest

from findling.cli import main
from findling.engine import Engine
from findling.faces.payloads import result_json
from findling.records import SearchMode, SearchRequest
from tests.helpers import write

REPORT = "Quarterly report: the turbine overhaul finished early and under budget.\n"


@pytest.fixture()
def copies(tmp_path, settings):
    docs = tmp_path / "docs"
    write(docs / "report.txt", REPORT)
    write(docs / "backup" / "report-copy.txt", REPORT)
    write(docs / "draft.txt", "Draft: the turbine overhaul may finish late.\n")
    engine = Engine(tmp_path / "home", settings=settings)
    engine.add_source(docs)
    engine.index(embed=False)
    yield engine, docs
    engine.close()


def test_a_file_and_its_copy_are_one_result(copies):
    engine, docs = copies
    for mode in (SearchMode.KEYWORD, SearchMode.HYBRID):  # hybrid runs keywords alone without an embedder
        result = engine.find(SearchRequest("turbine overhaul", mode=mode, rerank="off"))
        names = [os.path.basename(h.path) for h in result.hits]
        assert sorted(names) in (["draft.txt", "report-copy.txt"], ["draft.txt", "report.txt"]), mode
        listed = next(h for h in result.hits if h.copies)
        assert {listed.path, *listed.copies} == {str(docs / "report.txt"), str(docs / "backup" / "report-copy.txt")}
        assert result_json(result)["results"][names.index(os.path.basename(listed.path))]["copies"] == list(
            listed.copies
        )


def test_why_not_finds_a_copy_in_the_row_of_its_twin(copies):
    engine, docs = copies
    result = engine.find(SearchRequest("turbine overhaul", mode=SearchMode.KEYWORD))
    listed = next(h for h in result.hits if h.copies)
    answer = engine.why_not(SearchRequest("turbine overhaul", mode=SearchMode.KEYWORD), listed.copies[0])
    assert answer.reason == "shown" and answer.rank == result.hits.index(listed) + 1


def test_the_terminal_names_the_other_place(tmp_path, capsys):
    docs = tmp_path / "docs"
    write(docs / "a.txt", REPORT)
    write(docs / "b.txt", REPORT)
    home = str(tmp_path / "home")
    assert main(["--home", home, "add", "--wait", str(docs)]) == 0
    capsys.readouterr()
    assert main(["--home", home, "search", "turbine"]) == 0
    out = capsys.readouterr().out
    assert " 1. " in out and " 2. " not in out  # one result
    assert "same file at" in out and ("a.txt" in out and "b.txt" in out)


def test_the_newest_copy_stands_for_the_others(tmp_path, settings):
    import time

    docs = tmp_path / "docs"
    for name in ("a-old.txt", "b-new.txt", "c-mid.txt"):
        write(docs / name, REPORT)
    now = time.time()
    os.utime(docs / "a-old.txt", (now - 400 * 86400, now - 400 * 86400))
    os.utime(docs / "c-mid.txt", (now - 20 * 86400, now - 20 * 86400))
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        (hit,) = engine.find(SearchRequest("turbine", mode=SearchMode.KEYWORD)).hits
    assert os.path.basename(hit.path) == "b-new.txt"  # equal scores: newer first, as every list
    assert [os.path.basename(p) for p in hit.copies] == ["c-mid.txt", "a-old.txt"]


def test_a_list_of_n_results_holds_n_documents_beside_their_copies(tmp_path, settings, capsys):
    """A folder holding each page twice (a manual's HTML beside its sources) showed half the
    results asked for: the copies were cut with the list, then folded into their twins."""
    docs = tmp_path / "docs"
    for i in range(5):
        text = f"Report {i}: " + "the turbine overhaul " * (5 - i) + f"in hall {i}.\n"
        write(docs / f"report{i}.txt", text)
        write(docs / "backup" / f"report{i}-copy.txt", text)
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        for mode in (SearchMode.KEYWORD, SearchMode.HYBRID):
            result = engine.find(SearchRequest("turbine overhaul", mode=mode, limit=3, rerank="off"))
            names = [os.path.basename(h.path).replace("-copy", "") for h in result.hits]
            assert names == ["report0.txt", "report1.txt", "report2.txt"], mode
            # each named with its copy; the last result's ranks below it, past the list
            assert [len(h.copies) for h in result.hits] == [1, 1, 0], mode
            if result.explain is not None:  # the explain record holds what the list shows, copies too
                listed = {h.doc_id for h in result.hits}
                assert listed <= {r.doc_id for r in result.explain.results}
                assert len(result.explain.results) == 5, mode
    assert main(["--home", str(home), "search", "turbine", "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert " 3. " in out and " 4. " not in out


def test_results_that_share_a_title_are_named_by_their_file_too(tmp_path, settings):
    """A Javadoc's source pages are all titled "Source code": three in one list said nothing."""
    docs = tmp_path / "docs"
    for name in ("StringUtils", "CharUtils", "ArrayUtils"):
        write(docs / f"{name}.html", f"<title>Source code</title><pre>public class {name} {{ // utils helper }}</pre>")
    write(docs / "guide.html", "<title>Utils guide</title><p>Which utils helper to use.</p>")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        for mode in (SearchMode.KEYWORD, SearchMode.HYBRID):
            titles = sorted(h.title for h in engine.find(SearchRequest("utils helper", mode=mode)).hits)
            assert titles == [
                "Source code (ArrayUtils.html)",
                "Source code (CharUtils.html)",
                "Source code (StringUtils.html)",
                "Utils guide",
            ], mode
        # alone in its list, a title stays as it is
        (hit,) = engine.find(SearchRequest("CharUtils", mode=SearchMode.KEYWORD, limit=1)).hits
        assert hit.title == "Source code"
