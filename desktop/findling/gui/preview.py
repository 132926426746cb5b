"""The preview: the document's text with its matches and line (or page) numbers, its formatted
view, and the panel that holds them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontDatabase, QPainter, QTextCharFormat, QTextCursor, QTextOption
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QStackedWidget,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from findling.file_kinds import KINDS
from findling.gui.formatted import FormattedView
from findling.gui.hits import hit_selections, span_cursor, utf16_positions
from findling.records import CodeSymbol, Highlight
from findling.search.results import page_at
from findling.search.snippets import heading_marks, without_spans


class PreviewPane(QPlainTextEdit):
    """The document's text, plain (no markup, no remote content, no scripts), with the
    query's words highlighted and the best passage scrolled into view. The matches can be
    walked (F3 / Shift+F3): the current one is marked apart and `hit_changed` says which of
    how many it is. A selection can be searched with as an example ("Find similar to this
    passage")."""

    find_similar = Signal(str)
    hit_changed = Signal(int, int)  # 1-based current hit (0: none), number of hits

    # unwrapped, with line numbers: the file-kind table's source and configuration files
    CODE = frozenset(ext for ext, kind in KINDS.items() if kind.category == "Code")

    TABLES = {"xlsx", "xlsm", "ods", "tsv"}  # documents whose lines are rows of tab-separated cells
    MAX_TABLE_LINES = 5000  # a longer table's columns are as wide as its first rows need

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
        self.by_meaning = False
        self._pages: list[int] = []
        self._at = utf16_positions("")
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
        self.by_meaning = False
        self.numbers.show_for(False, [])
        self.hit_changed.emit(0, 0)

    def show_text(
        self,
        text: str,
        highlights: Sequence[Highlight],
        focus_start: int | None,
        focus_end: int | None,
        ext: str = "",
        pages: Sequence[int] = (),
    ) -> None:
        """`highlights`: where the query's terms are, found by the engine with the same
        analysis as search, so the preview lights up exactly what matched. The current hit
        starts at the first one in the best passage. Code shows unwrapped, with line numbers;
        a PDF (`pages`: where each page begins) with each page's number beside its start. Prose
        shows its headings bold, without the `## ` marks the readers of documents write them with
        (in code, `# ` begins a comment and stays)."""
        code = ext.lower().lstrip(".") in self.CODE
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont) if code else QFont())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap if code else QPlainTextEdit.LineWrapMode.WidgetWidth)
        table = ext.lower().lstrip(".") in self.TABLES
        if table:  # rows stay whole lines, their cells under their columns
            self.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        marks = [] if code else heading_marks(text)
        shown, moved = without_spans(text, marks)
        self.setPlainText(shown)
        # Qt counts UTF-16 units, the engine characters: they differ past U+FFFF (emoji)
        in_utf16 = utf16_positions(shown)
        at = self._at = (lambda offset: in_utf16(moved(offset))) if marks else in_utf16
        self._embolden(at(start) for start, _ in marks)
        self._line_up_columns(shown if table else "")
        self._pages = [at(p) for p in pages]
        self.numbers.show_for(code, [self.document().findBlock(p).blockNumber() for p in self._pages])
        self._hits = sorted((at(h.start), at(h.end)) for h in highlights)
        self._band = (at(focus_start), at(focus_end)) if focus_start is not None and focus_end is not None else None
        # found by meaning, with none of the query's words: the passage that matched is what to light
        self.by_meaning = not self._hits and self._band is not None and self._band[1] > self._band[0]
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

    def _line_up_columns(self, text: str) -> None:
        """Tab stops where a table's columns begin: each column as wide as its widest cell (to a
        limit), so a spreadsheet's values stand under their headings, as in a spreadsheet. Other
        text keeps Qt's even tab stops."""
        widths: list[int] = []
        metrics = self.fontMetrics()
        widest = 24 * metrics.averageCharWidth()
        for line in islice((line for line in text.splitlines() if "\t" in line), self.MAX_TABLE_LINES):
            for column, cell in enumerate(line.split("\t")[:-1]):  # the last cell needs no stop after it
                width = min(metrics.horizontalAdvance(cell[:64]), widest)
                if column == len(widths):
                    widths.append(width)
                elif width > widths[column]:
                    widths[column] = width
        option = self.document().defaultTextOption()
        stops, at = [], 0
        for width in widths:
            at += width + 2 * metrics.averageCharWidth()
            stops.append(QTextOption.Tab(at, QTextOption.TabType.LeftTab))
        option.setTabs(stops)
        self.document().setDefaultTextOption(option)

    def _embolden(self, starts: Iterable[int]) -> None:
        """The lines beginning at these positions in bold: the headings whose marks were taken out."""
        bold = QTextCharFormat()
        bold.setFontWeight(QFont.Weight.Bold)
        for start in starts:
            block = self.document().findBlock(start)
            cursor = QTextCursor(block)
            cursor.setPosition(block.position() + block.length() - 1, QTextCursor.MoveMode.KeepAnchor)
            cursor.mergeCharFormat(bold)

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
            passage.setBackground(QColor(120, 160, 255, 110 if self.by_meaning else 40))
            band.format = passage
            selections.append(band)
        selections += hit_selections(self.document(), self._hits, self.current)
        self.setExtraSelections(selections)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        rect = self.contentsRect()
        self.numbers.setGeometry(rect.left(), rect.top(), self.numbers.width_needed(), rect.height())

    def go_to(self, offset: int) -> None:
        """Put the cursor at a character of the text shown (a definition of the outline), its line at the top."""
        target = self._at(offset)
        self.setTextCursor(self._cursor(target, target))
        block = self.document().findBlock(target)
        self.verticalScrollBar().setValue(block.blockNumber())
        self.setFocus()

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
                painter.drawText(
                    0, top, self.width() - 5, height, int(Qt.AlignmentFlag.AlignRight), self.label(block.blockNumber())
                )
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
        self.byline = QLabel("")  # the document's author, from its properties
        self.byline.setObjectName("byline")
        self.byline.setTextFormat(Qt.TextFormat.PlainText)
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
        self.outline, self._symbols = self._outline_box(), list[CodeSymbol]()
        bar = QHBoxLayout()
        bar.setContentsMargins(0, 0, 0, 0)
        for widget in (self.previous, self.next, self.position, self.byline):
            bar.addWidget(widget)
        bar.addStretch(1)
        bar.addWidget(self.outline)
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

    def show_byline(
        self, author: str, copies: Sequence[str] = (), near: Sequence[str] = (), ocr_pages: int = 0
    ) -> None:
        """The document's author, whether its words were read by OCR (they may hold its misreadings),
        and the other places the same file (and nearly the same text) is, listed once under this one."""
        parts = [f"by {author}"] if author else []
        if ocr_pages:
            parts.append("text read by OCR" + (f" from {ocr_pages} pages" if ocr_pages > 1 else ""))
        if copies:
            parts.append(f"{len(copies) + 1} copies" + (f", also at {copies[0]}" if len(copies) == 1 else ""))
        if near:
            parts.append(f"nearly the same: {near[0]}" if len(near) == 1 else f"{len(near)} nearly the same")
        self.byline.setText("".join(f" · {p}" for p in parts).strip())
        lines = [
            *(("Same file at:", *copies) if copies else ()),
            *(("Nearly the same text at:", *near) if near else ()),
        ]
        self.byline.setToolTip("\n".join(lines))

    def _outline_box(self) -> QComboBox:
        """A source file's definitions, as an editor's symbol list: choosing one shows it."""
        box = QComboBox()
        box.setToolTip("The file's functions, classes and methods: choose one to go to it")
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        box.setMinimumContentsLength(24)
        box.activated.connect(self._go_to_symbol)
        box.setVisible(False)
        return box

    def show_outline(self, symbols: Sequence[CodeSymbol], current: str = "") -> None:
        """The definitions of the source file shown (spans in the pane's text), indented under
        their owners, the one named `current` (the result's) chosen; hidden for any other document."""
        self._symbols = list(symbols)
        self.outline.clear()
        open_ends: list[int] = []
        for symbol in self._symbols:
            while open_ends and open_ends[-1] < symbol.end:
                open_ends.pop()
            self.outline.addItem("    " * len(open_ends) + f"{symbol.name}  ({symbol.kind}, line {symbol.line})")
            self.outline.setItemData(
                self.outline.count() - 1, symbol.signature or symbol.qualname, Qt.ItemDataRole.ToolTipRole
            )
            open_ends.append(symbol.end)
        self.outline.setCurrentIndex(next((i for i, s in enumerate(self._symbols) if s.qualname == current), 0))
        self.outline.setVisible(bool(self._symbols))

    def _go_to_symbol(self, index: int) -> None:
        if 0 <= index < len(self._symbols):
            self._choose_view(False)  # lines are the plain view's
            self.pane.go_to(self._symbols[index].start)

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
        self.byline.setText("")
        self.show_outline(())

    def view(self) -> PreviewPane | FormattedView:
        return self.formatted if self.stack.currentWidget() is self.formatted else self.pane

    def _choose_view(self, formatted: bool) -> None:
        # a passage found by meaning is lit in the text; the formatted view has no word to go to
        meaning = self.pane.by_meaning and self.formatted.hit_count == 0
        self.stack.setCurrentWidget(self.formatted if formatted and self._has_formatted and not meaning else self.pane)
        view = self.view()
        self._on_hit(view.current + 1 if view.current >= 0 else 0, view.hit_count)

    def next_hit(self) -> None:
        self.view().next_hit()

    def previous_hit(self) -> None:
        self.view().previous_hit()

    def _on_hit(self, current: int, total: int) -> None:
        page = self.pane.current_page() if self.view() is self.pane else 0
        where = f" · page {page}" if page else ""
        if total:
            said = f"hit {current} of {total}"
        elif self.view() is self.pane and self.pane.by_meaning:
            said = "found by meaning: the passage that matched is lit"
        else:
            said = "no matches in the text"
        self.position.setText(said + where)
        self.page_button.setText(f"Open at page {page}")
        self.page_button.setVisible(bool(page) and self.pages_open)
        self.previous.setEnabled(total > 1)
        self.next.setEnabled(total > 1)
