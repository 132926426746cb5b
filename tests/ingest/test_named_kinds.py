"""A file is read as what its bytes are, not only as its name says (issue 62, 6): a `.doc` that is
plain text or RTF is read, a real Word 97 one is skipped once (not read again at every run); an
SVG drawing gives its title, description and labels, never its markup."""

from __future__ import annotations

import json

from findling.cli import main
from findling.ingest.extract import NotRead, extract
from tests.helpers import write

OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
SVG = b"""<?xml version="1.0"?>
<!DOCTYPE svg [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:dc="http://purl.org/dc/elements/1.1/" viewBox="0 0 100 100">
  <title>Page table walk</title>
  <desc>How the MMU walks four levels &secret;</desc>
  <metadata><dc:title>PT walk</dc:title></metadata>
  <path d="M0 0 L10 10 C 20 20 40 20 50 10 Z" fill="#ff0000"/>
  <text x="1" y="2">PGD <tspan>entry</tspan></text>
  <text x="1" y="9">PMD</text>
</svg>
"""


def test_a_doc_that_is_text_or_rtf_is_read_and_a_word_97_one_is_not():
    assert "kernel notes" in extract("notes.doc", b"Plain kernel notes.\n").text
    assert extract("letter.doc", b"{\\rtf1\\ansi Dear landlord}").text.strip() == "Dear landlord"
    try:
        extract("real.doc", OLE2 + bytes(512))
    except NotRead as exc:
        assert "legacy Word format" in str(exc)
    else:
        raise AssertionError("a Word 97 file is not read")


def test_an_svg_gives_its_words_not_its_markup():
    read = extract("walk.svg", SVG)
    assert read.title == "Page table walk"
    assert read.text.splitlines() == [
        "Page table walk",
        "How the MMU walks four levels &secret;",
        "PT walk",
        "PGD entry",
        "PMD",
    ]
    assert "root:" not in read.text  # the entity is not resolved: a picture reads no files


def _search(capsys, query: str) -> list[str]:
    capsys.readouterr()
    assert main(["search", "--json", query]) == 0
    return [h["path"].rsplit("/", 1)[-1] for h in json.loads(capsys.readouterr().out)["results"]]


def test_through_the_cli_and_a_word_97_file_is_not_read_again(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    docs = tmp_path / "docs"
    write(docs / "notes.doc", "Interrupt affinity notes for the ring buffer.")
    (docs / "walk.svg").write_bytes(SVG)
    (docs / "real.doc").write_bytes(OLE2 + bytes(512))
    assert main(["add", str(docs)]) == 0
    assert _search(capsys, "interrupt affinity") == ["notes.doc"]
    assert _search(capsys, "MMU walks") == ["walk.svg"]
    assert _search(capsys, "fill") == []  # markup is not text
    planned: list[str] = []
    import findling.ingest.indexer as indexer

    job = indexer._Job

    def recorded(entry, *args, **kwargs):
        planned.append(entry.path)
        return job(entry, *args, **kwargs)

    monkeypatch.setattr(indexer, "_Job", recorded)
    capsys.readouterr()
    assert main(["index"]) == 0
    assert "3 unchanged" in capsys.readouterr().out
    assert planned == []  # nothing read again, the Word 97 file neither
