"""Rows of buttons above the results: the counts by type, date and folder, and the files named like the query."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QToolButton,
    QWidget,
)


class _ButtonStrip(QWidget):
    """A row of flat buttons under grey titles, rebuilt whole each time it is filled."""

    def __init__(self) -> None:
        super().__init__()
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.buttons: list[QToolButton] = []
        self.setVisible(False)

    def _fill(self, groups: list[tuple[str, list[tuple[str, str, bool, Callable[..., None]]]]]) -> None:
        """groups: (title, [(text, tooltip, enabled, on_click)]); empty groups are left out."""
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.buttons = []
        for title, entries in groups:
            if not entries:
                continue
            label = QLabel(title)
            label.setEnabled(False)
            self._layout.addWidget(label)
            for text, tooltip, enabled, on_click in entries:
                button = QToolButton()
                button.setText(text)
                button.setToolTip(tooltip)
                button.setAutoRaise(True)
                button.setEnabled(enabled)
                button.clicked.connect(on_click)
                self._layout.addWidget(button)
                self.buttons.append(button)
        self._layout.addStretch(1)
        self.setVisible(bool(self.buttons))


class FacetBar(_ButtonStrip):
    """The results counted by type, date and folder; a click filters by that value (the
    filter boxes show it, and the search runs again). A value no filter can express
    ("Other", "Older") is shown but not clickable."""

    chosen = Signal(str, str)  # facet ("type", "modified", "folder"), value
    TITLES = {"type": "Type", "modified": "Modified", "folder": "In"}
    UNFILTERABLE = {"Other", "Older"}

    def set_facets(self, facets: dict[str, list[tuple[str, int]]]) -> None:
        def label(facet: str, value: str) -> str:
            return os.path.basename(value.rstrip(os.sep)) or value if facet == "folder" else value

        self._fill(
            [
                (
                    f"{self.TITLES[facet]}:",
                    [
                        (
                            f"{label(facet, value)} {count}",
                            value,
                            value not in self.UNFILTERABLE,
                            lambda _c=False, f=facet, v=value: self.chosen.emit(f, v),
                        )
                        for value, count in values
                    ],
                )
                for facet, values in facets.items()
            ]
        )


class NameRow(_ButtonStrip):
    """Files whose name holds the query, above the results, as Everything shows them: a
    click opens the file."""

    chosen = Signal(str)

    def set_paths(self, paths: list[str]) -> None:
        self._fill(
            [
                (
                    "Names:",
                    [
                        (os.path.basename(path), f"Open {path}", True, lambda _c=False, p=path: self.chosen.emit(p))
                        for path in paths
                    ],
                )
            ]
        )
