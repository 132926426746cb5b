"""`findling bench --gui FOLDER`: how late the GUI's event loop runs while the app indexes
a large folder through its own code path (a 10 ms timer records each tick's lateness)."""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from typing import cast

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QElapsedTimer, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402


def bench_gui(folder: str, tick_ms: int = 10) -> dict:
    import sys

    from findling.engine import Engine
    from findling.gui.main_window import MainWindow
    from findling.gui.tasks import wait_for_tasks

    sys.setswitchinterval(0.001)  # as the app sets it (gui/app.py)
    app = cast(QApplication, QApplication.instance() or QApplication([]))
    lateness: list[float] = []
    with tempfile.TemporaryDirectory(prefix="findling-guibench-") as home, Engine(home) as engine:
        window = MainWindow(engine)
        window.show()
        clock = QElapsedTimer()
        clock.start()
        last = [clock.elapsed()]

        late_at: list[tuple[int, float]] = []

        def tick() -> None:
            now = clock.elapsed()
            late = max(0.0, now - last[0] - tick_ms)
            lateness.append(late)
            if late > 25:
                late_at.append((now, late))
            last[0] = now

        timer = QTimer()
        timer.setInterval(tick_ms)
        timer.timeout.connect(tick)
        timer.start()
        started = time.perf_counter()
        window.add_paths([folder])
        # type while indexing, as a person would: searches run too
        typed = QTimer()
        typed.setInterval(700)

        def type_and_search() -> None:
            window.search_field.setText("memory")
            window.run_search(full=False)

        typed.timeout.connect(type_and_search)
        typed.start()
        while window.indexing.running or window.sources_model.rowCount() == 0:
            app.processEvents()
            time.sleep(0.001)
        seconds = time.perf_counter() - started
        timer.stop()
        typed.stop()
        status = engine.status(problem_limit=0)
        window.close()
        wait_for_tasks(30)
    ordered = sorted(lateness)
    return {
        "folder": folder,
        "documents": status.indexed,
        "index_s": round(seconds, 1),
        "ticks": len(ordered),
        "late_ticks_at_ms": late_at[:10],
        "lateness_ms": {
            "p50": round(statistics.median(ordered), 1),
            "p99": round(ordered[int(len(ordered) * 0.99)], 1),
            "max": round(ordered[-1], 1),
            "over_50ms": sum(1 for v in ordered if v > 50),
        },
    }
