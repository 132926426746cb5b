"""Runs the real app (`findling.gui.app.main`) in its own process and walks it through a user's
path, for tests/gui/test_lifecycle.py: a crash or a hang there is this process's, never
pytest's. Prints one line per step; the test reads them.

    python -m tests.gui.lifecycle_driver first-run EMBEDDER_DIR [OCR_DIR]
    python -m tests.gui.lifecycle_driver quit-embedding [--relaunch]
    python -m tests.gui.lifecycle_driver show
    python -m tests.gui.lifecycle_driver terminate
"""

from __future__ import annotations

import faulthandler
import os
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox


def say(*words: object) -> None:
    print(*words, flush=True)


def main_window():
    from findling.gui.main_window import MainWindow

    return next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow) and w.isVisible()), None)


def first_run(embedder: Path, ocr: Path | None) -> None:
    """Yes to the model offer; the download fails (no network); import the embedder, then the
    OCR model, in that dialog; Close; let the embedding that follows run a while; quit."""
    from findling.gui.models_dialog import ModelsDialog

    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.Yes)  # type: ignore[method-assign]
    step = {"n": 0, "closed_at": 0.0}

    def poll() -> None:
        app = QApplication.instance()
        dialog = app.activeModalWidget()
        if isinstance(dialog, ModelsDialog):
            text = dialog.status.text()
            if step["n"] == 0 and dialog.download.isEnabled():
                say("DOWNLOAD", text[:200])
                step["n"] = 1
                dialog.import_folder(embedder, dialog.specs[0])
            elif step["n"] == 1 and "Importing" not in text:
                say("IMPORTED", text)
                step["n"] = 2
                if ocr is not None:
                    dialog.table.selectRow(next(i for i, s in enumerate(dialog.specs) if s.role == "ocr"))
                    dialog.import_folder(ocr, dialog.specs[dialog.table.currentRow()])
            elif step["n"] == 2 and "Importing" not in text:
                say("IMPORTED", text)
                step["n"] = 3
                dialog.accept()
        elif step["n"] == 3:
            say("CLOSED")
            step["n"], step["closed_at"] = 4, time.monotonic()
        elif step["n"] == 4:
            window = main_window()
            label = window.progress_label.text() if window is not None else ""
            if time.monotonic() - step["closed_at"] > 6 or label.startswith("Last indexed"):
                say("PROGRESS", label)
                app.quit()
                return
        QTimer.singleShot(50, poll)

    QTimer.singleShot(200, poll)


def quit_embedding(relaunch: bool) -> None:
    """Close the window (Ctrl+Q's path) while it embeds; with `relaunch`, start another window
    at that moment, as a user who changed their mind would."""
    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.StandardButton.No)  # type: ignore[method-assign]
    seen = {"at": 0.0}

    def poll() -> None:
        window = main_window()
        label = window.progress_label.text() if window is not None else ""
        if label.startswith("Embedding") and not seen["at"]:
            seen["at"] = time.monotonic()
        if seen["at"] and time.monotonic() - seen["at"] > 1.0:  # the model is at work
            say("EMBEDDING", label)
            if relaunch:
                child = subprocess.Popen([sys.executable, "-m", "tests.gui.lifecycle_driver", "show"])
                say("RELAUNCHED", child.pid)
            say("CLOSE", repr(time.time()))
            window.close()
            return
        QTimer.singleShot(20, poll)

    QTimer.singleShot(100, poll)


def show() -> None:
    def poll() -> None:
        if main_window() is not None:
            say("SHOWN")
            QTimer.singleShot(300, QApplication.instance().quit)
            return
        QTimer.singleShot(50, poll)

    QTimer.singleShot(50, poll)


def terminate() -> None:
    """The window shown, the process is sent SIGTERM, as a session that ends sends it."""
    import signal

    def poll() -> None:
        if main_window() is not None:
            say("SHOWN")
            os.kill(os.getpid(), signal.SIGTERM)
            return
        QTimer.singleShot(50, poll)

    QTimer.singleShot(50, poll)


def run(argv: list[str]) -> int:
    faulthandler.enable()
    QApplication(sys.argv[:1])
    scenario = argv[0]
    if scenario == "first-run":
        first_run(Path(argv[1]), Path(argv[2]) if len(argv) > 2 else None)
    elif scenario == "quit-embedding":
        quit_embedding("--relaunch" in argv)
    elif scenario == "show":
        show()
    elif scenario == "terminate":
        terminate()
    from findling.gui import app

    code = app.main(os.environ["FINDLING_HOME"])
    say("EXIT", repr(time.time()), code)
    return code


if __name__ == "__main__":
    sys.exit(run(sys.argv[1:]))
