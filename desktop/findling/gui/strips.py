"""Rows of buttons above the results: the counts by type, date and folder, and the files named like the query."""

from __future__ import annotations

import os
from collections.abc import Callable

from PySide6.QtCore import QSize, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QToolButton,
    QWidget,
)

from findling.pathnames import distinct_names


class _ButtonStrip(QWidget):
    """A row of flat buttons under grey titles, rebuilt whole each time it is filled. It takes
    the width it is given and never asks for more: a long row once widened the window to fit
    it, and a narrow one squeezed its buttons until their words were cut. What does not fit
    whole is left out, from the end; the tooltip of the strip lists every entry."""

    def __init__(self) -> None:
        super().__init__()
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self.buttons: list[QToolButton] = []
        self._row: list[QWidget] = []  # titles and buttons, in order
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setVisible(False)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return QSize(0, super().sizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit()

    def shown(self) -> list[QWidget]:
        """The titles and buttons on screen, in order."""
        return [w for w in self._row if not w.isHidden()]

    def title_texts(self) -> list[str]:
        """The groups' titles, in order (shown or not)."""
        return [w.text() for w in self._row if isinstance(w, QLabel)]

    def _fit(self) -> None:
        """Show the entries that fit whole in the width, in order; a title only with a button after it."""
        room = self.width()
        spacing = max(0, self._layout.spacing())
        used = 0
        for widget in self._row:
            used += widget.sizeHint().width()
            widget.setHidden(used > room)
            used += spacing
        for i, widget in enumerate(self._row):
            if isinstance(widget, QLabel):
                following = self._row[i + 1] if i + 1 < len(self._row) else None
                if following is None or following.isHidden() or isinstance(following, QLabel):
                    widget.setHidden(True)

    def _fill(self, groups: list[tuple[str, list[tuple[str, str, bool, Callable[..., None]]]]]) -> None:
        """groups: (title, [(text, tooltip, enabled, on_click)]); empty groups are left out."""
        while self._layout.count():
            item = self._layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        self.buttons = []
        self._row = []
        every = []
        for title, entries in groups:
            if not entries:
                continue
            label = QLabel(title)
            label.setEnabled(False)
            self._layout.addWidget(label)
            self._row.append(label)
            every.append(f"{title} " + " · ".join(text for text, *_ in entries))
            for text, tooltip, enabled, on_click in entries:
                button = QToolButton()
                button.setText(text)
                button.setToolTip(tooltip)
                button.setAutoRaise(True)
                button.setEnabled(enabled)
                button.clicked.connect(on_click)
                self._layout.addWidget(button)
                self.buttons.append(button)
                self._row.append(button)
        self._layout.addStretch(1)
        self.setToolTip("\n".join(every))
        self.setVisible(bool(self.buttons))
        self._fit()


class FacetBar(_ButtonStrip):
    """The results counted by type, date and folder; a click filters by that value (the
    filter boxes show it, and the search runs again). A value no filter can express
    ("Other", "Older") is shown but not clickable."""

    chosen = Signal(str, str)  # facet ("type", "modified", "folder"), value
    TITLES = {"type": "Type", "modified": "Modified", "folder": "In"}
    UNFILTERABLE = {"Other", "Older"}

    def set_facets(self, facets: dict[str, list[tuple[str, int]]], of_shown: int | None = None) -> None:
        """`of_shown`: the counts are of this many results shown, of more that match: the first
        title says so ("Code 18 Text 2" read as all of 243 matches)."""
        folders = [value for value, _ in facets.get("folder", [])]
        # two folders named alike read apart: `python3.11/html`, `rust/html`, not "html" twice
        names = dict(zip(folders, distinct_names([f.rstrip(os.sep) or f for f in folders]), strict=True))

        def label(facet: str, value: str) -> str:
            return names.get(value, value) if facet == "folder" else value

        scope = f"Of the {of_shown} shown, " if of_shown is not None else ""
        self._fill(
            [
                (
                    f"{scope if i == 0 else ''}{self.TITLES[facet] if i or not scope else self.TITLES[facet].lower()}:",
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
                for i, (facet, values) in enumerate(facets.items())
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
