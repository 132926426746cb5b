"""`findling gui`: start the app (or bring the running one forward)."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication, QMessageBox

from findling.errors import FindlingError

if TYPE_CHECKING:
    from findling.server.handle import IndexHandle


def _follow_os_theme(app: QApplication) -> None:
    """Fusion everywhere, with a dark palette when the OS asks for dark mode."""
    app.setStyle("Fusion")
    if QGuiApplication.styleHints().colorScheme() == Qt.ColorScheme.Dark:
        palette = QPalette()
        for role, color in (
            (QPalette.ColorRole.Window, "#2b2b2b"),
            (QPalette.ColorRole.WindowText, "#e6e6e6"),
            (QPalette.ColorRole.Base, "#1e1e1e"),
            (QPalette.ColorRole.AlternateBase, "#2a2a2a"),
            (QPalette.ColorRole.Text, "#e6e6e6"),
            (QPalette.ColorRole.Button, "#353535"),
            (QPalette.ColorRole.ButtonText, "#e6e6e6"),
            (QPalette.ColorRole.Highlight, "#3d6fb6"),
            (QPalette.ColorRole.HighlightedText, "#ffffff"),
        ):
            palette.setColor(role, QColor(color))
        app.setPalette(palette)


def _offer_models(window) -> None:
    """First run: offer the embedder download once. Declined or offline, Findling is a
    keyword search app and says so in the status bar."""
    from findling.gui.state import window_state

    settings = window_state(window.engine.home)
    reason = window.engine.models.unavailable_reason("embedder")
    if reason is None or settings.value("models/offered", False, type=bool):
        return
    settings.setValue("models/offered", True)
    spec = window.engine.models.spec("embedder")
    answer = QMessageBox.question(
        window,
        "Semantic search",
        f"Findling can also find documents by meaning. Download the {spec.name} model now "
        "(about 25 MB)? Without it, search works by keywords.",
    )
    if answer == QMessageBox.StandardButton.Yes:
        from findling.gui.models_dialog import ModelsDialog

        dialog = ModelsDialog(window.engine, window)
        dialog.pull_selected()
        dialog.exec()
        dialog.deleteLater()  # freed here, on the GUI thread, never by a pool thread's last reference
        window.start_indexing()  # embed what is indexed
    else:
        from findling.faces.presentation import note_text

        window.statusBar().showMessage("Keyword search only: " + note_text(reason, "window"))


class _Activation(QObject):
    """Carries "come forward" from the endpoint's thread to the UI thread (a queued signal)."""

    requested = Signal()
    changed = Signal(str)  # another process changed the index (a verb): the window follows


def open_index(home: str | None) -> tuple[IndexHandle | None, _Activation, int]:
    """The window's hold on the index: it owns it (a headless Findling holding it hands it over),
    and serves the CLI, MCP and HTTP faces from it. (None, exit code) when another window already
    shows this index (it was asked to come forward) or the index cannot be opened."""
    from findling.server.handle import ActivatedElsewhere, IndexHandle

    activation = _Activation()
    try:
        handle = IndexHandle.open(
            home, kind="app", on_activate=activation.requested.emit, on_change=activation.changed.emit
        )
    except ActivatedElsewhere:
        return None, activation, 0
    except FindlingError as exc:
        QMessageBox.critical(None, "Findling", str(exc))
        return None, activation, 2
    return handle, activation, 0


def quit_on_signals(app: QApplication) -> None:
    """SIGTERM (a session ending, `kill`) and SIGHUP quit as Ctrl+Q does: the runs stop, the
    index is let go and its owner record removed. Python runs a signal's handler only between
    bytecodes, and Qt's loop runs none while idle: a timer wakes it to look."""
    import signal

    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None:
            signal.signal(number, lambda _n, _f: app.quit())
    awake = QTimer(app)
    awake.setInterval(250)
    awake.timeout.connect(lambda: None)
    awake.start()


def main(home: str | None = None, demo: bool = False) -> int:
    from findling.gui.main_window import MainWindow
    from findling.paths import demo_folder

    # Hand the GIL to the UI thread sooner than CPython's 5 ms default: background Python
    # work (scanning, analysis) then cannot delay a repaint by several slices in a row.
    sys.setswitchinterval(0.001)
    app = cast(QApplication, QApplication.instance() or QApplication(sys.argv[:1]))
    app.setApplicationName("Findling")
    app.setOrganizationName("findling")
    from PySide6.QtGui import QIcon

    from findling.paths import resources_dir

    app.setWindowIcon(QIcon(str(resources_dir() / "icons" / "findling.png")))
    _follow_os_theme(app)
    from findling.gui.collector import collect_on_gui_thread

    collect_on_gui_thread(app)
    demo_home = None
    if demo:
        demo_home = tempfile.mkdtemp(prefix="findling-demo-")
        home = demo_home
    handle, activation, code = open_index(home)
    if handle is None:
        return code
    assert handle.engine is not None
    window = MainWindow(handle.engine, rescan=not demo)
    activation.requested.connect(window.bring_forward)
    activation.changed.connect(window.follow_change)
    window.show()
    if demo:
        window.add_paths([str(demo_folder())])
    QTimer.singleShot(600, lambda: _offer_models(window))
    # Quitting: stop answering at once, so a relaunch meanwhile opens a window of its own
    # instead of asking this closing one to come forward; then the runs stop at their next
    # batch (the window's own and those it served), and the index is let go.
    app.aboutToQuit.connect(handle.stop_serving)
    quit_on_signals(app)
    try:
        return app.exec()
    finally:
        from findling.gui.tasks import wait_for_tasks

        wait_for_tasks(10.0)
        handle.close()
        if demo_home:
            shutil.rmtree(demo_home, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main(os.environ.get("FINDLING_HOME")))
