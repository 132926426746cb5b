"""Help: the keyboard, the query syntax, and what Findling is (Help ▸ Keyboard and search
syntax, F1; Help ▸ About Findling)."""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTableWidget, QTableWidgetItem, QVBoxLayout

from findling import __version__
from findling.search.query_parser import SYNTAX_EXAMPLES

SHORTCUTS: tuple[tuple[str, str], ...] = (
    ("Ctrl+K  or  Ctrl+L", "go to the search field"),
    ("typing", "searches as you type (words, and meaning where a model is installed)"),
    ("Enter", "the full search: expanded and reranked; after Down/Up, opens that result"),
    ("Down / Up, Page Down / Page Up", "walk the results without leaving the field"),
    ("Down in the empty field", "recent searches"),
    ("Tab", "from the field to the results"),
    ("Esc", "clear the search; from the results, back to the field"),
    ("F3 / Shift+F3", "next / previous match in the preview"),
    ("Ctrl+S", "save this search to the sidebar"),
    ("Ctrl+O", "add a folder to index (or drop folders on the window)"),
    ("F5", "update the index: read what changed in the folders (also done at start)"),
    ("Ctrl+Q", "quit"),
    ("F1", "this help"),
)


def _table(rows: tuple[tuple[str, str], ...], headers: tuple[str, str]) -> QTableWidget:
    table = QTableWidget(len(rows), 2)
    table.setHorizontalHeaderLabels(list(headers))
    table.verticalHeader().setVisible(False)
    table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
    table.setWordWrap(True)
    for row, (keys, meaning) in enumerate(rows):
        table.setItem(row, 0, QTableWidgetItem(keys))
        table.setItem(row, 1, QTableWidgetItem(meaning))
    table.resizeColumnToContents(0)
    table.horizontalHeader().setStretchLastSection(True)
    table.resizeRowsToContents()
    return table


class HelpDialog(QDialog):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Findling help")
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("<b>Keyboard</b>"))
        self.shortcuts = _table(SHORTCUTS, ("Keys", "What they do"))
        layout.addWidget(self.shortcuts, 1)
        layout.addWidget(QLabel("<b>Search syntax</b> (combine freely: <code>tax ext:pdf after:1y -draft</code>)"))
        self.syntax = _table(SYNTAX_EXAMPLES, ("Type", "To find"))
        layout.addWidget(self.syntax, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 560)


def about_text() -> str:
    return (
        f"<h3>Findling {__version__}</h3>"
        "<p>Local-first desktop search: every document in the folders you add, found by its words and by "
        "its meaning, with the reasons each result ranked where it did. Nothing leaves this computer.</p>"
        "<p>Also a command line (<code>findling search</code>, <code>findling why-not</code>) and an MCP "
        "server for AI agents (<code>findling mcp</code>). Apache-2.0.</p>"
    )
