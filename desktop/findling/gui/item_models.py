"""Qt models over engine records: results, the explain rows of one result, and sources."""

from __future__ import annotations

import html
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QAbstractListModel, QAbstractTableModel, QFileInfo, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QFileIconProvider

from findling.faces.explaining import explain_rows, self_test_status
from findling.faces.presentation import highlight_pieces, match_label, shared_line
from findling.pathnames import display_path, distinct_names, folder_of
from findling.records import Hit, ResultExplain, SourceStatus

HitRole = Qt.ItemDataRole.UserRole + 1
SnippetHtmlRole = Qt.ItemDataRole.UserRole + 2


def plain_tooltip(text: str) -> str:
    """A tooltip that shows `text` as it is. Qt guesses whether a tooltip is rich text, so
    a file named `<b>x</b>.txt` would render bold: mark it rich and escape everything."""
    return f"<qt>{html.escape(display_path(text))}</qt>"


def snippet_html(hit: Hit) -> str:
    """The snippet as HTML with matches in bold: text escaped, nothing from the file is markup.
    A PDF's snippet starts with its page, as in Recoll; a source file's with the definition it lies in."""
    page = f"p.&nbsp;{hit.page}&nbsp;· " if hit.page else ""  # no colour of its own: it must read when selected
    if hit.symbol:
        page += f"<code>{html.escape(hit.symbol)}</code>&nbsp;· "
    return page + "".join(
        f"<b style='background:#ffe68a;color:#000'>{html.escape(piece)}</b>" if match else html.escape(piece)
        for piece, match in highlight_pieces(hit.snippet, hit.highlights)
    )


class _TableModel(QAbstractTableModel):
    """Rows over a list, with fixed column titles."""

    COLUMNS: tuple[str, ...] = ()

    def _row_count(self) -> int:
        raise NotImplementedError

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008 - Qt's signature
        return 0 if parent.isValid() else self._row_count()

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.COLUMNS[section]
        return None


class ResultsModel(_TableModel):
    COLUMNS = ("Title", "Snippet", "Match", "Folder", "Modified", "Size")
    # What a click on each column's header sorts by (Snippet: back to the engine's order).
    _SORT_KEYS: tuple[Callable[[Hit], Any] | None, ...] = (
        lambda h: h.title.lower(),
        None,
        lambda h: h.score,
        lambda h: folder_of(h.path).lower(),
        lambda h: h.mtime,
        lambda h: h.size,
    )

    def __init__(self) -> None:
        super().__init__()
        self._hits: list[Hit] = []
        self._ranked: list[Hit] = []  # as the engine ranked them
        self._icons = QFileIconProvider()
        self._icon_cache: dict[str, object] = {}

    def set_hits(self, hits: list[Hit] | tuple[Hit, ...]) -> None:
        self.beginResetModel()
        self._hits = list(hits)
        self._ranked = list(hits)
        self.endResetModel()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        """By a column, as a click on its header asks (stable: ties keep their rank)."""
        key = self._SORT_KEYS[column] if 0 <= column < len(self._SORT_KEYS) else None
        self.layoutAboutToBeChanged.emit()
        self._hits = (
            list(self._ranked)
            if key is None
            else sorted(self._ranked, key=key, reverse=order == Qt.SortOrder.DescendingOrder)
        )
        self.layoutChanged.emit()

    def hits(self) -> list[Hit]:
        """The rows, in the order shown."""
        return list(self._hits)

    def hit(self, row: int) -> Hit | None:
        return self._hits[row] if 0 <= row < len(self._hits) else None

    def _row_count(self) -> int:
        return len(self._hits)

    def _icon(self, hit: Hit):
        key = hit.ext or "?"
        if key not in self._icon_cache:
            self._icon_cache[key] = self._icons.icon(QFileInfo(hit.path))
        return self._icon_cache[key]

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        hit = self.hit(index.row())
        if hit is None:
            return None
        column = index.column()
        if role == HitRole:
            return hit
        if role == SnippetHtmlRole:
            return snippet_html(hit)
        if role == Qt.ItemDataRole.DisplayRole:
            score = match_label(hit.score, hit.weak, hit.matched)
            snippet = f"p. {hit.page} · {hit.snippet}" if hit.page else hit.snippet
            snippet = f"{hit.symbol} · {snippet}" if hit.symbol else snippet
            return (
                hit.title,
                snippet,
                score,
                (f"Shared · {hit.collection} · " if hit.collection else "") + display_path(folder_of(hit.path)),
                time.strftime("%Y-%m-%d %H:%M", time.localtime(hit.mtime)) if hit.mtime else "",
                human_size(hit.size),
            )[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == 2:
                chance = f"Relevance {hit.score:.2f}: the estimated chance that it answers the query."
                return chance + (
                    " Nothing scored well for this query: this is only the closest document." if hit.weak else ""
                )
            return f"<qt>{html.escape(display_path(hit.path))}<br>docid #{hit.docid}</qt>"
        if role == Qt.ItemDataRole.ForegroundRole and hit.weak:
            return QColor(128, 128, 128)
        if role == Qt.ItemDataRole.DecorationRole and column == 0:
            return self._icon(hit)
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (2, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


def human_size(size: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size:,} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000  # type: ignore[assignment]
    return ""


class ExplainModel(_TableModel):
    COLUMNS = ("Ranked list or step", "Rank", "Score", "Scaled 0–1", "Weight", "Adds")

    def __init__(self) -> None:
        super().__init__()
        self._rows: list[tuple[str, ...]] = []

    def set_result(self, result: ResultExplain | None) -> None:
        self.beginResetModel()
        self._rows = list(explain_rows(result)) if result is not None else []
        self.endResetModel()

    def _row_count(self) -> int:
        return len(self._rows)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and 0 <= index.row() < len(self._rows):
            return self._rows[index.row()][index.column()]
        return None


class SourcesModel(QAbstractListModel):
    def __init__(self) -> None:
        super().__init__()
        self._sources: list[SourceStatus] = []
        self._names: list[str] = []

    def set_sources(self, sources: list[SourceStatus] | tuple[SourceStatus, ...]) -> None:
        self.beginResetModel()
        # the folders here first, then the Shared group: collections other Findlings published
        self._sources = sorted(sources, key=lambda s: bool(s.source.shared))
        self._names = distinct_names([s.source.path for s in self._sources])  # `html` told from `html`
        self.endResetModel()

    def source(self, row: int) -> SourceStatus | None:
        return self._sources[row] if 0 <= row < len(self._sources) else None

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._sources)

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        s = self.source(index.row())
        if s is None:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            name = display_path(self._names[index.row()])
            if s.attached is not None:  # the Shared group: a collection another Findling published
                reach = " · unreachable" if s.attached.error else ""  # the tooltip says the rest
                return f"Shared · {s.attached.name}\n{s.indexed:,} documents{reach}"
            line = f"{name}\n{s.indexed:,} indexed · {s.failed:,} failed · {s.skipped:,} skipped"
            more = [f"{s.waiting:,} not read yet"] if s.waiting else []
            if s.left_out:
                more.append(f"{s.left_out:,} left out by .gitignore")
            return line + ("\n" + " · ".join(more) if more else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            told = [display_path(s.source.path)]
            if s.attached is not None:
                told.append(shared_line(s.attached, time.time()))
            elif s.left_out:
                told.append(
                    f"{s.left_out:,} files and folders are left out by its .gitignore files: right-click the "
                    "folder and uncheck “Follow its .gitignore files” to read them"
                )
            elif not s.source.gitignore:
                told.append("Its .gitignore files are not followed (right-click to follow them)")
            if s.waiting:
                told.append(f"{s.waiting:,} files were found but not read yet: update the index (F5) to read them")
            if s.weights is not None:
                told.append(self_test_status(s.weights))
            return "<qt>" + "<br>".join(html.escape(line) for line in told) + "</qt>"
        return None
