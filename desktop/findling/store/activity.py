"""The index's activity: one record of what a run is doing now, kept by the engine from every
run's progress, whoever asked for the run, and read by every face (records.Activity); and the
text runs waiting for the index, for which an embedding run steps aside."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace

from findling.records import Activity, IndexProgress


class ActivityTracker:
    """Turns runs' progress into the index's Activity. Runs follow one another under the
    engine's index lock, but a reader may ask from any thread at any time."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._now: Activity | None = None

    def now(self) -> Activity | None:
        with self._lock:
            return self._now

    def note(self, p: IndexProgress) -> None:
        """A run's progress, in the index's terms."""
        if p.phase == "done":  # the text part is done; embedding may follow: the engine says when all is
            return
        previous = self.now()
        # an embedding run (again after stepping aside for a text run) begins at 0 of what it finds pending
        fresh = previous is None or previous.phase != p.phase or (p.phase == "embedding" and p.done == 0)
        if p.phase == "embedding":  # the run counts what it found pending; the index, every document
            done, total, unit = p.base + p.done, p.base + p.total, "documents"
        elif p.phase == "indexing":
            done, total, unit = p.done, p.total, "files"
        else:  # scanning and optimizing: how long, not how far
            done, total, unit = 0, 0, "files"
        if fresh or previous is None:
            activity = Activity(p.phase, done, total, unit, p.current, p.failed, time.time(), done, p.depth)
        else:
            activity = replace(previous, done=done, total=total, current=p.current, failed=p.failed, depth=p.depth)
        with self._lock:
            self._now = activity

    def idle(self) -> None:
        with self._lock:
            self._now = None

    def tracked(self, progress: Callable[[IndexProgress], None] | None) -> Callable[[IndexProgress], None]:
        """`progress`, noted here first."""

        def on_progress(p: IndexProgress) -> None:
            self.note(p)
            if progress is not None:
                progress(p)

        return on_progress


class WaitingRuns:
    """How many text runs wait for the index lock; set while any does (as an Event reads)."""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self._count += 1

    def done(self) -> None:
        with self._lock:
            self._count -= 1

    def is_set(self) -> bool:
        return self._count > 0


class EitherEvent(threading.Event):
    """Set when either event is: the caller's cancel, or a text run waiting for the index."""

    def __init__(self, *events: threading.Event | WaitingRuns | None) -> None:
        super().__init__()
        self._events = [e for e in events if e is not None]

    def is_set(self) -> bool:
        return super().is_set() or any(e.is_set() for e in self._events)
