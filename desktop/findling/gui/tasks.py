"""The one way background work runs: `run_task(fn, on_done, on_error)` wraps any callable
in a QRunnable; its result or exception comes back to the GUI thread through a signal (as
Picard's `run_task`). Two pools: interactive work (search, preview, explain, status) on
the global one, long work (index, embed, download; `long=True`) on its own, so on two
cores a search never queues behind indexing. A counter lets shutdown wait for tasks."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot


class _Relay(QObject):
    """Lives in the GUI thread; signals emitted from a pool thread are queued to it."""

    done = Signal(object, object)  # callback, result
    failed = Signal(object, object)  # callback, exception
    progress = Signal(object, object)  # callback, value

    def __init__(self) -> None:
        super().__init__()
        self.done.connect(self._call)
        self.failed.connect(self._call)
        self.progress.connect(self._call)

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
    def __init__(self, fn, on_done, on_error) -> None:
        super().__init__()
        self.fn, self.on_done, self.on_error = fn, on_done, on_error
        self.setAutoDelete(True)

    def run(self) -> None:
        global _running
        relay = _get_relay()
        try:
            result = self.fn()
        except BaseException as exc:  # every failure reaches the GUI as a message, never a crash
            exc.__findling_traceback__ = traceback.format_exc()  # type: ignore[attr-defined]
            relay.failed.emit(self.on_error, exc)
        else:
            relay.done.emit(self.on_done, result)
        finally:
            with _running_lock:
                _running -= 1
                _idle.notify_all()


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
    with _running_lock:
        _running += 1
    _pool(long).start(_Task(fn, on_done, on_error))


def progress_callback(callback: Callable[[Any], None]) -> Callable[[Any], None]:
    """A function a worker may call from any thread; `callback` runs on the GUI thread."""
    relay = _get_relay()
    return lambda value: relay.progress.emit(callback, value)


def wait_for_tasks(timeout: float = 10.0) -> bool:
    """At shutdown: wait until no task runs (True) or the timeout passes (False)."""
    with _running_lock:
        return _idle.wait_for(lambda: _running == 0, timeout)
