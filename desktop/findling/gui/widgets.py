"""Small widgets: the snippet delegate, the score-composition bars and the preview pane."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QPoint, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QPainter, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QStackedWidget,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from findling.gui.formatted import FormattedView, InertDocument
from findling.gui.hits import hit_selections, span_cursor, utf16_positions
from findling.gui.item_models import SnippetHtmlRole
from findling.records import Highlight, ResultExplain
from findling.search.results import page_at


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
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "no score breakdown for this result")
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


class _ButtonStrip(QWidget):
    """A row of flat buttons under grey titles, rebuilt whole each time it is filled."""

    def __init__(self) -> None:
        super().__init__()
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.buttons: list[QToolButton] = []
        self.setVisible(False)

    def _fill(self, groups: list[tuple[str, list[tuple[str, str, bool, Callable[..., None]]]]]) -> None:
        """groups: (title, [(text, tooltip, enabled, on_click)]); empty groups are left out."""
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.buttons = []
        for title, entries in groups:
            if not entries:
                continue
            label = QLabel(title)
            label.setEnabled(False)
            self._layout.addWidget(label)
            for text, tooltip, enabled, on_click in entries:
                button = QToolButton()
                button.setText(text)
                button.setToolTip(tooltip)
                button.setAutoRaise(True)
                button.setEnabled(enabled)
                button.clicked.connect(on_click)
                self._layout.addWidget(button)
                self.buttons.append(button)
        self._layout.addStretch(1)
        self.setVisible(bool(self.buttons))


class FacetBar(_ButtonStrip):
    """The results counted by type, date and folder; a click filters by that value (the
    filter boxes show it, and the search runs again). A value no filter can express
    ("Other", "Older") is shown but not clickable."""

    chosen = Signal(str, str)  # facet ("type", "modified", "folder"), value
    TITLES = {"type": "Type", "modified": "Modified", "folder": "In"}
    UNFILTERABLE = {"Other", "Older"}

    def set_facets(self, facets: dict[str, list[tuple[str, int]]]) -> None:
        def label(facet: str, value: str) -> str:
            return os.path.basename(value.rstrip(os.sep)) or value if facet == "folder" else value

        self._fill([
            (f"{self.TITLES[facet]}:", [
                (f"{label(facet, value)} {count}", value, value not in self.UNFILTERABLE,
                 lambda _c=False, f=facet, v=value: self.chosen.emit(f, v))
                for value, count in values
            ])
            for facet, values in facets.items()
        ])


class NameRow(_ButtonStrip):
    """Files whose name holds the query, above the results, as Everything shows them: a
    click opens the file."""

    chosen = Signal(str)

    def set_paths(self, paths: list[str]) -> None:
        self._fill([("Names:", [(os.path.basename(path), f"Open {path}", True,
                                 lambda _c=False, p=path: self.chosen.emit(p)) for path in paths])])


class StageTimeline(QWidget):
    """The query's stages in order, each a bar as long as its share of the time, with its
    milliseconds; a skipped stage says why, in grey."""

    def __init__(self) -> None:
        super().__init__()
        self._stages: list[tuple[str, float, str]] = []
        self.setMinimumHeight(96)

    def stages(self) -> list[tuple[str, float, str]]:
        return list(self._stages)

    def set_stages(self, stages: list[tuple[str, float, str]]) -> None:
        self._stages = stages
        self.setToolTip("\n".join(f"{name}: {f'{ms:.0f} ms' if not why else 'skipped, ' + why}"
                                  for name, ms, why in stages))
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        if not self._stages:
            return  # the summary above says why there are none
        metrics = painter.fontMetrics()
        label_w = max(metrics.horizontalAdvance(name) for name, _, _ in self._stages) + 12
        row_h = min(22, max(14, (self.height() - 4) // len(self._stages)))
        longest = max((ms for _, ms, why in self._stages if not why), default=0.0) or 1.0
        width = max(20, self.width() - label_w - 70)
        text_color = self.palette().text().color()
        muted = self.palette().placeholderText().color()
        for i, (name, ms, why) in enumerate(self._stages):
            y = 2 + i * row_h
            painter.setPen(text_color if not why else muted)
            painter.drawText(4, y, label_w, row_h, int(Qt.AlignmentFlag.AlignVCenter), name)
            if why:
                note = metrics.elidedText(f"skipped: {why}", Qt.TextElideMode.ElideRight, self.width() - label_w - 8)
                painter.drawText(label_w, y, self.width() - label_w, row_h, int(Qt.AlignmentFlag.AlignVCenter), note)
                continue
            bar = max(2.0, width * ms / longest)
            painter.fillRect(QRectF(label_w, y + 3, bar, row_h - 6), QColor("#4e79a7"))
            painter.drawText(int(label_w + bar) + 6, y, 64, row_h, int(Qt.AlignmentFlag.AlignVCenter), f"{ms:.0f} ms")


class PreviewPane(QPlainTextEdit):
    """The document's text, plain (no markup, no remote content, no scripts), with the
    query's words highlighted and the best passage scrolled into view. The matches can be
    walked (F3 / Shift+F3): the current one is marked apart and `hit_changed` says which of
    how many it is. A selection can be searched with as an example ("Find similar to this
    passage")."""

    find_similar = Signal(str)
    hit_changed = Signal(int, int)  # 1-based current hit (0: none), number of hits

    CODE = {"py", "js", "ts", "rs", "go", "c", "h", "cpp", "hpp", "java", "kt", "rb", "sh", "sql", "toml", "yaml",
            "yml", "json", "css", "cs", "swift", "php", "lua", "r", "scala", "pl"}

    def __init__(self) -> None:
        super().__init__()
        self.setReadOnly(True)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.highlighted = 0
        self.numbers = LineNumbers(self)
        self.blockCountChanged.connect(lambda _n: self.numbers.fit())
        self.updateRequest.connect(self.numbers.follow)
        self._hits: list[tuple[int, int]] = []
        self._band: tuple[int, int] | None = None
        self._pages: list[int] = []
        self.current = -1

    def contextMenuEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        menu = self.createStandardContextMenu(event.pos())
        passage = self.textCursor().selectedText().replace("\u2029", "\n").strip()
        action = menu.addAction("Find similar to this passage")
        action.setEnabled(bool(passage))
        action.triggered.connect(lambda: self.find_similar.emit(passage))
        menu.exec(event.globalPos())

    def clear(self) -> None:
        super().clear()
        self._hits, self._band, self._pages, self.current, self.highlighted = [], None, [], -1, 0
        self.numbers.show_for(False, [])
        self.hit_changed.emit(0, 0)

    def show_text(self, text: str, highlights: Sequence[Highlight], focus_start: int | None,
                  focus_end: int | None, ext: str = "", pages: Sequence[int] = ()) -> None:
        """`highlights`: where the query's terms are, found by the engine with the same
        analysis as search, so the preview lights up exactly what matched. The current hit
        starts at the first one in the best passage. Code shows unwrapped, with line numbers;
        a PDF (`pages`: where each page begins) with each page's number beside its start."""
        code = ext.lower().lstrip(".") in self.CODE
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont) if code else QFont())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap if code else QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setPlainText(text)
        # Qt counts UTF-16 units, the engine characters: they differ past U+FFFF (emoji)
        at = utf16_positions(text)
        self._pages = [at(p) for p in pages]
        self.numbers.show_for(code, [self.document().findBlock(p).blockNumber() for p in self._pages])
        self._hits = sorted((at(h.start), at(h.end)) for h in highlights)
        self._band = (at(focus_start), at(focus_end)) if focus_start is not None and focus_end is not None else None
        self.highlighted = len(self._hits)
        if self._hits:
            start = at(focus_start) if focus_start is not None else 0
            self.current = next((i for i, (s, _) in enumerate(self._hits) if s >= start), 0)
            self._show_current()
        else:
            self.current = -1
            self._paint()
            target = at(focus_start or 0)
            self.setTextCursor(self._cursor(target, target))
            self.centerCursor()
            self.hit_changed.emit(0, 0)

    def current_page(self) -> int:
        """The page of the current match (else of the cursor); 0 when the text has no pages."""
        where = self._hits[self.current][0] if self.current >= 0 else self.textCursor().position()
        return page_at(self._pages, where)

    @property
    def hit_count(self) -> int:
        return len(self._hits)

    def next_hit(self) -> None:
        if self._hits:
            self.current = (self.current + 1) % len(self._hits)
            self._show_current()

    def previous_hit(self) -> None:
        if self._hits:
            self.current = (self.current - 1) % len(self._hits)
            self._show_current()

    def _show_current(self) -> None:
        self._paint()
        start, _ = self._hits[self.current]
        self.setTextCursor(self._cursor(start, start))
        self.centerCursor()
        self.hit_changed.emit(self.current + 1, len(self._hits))

    def _paint(self) -> None:
        selections = []
        if self._band is not None:
            band = QTextEdit.ExtraSelection()
            band.cursor = self._cursor(*self._band)
            passage = QTextCharFormat()
            passage.setBackground(QColor(120, 160, 255, 40))
            band.format = passage
            selections.append(band)
        selections += hit_selections(self.document(), self._hits, self.current)
        self.setExtraSelections(selections)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        rect = self.contentsRect()
        self.numbers.setGeometry(rect.left(), rect.top(), self.numbers.width_needed(), rect.height())

    def _cursor(self, start: int, end: int) -> QTextCursor:
        return span_cursor(self.document(), start, end)


class LineNumbers(QWidget):
    """The gutter beside the preview (Qt's code editor example): every line's number for
    code, each page's number where the page begins for a PDF."""

    def __init__(self, editor: QPlainTextEdit) -> None:
        super().__init__(editor)
        self.editor = editor
        self.page_blocks: dict[int, int] = {}  # block number -> the page that begins there
        self.setVisible(False)

    def show_for(self, lines: bool, page_blocks: Sequence[int]) -> None:
        """Line numbers, or page numbers at these blocks (in page order), or nothing."""
        self.page_blocks = {}
        for page, block in enumerate(page_blocks, 1):
            self.page_blocks.setdefault(block, page)  # an empty page shares its block with the next
        self.setVisible(lines or bool(self.page_blocks))
        self.fit()

    def label(self, block_number: int) -> str:
        if self.page_blocks:
            page = self.page_blocks.get(block_number)
            return f"p. {page}" if page else ""
        return str(block_number + 1)

    def width_needed(self) -> int:
        if self.isHidden():
            return 0
        widest = f"p. {max(self.page_blocks.values())}" if self.page_blocks else str(max(1, self.editor.blockCount()))
        return 10 + self.editor.fontMetrics().horizontalAdvance(widest)

    def fit(self) -> None:
        self.editor.setViewportMargins(self.width_needed(), 0, 0, 0)
        rect = self.editor.contentsRect()
        self.setGeometry(rect.left(), rect.top(), self.width_needed(), rect.height())

    def follow(self, rect, dy: int) -> None:
        if dy:
            self.scroll(0, dy)
        else:
            self.update(0, rect.y(), self.width(), rect.height())

    def line_at(self, y: int) -> int:
        """The 1-based line drawn at height y (for tests and clicks)."""
        block = self.editor.cursorForPosition(self.editor.viewport().mapFrom(self, QPoint(0, y))).block()
        return block.blockNumber() + 1

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.fillRect(event.rect(), self.palette().window())
        painter.setPen(self.palette().placeholderText().color())
        block = self.editor.firstVisibleBlock()
        top = int(self.editor.blockBoundingGeometry(block).translated(self.editor.contentOffset()).top())
        height = self.editor.fontMetrics().height()
        while block.isValid() and top <= event.rect().bottom():
            if block.isVisible():
                painter.drawText(0, top, self.width() - 5, height, int(Qt.AlignmentFlag.AlignRight),
                                 self.label(block.blockNumber()))
            top += int(self.editor.blockBoundingRect(block).height())
            block = block.next()


class PreviewPanel(QWidget):
    """The preview with its bar: previous / next match, "hit 3 of 7" (and its page in a PDF),
    Open at page, Formatted (Markdown and HTML rendered, safely; see gui/formatted.py), and
    More like this."""

    more_like_this = Signal()
    open_page = Signal(int)

    def __init__(self, pane: PreviewPane) -> None:
        super().__init__()
        self.pane = pane
        self.formatted = FormattedView()
        self.stack = QStackedWidget()
        self.stack.addWidget(pane)
        self.stack.addWidget(self.formatted)
        self.previous = QToolButton()
        self.previous.setText("◀ Previous")
        self.previous.setToolTip("Previous match (Shift+F3)")
        self.previous.clicked.connect(self.previous_hit)
        self.next = QToolButton()
        self.next.setText("Next ▶")
        self.next.setToolTip("Next match (F3)")
        self.next.clicked.connect(self.next_hit)
        self.position = QLabel("")
        self.page_button = QToolButton()
        self.page_button.setToolTip("Open the PDF in its viewer at the current match's page")
        self.page_button.clicked.connect(lambda: self.open_page.emit(self.pane.current_page()))
        self.page_button.setVisible(False)
        self.pages_open = False  # whether a viewer that opens at a page is known (set by the window)
        self.format_button = QToolButton()
        self.format_button.setText("Formatted")
        self.format_button.setCheckable(True)
        self.format_button.setChecked(True)
        self.format_button.setToolTip("Markdown and HTML as they read (nothing loaded, no links followed)")
        self.format_button.toggled.connect(self._choose_view)
        self.similar = QToolButton()
        self.similar.setText("More like this")
        self.similar.setToolTip("Documents like this one, by meaning")
        self.similar.clicked.connect(self.more_like_this.emit)
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        for widget in (self.previous, self.next, self.position):
            bar.addWidget(widget)
        bar.addStretch(1)
        bar.addWidget(self.page_button)
        bar.addWidget(self.format_button)
        bar.addWidget(self.similar)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(bar)
        layout.addWidget(self.stack, 1)
        for view in (pane, self.formatted):
            view.hit_changed.connect(lambda c, t, v=view: self._on_hit(c, t) if self.view() is v else None)
        self._has_formatted = False
        self.format_button.setEnabled(False)
        self._on_hit(0, 0)

    def show_formatted(self, source: tuple[str, str] | None, words: list[str], passage: str = "") -> None:
        """The document's formatted rendering, when it has one (None: plain only), starting
        at the match in `passage` (see formatted.passage_pattern)."""
        self._has_formatted = source is not None
        self.format_button.setEnabled(self._has_formatted)
        if source is not None:
            self.formatted.show_source(source[0], source[1], words, passage)
        self._choose_view(self.format_button.isChecked())

    def show_message(self, text: str) -> None:
        """Nothing of any document: the pane cleared, saying why (a failed preview, a list
        that no longer holds the document shown)."""
        self.pane.clear()
        self.pane.setPlainText(text)
        self.formatted.clear()
        self._has_formatted = False
        self.format_button.setEnabled(False)
        self._choose_view(False)
        self.position.setText("")  # no document: no matches to walk

    def view(self) -> PreviewPane | FormattedView:
        return self.formatted if self.stack.currentWidget() is self.formatted else self.pane

    def _choose_view(self, formatted: bool) -> None:
        self.stack.setCurrentWidget(self.formatted if formatted and self._has_formatted else self.pane)
        view = self.view()
        self._on_hit(view.current + 1 if view.current >= 0 else 0, view.hit_count)

    def next_hit(self) -> None:
        self.view().next_hit()

    def previous_hit(self) -> None:
        self.view().previous_hit()

    def _on_hit(self, current: int, total: int) -> None:
        page = self.pane.current_page() if self.view() is self.pane else 0
        where = f" · page {page}" if page else ""
        self.position.setText((f"hit {current} of {total}" if total else "no matches in the text") + where)
        self.page_button.setText(f"Open at page {page}")
        self.page_button.setVisible(bool(page) and self.pages_open)
        self.previous.setEnabled(total > 1)
        self.next.setEnabled(total > 1)
