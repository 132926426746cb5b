"""Small widgets: the snippet delegate, the score-composition bars and the preview pane."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QPlainTextEdit,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTextEdit,
    QWidget,
)

from findling.gui.item_models import SnippetHtmlRole
from findling.records import Highlight, ResultExplain


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
            doc = QTextDocument()
            doc.setDefaultFont(font)
            doc.setHtml(html)
            doc.setTextWidth(width)
            self._docs[key] = doc
        return doc

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> None:
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


class ScoreBars(QWidget):
    """A bar per piece of evidence behind one result's score, all on the same 0–1 scale:
    the share of the query's words matched, the keyword strength, the closeness in
    meaning, the relevance they add up to, and — when reranked — the reranker's judgement
    and the final score. (Rank-fusion shares are in the table: they order nothing now.)"""

    COLORS = {"bm25": QColor("#4e79a7"), "vector": QColor("#59a14f"), "bonus": QColor("#f28e2b"),
              "rerank": QColor("#b07aa1"), "final": QColor("#76b7b2")}

    def __init__(self) -> None:
        super().__init__()
        self._bars: list[tuple[str, float, QColor]] = []
        self.setMinimumHeight(120)

    def bars(self) -> list[tuple[str, float, QColor]]:
        return list(self._bars)

    def set_result(self, result: ResultExplain | None) -> None:
        bars: list[tuple[str, float, QColor]] = []
        if result is not None:
            ev = result.evidence
            for name, value, lane in (("words matched", ev.coverage, "bm25"), ("keyword strength", ev.saturation, "bm25"),
                                      ("closeness in meaning", ev.cosine, "vector")):
                if value is not None:
                    bars.append((name, max(0.0, value), self.COLORS[lane]))
            bars.append(("relevance", result.relevance, self.COLORS["final"]))
            if result.rerank is not None:
                bars.append(("reranker", result.rerank, self.COLORS["rerank"]))
                bars.append(("final score", result.final, self.COLORS["final"]))
        self._bars = bars
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        if not self._bars:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "select a result to see its score")
            return
        metrics = painter.fontMetrics()
        label_w = max(metrics.horizontalAdvance(name) for name, _, _ in self._bars) + 12
        row_h = min(28, max(14, (self.height() - 8) // len(self._bars)))
        top = 1.0  # every bar is a share or a probability: one scale, so bars compare
        width = self.width() - label_w - 70
        for i, (name, value, color) in enumerate(self._bars):
            y = 4 + i * row_h
            painter.setPen(self.palette().text().color())
            painter.drawText(4, y, label_w, row_h, int(Qt.AlignmentFlag.AlignVCenter), name)
            painter.fillRect(QRectF(label_w, y + 2, max(1.0, width * value / top), row_h - 4), color)
            painter.drawText(int(label_w + width * value / top) + 6, y, 64, row_h,
                             int(Qt.AlignmentFlag.AlignVCenter), f"{value:.2f}")


class PreviewPane(QPlainTextEdit):
    """The document's text, plain (no markup, no remote content, no scripts), with the
    query's words highlighted and the best passage scrolled into view. A selection can
    be searched with as an example ("Find similar to this passage")."""

    find_similar = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.highlighted = 0

    def contextMenuEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        menu = self.createStandardContextMenu(event.pos())
        passage = self.textCursor().selectedText().replace("\u2029", "\n").strip()
        action = menu.addAction("Find similar to this passage")
        action.setEnabled(bool(passage))
        action.triggered.connect(lambda: self.find_similar.emit(passage))
        menu.exec(event.globalPos())

    def show_text(self, text: str, highlights: Sequence[Highlight], focus_start: int | None,
                  focus_end: int | None) -> None:
        """`highlights`: where the query's terms are, found by the engine with the same
        analysis as search, so the preview lights up exactly what matched."""
        self.setPlainText(text)
        selections = []
        fmt = QTextCharFormat()
        fmt.setBackground(QColor("#ffe68a"))
        fmt.setForeground(QColor("#000000"))
        if focus_start is not None and focus_end is not None:
            band = QTextEdit.ExtraSelection()
            band.cursor = self._cursor(focus_start, focus_end)
            passage = QTextCharFormat()
            passage.setBackground(QColor(120, 160, 255, 40))
            band.format = passage
            selections.append(band)
        for span in highlights:
            sel = QTextEdit.ExtraSelection()
            sel.cursor = self._cursor(span.start, span.end)
            sel.format = fmt
            selections.append(sel)
        self.highlighted = len(selections) - (1 if focus_start is not None else 0)
        self.setExtraSelections(selections)
        target = focus_start if focus_start is not None else (selections[-1].cursor.selectionStart()
                                                              if selections else 0)
        cursor = self._cursor(target, target)
        self.setTextCursor(cursor)
        self.centerCursor()

    def _cursor(self, start: int, end: int) -> QTextCursor:
        cursor = QTextCursor(self.document())
        length = len(self.toPlainText())
        cursor.setPosition(min(start, length))
        cursor.setPosition(min(end, length), QTextCursor.MoveMode.KeepAnchor)
        return cursor
