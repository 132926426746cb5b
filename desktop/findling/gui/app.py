"""`findling gui`: start the app (or bring the running one forward)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

from PySide6.QtGui import QGuiApplication, QPalette, QColor
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from findling.errors import FindlingError


def _follow_os_theme(app: QApplication) -> None:
    """Fusion everywhere, with a dark palette when the OS asks for dark mode."""
    app.setStyle("Fusion")
    if QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark:
        palette = QPalette()
        for role, color in (
            (QPalette.ColorRole.Window, "#2b2b2b"), (QPalette.ColorRole.WindowText, "#e6e6e6"),
            (QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.AlternateBase, "#2a2a2a"),
            (QPalette.ColorRole.Text, "#e6e6e6"), (QPalette.ColorRole.Button, "#353535"),
            (QPalette.ColorRole.ButtonText, "#e6e6e6"), (QPalette.ColorRole.Highlight, "#3d6fb6"),
            (QPalette.ColorRole.HighlightedText, "#ffffff"),
        ):
            palette.setColor(role, QColor(color))
        app.setPalette(palette)


def main(home: str | None = None, demo: bool = False) -> int:
    from findling.engine import Engine
    from findling.gui.main_window import MainWindow, demo_folder
    from findling.gui.single_instance import InstanceServer, ask_running_instance
    from findling.paths import data_home

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("Findling")
    app.setOrganizationName("findling")
    _follow_os_theme(app)
    demo_home = None
    if demo:
        demo_home = tempfile.mkdtemp(prefix="findling-demo-")
        home = demo_home
    resolved = str(data_home(home))
    if ask_running_instance(resolved):
        return 0  # the running Findling came forward; the index is never opened twice
    try:
        engine = Engine(home)
    except FindlingError as exc:
        QMessageBox.critical(None, "Findling", str(exc))
        return 2
    server = InstanceServer(resolved)
    window = MainWindow(engine)
    server.activate.connect(window.bring_forward)
    window.show()
    if demo:
        window.add_paths([str(demo_folder())])
    try:
        return app.exec()
    finally:
        from findling.gui.tasks import wait_for_tasks

        wait_for_tasks(10.0)
        server.close()
        engine.close()
        if demo_home:
            shutil.rmtree(demo_home, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main(os.environ.get("FINDLING_HOME")))
