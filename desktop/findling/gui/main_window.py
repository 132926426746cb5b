"""The main window: search field, modes and filters, results, preview, explain, sources."""

from __future__ import annotations

import threading
import time
from datetime import date, timedelta
from typing import TypeVar

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, QTimer
from PySide6.QtWidgets import (
    QMessageBox,
)

from findling.engine import Engine
from findling.faces.explaining import one_list_summary, query_summary, result_sentence, stage_timeline
from findling.faces.presentation import dropped_words, notes_text
from findling.faces.timings import loading_text
from findling.gui.answer_actions import AnswerActions
from findling.gui.answer_pane import AnswerController
from findling.gui.date_range import CUSTOM, ask_date_range, range_label, range_times
from findling.gui.formatted import formatted_source, passage_pattern
from findling.gui.help_dialog import HelpDialog, about_text
from findling.gui.indexing import IndexingController
from findling.gui.item_models import ExplainModel, ResultsModel, SourcesModel
from findling.gui.open_at import default_pdf_viewer
from findling.gui.opening import DesktopOpener
from findling.gui.result_actions import ResultActions
from findling.gui.search import SearchController, error_text
from findling.gui.state import window_state
from findling.gui.tasks import run_task
from findling.gui.watcher import FolderWatcher
from findling.gui.window_layout import WindowLayout
from findling.pathnames import display_path
from findling.records import Filters, SearchMode, SearchRequest, SearchResult, StoreStatus
from findling.search.facets import DATE_RANGES, TYPE_GROUPS, facet_counts, folder_label, sort_hits
from findling.search.query_parser import symbol_query

T = TypeVar("T")
MAX_EXAMPLE_CHARS = 4000  # an example passage past this adds no telling words, only work


class MainWindow(ResultActions, AnswerActions, WindowLayout):
    def __init__(self, engine: Engine, debounce_ms: int = 250, rescan: bool = False) -> None:
        """`rescan`: bring the index up to date at once (files changed while the app was closed;
        only what changed, by size and time, is read again)."""
        super().__init__()
        self.engine = engine
        self.setWindowTitle("Findling")
        self.setAcceptDrops(True)
        self.opener = DesktopOpener(self)
        self.searches = SearchController(engine)
        self.searches.searching.connect(self.statusBar().showMessage)
        self.searches.results.connect(self._show_results)
        self.searches.names.connect(self._show_names)
        # a method, not a lambda: Qt drops the connection with the window, so a search that
        # ends after the window closed (its engine closed under it) reaches no deleted widget
        self.searches.failed.connect(self._search_failed)
        self.answers = AnswerController(engine)
        self._watched: list[str] | None = None  # the folders watched for live updates
        self._unreached: set[str] = set()
        self._busy = False  # the index was busy at the last look (engine.activity)
        self._busy_phase = ""  # in which phase
        self._status: StoreStatus | None = None  # the index's counts as last read
        self._counts_read = 0.0  # time.monotonic() when the Folders panel last read the counts while busy
        self.indexing = IndexingController(engine)

        self.results = ResultsModel()
        self.explain_model = ExplainModel()
        self.sources_model = SourcesModel()
        self._build_ui()
        self._build_menu()

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(debounce_ms)
        self._debounce.timeout.connect(lambda: self.run_search(full=False))

        self.indexing.started.connect(self._on_index_started)
        self.indexing.finished.connect(self._on_indexed)
        self.indexing.updated.connect(self._on_updated)
        self.indexing.failed.connect(self._on_index_failed)
        self.indexing.paused_changed.connect(self._show_paused)
        # every run's progress, whoever asked for it (this window, `findling add` or `index` served
        # by it, a live update, a model import): the engine's one record, looked at twice a second
        self._activity_timer = QTimer(self)
        self._activity_timer.setInterval(500)
        self._activity_timer.timeout.connect(self._show_activity)
        self._activity_timer.start()
        self.watcher = FolderWatcher()
        self.watcher.changed.connect(self._on_files_changed)
        self.refresh_sources()
        if rescan:
            QTimer.singleShot(0, self.update_index)
        self._restore_geometry()
        # Vectors, the embedder and the results' text load after the window is up, so it
        # shows at once; a search before they are ready reads the database directly.
        self._warm_cancel = threading.Event()
        QTimer.singleShot(
            0, lambda: self.run(lambda: engine.warm(self._warm_cancel), what="Loading the index", long=True)
        )
        QTimer.singleShot(0, lambda: self.run(default_pdf_viewer, what="Finding a PDF viewer"))  # asks xdg-mime

    # -- layout ------------------------------------------------------------------------

    def show_help(self) -> None:
        HelpDialog(self).exec()

    def show_about(self) -> None:
        QMessageBox.about(self, "About Findling", about_text())

    def focus_search(self) -> None:
        self.search_field.setFocus()
        self.search_field.selectAll()

    # -- searching ---------------------------------------------------------------------

    def filters(self) -> Filters:
        folder = self.folder_box.currentData() or ""
        after = before = None
        if self.date_box.currentData() == "custom" and self._custom_range is not None:
            after, before = range_times(*self._custom_range)
        else:
            days = DATE_RANGES.get(self.date_box.currentText())
            after = time.time() - days * 86400 if days else None
        return Filters(
            extensions=TYPE_GROUPS[self.type_box.currentText()],
            folders=(folder,) if folder else (),
            after=after,
            before=before,
        )

    def _on_date_choice(self, index: int) -> None:
        """A preset range, or a range of one's own (asked for; Cancel keeps the last one)."""
        custom = self.date_box.count() - 1
        if index == custom:
            today = date.today()
            start, end = self._custom_range or (today - timedelta(days=30), today)
            chosen = ask_date_range(self, start, end)
            if chosen is None:
                self.date_box.setCurrentIndex(self._date_choice)
                return
            self._custom_range = chosen
            self.date_box.setItemText(custom, range_label(*chosen))
        else:
            self.date_box.setItemText(custom, CUSTOM)
        self._date_choice = index
        self.run_search(full=False)

    def search_like(self, passage: str) -> None:
        """Query by example: the passage becomes the query (a long query keeps its most
        telling words; see search/keyword/lane.py), searched by words and meaning together."""
        self.search_field.setText(" ".join(passage.split())[:MAX_EXAMPLE_CHARS])
        if self.mode() is SearchMode.KEYWORD and self.engine.semantic_off() is None:
            self.mode_box.setCurrentIndex(self.mode_box.findData(SearchMode.HYBRID))
        self.run_search(full=True)

    def _show_names(self, paths: list[str]) -> None:
        self.names.set_paths(paths)

    def mode(self) -> SearchMode:
        return SearchMode(self.mode_box.currentData())

    def request(self) -> SearchRequest:
        """The search the field and the boxes ask for: with Symbols on, the field's first word as
        `sym:` (the request says it in the query's own syntax, as the explain panel shows it)."""
        text = self.search_field.text().strip()
        if self.symbols_button.isChecked():
            text = symbol_query(text)
        return SearchRequest(text, self.mode(), self.engine.settings.search.limit, self.filters())

    def run_search(self, full: bool) -> None:
        """Search as the field and boxes say: the quick list at once; with `full` (Enter), the
        whole pipeline's list replaces it (see gui/search.py)."""
        self.why_not_answer.setVisible(False)  # it answered another query
        request = self.request()
        if not request.text:
            self._clear_results("Ready")
            return
        if full:
            self.history.add(request.text)
        self._lit = None
        self._answer(request, full)
        self.searches.search(request, full)

    def _search_failed(self, message: str) -> None:
        self._clear_results(f"Search failed: {message}")

    def _clear_results(self, status: str) -> None:
        """Nothing listed, and nothing left of the last list: names, counts, preview, explain."""
        self.searches.clear()
        self.answers.cancel()
        self.answer_pane.clear()
        self.answer_explain.setVisible(False)
        self.results.set_hits([])
        self.names.set_paths([])
        self.facets.set_facets({})
        self.preview_panel.show_message("")
        self._show_explain(None)
        self.explain_summary.setText("")
        self.timeline.set_stages([])
        self.statusBar().showMessage(status)

    def _show_results(self, result: SearchResult, refining: bool = False) -> None:
        """A list arrived (gui/search.py dropped those out of date): show it, keeping the selected
        document selected when the reranked list replaces the quick one."""
        selected = self.results.hit(self.results_view.currentIndex().row()) if refining else None
        hits = sort_hits(result.hits, self.sort_box.currentText())
        self.results.set_hits(hits)
        header = self.results_view.horizontalHeader()
        if header.sortIndicatorSection() >= 0:  # a column the person sorted by stays sorted
            self.results.sort(header.sortIndicatorSection(), header.sortIndicatorOrder())
            hits = self.results.hits()
        within = str(self.folder_box.currentData() or "")
        shown = len(result.hits)
        self.facets.set_facets(
            facet_counts(hits, self.indexed_folders, time.time(), within),
            of_shown=shown if result.total_matched > shown else None,
        )
        notes = notes_text(result.notes, "window")
        took = result.timings_ms.get("total", 0.0)
        count = f"{len(result.hits)} result" + ("" if len(result.hits) == 1 else "s")
        loading = loading_text(result.timings_ms)
        self.statusBar().showMessage(f"{count} in {took:.0f} ms{loading}" + (f" — {notes}" if notes else ""))
        row = 0
        if selected is not None:
            # the reranked list keeps the selection on the same document, wherever it moved
            row = next((i for i, h in enumerate(hits) if h.doc_id == selected.doc_id), 0)
        if result.hits:
            self.results_view.selectionModel().setCurrentIndex(
                self.results.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
            )
        else:
            self.preview_panel.show_message("")
            self._show_explain(None)
        if result.explain is not None:
            self.explain_summary.setText(query_summary(result.explain))
            self.timeline.set_stages(stage_timeline(result.explain))
        else:  # More like this ranks by one list: nothing to tell stage by stage
            self.explain_summary.setText(one_list_summary(len(result.hits), took))
            self.timeline.set_stages([])

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        hit = self.results.hit(current.row())
        if hit is None:
            return
        if self._lit is not None and self._lit.doc_id != hit.doc_id:
            self._lit = None  # another result chosen: its own passage, not the cited one
        shown = self.searches.result
        explain = None
        if shown is not None and shown.explain is not None:
            explain = next((r for r in shown.explain.results if r.doc_id == hit.doc_id), None)
        self._show_explain(explain)
        terms = shown.terms if shown is not None else ()
        apart = shown.terms_apart if shown is not None else {}
        engine = self.engine

        def load():  # the indexed text, the file itself where it reads better formatted, a viewer for pages
            doc = engine.document_text(hit.doc_id, terms, apart)
            pages_open = doc is not None and bool(doc.pages) and self._page_command(hit.path, 1) is not None
            return doc, formatted_source(hit.path, hit.ext, doc.text if doc is not None else None), pages_open

        run_task(load, lambda loaded: self._show_preview(hit, *loaded), lambda exc: self._preview_failed(hit, exc))

    def _preview_failed(self, hit, exc: BaseException) -> None:
        """Said in the pane, where the document would be; the status bar keeps the result count."""
        current = self.results.hit(self.results_view.currentIndex().row())
        if current is None or current.doc_id != hit.doc_id:
            return
        self.preview_panel.show_message(
            f"The preview of {display_path(hit.path)} failed: {error_text(exc)}\n\n"
            "It is still searchable; Open shows it in its own application."
        )

    def _show_preview(self, hit, doc, formatted=None, pages_open=False) -> None:
        current = self.results.hit(self.results_view.currentIndex().row())
        if current is None or current.doc_id != hit.doc_id:
            return
        if doc is None:
            self.preview_panel.show_message("This document is no longer in the index.")
            return
        self.preview_panel.pages_open = pages_open
        self.preview_panel.show_byline(hit.author, hit.copies, hit.near_copies, hit.ocr_pages)
        start, end = hit.chunk_start, hit.chunk_end
        if self._lit is not None and self._lit.doc_id == hit.doc_id:  # an [n] followed: its passage
            start, end = self._lit.start, self._lit.end
        self.preview.show_text(doc.text, doc.highlights, start, end, hit.ext, doc.pages)
        self.preview_panel.show_outline(doc.symbols, hit.symbol)
        words = sorted({doc.text[h.start : h.end] for h in doc.highlights})
        self.preview_panel.show_formatted(formatted, words, passage_pattern(hit.snippet, hit.highlights))

    def _show_explain(self, explain) -> None:
        rank = self.results_view.currentIndex().row() + 1
        dropped = dropped_words(self.search_field.text())
        sentence = result_sentence(explain, rank, dropped) if explain else ""
        hit = self.current_hit()
        if sentence and hit is not None and hit.ocr_pages:  # its words may be misread
            sentence = f"{sentence.rstrip('.')}. Its text was read by OCR from a picture or a scan."
        self.explain_sentence.setText(sentence)
        self.explain_model.set_result(explain)
        self.score_bars.set_result(explain)

    def _resort(self) -> None:
        """Another order for the same results, the selected one kept."""
        if self.searches.result is None:
            return
        selected = self.current_hit()
        hits = sort_hits(self.searches.result.hits, self.sort_box.currentText())
        self.results.set_hits(hits)
        row = next((i for i, h in enumerate(hits) if selected is not None and h.doc_id == selected.doc_id), 0)
        if hits:
            self.results_view.selectionModel().setCurrentIndex(
                self.results.index(row, 0),
                QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
            )

    def apply_facet(self, facet: str, value: str) -> None:
        """A facet clicked: the matching filter is set (and the search runs again with it)."""
        box = {"type": self.type_box, "modified": self.date_box, "folder": self.folder_box}[facet]
        index = box.findData(value) if facet == "folder" else box.findText(value)
        if index < 0 and facet == "folder":  # a subfolder of an added one: listed from now on
            box.addItem(display_path(folder_label(value, self.indexed_folders)), value)
            index = box.count() - 1
        if index >= 0:
            box.setCurrentIndex(index)

    # -- dialogs and lifecycle ---------------------------------------------------------

    def show_models(self) -> None:
        from findling.gui.models_dialog import ModelsDialog

        dialog = ModelsDialog(self.engine, self)
        dialog.installed.connect(self.model_installed)
        dialog.exec()
        dialog.deleteLater()

    def model_installed(self) -> None:
        """A new model: the work it allows starts (shown in the Folders panel's progress): an
        embedder embeds what is indexed, the OCR model reads the pictures and scans again. The
        Folders panel says at once that semantic search is on (it said "off" until the dialog
        closed and the embedding ended)."""
        models = self.engine.models
        self.refresh_sources()
        if models.unavailable_reason("embedder") is None:
            self.statusBar().showMessage("Embedding the indexed documents for semantic search…")
            self.update_index()
        elif models.unavailable_reason("ocr") is None and self.engine.settings.index.ocr:
            self.statusBar().showMessage("Reading the words in pictures and scans…")
            self.update_index()

    def show_settings(self) -> None:
        from findling.gui.settings_dialog import SettingsDialog

        before = list(self.engine.settings.index.exclude)
        if SettingsDialog(self.engine, self).exec() and self.engine.settings.index.exclude != before:
            # what the patterns now exclude leaves the index, what they let in joins it
            self.statusBar().showMessage("Exclude patterns changed: updating the index…")
            self.update_index()

    def bring_forward(self) -> None:
        self.setWindowState((self.windowState() & ~Qt.WindowState.WindowMinimized) | Qt.WindowState.WindowActive)
        self.show()
        self.raise_()
        self.activateWindow()

    def _restore_geometry(self) -> None:
        settings = window_state(self.engine.home)
        geometry = settings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 800)
        state = settings.value("state")
        if state is not None:
            self.restoreState(state)

    def closeEvent(self, event) -> None:  # noqa: N802
        settings = window_state(self.engine.home)
        settings.setValue("geometry", self.saveGeometry())
        settings.setValue("state", self.saveState())
        self._warm_cancel.set()
        self.answers.cancel()  # a quit waits for no answer: generation stops at its next token
        self._activity_timer.stop()
        self.indexing.stop()
        self.watcher.stop()
        super().closeEvent(event)
