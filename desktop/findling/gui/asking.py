"""Questions the window asks before it does something that cannot be undone."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


def confirmed(parent: QWidget, title: str, text: str) -> bool:
    """Whether the person answered Yes to `text` (No, or closing the box, is a no)."""
    return QMessageBox.question(parent, title, text) == QMessageBox.StandardButton.Yes
