"""The window from the keyboard: Down/Up from the search field walk the results, Enter opens
the walked-to one, Esc clears and returns, and the filter boxes change only on purpose."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from findling.gui import opening
from tests.helpers import write


def _results(qtbot, window, tmp_path, text="stripes", n=3):
    docs = tmp_path / "docs"
    for i in range(n):
        write(docs / f"s{i}.md", f"# Note {i}\n\n" + "stripes " * (n - i) + "and patterns")
    window.engine.add_source(docs)
    window.engine.index()
    window.activateWindow()
    window.search_field.setFocus()
    qtbot.keyClicks(window.search_field, text)
    qtbot.waitUntil(lambda: window.results.rowCount() == n, timeout=5000)
    return docs


def _row(window):
    return window.results_view.currentIndex().row()


def test_down_and_up_walk_the_results_from_the_field_and_enter_opens(qtbot, window, tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr(opening.QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()))
    _results(qtbot, window, tmp_path)
    assert _row(window) == 0
    qtbot.keyClick(window.search_field, Qt.Key.Key_Down)
    assert _row(window) == 1 and QApplication.focusWidget() is window.search_field
    qtbot.keyClick(window.search_field, Qt.Key.Key_Down)
    qtbot.keyClick(window.search_field, Qt.Key.Key_Down)  # stays on the last
    assert _row(window) == 2
    qtbot.keyClick(window.search_field, Qt.Key.Key_Up)
    assert _row(window) == 1
    qtbot.keyClick(window.search_field, Qt.Key.Key_Return)
    assert opened == [window.results.hit(1).path]


def test_enter_after_typing_searches_instead_of_opening(qtbot, window, tmp_path, monkeypatch):
    opened = []
    monkeypatch.setattr(opening.QDesktopServices, "openUrl", lambda url: opened.append(url))
    _results(qtbot, window, tmp_path)
    qtbot.keyClick(window.search_field, Qt.Key.Key_Down)
    qtbot.keyClicks(window.search_field, " patterns")  # typing again: Enter is a search now
    qtbot.keyClick(window.search_field, Qt.Key.Key_Return)
    assert opened == []


def test_escape_clears_then_comes_back_from_the_results(qtbot, window, tmp_path):
    _results(qtbot, window, tmp_path)
    window.results_view.setFocus()
    qtbot.keyClick(window.results_view, Qt.Key.Key_Escape)
    assert QApplication.focusWidget() is window.search_field and window.search_field.text() == "stripes"
    qtbot.keyClick(window.search_field, Qt.Key.Key_Escape)
    assert window.search_field.text() == ""
    qtbot.waitUntil(lambda: window.results.rowCount() == 0, timeout=5000)


def test_typing_in_the_results_goes_to_the_field(qtbot, window, tmp_path):
    _results(qtbot, window, tmp_path)
    window.search_field.clear()
    window.results_view.setFocus()
    qtbot.keyClicks(window.results_view, "pat")
    assert window.search_field.text() == "pat" and QApplication.focusWidget() is window.search_field


def test_tab_goes_to_the_results_and_the_filters_change_only_on_purpose(qtbot, window, tmp_path):
    _results(qtbot, window, tmp_path)
    qtbot.keyClick(window.search_field, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is window.results_view
    mode = window.mode_box.currentText()
    window.mode_box.setFocus()
    qtbot.keyClick(window.mode_box, Qt.Key.Key_Down)  # opens the list, does not step
    assert window.mode_box.currentText() == mode and window.mode_box.view().isVisible()
    window.mode_box.hidePopup()
    center = QPointF(window.type_box.rect().center())
    wheel = QWheelEvent(
        center,
        QPointF(window.type_box.mapToGlobal(QPoint(5, 5))),
        QPoint(0, -120),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    kind = window.type_box.currentText()
    QApplication.sendEvent(window.type_box, wheel)
    assert window.type_box.currentText() == kind
