"""What a background task was given is released on the GUI thread, and Python's cycle
collector runs there only: a Qt wrapper freed on a pool thread makes Shiboken delete its
widget from the wrong thread (the first-run crash)."""

from __future__ import annotations

import gc
import threading
import weakref

from findling.gui.collector import GuiThreadCollector
from findling.gui.tasks import run_task, wait_for_tasks


class _Held:
    pass


def test_a_tasks_work_and_callbacks_are_freed_on_the_gui_thread(qtbot):
    freed_on: list[bool] = []
    for fails in (False, True):
        held = _Held()
        weakref.finalize(held, lambda: freed_on.append(threading.current_thread() is threading.main_thread()))

        def work(held=held, fails=fails):
            if fails:
                raise ValueError("no")
            return 1

        outcomes: list[object] = []
        run_task(work, outcomes.append, outcomes.append, long=True)
        del held, work
        qtbot.waitUntil(lambda outcomes=outcomes: len(outcomes) == 1, timeout=5000)
        assert wait_for_tasks(5)
        outcomes.clear()  # a failure's traceback holds the work's frame, and so `held`
    gc.collect()
    assert freed_on == [True, True]


def test_the_collector_runs_on_the_gui_thread_only(qtbot):
    was_enabled = gc.isenabled()  # off under the GUI tests' own collector (conftest)
    collector = GuiThreadCollector(None, interval_ms=60_000)
    try:
        assert not gc.isenabled()
        freed_on: list[bool] = []

        def make_cycles() -> None:
            for _ in range(5000):  # far past the first generation's threshold
                a: list = []
                a.append(a)
            cycle: list = []
            cycle.append(cycle)
            holder = _Held()
            holder.cycle = cycle  # type: ignore[attr-defined]
            cycle.append(holder)
            weakref.finalize(holder, lambda: freed_on.append(threading.current_thread() is threading.main_thread()))

        worker = threading.Thread(target=make_cycles)
        worker.start()
        worker.join()
        assert freed_on == []  # nothing collected on the worker thread
        while not freed_on:
            assert collector.collect() or gc.collect()
        assert freed_on == [True]
    finally:
        collector.stop()
    assert gc.isenabled() == was_enabled  # as it found it


def test_the_window_tests_collect_as_the_app_does():
    """conftest installs the app's collector for tests/gui: automatic collection is off, so no
    pool thread frees a Qt wrapper (the suite once died so, in test_dialogs)."""
    assert not gc.isenabled()
