"""Models: each role's chosen model, its size and state, download with progress and
cancel, import from a folder, and the execution provider in use."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from findling.engine import Engine
from findling.gui.tasks import progress_callback, run_task
from findling.models.manifest import ROLES


class ModelsDialog(QDialog):
    def __init__(self, engine: Engine, parent=None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.setWindowTitle("Models")
        self.resize(760, 320)
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["Role", "Model", "State", "Size", "Repository"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # holds error text and paths
        self.download = QPushButton("Download")
        self.download.clicked.connect(self.pull_selected)
        self.cancel = QPushButton("Cancel download")
        self.cancel.setEnabled(False)
        self.cancel.clicked.connect(self._cancel)
        self.import_button = QPushButton("Import from folder…")
        self.import_button.clicked.connect(self.import_selected)
        buttons = QHBoxLayout()
        for b in (self.download, self.cancel, self.import_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addLayout(buttons)
        self._cancel_event: threading.Event | None = None
        self.refresh()

    def refresh(self) -> None:
        models = self.engine.models
        self.table.setRowCount(0)
        self._specs = []
        for role in ROLES:
            try:
                spec = models.spec(role)
            except Exception as exc:  # a broken manifest shows as a row, not a crash
                self.status.setText(str(exc))
                continue
            st = models.store.status(spec)
            row = self.table.rowCount()
            self.table.insertRow(row)
            for col, value in enumerate((role, spec.name, st.state, f"{st.size / 1e6:.1f} MB", spec.repo)):
                self.table.setItem(row, col, QTableWidgetItem(value))
            self._specs.append(spec)
        try:
            from findling.models.runtime import preferred_providers

            provider = preferred_providers(models.settings.provider)[0]
            self.status.setText(f"Execution provider: {provider}. Without models Findling searches by keywords.")
        except Exception as exc:
            self.status.setText(f"onnxruntime is unavailable: {exc}")
        if self._specs:
            self.table.selectRow(0)

    def _selected(self):
        row = self.table.currentRow()
        return self._specs[row] if 0 <= row < len(self._specs) else None

    def pull_selected(self) -> None:
        spec = self._selected()
        if spec is None:
            return
        self._cancel_event = threading.Event()
        cancel = self._cancel_event
        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.download.setEnabled(False)
        self.cancel.setEnabled(True)
        report = progress_callback(self._on_progress)
        store = self.engine.models.store
        run_task(lambda: store.pull(spec, progress=report, cancel=cancel), self._done, self._failed, long=True)

    def _on_progress(self, p) -> None:
        if p.total:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * p.done / p.total))
        self.status.setText(f"{p.model}: {p.file} — {p.done / 1e6:.1f} of {p.total / 1e6:.1f} MB")

    def _cancel(self) -> None:
        if self._cancel_event is not None:
            self._cancel_event.set()

    def _finish(self) -> None:
        self.progress.setVisible(False)
        self.download.setEnabled(True)
        self.cancel.setEnabled(False)
        self.refresh()

    def _done(self, status) -> None:
        self._finish()
        self.status.setText(f"{status.spec.name}: {status.state}")

    def _failed(self, exc: BaseException) -> None:
        self._finish()
        self.status.setText(str(exc))

    def import_selected(self) -> None:
        spec = self._selected()
        if spec is None:
            return
        folder = QFileDialog.getExistingDirectory(self, f"Folder holding {spec.name}")
        if not folder:
            return
        store = self.engine.models.store
        run_task(lambda: store.import_dir(spec, Path(folder)), self._done, self._failed, long=True)
