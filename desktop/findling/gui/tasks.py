"""The one way background work runs: `run_task(fn, on_done, on_error)` wraps any callable
in a QRunnable; its result or exception comes back to the GUI thread through a signal (as
Picard's `run_task`). Two pools: interactive work (search, preview, explain, status) on
the global one, long work (index, embed, download; `long=True`) on its own, so on two
cores a search never queues behind indexing. A counter lets shutdown wait for tasks.

A pool thread never holds the last reference to anything a task was given: the work, its
callbacks and its outcome stay in a table the GUI thread owns and empties. A closure over a
dialog released on a pool thread makes Shiboken delete that widget from the wrong thread,
which crashed the app after the first-run Models dialog closed."""

from __future__ import annotations

import itertools
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot


@dataclass
class _Job:
    fn: Callable[[], Any]
    on_done: Callable[[Any], None] | None
    on_error: Callable[[BaseException], None] | None
    outcome: object = None
    failed: bool = False


_jobs: dict[int, _Job] = {}  # emptied on the GUI thread only
_jobs_lock = threading.Lock()
_ids = itertools.count(1)


class _Relay(QObject):
    """Lives in the GUI thread; signals emitted from a pool thread are queued to it."""

    finished = Signal(int)  # a job's id: its outcome is in _jobs
    progress = Signal(object, object)  # callback, value

    def __init__(self) -> None:
        super().__init__()
        self.finished.connect(self._finish)
        self.progress.connect(self._call)

    @Slot(int)
    def _finish(self, job_id: int) -> None:
        with _jobs_lock:
            job = _jobs.pop(job_id)
        if job.failed:
            assert isinstance(job.outcome, BaseException)
            if job.on_error is not None:
                job.on_error(job.outcome)
        elif job.on_done is not None:
            job.on_done(job.outcome)

    @Slot(object, object)
    def _call(self, callback: Callable[[Any], None] | None, value: object) -> None:
        if callback is not None:
            callback(value)


_relay: _Relay | None = None
_running = 0
_running_lock = threading.Lock()
_idle = threading.Condition(_running_lock)


def _get_relay() -> _Relay:
    global _relay
    if _relay is None:
        _relay = _Relay()  # created on first use, from the GUI thread
    return _relay


class _Task(QRunnable):
    def __init__(self, job_id: int) -> None:
        super().__init__()
        self.job_id = job_id  # only the id: the job itself is the GUI thread's to release
        self.setAutoDelete(True)

    def run(self) -> None:
        global _running
        relay = _get_relay()
        try:
            _run_job(self.job_id)
            relay.finished.emit(self.job_id)
        finally:
            with _running_lock:
                _running -= 1
                _idle.notify_all()


def _run_job(job_id: int) -> None:
    """Run the job and leave its outcome in the table. The outcome is stored by `_settle`,
    never kept in this frame: a failure's traceback holds this frame, and a frame holding
    the failure would be a cycle that the collector may free on this pool thread."""
    with _jobs_lock:
        fn = _jobs[job_id].fn
    try:
        result = fn()
    except BaseException as exc:  # every failure reaches the GUI as a message, never a crash
        exc.__findling_traceback__ = traceback.format_exc()  # type: ignore[attr-defined]
        _settle(job_id, exc, failed=True)
    else:
        _settle(job_id, result, failed=False)


def _settle(job_id: int, outcome: object, failed: bool) -> None:
    with _jobs_lock:
        job = _jobs[job_id]
        job.outcome, job.failed = outcome, failed


_long_pool: QThreadPool | None = None


def _pool(long: bool) -> QThreadPool:
    global _long_pool
    if not long:
        return QThreadPool.globalInstance()
    if _long_pool is None:
        _long_pool = QThreadPool()
        _long_pool.setMaxThreadCount(2)  # an index run and a download, side by side
    return _long_pool


def run_task(
    fn: Callable[[], Any],
    on_done: Callable[[Any], None] | None = None,
    on_error: Callable[[BaseException], None] | None = None,
    long: bool = False,
) -> None:
    global _running
    _get_relay()
    job_id = next(_ids)
    with _jobs_lock:
        _jobs[job_id] = _Job(fn, on_done, on_error)
    with _running_lock:
        _running += 1
    _pool(long).start(_Task(job_id))


def progress_callback(callback: Callable[[Any], None]) -> Callable[[Any], None]:
    """A function a worker may call from any thread; `callback` runs on the GUI thread."""
    relay = _get_relay()
    return lambda value: relay.progress.emit(callback, value)


def wait_for_tasks(timeout: float = 10.0) -> bool:
    """At shutdown: wait until no task runs (True) or the timeout passes (False)."""
    with _running_lock:
        return _idle.wait_for(lambda: _running == 0, timeout)
