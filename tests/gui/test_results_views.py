"""Results sorted by relevance, date or name; facets with counts that filter on click."""

from __future__ import annotations

import os
import time

from tests.helpers import write


def _search(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    write(docs / "b-notes.md", "# B\n\nzebra zebra zebra stripes")
    write(docs / "a-list.txt", "zebra once")
    write(docs / "c-page.html", "<title>C</title><p>zebra zebra</p>")
    old = time.time() - 20 * 86400
    os.utime(docs / "a-list.txt", (old, old))
    window.engine.add_source(docs)
    window.engine.index()
    window.refresh_sources()
    qtbot.waitUntil(lambda: window.indexed_folders == [str(docs)], timeout=5000)
    window.mode_box.setCurrentText("Keyword")
    window.search_field.setText("zebra")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: window.results.rowCount() == 3, timeout=5000)
    return docs


def _names(window):
    return [os.path.basename(window.results.hit(r).path) for r in range(window.results.rowCount())]


def test_sort_by_name_and_date_keeps_the_selection(qtbot, window, tmp_path):
    _search(qtbot, window, tmp_path)
    relevance = _names(window)
    window.results_view.selectRow(relevance.index("c-page.html"))
    window.sort_box.setCurrentText("Name")
    assert _names(window) == ["a-list.txt", "b-notes.md", "c-page.html"]
    assert os.path.basename(window.current_hit().path) == "c-page.html"
    window.sort_box.setCurrentText("Newest first")
    assert _names(window)[-1] == "a-list.txt"
    window.sort_box.setCurrentText("Relevance")
    assert _names(window) == relevance


def test_facets_count_the_results_and_filter_on_click(qtbot, window, tmp_path):
    docs = _search(qtbot, window, tmp_path)
    labels = [b.text() for b in window.facets.buttons]
    assert {"Markdown 1", "Text 1", "Web pages 1", "Today 2", "Past month 1", f"{docs.name} 3"} <= set(labels)
    markdown = next(b for b in window.facets.buttons if b.text() == "Markdown 1")
    markdown.click()
    assert window.type_box.currentText() == "Markdown"
    qtbot.waitUntil(lambda: _names(window) == ["b-notes.md"], timeout=5000)
    assert [b.text() for b in window.facets.buttons if b.text().startswith("Markdown")] == ["Markdown 1"]
