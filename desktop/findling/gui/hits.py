"""Marking the query's matches in a text view (the plain preview and the formatted one
alike): every match yellow, the current one orange."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Sequence

from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextEdit

HIT = QColor("#ffe68a")
CURRENT = QColor("#ff9f43")


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def utf16_positions(text: str) -> Callable[[int], int]:
    """Maps a character offset in `text` to Qt's position (UTF-16 units, where a character
    past U+FFFF, an emoji, takes two)."""
    astral = [m.start() for m in _ASTRAL.finditer(text)]
    if not astral:
        return lambda offset: offset
    return lambda offset: offset + bisect_left(astral, offset)


def span_cursor(document: QTextDocument, start: int, end: int) -> QTextCursor:
    """A cursor selecting [start, end), clamped to the document."""
    cursor = QTextCursor(document)
    length = document.characterCount() - 1
    cursor.setPosition(min(start, length))
    cursor.setPosition(min(end, length), QTextCursor.MoveMode.KeepAnchor)
    return cursor


def hit_selections(
    document: QTextDocument, hits: Sequence[tuple[int, int]], current: int
) -> list[QTextEdit.ExtraSelection]:
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
