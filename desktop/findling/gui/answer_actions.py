"""The window's answers: Enter on a question answers it in the pane above the results (gui/
answer_pane.py), the Explain tab says how, and each [n] selects its result and lights its passage
in the preview. MainWindow is made of it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt
from PySide6.QtWidgets import QLabel

from findling.faces.presentation import answer_explain
from findling.gui.answer_pane import AnswerController, AnswerPane, is_question
from findling.gui.search import error_text
from findling.gui.tasks import run_task
from findling.records import Answer, Citation, SearchRequest

if TYPE_CHECKING:
    from PySide6.QtWidgets import QTableView, QTabWidget

    from findling.engine import Engine
    from findling.gui.item_models import ResultsModel
    from findling.gui.preview import PreviewPane, PreviewPanel


class AnswerActions:
    engine: Engine
    answers: AnswerController
    results: ResultsModel
    results_view: QTableView
    tabs: QTabWidget
    preview: PreviewPane
    preview_panel: PreviewPanel

    def _on_current_changed(self, current: QModelIndex, previous: QModelIndex) -> None:
        raise NotImplementedError  # MainWindow's: the selected result's preview and explain

    def _build_answer_pane(self) -> None:
        self.answer_pane = AnswerPane()
        self.answers.sentence.connect(self.answer_pane.add)
        self.answers.answered.connect(self._show_answer)
        self.answers.failed.connect(self.answer_pane.show_failure)
        self.answer_pane.cited.connect(self.show_citation)
        self._lit: Citation | None = None  # the passage an [n] link asked the preview to light
        self.answer_explain = QLabel()  # how the answer above the results was made: the Explain tab
        self.answer_explain.setObjectName("answerExplain")
        self.answer_explain.setWordWrap(True)
        self.answer_explain.setTextFormat(Qt.TextFormat.PlainText)  # passages and model text
        self.answer_explain.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.answer_explain.setVisible(False)

    def _answer(self, request: SearchRequest, full: bool) -> None:
        """Enter on a question answers it above the results; any other search, or typing on,
        ends the answer under way and the one shown (it answered another question)."""
        asked = self.answer_pane.isVisible() and self.answer_pane.question == request.text
        if full and self.engine.settings.ask.answer_questions and is_question(request.text):
            self.answer_pane.begin(request.text)
            self.answer_explain.setVisible(False)
            self.answers.ask(request.text, request.filters)
        elif not asked:
            self.answers.cancel()
            self.answer_pane.clear()
            self.answer_explain.setVisible(False)

    def _show_answer(self, answer: Answer) -> None:
        self.answer_pane.show_answer(answer)
        self.answer_explain.setText("Answer: " + "\n".join(answer_explain(answer, "window")))
        self.answer_explain.setVisible(True)

    def show_citation(self, citation: Citation) -> None:
        """An [n] followed: its result selected, its passage lit in the preview. A result the list
        does not show (another mode, a filter) is previewed alone."""
        self._lit = citation
        row = next((i for i, h in enumerate(self.results.hits()) if h.doc_id == citation.doc_id), -1)
        self.tabs.setCurrentWidget(self.preview_panel)
        if row >= 0:
            self.results_view.selectionModel().setCurrentIndex(
                self.results.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
            )
            if self.results_view.currentIndex().row() == row:  # already selected: light it anew
                self._on_current_changed(self.results.index(row, 0), self.results.index(row, 0))
            return
        engine = self.engine
        run_task(
            lambda: engine.document_text(citation.doc_id),
            lambda doc: self._light(citation, doc),
            lambda exc: self.preview_panel.show_message(f"The passage cannot be shown: {error_text(exc)}"),
        )

    def _light(self, citation: Citation, doc) -> None:
        if doc is None:
            self.preview_panel.show_message("This document is no longer in the index.")
            return
        self.preview.show_text(doc.text, (), citation.start, citation.end, "", doc.pages)
