from __future__ import annotations

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402


@pytest.fixture(scope="package", autouse=True)
def _collect_on_the_gui_thread(qapp):
    """The window's tests run as the app does (gui/app.py): cycles are collected on the GUI
    thread only. Without it a pool thread's collection freed a dialog's Qt wrapper there and the
    suite died of a segmentation fault (a model download's worker, test_dialogs)."""
    from findling.gui.collector import collect_on_gui_thread

    collector = collect_on_gui_thread(qapp)
    yield
    collector.stop()
    import gc

    gc.collect()


@pytest.fixture(autouse=True)
def _no_desktop_opener(monkeypatch):
    """Opening a file asks Qt, which a test replaces, never this machine's xdg-open (a test
    that means to run an opener gives its own)."""
    monkeypatch.setattr("findling.gui.opening.xdg_open", lambda: None)


@pytest.fixture
def window(qtbot, engine, monkeypatch, tmp_path):
    from PySide6.QtCore import QSettings

    from findling.gui.main_window import MainWindow

    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    w = MainWindow(engine, debounce_ms=10)
    qtbot.addWidget(w)
    w.show()
    yield w
    w.close()
    from findling.gui.tasks import wait_for_tasks

    wait_for_tasks(10)
