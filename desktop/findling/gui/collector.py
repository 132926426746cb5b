"""Python's cycle collector, run on the GUI thread only.

The collector runs in whichever thread allocates past its threshold; on a pool thread
(embedding allocates a great deal) it frees cycles holding Qt wrappers, a closed dialog's
among them, and Shiboken then deletes those widgets from the wrong thread: the app crashed
this way after the first-run Models dialog. As in pyqtgraph and GitFourchette, automatic
collection is turned off and a GUI-thread timer collects, by generation, as often as the
thresholds would have."""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

_INTERVAL_MS = 1000


class GuiThreadCollector(QObject):
    def __init__(self, parent: QObject, interval_ms: int = _INTERVAL_MS) -> None:
        super().__init__(parent)
        self._threshold = gc.get_threshold()
        self._was_enabled = gc.isenabled()  # another collector may be running (the tests' own)
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.collect)
        self._timer.start(interval_ms)

    def collect(self) -> int:
        """Collect each generation past its threshold, as automatic collection would; the
        number of unreachable objects found."""
        counts = gc.get_count()
        found = 0
        for generation in range(3):
            if counts[generation] <= self._threshold[generation]:
                break
            found += gc.collect(generation)
        return found

    def stop(self) -> None:
        """Automatic collection again, as it was before (at exit, when no widget is left to free)."""
        self._timer.stop()
        if self._was_enabled:
            gc.enable()


def collect_on_gui_thread(app: QObject) -> GuiThreadCollector:
    """Install the collector for the life of `app` (the QApplication)."""
    return GuiThreadCollector(app)
