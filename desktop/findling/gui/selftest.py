"""The window part of `findling --selftest`: the app opens on an index and closes."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from PySide6.QtWidgets import QApplication

from findling.engine import Engine
from findling.gui.main_window import MainWindow
from findling.gui.tasks import wait_for_tasks


def window_check(home: Path) -> str:
    app = cast(QApplication, QApplication.instance() or QApplication(["findling-selftest"]))
    with Engine(home) as engine:
        window = MainWindow(engine)
        window.show()
        app.processEvents()
        title = window.windowTitle()
        window.close()
        wait_for_tasks(10)
    return f"Qt {app.platformName()} window '{title}'"
