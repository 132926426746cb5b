"""Extraction in worker processes, each file under a wall-clock and a memory budget.

A file that runs past its time has its worker killed and replaced, and is recorded as
timed out; a worker's address space is capped, so a decompression bomb ends in a
MemoryError (or the worker's death) for that file alone. Workers ignore Ctrl-C: the
parent stops them, so an interrupted run prints no tracebacks from them.

Our own small pool rather than ProcessPoolExecutor: that one cannot stop one task's
process, and a killed worker breaks the whole pool."""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from findling.ingest.prepare import PrepareTask, failed_row, prepare
from findling.priority import lower_this_thread

_POLL_S = 0.2  # how often a waiting parent looks at cancel and deadlines


@dataclass(frozen=True)
class Budget:
    timeout_s: float = 30.0
    memory_mb: int = 1536  # address space of one worker; 0 = no cap


def _limit_self(memory_mb: int) -> None:
    """In the worker: low priority, no Ctrl-C, capped memory."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        if hasattr(os, "nice"):
            os.nice(10)
    except OSError:
        pass
    if memory_mb > 0:
        try:
            import resource

            cap = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
        except (ImportError, ValueError, OSError):
            pass  # Windows has no rlimits; the time budget still holds


_READY = "ready"


def _serve(conn: Connection, memory_mb: int) -> None:
    _limit_self(memory_mb)
    lower_this_thread()  # reading files is background work: the user's programs come first
    try:
        conn.send(_READY)  # imports done: a file's budget starts only now
    except (BrokenPipeError, OSError):
        return
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if task is None:
            return
        try:
            result: object = prepare(task)
        except MemoryError:
            result = failed_row(task.path, "not enough memory to index this file")
        except BaseException as exc:  # noqa: BLE001 - whatever it is, it is this file's failure
            result = failed_row(task.path, f"extraction failed: {type(exc).__name__}: {exc}")
        try:
            conn.send(result)
        except MemoryError:
            conn.send(failed_row(task.path, "not enough memory to index this file"))
        except (BrokenPipeError, OSError):
            return


class _Worker:
    def __init__(self, context: multiprocessing.context.SpawnContext, memory_mb: int) -> None:
        self.conn, child = context.Pipe(duplex=True)
        self.process: BaseProcess = context.Process(target=_serve, args=(child, memory_mb), daemon=True)
        self.process.start()
        child.close()
        self.task: PrepareTask | None = None
        self.deadline = 0.0

    def give(self, task: PrepareTask, timeout_s: float) -> None:
        self.task = task
        self.deadline = time.monotonic() + timeout_s
        self.conn.send(task)

    def kill(self) -> None:
        try:
            self.process.kill()
        except (OSError, ValueError):
            pass
        self.process.join(2)
        self.conn.close()

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass


class ExtractionPool:
    def __init__(self, workers: int, budget: Budget) -> None:
        # spawn, not fork: the parent runs DuckDB's threads, and forking those is unsafe.
        self._context = multiprocessing.get_context("spawn")
        self._budget = budget
        self._workers = [_Worker(self._context, budget.memory_mb) for _ in range(max(1, workers))]

    def results(self, tasks: Sequence[PrepareTask], cancel: threading.Event) -> Iterator[object]:
        """Each task's result, in the order they finish. A worker gets a file only once it
        has started (its imports do not count against the file's time)."""
        queue = deque(tasks)
        starting = {w.conn: w for w in self._workers}
        idle: list[_Worker] = []
        busy: dict[Connection, _Worker] = {}

        def dispatch() -> None:
            while queue and idle and not cancel.is_set():
                worker = idle.pop()
                worker.give(queue.popleft(), self._budget.timeout_s)
                busy[worker.conn] = worker

        while queue or busy:
            dispatch()
            if cancel.is_set():
                return
            now = time.monotonic()
            wait = min([_POLL_S, *(max(0.0, w.deadline - now) for w in busy.values())])
            for conn in multiprocessing.connection.wait([*busy, *starting], timeout=wait):
                if conn in starting:
                    worker = starting.pop(conn)
                    try:
                        worker.conn.recv()
                        idle.append(worker)
                    except (EOFError, OSError):
                        fresh = self._replace(worker)
                        starting[fresh.conn] = fresh
                        if self._failed_starts > 3:
                            raise OSError("extraction workers exit as soon as they start") from None
                    continue
                worker = busy.pop(conn)  # type: ignore[call-overload]
                task = worker.task
                assert task is not None
                try:
                    result = worker.conn.recv()
                    idle.append(worker)
                    # The next file goes out before this result is handed over: the worker
                    # reads it while the caller writes what it was given.
                    dispatch()
                except (EOFError, OSError):
                    fresh = self._replace(worker)
                    starting[fresh.conn] = fresh
                    code = worker_exit_reason(self._last_exit)
                    result = failed_row(task.path, f"the extractor stopped on this file ({code})")
                yield result
            now = time.monotonic()
            for conn, worker in list(busy.items()):
                if now >= worker.deadline:
                    task = worker.task
                    assert task is not None
                    del busy[conn]
                    fresh = self._replace(worker)
                    starting[fresh.conn] = fresh
                    timed_out = failed_row(task.path, f"timed out after {self._budget.timeout_s:g} s")
                    timed_out.seconds = self._budget.timeout_s  # as costly as a file can be
                    yield timed_out

    _last_exit: int | None = None
    _failed_starts = 0

    def _replace(self, worker: _Worker) -> _Worker:
        worker.kill()
        self._last_exit = worker.process.exitcode
        if worker.task is None:
            self._failed_starts += 1
        fresh = _Worker(self._context, self._budget.memory_mb)
        self._workers[self._workers.index(worker)] = fresh
        return fresh

    def close(self) -> None:
        for worker in self._workers:
            worker.stop()
        deadline = time.monotonic() + 1.0
        for worker in self._workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.kill()
            else:
                worker.conn.close()

    def __enter__(self) -> ExtractionPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def worker_exit_reason(code: int | None) -> str:
    if code is None:
        return "it did not answer"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}, perhaps out of memory"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"
