"""Definitions found in source files by tree-sitter, per language, and the chunks that follow them."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from findling.ingest.chunk import code_spans
from findling.ingest.code_symbols import find_symbols
from findling.store.documents import document_text
from findling.text.code_languages import LANGUAGE_OF_EXTENSION

# (extension, source, expected (kind, qualified name, line) in order)
CASES = [
    (
        "py",
        'import os\n\n@cached\nclass Parser:\n    """Reads args."""\n\n    def parse_known_args(self, args=None):\n'
        "        def inner():\n            pass\n        return inner\n\n\ndef main():\n    pass\n",
        [
            ("class", "Parser", 4),
            ("method", "Parser.parse_known_args", 7),
            ("function", "Parser.parse_known_args.inner", 8),
            ("function", "main", 13),
        ],
    ),
    (
        "js",
        "class Reader {\n  constructor() {}\n  readAll(x) { return x; }\n}\nfunction readFileSync(p) {}\n"
        "const toJson = (x) => JSON.stringify(x);\nexport function later() {}\n",
        [
            ("class", "Reader", 1),
            ("method", "Reader.constructor", 2),
            ("method", "Reader.readAll", 3),
            ("function", "readFileSync", 5),
            ("function", "toJson", 6),
            ("function", "later", 7),
        ],
    ),
    (
        "ts",
        "interface Shape { area(): number }\ntype Id = string;\nenum Color { Red }\n"
        "class Box {\n  size(): number { return 1 }\n}\n",
        [
            ("interface", "Shape", 1),
            ("type", "Id", 2),
            ("enum", "Color", 3),
            ("class", "Box", 4),
            ("method", "Box.size", 5),
        ],
    ),
    (
        "go",
        "package web\n\n// Server serves.\ntype Server struct {\n\taddr string\n"
        "}\n\nfunc (s *Server) ListenAndServe() error {\n"
        "\treturn nil\n}\n\nfunc NewServer() *Server { return nil }\n\ntype Handler interface {\n\tServe()\n}\n",
        [
            ("struct", "Server", 4),
            ("method", "Server.ListenAndServe", 8),
            ("function", "NewServer", 12),
            ("interface", "Handler", 14),
        ],
    ),
    (
        "rs",
        "/// A point.\npub struct Point { x: i32 }\n\nimpl Point {\n"
        "    pub fn origin() -> Self { Point { x: 0 } }\n}\n\n"
        "pub trait Shape {\n    fn area(&self) -> f64;\n}\n\nenum Kind { A }\n",
        [
            ("struct", "Point", 2),
            ("impl", "Point", 4),
            ("method", "Point.origin", 5),
            ("trait", "Shape", 8),
            ("method", "Shape.area", 9),
            ("enum", "Kind", 12),
        ],
    ),
    (
        "java",
        "package p;\n\npublic class Cache {\n    public Cache() {}\n"
        "    public String lookup(String key) { return key; }\n"
        "    enum Mode { ON }\n}\n",
        [("class", "Cache", 3), ("method", "Cache.Cache", 4), ("method", "Cache.lookup", 5), ("enum", "Cache.Mode", 6)],
    ),
    (
        "c",
        "#include <stdio.h>\n\nstruct buffer { int len; };\n\n/* Frees it. */\n"
        "static void free_buffer(struct buffer *b) {\n"
        "}\n\nint *make(int n) { return 0; }\n",
        [("struct", "buffer", 3), ("function", "free_buffer", 6), ("function", "make", 9)],
    ),
    (
        "cpp",
        "namespace net {\nclass Socket {\n public:\n  void close();\n};\n}\n\nvoid net::Socket::close() {}\n",
        [("namespace", "net", 1), ("class", "net.Socket", 2), ("function", "net.Socket.close", 8)],
    ),
    (
        "cs",
        "namespace App {\n  public class Store {\n    public int Count { get; set; }\n"
        "    public void Save(string p) {}\n  }\n}\n",
        [
            ("namespace", "App", 1),
            ("class", "App.Store", 2),
            ("property", "App.Store.Count", 3),
            ("method", "App.Store.Save", 4),
        ],
    ),
    (
        "rb",
        "module Billing\n  class Invoice\n    # Totals it.\n    def total\n"
        "      1\n    end\n\n    def self.build\n    end\n"
        "  end\nend\n",
        [
            ("module", "Billing", 1),
            ("class", "Billing.Invoice", 2),
            ("method", "Billing.Invoice.total", 4),
            ("method", "Billing.Invoice.build", 8),
        ],
    ),
    (
        "sh",
        "#!/bin/sh\nbackup() {\n  tar czf x.tgz .\n}\nfunction restore {\n  :\n}\n",
        [("function", "backup", 2), ("function", "restore", 5)],
    ),
]


@pytest.mark.parametrize(("ext", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_definitions_are_found_with_their_qualified_names(ext, source, expected):
    found = [(s.kind, s.qualname, s.line) for s in find_symbols(source, ext)]
    assert found == expected
    for symbol in find_symbols(source, ext):
        assert symbol.name in source[symbol.start : symbol.end]
        assert source.count("\n", 0, symbol.start) + 1 <= symbol.line


@pytest.mark.parametrize(("ext", "source", "expected"), CASES, ids=[c[0] for c in CASES])
def test_chunks_follow_definitions_and_cover_the_text(ext, source, expected):
    symbols = find_symbols(source, ext)
    spans = code_spans(source, symbols, chunk_tokens=64)
    assert "".join(source[s.start : s.end] for s in spans) == source  # in order, no overlap, nothing lost
    headings = {s.heading for s in spans}
    for kind, qualname, _ in expected:
        if kind != "namespace":
            assert any(h == qualname or h.startswith(qualname + ".") for h in headings) or any(
                qualname.startswith(h) for h in headings if h
            ), qualname


SOURCES = {ext: source for ext, source, _ in CASES}


def _rebuilt(text, spans):
    return document_text([(s.start, s.end, text[s.start : s.end]) for s in spans])


def test_doc_comments_and_docstrings_are_kept():
    go = SOURCES["go"]
    server = find_symbols(go, "go")[0]
    assert server.doc == "Server serves." and go[server.start :].startswith("// Server serves.")
    parser = find_symbols(SOURCES["py"], "py")[0]
    assert parser.doc == "Reads args." and parser.signature == "class Parser:"
    assert SOURCES["py"][parser.start :].startswith("@cached")  # decorators belong to their definition


def test_a_large_class_is_cut_at_its_methods_and_a_large_function_keeps_its_name():
    body = "".join(f"        total += {i}  # step {i} of the running sum\n" for i in range(200))
    source = (
        "class Ledger:\n    def small(self):\n        return 1\n\n    def huge(self):\n        total = 0\n"
        + body
        + "        return total\n"
    )
    spans = code_spans(source, find_symbols(source, "py"), chunk_tokens=200)
    assert _rebuilt(source, spans) == source
    assert [s.heading for s in spans].count("Ledger.huge") > 3  # windows of one function keep its name
    assert any(s.heading == "Ledger.small" for s in spans)
    assert all(s.end - s.start <= 200 * 4 for s in spans)


def test_offsets_are_characters_not_bytes():
    source = '# é ü 北京\n\ndef café():\n    return "naïve"\n\ndef after():\n    pass\n'
    after = find_symbols(source, "py")[-1]
    assert source[after.start : after.end].startswith("def after")


def test_files_without_a_grammar_or_too_large_get_none():
    assert find_symbols("fn main() {}", "kt") == ()
    assert find_symbols("def f():\n    pass\n" * 70_000, "py") == ()


@settings(max_examples=60, deadline=None)
@given(ext=st.sampled_from(sorted(LANGUAGE_OF_EXTENSION)), text=st.text(max_size=400))
def test_any_text_parses_without_error_and_chunks_cover_it(ext, text):
    symbols = find_symbols(text, ext)
    for s in symbols:
        assert 0 <= s.start <= s.end <= len(text)
    spans = code_spans(text, symbols, chunk_tokens=32)
    assert _rebuilt(text, spans).split() == text.split() or not symbols


def test_deep_nesting_and_many_definitions_stay_bounded():
    nested = "function a() {" * 3000 + "}" * 3000 + "\n"
    symbols = find_symbols(nested, "js")
    assert 0 < len(symbols) <= 32
    spans = code_spans(nested, symbols, chunk_tokens=64)
    assert _rebuilt(nested, spans) == nested
    many = "".join(f"def f{i}():\n    pass\n" for i in range(8000))
    assert len(find_symbols(many, "py")) == 5000
