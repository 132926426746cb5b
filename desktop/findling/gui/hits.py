"""Marking the query's matches in a text view (the plain preview and the formatted one
alike): every match yellow, the current one orange."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextEdit

HIT = QColor("#ffe68a")
CURRENT = QColor("#ff9f43")


def span_cursor(document: QTextDocument, start: int, end: int) -> QTextCursor:
    """A cursor selecting [start, end), clamped to the document."""
    cursor = QTextCursor(document)
    length = document.characterCount() - 1
    cursor.setPosition(min(start, length))
    cursor.setPosition(min(end, length), QTextCursor.MoveMode.KeepAnchor)
    return cursor


def hit_selections(document: QTextDocument, hits: Sequence[tuple[int, int]],
                   current: int) -> list[QTextEdit.ExtraSelection]:
    selections = []
    for i, (start, end) in enumerate(hits):
        fmt = QTextCharFormat()
        fmt.setBackground(CURRENT if i == current else HIT)
        fmt.setForeground(QColor("#000000"))
        selection = QTextEdit.ExtraSelection()
        selection.cursor = span_cursor(document, start, end)
        selection.format = fmt
        selections.append(selection)
    return selections
