"""Run-time hook in place of PyInstaller's pyi_rth_pyside6: the same Qt paths, without importing
QtCore at start. That hook imported PySide6.QtCore (and shiboken's signature loader) in every
process, 60 ms of each `findling --version` or terminal search, only to register a qt.conf that
PySide6's own import writes anyway when the window starts (the PyPI wheels' layout, which the
spec collects). QML paths and the macOS .app split are left out: the app ships no QML."""

import os
import sys


def _qt_paths() -> None:
    base = sys._MEIPASS  # type: ignore[attr-defined]  # noqa: SLF001 - PyInstaller's bundle folder
    qt = os.path.join(base, "PySide6") if sys.platform.startswith("win") else os.path.join(base, "PySide6", "Qt")
    os.environ["QT_PLUGIN_PATH"] = os.path.join(qt, "plugins")
    if sys.platform.startswith("win"):  # DLLs collected beside the app
        os.environ["PATH"] = base + os.pathsep + os.environ.get("PATH", "")
    elif sys.platform == "darwin" and os.path.basename(os.path.dirname(base)) != "Contents":  # not an .app
        previous = os.environ.get("DYLD_LIBRARY_PATH")
        os.environ["DYLD_LIBRARY_PATH"] = base + (os.pathsep + previous if previous else "")


_qt_paths()
del _qt_paths
