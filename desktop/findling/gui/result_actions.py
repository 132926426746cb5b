"""The window's actions on results and searches: history and saved searches, opening a result
(at its line or page), its context menu, More like this, drops (add a folder, or on the Explain
tab: why not this file?) and why-not's answer. MainWindow is made of it."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QProcess, QStringListModel, Qt
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
)
from PySide6.QtWidgets import (
    QComboBox,
    QCompleter,
    QFileDialog,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QTableView,
    QTabWidget,
    QToolButton,
    QWidget,
)

from findling.faces.presentation import (
    why_not_first,
    why_not_summary,
)
from findling.gui.folder_views import FolderViews
from findling.gui.history import SavedSearch, SavedSearches, SearchHistory
from findling.gui.item_models import ResultsModel
from findling.gui.open_at import editor_command, viewer_command
from findling.gui.opening import DesktopOpener
from findling.gui.search import SearchController, error_text
from findling.pathnames import container_file, display_path
from findling.records import Filters, Hit, SearchResult


class ResultActions(FolderViews):
    """What a person does with a list and its results; MainWindow makes the widgets named here."""

    searches: SearchController
    opener: DesktopOpener
    results: ResultsModel
    history: SearchHistory
    saved: SavedSearches
    history_popup: QCompleter
    mode_box: QComboBox
    type_box: QComboBox
    date_box: QComboBox
    results_view: QTableView
    tabs: QTabWidget
    explain_page: QWidget
    explain_view: QTableView
    details_button: QToolButton
    why_not_answer: QLabel
    explain_graphs: QWidget
    saved_view: QListWidget
    filters: Callable[[], Filters]  # MainWindow's: the filter boxes as a Filters

    # -- history and saved searches ----------------------------------------------------

    def show_history(self) -> bool:
        """Recent queries under the empty field (Down, or Search ▸ Recent searches)."""
        items = self.history.items()
        if not items:
            return False
        self.history_popup.setModel(QStringListModel(items, self.history_popup))
        self.history_popup.complete()
        return True

    def _from_history(self, text: str) -> None:
        self.search_field.setText(text)
        self.run_search(True)

    def save_search(self) -> None:
        text = self.search_field.text().strip()
        if not text:
            self.statusBar().showMessage("Type a search first, then save it.")
            return
        name, ok = QInputDialog.getText(self, "Save this search", "Name:", text=text)
        if ok and name.strip():
            self.saved.save(
                SavedSearch(
                    name.strip(),
                    text,
                    self.mode_box.currentText(),
                    self.type_box.currentText(),
                    self.date_box.currentText(),
                    self.folder_box.currentData() or "",
                )
            )
            self._show_saved()

    def run_saved(self, name: str) -> None:
        search = next((s for s in self.saved.items() if s.name == name), None)
        if search is None:
            return
        for box in (self.mode_box, self.type_box, self.date_box, self.folder_box):
            box.blockSignals(True)  # one search for the lot, not one per box
        self.mode_box.setCurrentText(search.mode)
        self.type_box.setCurrentText(search.type)
        self.date_box.setCurrentText(search.modified)
        self.folder_box.setCurrentIndex(max(0, self.folder_box.findData(search.folder)))
        for box in (self.mode_box, self.type_box, self.date_box, self.folder_box):
            box.blockSignals(False)
        self.search_field.setText(search.query)
        self.run_search(True)

    def _show_saved(self) -> None:
        self.saved_view.clear()
        for search in self.saved.items():
            item = QListWidgetItem(search.name)
            item.setToolTip(
                f"{search.query} · {search.mode} · {search.type} · {search.modified}"
                + (f" · in {search.folder}" if search.folder else "")
            )
            self.saved_view.addItem(item)

    def remove_saved(self, name: str) -> None:
        self.saved.remove(name)
        self._show_saved()

    def _saved_menu(self, pos) -> None:
        item = self.saved_view.itemAt(pos)
        if item is None:
            return
        menu = QMenu(self)
        menu.addAction("Remove", lambda: self.remove_saved(item.text()))
        menu.exec(self.saved_view.viewport().mapToGlobal(pos))

    def _toggle_details(self, shown: bool) -> None:
        self.explain_view.setVisible(shown)
        self.explain_graphs.setVisible(not shown)
        self.details_button.setText("Details ▾" if shown else "Details ▸")

    def current_hit(self) -> Hit | None:
        return self.results.hit(self.results_view.currentIndex().row())

    def more_like_this(self, hit: Hit | None) -> None:
        """Documents like this one, by meaning (the mean of its passages' vectors)."""
        if hit is None:
            return

        def done(result: SearchResult) -> None:
            count = f"{len(result.hits)} document" + ("" if len(result.hits) == 1 else "s")
            self.statusBar().showMessage(f"{count} like {hit.title}")

        self.searches.similar(hit, self.engine.settings.search.limit, self.filters(), done)

    def _page_command(self, path: str, page: int) -> list[str] | None:
        return viewer_command(self.engine.settings.search.open_at_page, path, page)

    def open_at(self, command: list[str], setting: str) -> None:
        """Start an editor or viewer at a place; `setting` names the settings.toml key that chooses it."""
        if not QProcess.startDetached(command[0], command[1:]):
            self.statusBar().showMessage(f"Could not start {command[0]}: set search.{setting} in settings.toml")

    def open_preview_page(self, page: int) -> None:
        hit = self.current_hit()
        if hit is None or not page or container_file(hit.path) != hit.path:  # a member has no file to open at a page
            return
        command = self._page_command(hit.path, page)
        if command is not None:
            self.open_at(command, "open_at_page")

    def open_result(self, row: int) -> None:
        hit = self.results.hit(row)
        if hit is not None:
            self.history.add(self.search_field.text())
            on_disk = container_file(hit.path)  # a member: its archive
            if not os.path.exists(on_disk):
                # a shared collection's document whose folder is not reachable here (or a file
                # gone since the last update): the index holds its text, and the preview shows it
                self.statusBar().showMessage(
                    f"{display_path(on_disk)} is not on this computer: the preview shows the text the index holds"
                )
                return
            self.open_path(on_disk)

    def open_path(self, path: str) -> None:
        """Open a file or folder in the desktop's application for it; when none does, the status
        bar says why and what else there is."""
        self.opener.open(
            path,
            lambda sentence: self.statusBar().showMessage(
                f"{sentence} Use Open at line, Show in folder or Copy path instead."
                if os.path.isfile(path)
                else f"{sentence} Copy path gives its place."
            ),
        )

    def _result_menu(self, pos) -> None:
        index = self.results_view.indexAt(pos)
        hit = self.results.hit(index.row())
        if hit is None:
            return
        menu = QMenu(self)
        on_disk = container_file(hit.path)
        inside = on_disk != hit.path  # an archive's member: its archive is what opens
        menu.addAction(f"Open {os.path.basename(on_disk)}" if inside else "Open", lambda: self.open_result(index.row()))
        if hit.page and not inside:  # a PDF's lines are those of its extracted text: its page is the place to open
            at_page = self._page_command(hit.path, hit.page)
            if at_page is not None:
                menu.addAction(f"Open at page {hit.page}", lambda: self.open_at(at_page, "open_at_page"))
        elif hit.line and not inside:
            at_line = editor_command(self.engine.settings.search.open_at_line, hit.path, hit.line)
            if at_line is not None:
                menu.addAction(f"Open at line {hit.line}", lambda: self.open_at(at_line, "open_at_line"))
        menu.addAction("Show in folder", lambda: self.open_path(os.path.dirname(on_disk)))
        menu.addAction("Copy path", lambda: QGuiApplication.clipboard().setText(display_path(hit.path)))
        menu.addAction("More like this", lambda: self.more_like_this(hit))
        # the short id `findling get`, the MCP tools and the HTTP API accept
        menu.addAction(f"Copy docid  #{hit.docid}", lambda: QGuiApplication.clipboard().setText(f"#{hit.docid}"))
        menu.exec(self.results_view.viewport().mapToGlobal(pos))

    # -- drag and drop -----------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802
        if event.mimeData().hasUrls() and any(u.isLocalFile() for u in event.mimeData().urls()):
            _take_as_copy(event)

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802
        _take_as_copy(event)

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802
        """Anywhere: add and index. On the Explain tab: why is this file not in the results?"""
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if not paths or not _take_as_copy(event):
            return
        page = self.explain_page
        on_explain = self.tabs.currentWidget() is page and page.rect().contains(
            page.mapFrom(self, event.position().toPoint())
        )
        if on_explain:
            self.why_not(paths[0])
        else:
            self.add_paths(paths)

    # -- why not this file? ------------------------------------------------------------

    def why_not(self, path: str) -> None:
        """Why this file is, or is not, in the list on screen: asked by the request that made it."""
        self.tabs.setCurrentIndex(1)
        self._show_why_not_text(f"Looking at {os.path.basename(path)}…")
        if not self.searches.why_not(
            path, self._on_why_not, lambda exc: self._show_why_not_text(f"Why not: {error_text(exc)}")
        ):
            self._show_why_not_text(why_not_first())

    def _on_why_not(self, answer) -> None:
        summary = why_not_summary(answer, "window")  # the window's menus, not terminal commands
        lines = [f"Why not {display_path(os.path.basename(answer.path))}? {summary}", *answer.details]
        self._show_why_not_text("\n".join(lines))

    def _show_why_not_text(self, text: str) -> None:
        self.why_not_answer.setText(text)
        self.why_not_answer.setVisible(True)

    def _source_menu(self, pos) -> None:
        source = self.sources_model.source(self.sources_view.indexAt(pos).row())
        if source is None:
            return
        menu = QMenu(self)
        if source.source.shared:  # a copy of another Findling's publication: nothing here to scan
            menu.addAction("Detach", self.remove_selected_source)
            menu.exec(self.sources_view.viewport().mapToGlobal(pos))
            return
        menu.addAction("Why is a file not in the results?…", lambda: self.ask_why_not(source.source.path))
        follow = menu.addAction("Follow its .gitignore files")
        follow.setCheckable(True)
        follow.setChecked(source.source.gitignore)
        follow.setToolTip("Leave out what the folder's .gitignore files leave out, as git does")
        follow.toggled.connect(lambda on: self.follow_gitignore(source.source.path, on))
        menu.addAction("Remove", self.remove_selected_source)
        menu.exec(self.sources_view.viewport().mapToGlobal(pos))

    def ask_why_not(self, folder: str) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "The file you expected to find", folder)
        if path:
            self.why_not(path)


def _take_as_copy(event: QDropEvent) -> bool:
    """Accept a drop as Copy (or Link) only, whatever the source proposes: a file manager that
    honours Move would take the user's folder away once Findling said it moved it."""
    for action in (Qt.DropAction.CopyAction, Qt.DropAction.LinkAction):
        if event.possibleActions() & action:
            event.setDropAction(action)
            event.accept()
            return True
    event.ignore()
    return False
