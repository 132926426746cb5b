"""The results table's snippet column, drawn as rich text with the matches highlighted."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize
from PySide6.QtGui import QPainter, QTextDocument
from PySide6.QtWidgets import (
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
)

from findling.gui.formatted import InertDocument
from findling.gui.item_models import SnippetHtmlRole


class SnippetDelegate(QStyledItemDelegate):
    """Draws the snippet column as rich text, matches highlighted. Laid-out documents are
    kept per (snippet, width): laying out rich text on every repaint cost the UI thread
    tens of milliseconds a screenful."""

    _CACHE_LIMIT = 256

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._docs: dict[tuple[str, int], QTextDocument] = {}

    def _document(self, html: str, width: int, font) -> QTextDocument:
        key = (html, width)
        doc = self._docs.get(key)
        if doc is None:
            if len(self._docs) >= self._CACHE_LIMIT:
                self._docs.clear()
            doc = InertDocument()  # the snippet is escaped; and even so nothing it names is opened
            doc.setDefaultFont(font)
            doc.setHtml(html)
            doc.setTextWidth(width)
            self._docs[key] = doc
        return doc

    def paint(
        self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        self.initStyleOption(option, index)
        option.text = ""
        style = option.widget.style() if option.widget else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, option, painter, option.widget)
        doc = self._document(index.data(SnippetHtmlRole) or "", option.rect.width() - 8, option.font)
        painter.save()
        painter.translate(option.rect.left() + 4, option.rect.top() + 2)
        painter.setClipRect(QRectF(0, 0, option.rect.width() - 8, option.rect.height() - 4))
        doc.drawContents(painter)
        painter.restore()

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        return QSize(400, option.fontMetrics.height() * 3 + 8)
