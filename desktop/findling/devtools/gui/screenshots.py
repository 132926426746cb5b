"""Screenshots of the real window (for docs and for looking at what we ship):
`python -m findling.devtools.gui.screenshots OUTDIR [MODEL_FOLDER]` — run it under a display,
e.g. `xvfb-run -a`. With MODEL_FOLDER (e.g. ../shared/models/all-MiniLM-L6-v2-int8) the Models
dialog is shot before and after importing it (into a throwaway model cache)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import cast

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QKeyEvent
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


def _shot_screen(app: QApplication, window, path: Path) -> None:
    """The screen under the window, popups (the recent searches) included."""
    for _ in range(20):
        app.processEvents()
    screen = QGuiApplication.primaryScreen()
    if screen is None:
        return _shot(app, window, path)
    frame = window.frameGeometry()
    screen.grabWindow(0, frame.x(), frame.y(), frame.width(), frame.height()).save(str(path))


def _key(app: QApplication, widget, key: Qt.Key, text: str = "") -> None:
    for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
        QApplication.sendEvent(widget, QKeyEvent(kind, key, Qt.KeyboardModifier.NoModifier, text))
    app.processEvents()


def _keyboard(app: QApplication, window, target: Path) -> None:
    """Down in the empty field offers the recent searches; Down from the field walks the
    results while the field keeps the focus."""
    window.activateWindow()
    window.search_field.setFocus()
    window.search_field.clear()
    _key(app, window.search_field, Qt.Key.Key_Down)
    _wait(app, lambda: window.history_popup.popup().isVisible())
    _shot_screen(app, window, target / "15-keyboard-recent-searches.png")
    _key(app, window.history_popup.popup(), Qt.Key.Key_Escape)
    query = "water OR rust OR bread OR database"
    for char in query:
        _key(app, window.search_field, Qt.Key(ord(char.upper())), char)
    _wait(
        app,
        lambda: (
            window.searches.result is not None
            and window.searches.result.query == query
            and window.results.rowCount() > 2
        ),
    )
    _key(app, window.search_field, Qt.Key.Key_Down)
    _key(app, window.search_field, Qt.Key.Key_Down)
    _wait(app, lambda: window.results_view.currentIndex().row() == 2)
    _shot_screen(app, window, target / "16-keyboard-walked-to-result-3.png")


def _dialogs(app: QApplication, window, target: Path, model_folder: Path | None) -> None:
    from findling.gui.help_dialog import HelpDialog
    from findling.gui.models_dialog import ModelsDialog
    from findling.gui.settings_dialog import SettingsDialog

    for name, simple in (
        ("06-help.png", HelpDialog(window)),
        ("07-settings.png", SettingsDialog(window.engine, window)),
    ):
        simple.show()
        _shot(app, simple, target / name)
        simple.close()
    if model_folder is None:
        return
    import os

    from findling.models.download import ModelStore

    os.environ.pop("FINDLING_MODELS_MANIFEST", None)
    window.engine.models.use_store(ModelStore(Path(tempfile.mkdtemp(prefix="findling-shot-models-"))))
    window.engine.models.reload_manifest()
    dialog = ModelsDialog(window.engine, window)
    dialog.resize(820, 320)
    dialog.show()
    _shot(app, dialog, target / "08-models-before-import.png")
    dialog.import_folder(model_folder, dialog.specs[0])
    _wait(app, lambda: getattr(dialog.table.item(0, 2), "text", str)() == "installed", 60)
    _shot(app, dialog, target / "09-models-after-import.png")
    dialog.close()


def _code(app: QApplication, window, target: Path) -> None:
    """Source code: Python's own json package, a definition asked for by name, its outline."""
    import json

    window.add_paths([str(Path(json.__file__).parent)])
    _wait(app, lambda: not window.indexing.running and window.sources_model.rowCount() > 1)
    window.mode_box.setCurrentText("Keyword")
    window.symbols_button.setChecked(True)
    window.search_field.setText("raw_decode")
    window.run_search(full=False)
    _wait(app, lambda: window.results.rowCount() > 0 and window.preview_panel.outline.count() > 0)
    _shot(app, window, target / "19-code-definition-and-outline.png")
    window.symbols_button.setChecked(False)


def main(out: str, model_folder: Path | None = None) -> int:  # noqa: PLR0915 - a tour of the window, one screenshot after another
    from findling.engine import Engine
    from findling.gui.app import _follow_os_theme
    from findling.gui.history import SavedSearch
    from findling.gui.main_window import MainWindow
    from findling.paths import demo_folder

    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    app = cast(QApplication, QApplication.instance() or QApplication(sys.argv[:1]))
    _follow_os_theme(app)
    with tempfile.TemporaryDirectory(prefix="findling-shots-") as home, Engine(home) as engine:
        # the window keeps history, saved searches and geometry beside the index: this throwaway one
        window = MainWindow(engine, debounce_ms=10)
        window.resize(1360, 860)
        window.show()
        window.add_paths([str(demo_folder())])
        _wait(app, lambda: window.sources_model.rowCount() > 0 and not window.indexing.running)
        _shot(app, window, target / "01-indexed.png")
        window.search_field.setText("database connection refused")
        window.run_search(full=True)
        _wait(app, lambda: window.results.rowCount() > 0 and window.preview.toPlainText() != "")
        _shot(app, window, target / "02-results-preview.png")
        window.tabs.setCurrentIndex(1)
        _shot(app, window, target / "03-explain.png")
        window.search_field.setText("xylophone quantum")  # nothing answers it: weak results and a note
        window.run_search(full=False)
        _wait(app, lambda: window.searches.result is not None and window.searches.result.query == "xylophone quantum")
        _shot(app, window, target / "04-no-good-matches.png")
        window.tabs.setCurrentIndex(0)
        window.search_field.setText("database server")
        window.run_search(full=False)
        _wait(app, lambda: window.preview_panel.position.text().startswith("hit"))
        window.preview.next_hit()
        window.preview.next_hit()
        _shot(app, window, target / "05-preview-hit-navigation.png")
        window.search_field.setText("borrow checker")
        window.run_search(full=False)
        _wait(app, lambda: window.preview_panel.view() is window.preview_panel.formatted)
        _shot(app, window, target / "05b-preview-formatted-markdown.png")
        _dialogs(app, window, target, model_folder)
        if model_folder is not None:
            window.engine.index()  # embeds the demo folder with the imported model
            window.refresh_sources()
        window.resize(1024, 640)
        window.search_field.setText("why did the nightly import fail")
        window.run_search(full=True)
        _wait(
            app,
            lambda: (
                window.searches.result is not None
                and window.searches.result.explain is not None
                and window.searches.result.query == "why did the nightly import fail"
                and window.results.rowCount() > 0
            ),
        )
        window.tabs.setCurrentIndex(1)
        _shot(app, window, target / "10-explain-1024x640.png")
        window.details_button.click()
        _shot(app, window, target / "11-explain-details-1024x640.png")
        window.details_button.click()
        window.mode_box.setCurrentText("Keyword")
        window.search_field.setText("nightly import failed")
        window.run_search(full=False)
        _wait(
            app, lambda: window.searches.result is not None and window.searches.result.query == "nightly import failed"
        )
        window.why_not(str(demo_folder() / "bread.html"))
        _wait(app, lambda: window.why_not_answer.text().startswith("Why not"))
        _shot(app, window, target / "12-why-not-1024x640.png")
        window.resize(1360, 860)
        window.tabs.setCurrentIndex(0)
        window.mode_box.setCurrentText("Hybrid")
        window.saved.save(SavedSearch("Incidents", "nightly import failed", "Keyword"))
        window._show_saved()
        window.search_field.setText("rust")
        window.run_search(full=True)
        _wait(
            app,
            lambda: (
                window.searches.result is not None
                and window.searches.result.query == "rust"
                and window.names.isVisible()
            ),
        )
        _shot(app, window, target / "13-names-facets-saved.png")
        # a viewer that takes a page, as settings.toml would name it (none is installed here)
        window.engine.settings.search.open_at_page = "evince --page-index={page} {path}"
        window.mode_box.setCurrentText("Keyword")
        window.search_field.setText("root rot")
        window.run_search(full=False)
        _wait(app, lambda: "page" in window.preview_panel.position.text())
        window.preview_panel.next_hit()
        _shot(app, window, target / "14-pdf-page-of-the-hit.png")
        _keyboard(app, window, target)
        window.mode_box.setCurrentText("Keyword")
        window.search_field.setText("water OR rust OR bread OR database")
        window.run_search(full=False)
        _wait(app, lambda: window.results.rowCount() > 2)
        window.results_view.horizontalHeader().setSortIndicator(4, Qt.SortOrder.DescendingOrder)
        _shot(app, window, target / "17-sorted-by-modified-column.png")
        window.search_field.setText("database after:yesterdayish")
        window.run_search(full=False)
        _wait(app, lambda: "Search failed" in window.statusBar().currentMessage())
        _shot(app, window, target / "18-bad-query-clears-the-list.png")
        _code(app, window, target)
        window.close()
        QTimer.singleShot(0, app.quit)
    print("\n".join(str(p) for p in sorted(target.glob("*.png"))))
    return 0


if __name__ == "__main__":
    raise SystemExit(
        main(sys.argv[1] if len(sys.argv) > 1 else "screenshots", Path(sys.argv[2]) if len(sys.argv) > 2 else None)
    )
