"""`findling bench --gui-start HOME`: seconds from launching `findling gui` on an existing
index until its window is shown and the event loop turns (ready for typing), in a fresh
process each time, interpreter start and imports included."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

_CHILD = """
import sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
import findling.gui.main_window as main_window

shown = main_window.MainWindow.show

def show(self):
    shown(self)
    def ready():
        print("READY", time.time(), flush=True)
        QApplication.quit()
    QTimer.singleShot(0, ready)

main_window.MainWindow.show = show
from findling.gui.app import main
main(sys.argv[1])
"""


def bench_gui_start(home: str, runs: int = 5) -> dict:
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    seconds = []
    for _ in range(runs):
        started = time.time()
        out = subprocess.run([sys.executable, "-c", _CHILD, home], capture_output=True, text=True, env=env, timeout=120)
        ready = next((line.split()[1] for line in out.stdout.splitlines() if line.startswith("READY")), None)
        if ready is None:
            raise RuntimeError(f"the window did not come up: {out.stderr[-2000:]}")
        seconds.append(float(ready) - started)
    return {
        "home": home,
        "runs": runs,
        "ready_s_median": round(statistics.median(seconds), 2),
        "ready_s_max": round(max(seconds), 2),
        "platform": env["QT_QPA_PLATFORM"],
    }
