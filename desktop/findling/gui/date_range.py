"""A date range of one's own for the Modified filter: from one day to another, both included."""

from __future__ import annotations

from datetime import date, datetime, timedelta

from PySide6.QtCore import QDate
from PySide6.QtWidgets import QDateEdit, QDialog, QDialogButtonBox, QFormLayout, QWidget

CUSTOM = "Custom range…"


def range_label(start: date, end: date) -> str:
    return f"{start.isoformat()} to {end.isoformat()}"


def range_times(start: date, end: date) -> tuple[float, float]:
    """(after, before) as the filters take them: from the start of `start` to the end of `end`."""
    after = datetime.combine(start, datetime.min.time()).timestamp()
    before = datetime.combine(end + timedelta(days=1), datetime.min.time()).timestamp()
    return after, before


def ask_date_range(parent: QWidget, start: date, end: date) -> tuple[date, date] | None:
    """The range a person picks (the ends swapped if given backwards), or None when cancelled."""
    dialog = QDialog(parent)
    dialog.setWindowTitle("Modified between")
    form = QFormLayout(dialog)
    edits = []
    for label, day in (("From", start), ("To", end)):
        edit = QDateEdit(QDate(day.year, day.month, day.day))
        edit.setCalendarPopup(True)
        edit.setDisplayFormat("yyyy-MM-dd")
        form.addRow(label, edit)
        edits.append(edit)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    form.addRow(buttons)
    if not dialog.exec():
        return None
    first, last = (date(e.date().year(), e.date().month(), e.date().day()) for e in edits)
    return (first, last) if first <= last else (last, first)
