"""The window's folders and indexing: the Folders panel and its counts, adding and removing
folders, and the progress bar and its line, read from the engine's one activity record
(records.Activity), whoever asked for the run. MainWindow is made of it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QInputDialog,
    QLabel,
    QLineEdit,
    QListView,
    QMainWindow,
    QProgressBar,
    QPushButton,
)
from shiboken6 import isValid

from findling.engine import Engine
from findling.errors import FindlingError
from findling.faces.presentation import (
    activity_line,
    embedding_share,
    note_text,
    report_counts,
    semantic_line,
)
from findling.gui.asking import confirmed
from findling.gui.indexing import IndexingController
from findling.gui.item_models import SourcesModel
from findling.gui.search import error_text
from findling.gui.state import window_state
from findling.gui.tasks import run_task
from findling.gui.watcher import FolderWatcher
from findling.pathnames import display_path, distinct_names
from findling.records import Activity, StoreStatus

T = TypeVar("T")


class FolderViews(QMainWindow):
    """The folder and indexing half of MainWindow, which makes the widgets and state named here."""

    engine: Engine
    indexing: IndexingController
    watcher: FolderWatcher
    sources_model: SourcesModel
    sources_view: QListView
    search_field: QLineEdit
    folder_box: QComboBox
    pause_button: QPushButton
    progress: QProgressBar
    progress_label: QLabel
    index_label: QLabel
    indexed_folders: list[str]
    _watched: list[str] | None
    _unreached: set[str]  # the shared collections said to be unreachable, said once until reached
    _busy: bool
    _busy_phase: str
    _counts_read: float
    _status: StoreStatus | None
    run_search: Callable[[bool], None]  # MainWindow's: the list shown follows the index

    def run(
        self, work: Callable[[], T], on_done: Callable[[T], None] | None = None, what: str = "", long: bool = False
    ) -> None:
        """Work off the GUI thread, its result to `on_done` on it; a failure is said in the status bar
        as "{what} failed: …" (Anki's QueryOp). Give `run_task` an error path of its own instead
        where a failure belongs somewhere else (the preview pane, the why-not answer)."""

        # the window may be gone when the work ends (closed, its engine closed under the work)
        def done(value: T) -> None:
            if on_done is not None and isValid(self):
                on_done(value)

        def failed(exc: BaseException) -> None:
            if isValid(self):
                self._on_error(f"{what} failed: {error_text(exc)}")

        run_task(work, done, failed, long=long)

    # -- sources and indexing ----------------------------------------------------------

    def refresh_sources(self) -> None:
        engine = self.engine
        self.run(lambda: engine.status(problem_limit=0), self._on_status, what="Reading the index")

    def _on_status(self, status) -> None:
        self.sources_model.set_sources(status.sources)
        self._status = status
        self._show_summary(self.engine.activity())
        current = self.folder_box.currentData()
        self.folder_box.blockSignals(True)
        self.folder_box.clear()
        self.folder_box.addItem("All folders", "")
        paths = [s.source.path for s in status.sources]
        for path, label in zip(paths, distinct_names(paths), strict=True):
            self.folder_box.addItem(display_path(label), path)
        index = self.folder_box.findData(current)
        self.folder_box.setCurrentIndex(max(0, index))
        self.folder_box.blockSignals(False)
        folders = [s.source.path for s in status.sources if not s.source.shared]  # a copy is not watched
        if folders != self._watched:  # the counts follow a run every few seconds: the watches stay
            self._watched = folders
            self.run(lambda: self.watcher.watch(folders), what="Watching the folders for changes (live updates)")
        self.indexed_folders = folders

    def _show_summary(self, activity: Activity | None) -> None:
        """The index in a line; while embedding, its count is the activity's (the bar's), read
        twice a second, where the rest of the status is read every few seconds."""
        status = self._status
        if status is None:
            return
        if activity is not None and activity.phase == "embedding" and status.embedder:
            status = replace(status, embedded=activity.done, embeddable=activity.total)
        text = f"{status.indexed:,} documents · {semantic_line(status, 'window')}"
        if status.embedder_where and not status.embedder_where.endswith("on this computer"):
            text += f" · embeddings by {status.embedder_where}"  # a model server the user runs
        if status.text_sent_to:
            text += f" · document text is sent to {status.text_sent_to}"
        self.index_label.setText(text)

    def choose_folder(self) -> None:
        """Opens where the last folder was added from (the home folder at first), never where
        a model was last imported from: each file dialog keeps its own place."""
        state = window_state(self.engine.home)
        start = str(state.value("dialogs/add_folder", "") or Path.home())
        folder = QFileDialog.getExistingDirectory(self, "Add a folder to Findling", start)
        if folder:
            state.setValue("dialogs/add_folder", os.path.dirname(os.path.normpath(folder)))
            self.add_paths([folder])

    def choose_shared(self) -> None:
        """A collection another Findling published (a shared folder's path or an s3:// URI),
        attached read-only: the Folders panel lists it under Shared, the update copies it in."""
        uri, ok = QInputDialog.getText(
            self,
            "Attach a shared collection",
            "Where it was published (a folder path, or s3://bucket/prefix):",
        )
        if ok and uri.strip():
            self.attach_shared(uri.strip())

    def attach_shared(self, uri: str) -> None:
        engine = self.engine

        def attached(source) -> None:
            self.statusBar().showMessage(f"Attached {source.shared}: copying it in")
            self.refresh_sources()
            self.start_indexing()

        self.run(lambda: engine.attach(uri), attached, what=f"Attaching {uri}")

    def add_paths(self, paths: list[str]) -> None:
        """Add folders or files (from the dialog or a drop) off the GUI thread, then index."""
        engine = self.engine

        def work() -> tuple[list[str], list[str]]:
            added, errors = [], []
            for path in paths:
                try:
                    added.append(engine.add_source(path).path)
                except FindlingError as exc:
                    errors.append(str(exc))
            return added, errors

        self.run(work, self._on_added, what="Adding")

    def _on_added(self, outcome: tuple[list[str], list[str]]) -> None:
        added, errors = outcome
        for message in errors:
            self._on_error(message)
        if added:
            self.statusBar().showMessage(f"Added {', '.join(display_path(os.path.basename(p) or p) for p in added)}")
            self.refresh_sources()
            self.start_indexing()

    def follow_gitignore(self, path: str, follow: bool) -> None:
        """Whether the folder's .gitignore files leave files out; the index is then brought up to
        date (what they no longer leave out is read, what they now do leaves)."""
        engine = self.engine

        def changed(_source) -> None:
            self.statusBar().showMessage(
                f"{display_path(path)}: {'following' if follow else 'not following'} its .gitignore files"
            )
            self.refresh_sources()
            self.start_indexing()

        self.run(lambda: engine.add_source(path, gitignore=follow), changed, what="Changing the folder's rules")

    def remove_selected_source(self) -> None:
        source = self.sources_model.source(self.sources_view.currentIndex().row())
        if source is None:
            return
        engine = self.engine
        path = source.source.path
        if source.attached is not None:
            asked = (
                "Detach shared collection",
                f"Detach {source.attached.name}? Its copy of {source.documents:,} documents leaves this index "
                "(the published collection is not touched).",
            )
            path = source.source.shared
        else:
            asked = (
                "Remove folder",
                f"Remove {display_path(path)} from Findling? Its {source.documents:,} documents leave the index "
                "(the files themselves are not touched).",
            )
        if not confirmed(self, *asked):
            return

        def removed(count: int) -> None:
            self.refresh_sources()
            self.run_search(False)  # the list held the folder's documents
            self.statusBar().showMessage(f"Removed {display_path(path)} ({count} documents)")

        self.run(lambda: engine.remove_source(path), removed, what=f"Removing {display_path(path)}")

    def update_index(self) -> None:
        """Read what changed in the folders since the index last saw them (F5, and at start)."""
        if not self._indexing:
            self.start_indexing()

    def follow_change(self, verb: str) -> None:
        """The index changed (another Findling process wrote to it, or a live update ran):
        folders, counts, watched folders and the list shown follow it."""
        self.refresh_sources()
        if self.search_field.text().strip():
            self.run_search(False)
        if verb == "index" and self.engine.models.unavailable_reason("embedder") is None:
            # `findling add` beside the window indexed the text only: the window embeds the rest,
            # as after its own additions (server/background.py)
            self.update_index()

    @property
    def _indexing(self) -> bool:
        return self.indexing.running

    def start_indexing(self) -> None:
        self.indexing.start()

    def _on_index_started(self) -> None:
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.progress_label.setText("Starting… (waiting for the index)")

    def _show_activity(self) -> None:
        """The bar and its line from the engine's activity record (activity_line: the words
        `findling status` and MCP use); while busy, the Folders panel's counts follow every few
        seconds; once idle, once more."""
        try:
            activity = self.engine.activity()
        except FindlingError:  # the engine is closing with the window
            return
        if activity is None:
            self._busy_phase = ""
            if self._busy:
                self._busy = False
                if not self._indexing:
                    self.progress.setVisible(False)
                self.refresh_sources()
            return
        if activity.phase == "embedding" and self._busy_phase not in ("", "embedding"):
            # the text is committed: the list shown follows what it now finds
            if self.search_field.text().strip():
                self.run_search(False)
        if activity.phase != self._busy_phase:  # a new phase: the counts follow at once
            self._counts_read = 0.0
        self._busy, self._busy_phase = True, activity.phase
        self.progress.setVisible(True)
        done, total = embedding_share(activity.done, activity.total, activity.depth)
        if total:
            self.progress.setRange(0, total)
            self.progress.setValue(min(done, total))
        else:  # scanning and optimizing: how long, not how far
            self.progress.setRange(0, 0)
        name = activity.current
        name = display_path(os.path.basename(name) if activity.phase == "indexing" else name)
        name = name if len(name) <= 40 else name[:39].rstrip() + "…"
        self.progress_label.setText(activity_line(activity, time.time()) + (f"  {name}" if name else ""))
        self._show_summary(activity)
        if time.monotonic() - self._counts_read > 3.0:
            self._counts_read = time.monotonic()
            self.refresh_sources()

    def _finish_indexing(self) -> None:
        self.progress.setVisible(False)
        self.refresh_sources()

    def _on_indexed(self, report) -> None:
        text = f"Indexed: {report_counts(report)}"
        # The folders panel keeps a short, dated line; what may change later (whether semantic
        # search is on) goes only to the status bar, so the panel never tells a stale story.
        self.progress_label.setText(f"Last indexed at {time.strftime('%H:%M')}: {report_counts(report)}")
        if report.embedding is not None and report.embedding.skipped:
            text += f". Semantic search is off: {note_text(report.embedding.skipped, 'window')}"
        if report.embedding is not None and report.embedding.stopped:
            text += f". Embedding stopped: {report.embedding.stopped}"
        text += "".join(f". Shared: {line}" for line in self._shared_news(report.shared))
        if report.warnings:  # what the run could not do, as the CLI prints it (a .gitignore leaving out all)
            text += f". {report.warnings[0]}" + (
                f" (and {len(report.warnings) - 1} more)" if len(report.warnings) > 1 else ""
            )
        self.statusBar().showMessage(text)
        self._finish_indexing()
        if self.search_field.text().strip():
            self.run_search(False)

    def _shared_news(self, lines: list[str]) -> list[str]:
        """The shared collections' lines worth saying: a copy brought up to date, or a collection
        that cannot be reached, once (the update at start and every F5 would say it again)."""
        said = []
        for line in lines:
            name = line.split(":", 1)[0]
            if ": cannot be reached" not in line:
                self._unreached.discard(name)
                said.append(line)
            elif name not in self._unreached:
                self._unreached.add(name)
                said.append(line)
        return said

    def _on_index_failed(self, message: str) -> None:
        self._on_error(message)
        self._finish_indexing()

    def _show_paused(self, paused: bool) -> None:
        self.pause_button.setText("Resume" if paused else "Pause")

    def toggle_pause(self) -> None:
        self.indexing.toggle_pause()

    def _on_files_changed(self, paths: list[str]) -> None:
        if not self.indexing.paused:
            self.statusBar().showMessage(f"Updating {len(paths)} changed file(s)…")
        self.indexing.files_changed(paths)

    def _on_updated(self, report) -> None:
        if not self._indexing:
            self.progress.setVisible(False)
        self.statusBar().showMessage(f"Live update: {report_counts(report)}")
        self.follow_change("update")

    def _on_error(self, message: str) -> None:
        self.statusBar().showMessage(message)
