"""Code search through the engine: `sym:`, results named by their definition, identifiers found by
their words and whole, the outline verb, and source files chunked at their definitions."""

from __future__ import annotations

import json

import pytest

from findling.cli import main
from findling.engine import Engine
from findling.faces.payloads import result_json
from findling.records import SearchMode, SearchRequest
from tests.helpers import write

PARSER = '''"""Command-line parsing."""


class ArgumentParser:
    """Turns the command line into a namespace."""

    def parse_args(self, args=None):
        return self.parse_known_args(args)[0]

    def parse_known_args(self, args=None):
        """Parse what it knows; return the rest."""
        return self._parse_known_args(args or [])

    def _parse_known_args(self, args):
        return {}, list(args)


def parse_date(text):
    return text
'''
FILES_JS = """// Files, synchronously.
export function readFileSync(path) {
  return fs.readFileSync(path, "utf8");
}

export class HTTPServer {
  listen(port) { return port; }
}
"""
NOTES = "Notes on parsing: the parser reads known args and leaves the rest for later.\n"


@pytest.fixture()
def code(tmp_path, settings):
    src = tmp_path / "src"
    write(src / "argparse.py", PARSER)
    write(src / "files.js", FILES_JS)
    write(src / "notes.txt", NOTES)
    engine = Engine(tmp_path / "home", settings=settings)
    engine.add_source(src)
    engine.index(embed=False)
    yield engine, src
    engine.close()


def _keyword(engine, text):
    return engine.find(SearchRequest(text, mode=SearchMode.KEYWORD))


def test_sym_finds_the_definition_and_names_it(code):
    engine, src = code
    hit = _keyword(engine, "sym:parse_known").hits[0]
    assert hit.path == str(src / "argparse.py")
    assert hit.symbol == "ArgumentParser.parse_known_args" and hit.symbol_kind == "method"
    assert hit.line == 10 and hit.snippet.startswith("def parse_known_args")
    exact = _keyword(engine, "sym:parse_date")
    assert exact.terms == ("parse_date",) and exact.hits[0].highlights  # the name it asked for, lit up
    camel = _keyword(engine, "sym:ArgumentParser")
    assert camel.terms == ("argumentparser",) and camel.hits[0].highlights  # an identifier, not a stemmed word
    exact = _keyword(engine, "sym:ArgumentParser.parse_args").hits
    assert [h.symbol for h in exact] == ["ArgumentParser.parse_args"]
    assert _keyword(engine, "sym:readFileSync").hits[0].symbol == "readFileSync"
    assert _keyword(engine, "sym:HTTPServer.listen").hits[0].symbol == "HTTPServer.listen"
    assert _keyword(engine, "sym:nothing_like_this").hits == ()
    assert "notes.txt" not in {h.path.rsplit("/", 1)[-1] for h in _keyword(engine, "sym:parse").hits}


def test_an_exact_name_ranks_before_longer_ones(code):
    engine, src = code
    write(src / "other.py", "def parse_known_args_fast(x):\n    return x\n")
    engine.index(embed=False)
    hits = _keyword(engine, "sym:parse_known_args").hits
    assert [h.symbol for h in hits] == ["ArgumentParser.parse_known_args", "parse_known_args_fast"]
    assert hits[0].score == 1.0 > hits[1].score


def test_sym_with_words_and_in_hybrid_mode(code):
    engine, _ = code
    for mode in (SearchMode.KEYWORD, SearchMode.HYBRID):
        hits = engine.find(SearchRequest("sym:parse rest", mode=mode, rerank="off")).hits
        assert [h.path.rsplit("/", 1)[-1] for h in hits] == ["argparse.py"], mode


def test_identifiers_are_found_by_their_words_and_whole(code):
    engine, src = code
    words = _keyword(engine, "read file sync").hits
    assert words[0].path == str(src / "files.js") and words[0].symbol == "readFileSync"
    assert _keyword(engine, "http server").hits[0].symbol.startswith("HTTPServer")
    whole = _keyword(engine, "parse_known_args").hits
    assert whole[0].path == str(src / "argparse.py")
    assert whole[0].symbol == "ArgumentParser.parse_known_args"  # its definition, not a call of it


def test_results_in_a_source_file_name_their_definition(code):
    engine, _ = code
    hit = _keyword(engine, "turns namespace").hits[0]
    assert hit.symbol == "ArgumentParser" and hit.symbol_kind == "class"
    payload = result_json(_keyword(engine, "sym:parse_date"))["results"][0]
    assert payload["symbol"] == "parse_date" and payload["symbol_kind"] == "function"


def test_the_outline_of_a_source_file(code, capsys):
    engine, src = code
    outline = engine.symbols(str(src / "argparse.py"))
    assert [(s.kind, s.qualname) for s in outline.symbols] == [
        ("class", "ArgumentParser"),
        ("method", "ArgumentParser.parse_args"),
        ("method", "ArgumentParser.parse_known_args"),
        ("method", "ArgumentParser._parse_known_args"),
        ("function", "parse_date"),
    ]
    assert outline.language == "python" and outline.symbols[2].doc == "Parse what it knows; return the rest."
    assert engine.symbols(str(src / "notes.txt")).symbols == ()


def test_symbols_and_sym_from_the_command_line(code, capsys):
    engine, src = code
    home = str(engine.home)
    engine.close()
    assert main(["--home", home, "symbols", str(src / "files.js")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split() for line in out] == [
        ["2", "function", "function", "readFileSync(path)"],
        ["6", "class", "class", "HTTPServer"],
        ["7", "method", "listen(port)"],
    ]
    assert out[2].startswith("     7    method")  # indented under its class
    assert main(["--home", home, "symbols", str(src / "argparse.py"), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["symbols"][0]["qualname"] == "ArgumentParser" and payload["language"] == "python"
    assert main(["--home", home, "search", "sym:parse_known_args"]) == 0
    printed = capsys.readouterr().out
    assert "ArgumentParser.parse_known_args · " in printed and "argparse.py:10" in printed


def test_why_not_names_a_sym_filter(code):
    engine, src = code
    answer = engine.why_not(SearchRequest("sym:parse_args parser", mode=SearchMode.KEYWORD), src / "notes.txt")
    assert "sym:parse_args" in str(answer)


def test_source_files_are_chunked_at_their_definitions(code):
    engine, src = code
    text = engine.document_text(_keyword(engine, "sym:parse_date").hits[0].doc_id)
    assert text is not None and text.text == PARSER  # the chunks rebuild the file exactly
    cur = engine._db.cursor()
    headings = [h for (h,) in cur.execute("SELECT heading FROM chunks ORDER BY doc_id, ordinal").fetchall()]
    assert {"ArgumentParser", "parse_date", "readFileSync", "HTTPServer"} <= set(headings)


def test_without_code_symbols_files_are_windowed_as_text(tmp_path, settings):
    settings.index.code_symbols = False
    write(tmp_path / "src" / "argparse.py", PARSER)
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(tmp_path / "src")
        engine.index(embed=False)
        assert _keyword(engine, "sym:parse_args").hits == ()
        assert _keyword(engine, "parse_known_args").hits[0].symbol == ""
