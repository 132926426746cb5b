"""The window from the keyboard, as in Spotlight or Everything: Down in the empty field
offers the recent searches; the search field keeps the focus while Down/Up walk the
results, Enter opens the one walked to (or, after typing, runs the full search), Esc clears
the field and from the results comes back to it; typing in the results goes to the field.
The filter boxes change only on purpose: arrows open their list instead of stepping through
it, and the mouse wheel passing over them does nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from PySide6.QtCore import QEvent, QItemSelectionModel, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QComboBox, QLineEdit

_STEPS = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 10, Qt.Key.Key_PageUp: -10}


class KeyboardNavigation(QObject):
    def __init__(
        self,
        field: QLineEdit,
        results: QAbstractItemView,
        boxes: list[QComboBox],
        open_row: Callable[[int], None],
        show_history: Callable[[], bool] = lambda: False,
    ) -> None:
        super().__init__(field)
        self.field = field
        self.results = results
        self.boxes = boxes
        self.open_row = open_row
        self.show_history = show_history
        self.walked = False  # Down/Up since the last edit: Enter opens rather than searches
        field.installEventFilter(self)
        field.textEdited.connect(self._edited)
        results.installEventFilter(self)
        for box in boxes:
            box.installEventFilter(self)
        field.setTabOrder(field, results)

    def _edited(self, _text: str) -> None:
        self.walked = False

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if watched is self.field and event.type() == QEvent.Type.KeyPress:
            return self._field_key(cast(QKeyEvent, event))
        if watched is self.results and event.type() == QEvent.Type.KeyPress:
            return self._results_key(cast(QKeyEvent, event))
        if isinstance(watched, QComboBox):
            if event.type() == QEvent.Type.Wheel and not watched.view().isVisible():
                return True  # scrolling the window past a filter must not change it
            if (
                event.type() == QEvent.Type.KeyPress
                and cast(QKeyEvent, event).key() in (Qt.Key.Key_Up, Qt.Key.Key_Down)
                and not watched.view().isVisible()
            ):
                watched.showPopup()
                return True
        return False

    def _field_key(self, event: QKeyEvent) -> bool:
        key = Qt.Key(event.key())
        if key == Qt.Key.Key_Down and not self.field.text() and self.show_history():
            return True  # an empty field: Down offers the recent searches
        if key in _STEPS and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return self._step(_STEPS[key])
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and self.walked:
            row = self.results.currentIndex().row()
            if row >= 0:
                self.open_row(row)
                return True
        if key == Qt.Key.Key_Escape and self.field.text():
            self.field.clear()
            self.field.textEdited.emit("")  # a cleared field clears the results, as typing would
            return True
        return False

    def _results_key(self, event: QKeyEvent) -> bool:
        if event.key() == Qt.Key.Key_Escape:
            self.field.setFocus()
            self.field.selectAll()
            return True
        text = event.text()
        if text and text.isprintable() and not event.modifiers() & ~Qt.KeyboardModifier.ShiftModifier:
            self.field.setFocus()
            self.field.insert(text)
            self.field.textEdited.emit(self.field.text())
            return True
        return False

    def _step(self, delta: int) -> bool:
        model = self.results.model()
        count = model.rowCount() if model is not None else 0
        if count == 0:
            return True
        current = self.results.currentIndex().row()
        row = 0 if current < 0 else max(0, min(count - 1, current + delta))
        self.results.selectionModel().setCurrentIndex(
            model.index(row, 0),
            QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows,
        )
        self.results.scrollTo(model.index(row, 0))
        self.walked = True
        return True
