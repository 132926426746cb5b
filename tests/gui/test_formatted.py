"""Markdown and HTML previews rendered safely: nothing active, nothing loaded, no link
followed; the matched words still highlighted and walked."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QImage, QTextDocument

from findling.gui.formatted import MAX_FORMATTED_BYTES, formatted_source, sanitize_html
from tests.helpers import index_files, write

HOSTILE = """<html><head><script>alert(1)</script><style>body{background:url(http://x/y.png)}</style>
<link rel=stylesheet href="http://evil/x.css"><meta http-equiv=refresh content="0;url=http://evil"></head>
<body onload="steal()"><h1 style="color:red">Quokka facts</h1><p>The <a href="http://evil/" onclick="x()">quokka</a>
smiles.</p><img src="http://evil/pixel.gif" alt="a quokka"><iframe src="http://evil/"></iframe>
<form action="http://evil/"><input name=q></form><svg onload="x()"><script>y()</script></svg></body></html>"""


def test_sanitized_html_keeps_the_text_and_nothing_active():
    clean = sanitize_html(HOSTILE)
    for gone in (
        "<script",
        "alert",
        "onload",
        "onclick",
        "href",
        "src=",
        "style",
        "<iframe",
        "<form",
        "<input",
        "<svg",
        "http://",
        "<link",
        "<meta",
    ):
        assert gone not in clean, gone
    assert "Quokka facts" in clean and "quokka" in clean and "[a quokka]" in clean


def test_formatted_source_reads_markdown_and_html_only_and_not_huge_files(tmp_path):
    md = write(tmp_path / "a.md", "# Title\n\nText")
    kind, text = formatted_source(str(md), "md")
    assert kind == "markdown" and "<h1>Title</h1>" in text and "<p>Text</p>" in text
    page = write(tmp_path / "p.html", HOSTILE)
    kind, text = formatted_source(str(page), "html")
    assert kind == "html" and "<script" not in text
    assert formatted_source(str(write(tmp_path / "t.txt", "plain")), "txt") is None
    big = tmp_path / "big.md"
    big.write_bytes(b"x" * (MAX_FORMATTED_BYTES + 1))
    assert formatted_source(str(big), "md") is None
    assert formatted_source(str(tmp_path / "gone.md"), "md") is None


def _keyword_search(window, tmp_path, files, query):
    index_files(window.engine, tmp_path / "docs", files)
    window.mode_box.setCurrentText("Keyword")
    window.search_field.setText(query)
    window.run_search(full=False)


def test_markdown_shows_formatted_with_matches_walked(qtbot, window, tmp_path):
    _keyword_search(
        window,
        tmp_path,
        {
            "q.md": "# Quokka notes\n\nThe **quokka** smiles. "
            "![photo](http://example.com/q.png)\n\n- a quokka list item\n"
        },
        "quokka",
    )
    panel = window.preview_panel
    qtbot.waitUntil(lambda: panel.view() is panel.formatted and panel.formatted.hit_count == 3, timeout=5000)
    rendered = panel.formatted.document().toPlainText()
    assert "#" not in rendered and "**" not in rendered and "Quokka notes" in rendered
    assert panel.position.text() == "hit 1 of 3"
    qtbot.keyClick(window.search_field, Qt.Key.Key_F3)
    assert panel.position.text() == "hit 2 of 3"
    blank = panel.formatted.loadResource(
        int(QTextDocument.ResourceType.ImageResource), QUrl("http://example.com/q.png")
    )
    assert isinstance(blank, QImage) and blank.width() == 1  # made here, nothing fetched
    assert not panel.formatted.openLinks() and not panel.formatted.openExternalLinks()
    panel.format_button.setChecked(False)  # the indexed text, with the engine's own highlights
    assert panel.view() is panel.pane and panel.position.text().startswith("hit ")
    panel.format_button.setChecked(True)


def test_plain_text_files_have_no_formatted_view(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    write(docs / "n.txt", "quokka in plain text")
    window.engine.add_source(docs)
    window.engine.index()
    window.search_field.setText("quokka")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: "plain text" in window.preview.toPlainText(), timeout=5000)
    assert not window.preview_panel.format_button.isEnabled() and window.preview_panel.view() is window.preview


def test_formatted_html_shows_the_pages_own_content_as_indexed():
    page = (
        "<html><body><nav><a href='/'>Table of contents</a> coroutine index</nav><div role='main'>"
        "<h1>Coroutines</h1><p>" + "A coroutine runs until it awaits. " * 20 + "</p></div>"
        "<footer>coroutine footer</footer></body></html>"
    )
    clean = sanitize_html(page)
    assert "Coroutines" in clean and "Table of contents" not in clean and "footer" not in clean


def test_sphinx_permalinks_are_not_shown():
    page = (
        "<html><body><div role='main'><h1>Coroutines<a class='headerlink' href='#c' title='Link'>¶</a></h1>"
        "<p>Text after.</p></div></body></html>"
    )
    clean = sanitize_html(page)
    assert "¶" not in clean and "Coroutines" in clean and "Text after." in clean


def test_passage_pattern_finds_the_snippet_across_markup():
    import re

    from findling.gui.formatted import passage_pattern
    from findling.records import Highlight

    snippet = "…before it. The quokka's grin, famous on Rottnest, is…"
    start = snippet.index("quokka")
    pattern = passage_pattern(snippet, [Highlight(start, start + 6)])
    assert re.search(pattern, "The **quokka**'s\ngrin, *famous* on\n Rottnest, is", re.IGNORECASE)
    assert passage_pattern(snippet, []) == ""


def test_formatted_view_starts_at_the_best_passage_not_the_first_match(qtbot, window, tmp_path):
    _keyword_search(
        window,
        tmp_path,
        {
            "zoo.md": "# Zoo\n\nA quokka sign at the gate.\n\n"
            + "Other animals live here. " * 60
            + "\n\n## Feeding\n\nFeed the quokka *leaves* at noon; a quokka feeding draws crowds.\n"
        },
        "quokka feeding",
    )
    panel = window.preview_panel
    qtbot.waitUntil(lambda: panel.view() is panel.formatted and panel.formatted.hit_count >= 4, timeout=5000)
    rendered = panel.formatted.document().toPlainText()
    start = panel.formatted._hits[panel.formatted.current][0]
    assert start >= rendered.index("Feeding") and panel.position.text() != "hit 1 of " + str(panel.formatted.hit_count)


def test_markdown_inside_an_archive_shows_formatted_from_its_indexed_text(qtbot, window, tmp_path):
    import zipfile

    docs = tmp_path / "zipped"
    docs.mkdir()
    with zipfile.ZipFile(docs / "notes.zip", "w") as archive:
        archive.writestr("guide/q.md", "# Quokka notes\n\nThe **quokka** smiles.\n\n- a quokka list item\n")
        archive.writestr("page.html", "<html><body><main><p>A quokka page.</p></main></body></html>")
    window.engine.add_source(docs)
    window.engine.index(embed=False)
    window.mode_box.setCurrentText("Keyword")
    window.search_field.setText("quokka smiles")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: window.results.rowCount() >= 1, timeout=5000)
    assert window.results.hit(0).path.endswith("notes.zip › guide/q.md")
    window.results_view.setCurrentIndex(window.results.index(0, 0))
    panel = window.preview_panel
    qtbot.waitUntil(lambda: panel.view() is panel.formatted and panel.formatted.hit_count >= 1, timeout=5000)
    rendered = panel.formatted.document().toPlainText()
    assert "**" not in rendered and "Quokka notes" in rendered
    # a web page inside an archive: its indexed text is not its HTML, so no formatted view
    assert formatted_source(str(docs / "notes.zip › page.html"), "html", "A quokka page.") is None
