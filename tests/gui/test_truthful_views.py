"""The window shows what the index holds and what the query asked: a preview that fails says so
in the pane, and nothing of an earlier list survives a bad query, a cleared field, a removed
folder or a new query."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.helpers import index_files

XHTML = ("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
         "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\" "
         "\"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">"
         "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title>Routine vacuuming</title></head><body>"
         "<div class=\"sect1\"><h2>Routine Vacuuming</h2><p>PostgreSQL databases require periodic maintenance "
         "known as vacuuming. The autovacuum daemon does it for most installations.</p></div></body></html>")


def _search(qtbot, window, text: str, rows: int | None = None) -> None:
    window.mode_box.setCurrentText("Keyword")
    window.search_field.setText(text)
    window.run_search(full=False)
    if rows is not None:
        qtbot.waitUntil(lambda: window.results.rowCount() == rows, timeout=5000)


def test_an_xhtml_page_with_an_xml_declaration_previews_formatted(qtbot, window, tmp_path):
    index_files(window.engine, tmp_path / "docs", {"routine-vacuuming.html": XHTML})
    _search(qtbot, window, "vacuuming", rows=1)
    panel = window.preview_panel
    qtbot.waitUntil(lambda: panel.view() is panel.formatted and panel.formatted.hit_count >= 2, timeout=5000)
    assert "periodic maintenance" in panel.formatted.document().toPlainText()
    assert window.statusBar().currentMessage().startswith("1 result")


def test_a_failed_preview_clears_the_pane_and_says_so_there(qtbot, window, tmp_path, monkeypatch):
    index_files(window.engine, tmp_path / "docs", {"a.md": "the quokka smiles", "b.md": "a quokka sleeps"})
    _search(qtbot, window, "quokka", rows=2)
    qtbot.waitUntil(lambda: "quokka" in window.preview.toPlainText(), timeout=5000)

    def broken(*_args):
        raise OSError("the disk went away")

    monkeypatch.setattr(window.engine, "document_text", broken)
    window.results_view.setCurrentIndex(window.results.index(1, 0))
    qtbot.waitUntil(lambda: "failed: OSError: the disk went away" in window.preview.toPlainText(), timeout=5000)
    assert "quokka" not in window.preview.toPlainText()
    assert window.statusBar().currentMessage().startswith("2 results")  # the count stays where it was


def test_nothing_of_an_earlier_list_survives(qtbot, window, tmp_path):
    folder = index_files(window.engine, tmp_path / "docs", {"a.md": "the quokka smiles", "b.md": "a quokka sleeps"})
    _search(qtbot, window, "quokka", rows=2)
    qtbot.waitUntil(lambda: "quokka" in window.preview.toPlainText(), timeout=5000)
    # a bad query: an error, and no list under it
    _search(qtbot, window, "quokka after:yesterdayish")
    qtbot.waitUntil(lambda: "Search failed" in window.statusBar().currentMessage(), timeout=5000)
    assert window.results.rowCount() == 0 and window.preview.toPlainText() == ""
    # Esc in the field: no list, no preview, no count
    _search(qtbot, window, "quokka", rows=2)
    qtbot.waitUntil(lambda: "quokka" in window.preview.toPlainText(), timeout=5000)
    window.why_not(str(folder / "a.md"))
    qtbot.waitUntil(lambda: window.why_not_answer.isVisible() and "Why not" in window.why_not_answer.text(),
                    timeout=5000)
    window.search_field.setFocus()
    qtbot.keyClick(window.search_field, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.results.rowCount() == 0, timeout=5000)
    assert window.preview.toPlainText() == ""
    assert not window.why_not_answer.isVisible()  # it answered the query that is gone
    assert "result" not in window.statusBar().currentMessage()
    # a removed folder takes its results with it
    _search(qtbot, window, "quokka", rows=2)
    window.refresh_sources()
    qtbot.waitUntil(lambda: window.sources_model.rowCount() == 1, timeout=5000)
    window.sources_view.setCurrentIndex(window.sources_model.index(0))
    window.remove_selected_source()
    qtbot.waitUntil(lambda: window.results.rowCount() == 0, timeout=5000)
