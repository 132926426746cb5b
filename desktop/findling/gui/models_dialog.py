"""Models: each role's chosen model, its size and state, download with progress and
cancel, import from a folder, and the execution provider in use."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from PySide6.QtCore import Qt, Signal
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
from findling.errors import FindlingError
from findling.gui.asking import confirmed
from findling.gui.tasks import progress_callback, run_task
from findling.models.download import ModelDownloadError, sha256_file
from findling.models.importing import identify
from findling.models.manifest import ROLES, ModelSpec, model_size
from findling.settings import save_settings

LANGUAGE_NAMES = {
    "en": "English",
    "de": "German",
    "fr": "French",
    "es": "Spanish",
    "it": "Italian",
    "nl": "Dutch",
    "pt": "Portuguese",
    "sv": "Swedish",
    "da": "Danish",
    "no": "Norwegian",
    "fi": "Finnish",
    "ru": "Russian",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "th": "Thai",
    "lo": "Lao",
    "km": "Khmer",
    "my": "Burmese",
}


class ModelsDialog(QDialog):
    installed = Signal()  # a model was downloaded or imported: the window starts the work it allows

    def __init__(self, engine: Engine, parent=None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.setWindowTitle("Models")
        self.resize(760, 320)
        self.table = QTableWidget(0, 5)
        self.table.setHorizontalHeaderLabels(["Role", "Model", "State", "Size", "Source"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)  # a model's name reads whole, on one line
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # holds error text and paths
        self.language_hint = QLabel()
        self.language_hint.setWordWrap(True)
        self.language_hint.setObjectName("languageHint")
        self.use_multilingual_button = QPushButton()
        self.use_multilingual_button.clicked.connect(self.use_multilingual)
        self._multilingual = ""
        self.download = QPushButton("Download")
        self.download.clicked.connect(self.pull_selected)
        self.cancel = QPushButton("Cancel download")
        self.cancel.setEnabled(False)
        self.cancel.clicked.connect(self._cancel)
        self.import_button = QPushButton("Import from folder…")
        self.import_button.clicked.connect(self.import_selected)
        self.remove_button = QPushButton("Remove…")
        self.remove_button.clicked.connect(self.remove_selected)
        self.server_button = QPushButton("Model server…")
        self.server_button.setToolTip("Run a role in a model server you run: Ollama, llama.cpp, LM Studio, vLLM, TEI")
        self.server_button.clicked.connect(self.choose_server)
        buttons = QHBoxLayout()
        for b in (
            self.use_multilingual_button,
            self.download,
            self.cancel,
            self.import_button,
            self.remove_button,
            self.server_button,
        ):
            buttons.addWidget(b)
        buttons.addStretch(1)
        close = QPushButton("Close")
        close.clicked.connect(self.accept)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.language_hint)
        layout.addLayout(buttons)
        self._cancel_event: threading.Event | None = None
        self._pulling: ModelSpec | None = None
        self.refresh()

    def refresh(self) -> None:
        models = self.engine.models
        self.table.setRowCount(0)
        self.specs = []
        for role in ROLES:
            try:
                spec = models.spec(role)
            except Exception as exc:  # a broken manifest shows as a row, not a crash
                self.status.setText(str(exc))
                continue
            row = self.table.rowCount()
            self.table.insertRow(row)
            endpoint = models.endpoint(role)
            if endpoint is not None:  # a model server runs it: where, not a download
                values: tuple[str, ...] = (role, endpoint.model, "model server", "", endpoint.where())
            else:
                st = models.store.status(spec)
                values = (role, spec.name, st.state, model_size(spec, st.size), spec.repo)
            for col, value in enumerate(values):
                self.table.setItem(row, col, QTableWidgetItem(value))
            self.specs.append(spec)
        try:
            from findling.models.runtime import preferred_providers

            provider = preferred_providers(models.settings.provider)[0]
            served = [role for role in ROLES if models.endpoint(role) is not None]
            installed = served or any(models.store.status(spec).state == "installed" for spec in self.specs)
            where = {
                "CPUExecutionProvider": "this computer's processor",
                "CUDAExecutionProvider": "the NVIDIA GPU",
                "CoreMLExecutionProvider": "Apple's Core ML",
                "DmlExecutionProvider": "the GPU (DirectML)",
            }
            here = f"Models run on {where.get(provider, provider)}."
            if served:
                verb = "runs" if len(served) == 1 else "run"
                others = where.get(provider, provider)
                here = f"The {' and '.join(served)} {verb} in a model server; the others on {others}."
            self.status.setText(here + ("" if installed else " Without models Findling searches by keywords."))
        except Exception as exc:
            self.status.setText(f"onnxruntime is unavailable: {exc}")
        self._multilingual = ""
        self.language_hint.setText(self._language_hint())
        self.language_hint.setVisible(bool(self.language_hint.text()))
        self.use_multilingual_button.setText(f"Use {self._multilingual}")
        self.use_multilingual_button.setVisible(bool(self.language_hint.text()))
        for col in range(4):
            self.table.resizeColumnToContents(col)
        if self.specs:
            self.table.selectRow(0)

    def _language_hint(self) -> str:
        """Offer a multilingual embedder when a tenth of the folders' documents are in a
        language the current embedder was not trained on."""
        try:
            counts = dict(self.engine.status(problem_limit=0).languages)
            current = self.engine.models.spec("embedder")
            manifest = self.engine.models.manifest
        except Exception:
            return ""
        total = sum(counts.values())
        if not total or "multilingual" in current.languages:
            return ""
        foreign = [lang for lang, n in counts.items() if lang not in current.languages and n * 10 >= total]
        multilingual = [s for s in manifest.models.values() if s.role == "embedder" and "multilingual" in s.languages]
        if not foreign or not multilingual:
            return ""
        self._multilingual = multilingual[0].name
        names = ", ".join(LANGUAGE_NAMES.get(lang, lang) for lang in foreign)
        return (
            f"Many of your documents are in {names}; {current.name} was trained on "
            f"{', '.join(current.languages) or 'English'} only. {self._multilingual} understands {names} too: "
            "use it, download it, and search by meaning in every language."
        )

    def use_multilingual(self) -> None:
        """Make the multilingual embedder the one in use (saved in the settings); its
        row then offers the download."""
        if not self._multilingual:
            return
        self.engine.settings.models.embedder = self._multilingual
        save_settings(self.engine.settings, self.engine.home_override)
        self.refresh()

    def choose_server(self) -> None:
        """The Model server form for the selected role; what it keeps shows here after, and the
        window starts the work it allows (embedding through the server)."""
        from findling.gui.model_server_dialog import ModelServerDialog

        row = self.table.currentRow()
        role = self.specs[row].role if 0 <= row < len(self.specs) else "embedder"
        dialog = ModelServerDialog(self.engine, role, self)
        self.server_dialog = dialog  # for tests: the form open now
        dialog.exec()
        dialog.deleteLater()  # freed here, on the GUI thread
        self.refresh()
        self.installed.emit()

    def _selected(self):
        """The selected row's model, to download, import or remove; None for a role a model server
        runs (there is nothing here to download), said in the status line."""
        row = self.table.currentRow()
        spec = self.specs[row] if 0 <= row < len(self.specs) else None
        if spec is not None and self.engine.models.endpoint(spec.role) is not None:
            self.status.setText(
                f"A model server runs the {spec.role}: Model server… → Run on this computer runs it here again."
            )
            return None
        return spec

    def remove_selected(self) -> None:
        """Remove the selected model's files, after asking: its role stops working until it
        is downloaded or imported again."""
        spec = self._selected()
        store = self.engine.models.store
        if spec is None or store.status(spec).state == "missing":
            self.status.setText("That model is not installed.")
            return
        effect = {
            "embedder": "Semantic search stops",
            "reranker": "Reranking stops",
            "generator": "Query expansion stops",
            "ocr": "Words in pictures and scans are no longer read",
        }[spec.role]
        if not confirmed(
            self,
            "Remove model",
            f"Remove {spec.name} ({model_size(spec, store.status(spec).size)})? {effect} until it is downloaded "
            "or imported again.",
        ):
            return
        store.remove(spec)
        self.refresh()
        self.status.setText(f"{spec.name}: removed")

    def pull_selected(self) -> None:
        spec = self._selected()
        if spec is None:
            return
        self._cancel_event = threading.Event()
        self._pulling = spec  # named in the answer: the selection moves when the table is refreshed
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
        if status.state == "installed":
            self.installed.emit()

    def _failed(self, exc: BaseException) -> None:
        self._finish()
        if isinstance(exc, ModelDownloadError) and exc.unreachable and self._pulling is not None:
            self.status.setText(
                f"{self._pulling.name} could not be downloaded: this computer cannot reach {exc.host}. Findling "
                "keeps working without it. When online, press Download again; or, with the model's files copied "
                "from another computer, press Import from folder…"
            )
            return
        self.status.setText(str(exc))

    def import_selected(self) -> None:
        spec = self._selected()
        if spec is None:
            return
        from findling.gui.state import window_state

        state = window_state(self.engine.home)
        start = str(state.value("dialogs/model_import", "") or Path.home())
        folder = QFileDialog.getExistingDirectory(self, f"Folder holding {spec.name} (or any model)", start)
        if not folder:
            return
        state.setValue("dialogs/model_import", os.path.dirname(os.path.normpath(folder)))
        self.import_folder(Path(folder), spec)

    def import_folder(self, folder: Path, selected: ModelSpec) -> None:
        """Import what the folder holds: the model it identifies (a custom one with its
        findling-model.toml, or another role's), else the selected row's model."""
        models = self.engine.models
        try:
            spec = identify(folder, models.manifest, sha256_file)
        except FindlingError:
            spec = selected  # import_dir then says exactly what is missing for it

        def work():
            status = models.store.import_dir(spec, folder)
            models.reload_manifest()  # a custom model joins its role's choices
            return status

        self.status.setText(f"Importing {spec.name} from {folder}…")
        run_task(work, self._done, self._failed, long=True)
