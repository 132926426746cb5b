from __future__ import annotations

import random

import pytest

from findling.errors import ExtractionError
from findling.ingest.extract import NotText, extract
from tests.helpers import make_docx, make_epub, make_pdf, write


def _extract(path):
    return extract(str(path), path.read_bytes())


def test_plain_text_title_is_file_name(tmp_path):
    got = _extract(write(tmp_path / "notes.txt", "just some words\nand more"))
    assert got.title == "notes.txt"
    assert "just some words" in got.text
    assert got.kind == "text"


def test_markdown_title_is_first_heading(tmp_path):
    got = _extract(write(tmp_path / "a.md", "intro line\n\n## Second Level First\n\n# Top\n"))
    assert got.title == "Second Level First"
    assert got.kind == "markdown"


def test_rst_title_from_underlined_heading(tmp_path):
    got = _extract(write(tmp_path / "guide.rst", ".. comment\n\nUser Guide\n==========\n\nBody text here.\n"))
    assert got.title == "User Guide"
    got = _extract(write(tmp_path / "sub.rst.txt", "Intro\n-----\n\ntext\n"))
    assert got.kind == "rst" and got.title == "Intro"


def test_plain_text_opening_with_an_underlined_line_is_titled_by_it(tmp_path):
    """AsciiDoc, Setext and many READMEs open with their title underlined: Git's manual pages
    in AsciiDoc were all titled by their file names."""
    page = "git-branch(1)\n=============\n\nNAME\n----\ngit-branch - List, create, or delete branches\n"
    assert _extract(write(tmp_path / "git-branch.txt", page)).title == "git-branch(1)"
    assert _extract(write(tmp_path / "guide.adoc", "= User Guide\nA. Author\n\nText.\n")).title == "User Guide"
    got = _extract(write(tmp_path / "README.md", "\nProject Name\n------------\n\n# Install\n"))
    assert got.title == "Project Name"  # a Markdown file's first line, underlined, before its first # heading
    # a first line that is not underlined, an underline far shorter than its line, a front
    # matter's rule, a long first line: no title (the file's name stays)
    for name, text in {
        "a.txt": "Dear all,\nthe meeting moved.\n=====\n",
        "b.txt": "A heading much longer than its rule\n===\n",
        "c.txt": "---\ntitle: x\n---\nbody\n",
        "d.txt": "x" * 130 + "\n" + "=" * 130 + "\n",
    }.items():
        assert _extract(write(tmp_path / name, text)).title == name, name


def test_source_code_kept_verbatim(tmp_path):
    got = _extract(write(tmp_path / "m.py", "def snake_case_fn(x):\n    return x\n"))
    assert got.kind == "code"
    assert "snake_case_fn" in got.text


def test_html_drops_scripts_and_styles_keeps_title(tmp_path):
    html = (
        "<html><head><title>The Page</title><style>.x{color:red}</style>"
        "<script>var secret = 'hidden';</script></head><body><h1>Heading One</h1>"
        "<p>Visible <b>paragraph</b> text.</p><script>alsoHidden()</script><ul><li>item one</li><li>item two</li></ul>"
        "</body></html>"
    )
    got = _extract(write(tmp_path / "p.html", html))
    assert got.title == "The Page"
    assert "Visible paragraph text." in got.text
    assert "# Heading One" in got.text
    assert "secret" not in got.text and "alsoHidden" not in got.text and "color" not in got.text
    assert "item one\nitem two" in got.text


def test_html_title_falls_back_to_h1(tmp_path):
    got = _extract(write(tmp_path / "p.htm", "<body><h1>Only Heading</h1><p>x</p></body>"))
    assert got.title == "Only Heading"


def test_pdf_text_and_metadata_title(tmp_path):
    path = make_pdf(
        tmp_path / "paper.pdf", ["First page about photosynthesis", "Second page: chlorophyll"], title="Plant Biology"
    )
    got = _extract(path)
    assert got.title == "Plant Biology"
    assert "photosynthesis" in got.text and "chlorophyll" in got.text
    assert got.kind == "pdf"


def test_pdf_pages_begin_where_each_page_text_begins(tmp_path):
    pages = ["Cover page", "Second page: chlorophyll\nand light", "", "Fourth page: stomata"]
    got = _extract(make_pdf(tmp_path / "paper.pdf", pages))
    assert len(got.pages) == 4 and got.pages[0] == 0
    assert got.text[got.pages[1] :].startswith("Second page: chlorophyll")
    assert got.text[got.pages[3] :].startswith("Fourth page: stomata")
    assert got.text[got.pages[2] : got.pages[3]].strip() == ""  # an empty page keeps its place


def test_pdf_without_title_uses_file_name(tmp_path):
    got = _extract(make_pdf(tmp_path / "scan.pdf", ["hello pdf"]))
    assert got.title == "scan.pdf"


def test_corrupt_pdf_is_an_extraction_error(tmp_path):
    path = write(tmp_path / "bad.pdf", "%PDF-1.4\nthis is not really a pdf")
    with pytest.raises(ExtractionError):
        _extract(path)


def test_docx_headings_paragraphs_tables(tmp_path):
    path = make_docx(
        tmp_path / "report.docx",
        "Quarterly Report",
        "Revenue",
        ["Sales grew in Europe."],
        table=[["region", "amount"], ["Asia", "42"]],
    )
    got = _extract(path)
    assert got.title == "Quarterly Report"
    assert "# Revenue" in got.text and "Sales grew in Europe." in got.text
    assert "Asia\t42" in got.text


def test_truncated_docx_is_an_extraction_error(tmp_path):
    path = make_docx(tmp_path / "r.docx", "T", "H", ["p"])
    path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ExtractionError):
        _extract(path)


def test_epub_chapters_in_reading_order(tmp_path):
    path = make_epub(
        tmp_path / "book.epub",
        "A Small Book",
        [("Chapter One", "It was a dark night."), ("Chapter Two", "Morning came.")],
    )
    got = _extract(path)
    assert got.title == "A Small Book"
    assert got.text.index("dark night") < got.text.index("Morning came")


def test_encodings_are_detected(tmp_path):
    latin = "Café crème, déjà vu, naïve façade. " * 5
    assert "crème" in _extract(write(tmp_path / "l.txt", latin, "latin-1")).text
    assert "crème" in _extract(write(tmp_path / "u16.txt", "\ufeff" + latin, "utf-16-le")).text
    jp = "日本語のテキストです。ファイルの検索。" * 10
    assert "日本語" in _extract(write(tmp_path / "sj.txt", jp, "shift_jis")).text


def test_binary_files_are_not_text(tmp_path):
    path = tmp_path / "blob"
    path.write_bytes(bytes(range(256)) * 10)
    with pytest.raises(NotText):
        _extract(path)
    image = tmp_path / "photo.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100)
    with pytest.raises(NotText):
        _extract(image)


def test_binary_content_in_text_extension_fails_clearly(tmp_path):
    path = tmp_path / "fake.txt"
    path.write_bytes(b"\x00\x01\x02" * 1000)
    with pytest.raises(ExtractionError, match="binary"):
        _extract(path)


def write_bytes(path, data: bytes):
    path.write_bytes(data)
    return path


def test_a_stray_nul_in_a_page_of_text_is_text(tmp_path):
    """Javadoc's page of CharUtils shows the NUL character itself (`<code>\x00</code>`) and
    failed as binary content; many NULs, or bytes that are not UTF-8 around one, still are."""
    page = b"<html><title>CharUtils</title><p>NUL <code>\x00</code> the null control character</p></html>"
    got = _extract(write_bytes(tmp_path / "CharUtils.html", page))
    assert got.title == "CharUtils" and "null control character" in got.text
    text = b"A note " * 200 + b"\x00" + b"with one NUL in it, about quokkas." * 20
    assert "quokkas" in _extract(write_bytes(tmp_path / "note.txt", text)).text
    with pytest.raises(ExtractionError, match="binary"):
        _extract(write_bytes(tmp_path / "three.txt", b"text \x00 text \x00 text \x00 text" * 10))
    with pytest.raises(ExtractionError, match="binary"):
        _extract(write_bytes(tmp_path / "latin.txt", b"caf\xe9 text " * 20 + b"\x00"))  # one NUL, not UTF-8


def test_unknown_extension_sniffed_as_text(tmp_path):
    got = _extract(write(tmp_path / "Makefile", "all:\n\techo building\n"))
    assert "building" in got.text


def _noise() -> bytes:
    """Bytes no text encoding reads, with no NUL: what a raw picture holds."""
    return bytes(b for b in random.Random(3).randbytes(6000) if b)


def test_a_file_of_no_known_type_that_no_encoding_reads_is_not_text(tmp_path):
    """gnuplot's raw picture blutux.rgb holds no NUL: it was guessed to be text and failed as
    'cannot detect the text encoding'; it is skipped as not text. A known text type still fails."""
    noise = _noise()
    with pytest.raises(NotText):
        _extract(write_bytes(tmp_path / "blutux.rgb", noise))
    with pytest.raises(ExtractionError, match="cannot detect the text encoding"):
        _extract(write_bytes(tmp_path / "notes.txt", noise))


def test_html_encodings(tmp_path):
    undeclared = "<html><title>Brot</title><body><p>Bake at 250 °C — crème brûlée</p></body></html>"
    assert "250 °C — crème" in _extract(write(tmp_path / "u.html", undeclared)).text
    declared = '<html><head><meta charset="iso-8859-1"><title>T</title></head><body><p>Café</p></body></html>'
    assert "Café" in _extract(write(tmp_path / "l.html", declared, "latin-1")).text
    xhtml = '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><body><p>Grüße</p></body></html>'
    assert "Grüße" in _extract(write(tmp_path / "x.xhtml", xhtml)).text


def test_pdf_content_bomb_is_refused_before_pdfium(tmp_path):
    from tests.hostile import pdf_with_content

    pdf_with_content(tmp_path / "bomb.pdf", 30)
    with pytest.raises(ExtractionError, match="one of its streams unpacks to over 24 MB"):
        _extract(tmp_path / "bomb.pdf")


def _indexed_as_schema(tmp_path, files: dict[str, str | bytes], version: int, *statements: str):
    """`files` (name: text or bytes) indexed without vectors by one worker, then the index made
    as an older Findling left it: `statements` run on it and its schema set back to `version`.
    Returns (home, settings, the first index's report)."""
    import duckdb

    from findling.engine import Engine
    from findling.settings import Settings

    docs = tmp_path / "docs"
    docs.mkdir()
    for name, content in files.items():
        (write_bytes if isinstance(content, bytes) else write)(docs / name, content)
    settings = Settings()
    settings.index.workers = 1
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        engine.add_source(docs)
        report = engine.index(embed=False)
    con = duckdb.connect(str(home / "findling.duckdb"))
    for statement in statements:
        con.execute(statement)
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(version)])
    con.close()
    return home, settings, report


def test_an_index_from_before_reads_pages_that_failed_as_binary_again(tmp_path):
    from findling.engine import Engine
    from findling.records import SearchMode, SearchRequest

    home, settings, _ = _indexed_as_schema(
        tmp_path,
        {
            "CharUtils.html": b"<title>CharUtils</title><p>NUL <code>\x00</code> the quokka character</p>",
            "other.txt": b"nothing to see",
        },
        20,
        "UPDATE documents SET status = 'failed', error = 'binary content in a html file' WHERE ext = 'html'",
    )
    with Engine(home, settings=settings) as engine:
        report = engine.index(embed=False)
        assert report.updated == 1 and report.unchanged == 1 and report.failed == 0
        hits = engine.find(SearchRequest("quokka", SearchMode.KEYWORD)).hits
        assert [h.title for h in hits] == ["CharUtils"]


def test_an_index_from_before_titles_underlined_plain_text_again(tmp_path):
    from findling.engine import Engine
    from findling.records import SearchMode, SearchRequest

    home, settings, _ = _indexed_as_schema(
        tmp_path,
        {
            "git-branch.txt": "git-branch(1)\n=============\n\nList the quokka branches.\n",
            "plain.txt": "quokka notes without a title\n",
        },
        21,
        "UPDATE documents SET title = 'git-branch.txt' WHERE path LIKE '%git-branch.txt'",
    )
    with Engine(home, settings=settings) as engine:
        report = engine.index(embed=False)
        assert report.updated == 1 and report.unchanged == 1  # only the underlined one is read again
        hits = engine.find(SearchRequest("quokka", SearchMode.KEYWORD)).hits
        assert sorted(h.title for h in hits) == ["git-branch(1)", "plain.txt"]


def test_an_index_from_before_leaves_out_files_of_no_known_type_it_could_not_decode(tmp_path, monkeypatch):
    import findling.ingest.extract as extract_module
    from findling.engine import Engine

    def as_before(path, data, **kwargs):  # what reading it did before: a failure
        if path.endswith(".rgb"):
            raise ExtractionError("cannot detect the text encoding")
        return extract(path, data, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(extract_module, "extract", as_before)  # prepare() reads it when it reads
        home, settings, first = _indexed_as_schema(tmp_path, {"blutux.rgb": _noise(), "notes.txt": "quokka notes"}, 21)
    assert first.failed == 1
    with Engine(home, settings=settings) as engine:
        report = engine.index(embed=False)
        assert report.failed == 0 and report.removed == 1 and report.unchanged == 1
        assert engine.status(problem_limit=10).problems == ()


def test_an_index_from_before_reads_documents_in_other_languages_again(tmp_path):
    """Schema 23: a document read as a language other than English is read again, and keeps or
    loses that language by the guess of now; English ones are not read again."""
    from findling.engine import Engine

    demo = "".join(f"print 'demo {i}'\nload \"surface{i}.dem\"\n" for i in range(40))
    german = "Die Katzen schlafen heute im Garten, und der Hund liegt unter dem Baum. " * 3
    home, settings, _ = _indexed_as_schema(
        tmp_path,
        {"all.dem": demo, "katzen.txt": german, "notes.txt": "quokka notes in English, as they are"},
        22,
        "UPDATE documents SET language = 'de' WHERE path LIKE '%all.dem'",  # as the guess of before read it
    )
    with Engine(home, settings=settings) as engine:
        report = engine.index(embed=False)
        assert report.updated == 2 and report.unchanged == 1
        languages = dict(
            engine._db.cursor().execute("SELECT regexp_extract(path, '[^/]+$'), language FROM documents").fetchall()
        )
        assert languages == {"all.dem": "en", "katzen.txt": "de", "notes.txt": "en"}
