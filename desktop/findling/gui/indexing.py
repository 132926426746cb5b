"""The app's indexing state machine, apart from the window: runs, re-runs when folders
arrive mid-run, pause and resume, live updates from the file watcher. It owns no widgets;
the window listens to its signals."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Signal

from findling.engine import Engine
from findling.gui.search import error_text
from findling.gui.tasks import progress_callback, run_task
from findling.records import IndexProgress, IndexReport


class IndexingController(QObject):
    started = Signal()
    progress = Signal(object)  # IndexProgress
    finished = Signal(object)  # IndexReport of a full run (cancelled when paused)
    updated = Signal(object)  # IndexReport of a live update
    failed = Signal(str)  # a sentence for the status bar
    paused_changed = Signal(bool)

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        self.running = False
        self.paused = False
        self._again = False
        self._cancel: threading.Event | None = None

    def start(self) -> None:
        """Bring the index up to date; asked during a run, it runs once more after it."""
        if self.running:
            self._again = True
            return
        if self.paused:
            return
        self.running = True
        self._cancel = cancel = threading.Event()
        report = progress_callback(self.progress.emit)
        engine = self.engine
        self.started.emit()
        run_task(lambda: engine.index(progress=report, cancel=cancel), self._done, self._error, long=True)

    def _done(self, report: IndexReport) -> None:
        self.running = False
        self.finished.emit(report)
        self._maybe_again()

    def _error(self, exc: BaseException) -> None:
        self.running = False
        self.failed.emit(f"Indexing stopped: {error_text(exc)}")
        self._maybe_again()

    def _maybe_again(self) -> None:
        if self._again and not self.paused:
            self._again = False
            self.start()

    def toggle_pause(self) -> None:
        self.paused = not self.paused
        self.paused_changed.emit(self.paused)
        if self.paused and self._cancel is not None:
            self._cancel.set()
        elif not self.paused:
            self.start()

    def files_changed(self, paths: list[str]) -> None:
        if self.paused:
            return
        engine = self.engine
        report = progress_callback(self.progress.emit)  # embedding may follow: the window shows it
        self._cancel = cancel = self._cancel if self.running and self._cancel is not None else threading.Event()
        run_task(
            lambda: engine.update_paths(paths, report, cancel),
            self.updated.emit,
            lambda exc: self.failed.emit(f"Update failed: {error_text(exc)}"),
            long=True,
        )

    def stop(self) -> None:
        if self._cancel is not None:
            self._cancel.set()


__all__ = ["IndexingController", "IndexProgress", "error_text"]
