"""The explain panel's pictures: the score-composition bars and the stage timeline."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import (
    QWidget,
)

from findling.faces.explaining import evidence_measures
from findling.records import ResultExplain
from findling.search.relevance import link_prior


class ScoreBars(QWidget):
    """A bar per piece of evidence behind one result's score, all on the same 0–1 scale:
    the share of the query's words matched, the keyword strength, the closeness in
    meaning, the relevance they add up to, and — when reranked — the reranker's judgement
    and the final score. (Rank-fusion shares are in the table: they order nothing now.)"""

    COLORS = {
        "bm25": QColor("#4e79a7"),
        "vector": QColor("#59a14f"),
        "bonus": QColor("#f28e2b"),
        "rerank": QColor("#b07aa1"),
        "final": QColor("#76b7b2"),
    }

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
            for name, value, lane in evidence_measures(ev):
                bars.append((name, max(0.0, value), self.COLORS[lane]))
            if link_prior(ev) < 1.0:
                # why a page that matches well scores low: it is mostly links
                bars.append(("not an index or page of links", link_prior(ev), self.COLORS["bonus"]))
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
            painter.drawText(
                int(label_w + width * value / top) + 6, y, 64, row_h, int(Qt.AlignmentFlag.AlignVCenter), f"{value:.2f}"
            )


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
        self.setToolTip(
            "\n".join(f"{name}: {f'{ms:.0f} ms' if not why else 'skipped, ' + why}" for name, ms, why in stages)
        )
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
