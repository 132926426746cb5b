"""Live updates: file system events in the indexed folders, debounced, become one
`update_paths` call. watchdog watches recursively on every platform."""

from __future__ import annotations

import os
import threading

from PySide6.QtCore import QObject, QTimer, Signal
from watchdog.events import (
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import ObservedWatch

# Only changes: without a filter, inotify also reports every open and read, so indexing a
# folder (which reads every file) would flood the app with events about itself.
_CHANGES = [
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileClosedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]


class _Handler(FileSystemEventHandler):
    def __init__(self, sink) -> None:
        self.sink = sink

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        paths = [event.src_path]
        if getattr(event, "dest_path", ""):
            paths.append(event.dest_path)
        for path in paths:
            path = os.fsdecode(path)
            if not event.is_directory and not any(part.startswith(".") for part in path.split(os.sep)):
                self.sink(path)


class FolderWatcher(QObject):
    """Emits `changed(list_of_paths)` on the GUI thread, at most once per debounce interval."""

    changed = Signal(list)
    _poke = Signal()

    def __init__(self, debounce_ms: int = 700) -> None:
        super().__init__()
        self._observer = Observer()
        self._observer.daemon = True
        self._watches: dict[str, ObservedWatch] = {}
        self._pending: set[str] = set()
        self._lock = threading.Lock()
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._flush)
        self._poke.connect(self._timer.start)  # queued: restarts the timer on the GUI thread
        self._started = False
        self._closed = False

    def _collect(self, path: str) -> None:
        with self._lock:
            self._pending.add(path)
        self._poke.emit()

    def _flush(self) -> None:
        with self._lock:
            paths, self._pending = sorted(self._pending), set()
        if paths:
            self.changed.emit(paths)

    @property
    def folders(self) -> list[str]:
        """The folders watched now."""
        with self._lock:
            return sorted(self._watches)

    def watch(self, folders: list[str]) -> None:
        """Watch exactly these folders. Call it off the GUI thread: adding a recursive watch
        walks the whole tree (inotify needs one watch per folder)."""
        with self._lock:
            self._watch_locked(folders)

    def _watch_locked(self, folders: list[str]) -> None:
        if self._closed:
            return  # a late status refresh after the window closed
        wanted = {f for f in folders if os.path.isdir(f)}
        for folder in list(self._watches):
            if folder not in wanted:
                self._observer.unschedule(self._watches.pop(folder))
        for folder in wanted - set(self._watches):
            self._watches[folder] = self._observer.schedule(
                _Handler(self._collect), folder, recursive=True, event_filter=_CHANGES
            )
        if not self._started:
            self._observer.start()
            self._started = True

    def stop(self) -> None:
        with self._lock:
            self._closed = True
        self._timer.stop()
        if self._started:
            self._observer.stop()
            self._observer.join(timeout=2)
            self._started = False
