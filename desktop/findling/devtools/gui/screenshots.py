"""Screenshots of the real window (for docs and for looking at what we ship):
`python -m findling.devtools.gui.screenshots OUTDIR` — run it under a display, e.g. `xvfb-run -a`."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import cast

from PySide6.QtCore import QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication


def _wait(app: QApplication, predicate, timeout_s: float = 30.0) -> None:
    import time

    deadline = time.monotonic() + timeout_s
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the window did not reach the expected state")
        app.processEvents()
        time.sleep(0.01)


def _shot(app: QApplication, window, path: Path) -> None:
    for _ in range(20):
        app.processEvents()
    screen = QGuiApplication.primaryScreen()
    pixmap = screen.grabWindow(window.winId()) if screen is not None else window.grab()
    if pixmap.isNull() or pixmap.width() < 10:
        pixmap = window.grab()
    pixmap.save(str(path))


def main(out: str) -> int:
    from findling.engine import Engine
    from findling.gui.app import _follow_os_theme
    from findling.gui.main_window import MainWindow, demo_folder

    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    app = cast(QApplication, QApplication.instance() or QApplication(sys.argv[:1]))
    _follow_os_theme(app)
    with tempfile.TemporaryDirectory(prefix="findling-shots-") as home, Engine(home) as engine:
        window = MainWindow(engine, debounce_ms=10)
        window.resize(1360, 860)
        window.show()
        window.add_paths([str(demo_folder())])
        _wait(app, lambda: window.sources_model.rowCount() > 0 and not window._indexing)
        _shot(app, window, target / "01-indexed.png")
        window.search_field.setText("database connection refused")
        window.run_search(full=True)
        _wait(app, lambda: window.results.rowCount() > 0 and window.preview.toPlainText() != "")
        _shot(app, window, target / "02-results-preview.png")
        window.tabs.setCurrentIndex(1)
        _shot(app, window, target / "03-explain.png")
        window.search_field.setText("xylophone quantum")  # nothing answers it: weak results and a note
        window.run_search(full=False)
        _wait(app, lambda: window._last_result is not None and window._last_result.query == "xylophone quantum")
        _shot(app, window, target / "04-no-good-matches.png")
        window.close()
        QTimer.singleShot(0, app.quit)
    print("\n".join(str(p) for p in sorted(target.glob("*.png"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1] if len(sys.argv) > 1 else "screenshots"))
