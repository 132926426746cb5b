"""Open at line / Open at page: the chosen editor or viewer command, filled in and started,
or a known program when nothing is chosen."""

from __future__ import annotations

import shutil
import sys

from findling.gui import open_at
from findling.gui.open_at import editor_command, viewer_command
from tests.helpers import make_pdf


def test_the_template_is_filled_after_splitting():
    assert editor_command('kate --line {line} "{path}"', "/a b/it's.md", 12) == ["kate", "--line", "12", "/a b/it's.md"]
    assert editor_command("subl {path}:{line}", "/x.py", 3) == ["subl", "/x.py:3"]
    assert editor_command('broken "quote', "/x", 1) is None


def test_vs_code_when_nothing_is_set(monkeypatch):
    monkeypatch.setattr(open_at.shutil, "which", lambda name: "/usr/bin/code" if name == "code" else None)
    assert editor_command("", "/x.py", 7) == ["/usr/bin/code", "-g", "/x.py:7"]
    monkeypatch.setattr(open_at.shutil, "which", lambda name: None)
    assert editor_command("", "/x.py", 7) is None


def test_the_window_starts_the_editor_at_the_line(qtbot, window, tmp_path):
    seen = tmp_path / "seen.txt"
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(' '.join(sys.argv[1:]))\n")
    window.engine.settings.search.open_at_line = (
        f"{shutil.which(sys.executable) or sys.executable} {script} {{path}} {{line}}"
    )
    command = editor_command(window.engine.settings.search.open_at_line, str(tmp_path / "doc.md"), 42)
    window.open_at(command, "open_at_line")
    qtbot.waitUntil(seen.exists, timeout=10000)
    qtbot.waitUntil(lambda: seen.read_text() == f"{tmp_path / 'doc.md'} 42", timeout=5000)


def test_page_viewer_from_the_template_or_the_default_viewer_first(monkeypatch):
    assert viewer_command("okular --page {page} {path}", "/a b.pdf", 4) == ["okular", "--page", "4", "/a b.pdf"]
    on_path = {"evince": "/usr/bin/evince", "okular": "/usr/bin/okular"}
    monkeypatch.setattr(open_at.shutil, "which", on_path.get)
    monkeypatch.setattr(open_at, "default_pdf_viewer", lambda: "")
    assert viewer_command("", "/r.pdf", 3) == ["/usr/bin/evince", "--page-index=3", "/r.pdf"]
    monkeypatch.setattr(open_at, "default_pdf_viewer", lambda: "okular")  # the desktop's choice wins
    assert viewer_command("", "/r.pdf", 3) == ["/usr/bin/okular", "--page", "3", "/r.pdf"]
    monkeypatch.setattr(open_at.shutil, "which", lambda name: None)
    assert viewer_command("", "/r.pdf", 3) is None


def test_the_default_pdf_viewer_is_read_from_xdg_mime(monkeypatch, tmp_path):
    fake = tmp_path / "xdg-mime"
    fake.write_text("#!/bin/sh\necho okularApplication_pdf.desktop\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(open_at.sys, "platform", "linux")
    open_at.default_pdf_viewer.cache_clear()
    try:
        assert open_at.default_pdf_viewer() == "okular"
    finally:
        open_at.default_pdf_viewer.cache_clear()


def test_a_pdf_preview_names_the_page_and_opens_the_viewer_there(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    filler = "Plain words about nothing in particular fill this page. " * 20
    make_pdf(
        docs / "report.pdf",
        ["Annual report. " + filler, filler, filler + "\nThe quokka census.", filler, "Appendix: one more quokka."],
    )
    window.engine.add_source(docs)
    window.engine.index()
    seen = tmp_path / "seen.txt"
    script = tmp_path / "viewer.py"
    script.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(' '.join(sys.argv[1:]))\n")
    window.engine.settings.search.open_at_page = (
        f"{shutil.which(sys.executable) or sys.executable} {script} {{page}} {{path}}"
    )
    qtbot.keyClicks(window.search_field, "quokka")
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=5000)
    assert window.results.hit(0).page == 3
    assert window.results.data(window.results.index(0, 1)).startswith("p. 3 · ")  # the list says the page too
    panel = window.preview_panel
    qtbot.waitUntil(lambda: panel.position.text() == "hit 1 of 2 · page 3", timeout=5000)
    gutter = window.preview.numbers
    assert not gutter.isHidden()
    labels = [gutter.label(b) for b in range(window.preview.blockCount())]
    assert [x for x in labels if x] == ["p. 1", "p. 2", "p. 3", "p. 4", "p. 5"]
    assert labels.index("p. 3") < window.preview.textCursor().blockNumber() < labels.index("p. 4")
    panel.next.click()
    assert panel.position.text() == "hit 2 of 2 · page 5"
    assert not panel.page_button.isHidden() and panel.page_button.text() == "Open at page 5"
    panel.page_button.click()
    qtbot.waitUntil(seen.exists, timeout=10000)
    qtbot.waitUntil(lambda: seen.read_text() == f"5 {docs / 'report.pdf'}", timeout=5000)


def test_no_page_button_without_a_viewer_or_outside_pdfs(qtbot, window, tmp_path, monkeypatch):
    monkeypatch.setattr(open_at.shutil, "which", lambda name: None)
    docs = tmp_path / "docs"
    docs.mkdir()
    make_pdf(docs / "report.pdf", ["Cover", "The quokka census."])
    (docs / "note.md").write_text("# Note\n\nA quokka in prose.")
    window.engine.add_source(docs)
    window.engine.index()
    qtbot.keyClicks(window.search_field, "quokka")
    qtbot.waitUntil(lambda: window.results.rowCount() == 2, timeout=5000)
    panel = window.preview_panel
    for row in range(2):
        window.results_view.selectRow(row)
        pdf = window.results.hit(row).ext == "pdf"
        qtbot.waitUntil(
            lambda pdf=pdf: (
                panel.position.text().endswith("page 2") == pdf and ("census" in window.preview.toPlainText()) == pdf
            ),
            timeout=5000,
        )
        assert panel.page_button.isHidden()
