"""Source files in the window: results named by their definition, the Symbols filter, and the
preview's outline that goes to a definition."""

from __future__ import annotations

from findling.search.query_parser import symbol_query
from tests.gui.test_preview import _search
from tests.helpers import write

SOURCE = (
    '"""Billing."""\n\n\nclass Invoice:\n    """A bill."""\n\n'
    + "".join(f"    def step_{i}(self):\n        return {i}\n\n" for i in range(40))
    + "    def total_quokka(self):\n        return sum(self.lines)\n\n\ndef render(invoice):\n    return str(invoice)\n"
)


def _index(window, tmp_path):
    docs = tmp_path / "docs"
    write(docs / "billing.py", SOURCE)
    write(docs / "notes.md", "# Notes\n\nThe total of a quokka invoice is rendered later.\n")
    window.engine.add_source(docs)
    window.engine.index()
    window.mode_box.setCurrentText("Keyword")


def test_the_outline_lists_definitions_and_goes_to_one(qtbot, window, tmp_path):
    _index(window, tmp_path)
    _search(qtbot, window, "quokka", 2)
    row = next(r for r in range(2) if window.results.hit(r).path.endswith("billing.py"))
    hit = window.results.hit(row)
    assert hit.symbol == "Invoice.total_quokka"
    assert "Invoice.total_quokka" in window.results.data(window.results.index(row, 1))
    window.results_view.selectRow(row)
    outline = window.preview_panel.outline
    qtbot.waitUntil(lambda: outline.count() == 43, timeout=5000)  # the class, its 41 methods, render
    assert not outline.isHidden()
    assert outline.itemText(0).startswith("Invoice") and outline.itemText(1).startswith("    step_0")
    assert outline.currentText().startswith("    total_quokka")  # the result's own definition
    render = next(i for i in range(outline.count()) if outline.itemText(i).startswith("render"))
    outline.activated.emit(render)
    cursor = window.preview.textCursor()
    assert cursor.block().text() == "def render(invoice):"
    # a document that is not source code has no outline
    window.results_view.selectRow(1 - row)
    qtbot.waitUntil(lambda: outline.isHidden(), timeout=5000)


def test_the_symbols_filter_asks_for_definitions(qtbot, window, tmp_path):
    _index(window, tmp_path)
    window.symbols_button.setChecked(True)
    _search(qtbot, window, "total", 1)
    assert window.results.hit(0).symbol == "Invoice.total_quokka"
    assert window.searches.shown is not None and window.searches.shown.text == "sym:total"
    window.symbols_button.setChecked(False)
    qtbot.waitUntil(lambda: window.results.rowCount() == 2, timeout=5000)


def test_symbol_query_marks_the_first_plain_word():
    assert symbol_query("parse args") == "sym:parse args"
    assert symbol_query("ext:py parse") == "ext:py sym:parse"
    assert symbol_query("sym:x y") == "sym:x y"
    assert symbol_query("") == ""
