"""Background work as a good citizen: embedding and reading run at the lowest CPU and I/O
priority (as Recoll's indexer runs at nice 19 and idle I/O), and an embedding run holds back
while a search of this process is in flight, so that searches answer at their usual speed.

Priorities are per thread where the system allows it (Linux: a thread's nice value and I/O
class are its own), so a process that embeds in the background still answers its clients'
searches at normal priority. A thread whose priority was lowered cannot raise it again
without privileges: background work runs in a thread of its own (`in_background`)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

NICE = 19
_IOPRIO_CLASS_IDLE = 3
_IOPRIO_CLASS_SHIFT = 13
_IOPRIO_WHO_PROCESS = 1
# ioprio_set's number by machine: glibc has no wrapper for it
_IOPRIO_SET = {"x86_64": 251, "aarch64": 30, "i686": 289, "armv7l": 314, "riscv64": 30, "ppc64le": 273}


def lower_this_thread() -> bool:
    """The calling thread at nice 19 and idle I/O (Linux), or background mode (macOS, Windows);
    threads it starts from now on inherit that. False where the system refused or has no such
    thing: the work runs as it is."""
    try:
        if sys.platform.startswith("linux"):
            tid = threading.get_native_id()
            os.setpriority(os.PRIO_PROCESS, tid, max(NICE, os.getpriority(os.PRIO_PROCESS, tid)))
            number = _IOPRIO_SET.get(os.uname().machine)
            if number is not None:
                libc = ctypes.CDLL(None, use_errno=True)
                libc.syscall(number, _IOPRIO_WHO_PROCESS, tid, _IOPRIO_CLASS_IDLE << _IOPRIO_CLASS_SHIFT)
            return True
        if sys.platform == "darwin":
            libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
            # setpriority(PRIO_DARWIN_THREAD, 0, PRIO_DARWIN_BG): low CPU and throttled I/O
            return bool(libc.setpriority(3, 0, 0x1000) == 0)
        if sys.platform == "win32":
            kernel32 = ctypes.WinDLL("kernel32")  # type: ignore[attr-defined]
            # THREAD_MODE_BACKGROUND_BEGIN: low CPU, I/O and memory priority
            return bool(kernel32.SetThreadPriority(kernel32.GetCurrentThread(), 0x00010000))
    except (OSError, AttributeError, ValueError):
        return False
    return False


def thread_nice() -> int:
    """The calling thread's nice value (0 where the system has none to tell)."""
    try:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) if sys.platform.startswith("linux") else 0
    except OSError:
        return 0


def in_background(work: Callable[[], T], name: str = "findling-background") -> T:
    """`work()` run in a thread of its own at background priority, waited for here; its result or
    its exception comes back as if called directly."""
    box: dict[str, object] = {}

    def run() -> None:
        lower_this_thread()
        try:
            box["value"] = work()
        except BaseException as exc:  # handed to the caller, raised there
            box["error"] = exc

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["value"]  # type: ignore[return-value]


class Foreground:
    """The searches of this process in flight. Background work asks `wait_quiet` before each
    step: it holds back while any search runs (and a moment after, for the next keystroke's),
    though never longer than `longest` at a time, so that a stream of searches slows it but
    cannot stop it."""

    def __init__(self, grace_s: float = 0.15, longest_s: float = 2.0) -> None:
        self._count = 0
        self._last = 0.0
        self._cond = threading.Condition()
        self.grace_s = grace_s
        self.longest_s = longest_s

    def __enter__(self) -> Foreground:
        with self._cond:
            self._count += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self._count -= 1
            self._last = time.monotonic()
            self._cond.notify_all()

    @property
    def busy(self) -> bool:
        with self._cond:
            return self._count > 0 or time.monotonic() - self._last < self.grace_s

    def wait_quiet(self) -> float:
        """Wait while searches run (at most `longest_s`); the seconds waited."""
        started = time.monotonic()
        with self._cond:
            while True:
                now = time.monotonic()
                if now - started >= self.longest_s:
                    break
                if self._count > 0:
                    self._cond.wait(self.longest_s - (now - started))
                    continue
                quiet_in = self.grace_s - (now - self._last)
                if quiet_in <= 0:
                    break
                self._cond.wait(min(quiet_in, self.longest_s - (now - started)))
        return time.monotonic() - started


class YieldingStop(threading.Event):
    """A run's stop event that, asked whether to stop (before each model run), first lets the
    searches in flight go ahead (Foreground.wait_quiet)."""

    def __init__(self, stop: threading.Event, foreground: Foreground) -> None:
        super().__init__()
        self._stop = stop
        self._foreground = foreground

    def is_set(self) -> bool:
        if not self._stop.is_set():
            self._foreground.wait_quiet()
        return self._stop.is_set() or super().is_set()


# The one gate of this process: every search enters it, background embedding waits on it.
FOREGROUND = Foreground()
