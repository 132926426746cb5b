"""Recent searches on Down in the empty field, saved searches in the sidebar, and the instant
row of files whose name matches."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QInputDialog

from findling.gui import opening
from tests.helpers import index_files


def _index(window, tmp_path):
    return index_files(
        window.engine,
        tmp_path / "docs",
        {
            "budget-2024.md": "# Budget\n\nForty thousand euros for marketing.",
            "notes.md": "# Notes\n\nThe budget meeting moved to Friday.",
            "zebra.txt": "zebra stripes",
        },
    )


def test_recent_searches_on_down_in_the_empty_field(qtbot, window, tmp_path):
    _index(window, tmp_path)
    window.activateWindow()
    window.search_field.setFocus()
    for text in ("zebra", "budget"):
        window.search_field.setText(text)
        qtbot.keyClick(window.search_field, Qt.Key.Key_Return)
    assert window.history.items()[:2] == ["budget", "zebra"]
    window.search_field.clear()
    qtbot.keyClick(window.search_field, Qt.Key.Key_Down)
    popup = window.history_popup.popup()
    assert popup.isVisible() and popup.model().rowCount() == 2
    window.history_popup.activated.emit("zebra")
    assert window.search_field.text() == "zebra"
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=5000)


def test_saved_searches_restore_query_mode_and_filters(qtbot, window, tmp_path, monkeypatch):
    _index(window, tmp_path)
    window.mode_box.setCurrentText("Keyword")
    window.type_box.setCurrentText("Markdown")
    window.search_field.setText("budget")
    monkeypatch.setattr(QInputDialog, "getText", lambda *a, **k: ("Money", True))
    window.save_search()
    assert [window.saved_view.item(i).text() for i in range(window.saved_view.count())] == ["Money"]
    window.mode_box.setCurrentText("Hybrid")
    window.type_box.setCurrentText("Any type")
    window.search_field.setText("zebra")
    window.run_saved("Money")
    assert (window.search_field.text(), window.mode_box.currentText(), window.type_box.currentText()) == (
        "budget",
        "Keyword",
        "Markdown",
    )
    qtbot.waitUntil(lambda: window.results.rowCount() == 2, timeout=5000)
    window.remove_saved("Money")
    assert window.saved_view.count() == 0


def test_files_named_like_the_query_show_above_the_results(qtbot, window, tmp_path, monkeypatch):
    docs = _index(window, tmp_path)
    opened = []
    monkeypatch.setattr(opening.QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()))
    window.search_field.setText("budget")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: [b.text() for b in window.names.buttons] == ["budget-2024.md"], timeout=5000)
    assert window.names.isVisible()
    window.names.buttons[0].click()
    assert opened == [str(docs / "budget-2024.md")]
    window.search_field.setText("stripes")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: not window.names.isVisible(), timeout=5000)
