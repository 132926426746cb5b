"""The Models dialog's "Model server…": run a role in a server the user already runs (Ollama,
llama.cpp, LM Studio, vLLM, TEI, OpenAI), or back on this computer. The same choice as
`findling models use` (models/choice.py), asked once before it is kept."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
)

from findling.engine import Engine
from findling.errors import FindlingError
from findling.gui.search import error_text
from findling.gui.tasks import run_task
from findling.models.choice import SERVED_ROLES, try_server, use_local, use_server
from findling.models.remote import Endpoint
from findling.settings import SPECS, save_settings

PLACEHOLDERS = {"ollama": "http://localhost:11434", "openai": "http://localhost:8080"}


class ModelServerDialog(QDialog):
    def __init__(self, engine: Engine, role: str = "embedder", parent=None) -> None:
        super().__init__(parent)
        self.engine = engine
        self.setWindowTitle("Model server")
        m = engine.settings.models
        self.role = QComboBox()
        self.role.addItems(list(SERVED_ROLES))
        self.role.setCurrentText(role if role in SERVED_ROLES else "embedder")
        self.api = QComboBox()
        self.api.addItems(["ollama", "openai"])
        self.api.setToolTip("ollama: Ollama's API; openai: llama.cpp, LM Studio, vLLM, LocalAI, TEI, OpenAI")
        self.url = QLineEdit()
        self.model = QLineEdit()
        self.model.setPlaceholderText("the model as the server names it, e.g. nomic-embed-text")
        self.key_env = QLineEdit()
        self.key_env.setPlaceholderText("optional: the environment variable holding the API key")
        self.allow_remote = QCheckBox("Allow a server on another machine (document text then leaves this one)")
        self.allow_remote.setChecked(m.allow_remote)
        self.allow_remote.setToolTip(SPECS["models.allow_remote"].help)
        self.answer = QLabel()
        self.answer.setWordWrap(True)
        self.answer.setTextFormat(Qt.TextFormat.PlainText)  # server text and addresses
        self.run_here = QPushButton("Run on this computer")
        self.run_here.clicked.connect(self.use_this_computer)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.use_button = self.buttons.addButton("Use", QDialogButtonBox.ButtonRole.ActionRole)
        self.use_button.clicked.connect(self.use)
        self.buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Role", self.role)
        form.addRow("API", self.api)
        form.addRow("Address", self.url)
        form.addRow("Model", self.model)
        form.addRow("API key from", self.key_env)
        form.addRow("", self.allow_remote)
        form.addRow("", self.answer)
        form.addRow(self.run_here, self.buttons)
        self.role.currentTextChanged.connect(self._show_role)
        self.api.currentTextChanged.connect(lambda api: self.url.setPlaceholderText(PLACEHOLDERS.get(api, "")))
        self._show_role(self.role.currentText())

    def _show_role(self, role: str) -> None:
        """The role's server as the settings hold it, if one runs it."""
        m = self.engine.settings.models
        url = getattr(m, f"{role}_url")
        self.api.setCurrentText(getattr(m, f"{role}_api") if url else "ollama")
        self.url.setText(url)
        self.model.setText(getattr(m, role) if url else "")
        self.key_env.setText(getattr(m, f"{role}_key_env") if url else "")
        self.url.setPlaceholderText(PLACEHOLDERS.get(self.api.currentText(), ""))
        self.answer.setText(f"Now: {self.engine.models.where(role)}")

    def endpoint(self) -> Endpoint:
        return Endpoint(self.url.text().strip(), self.model.text().strip(), self.api.currentText(), self.key_env.text())

    def use(self) -> None:
        """Keep the server for the role (a host off this network only when allowed), then ask it once:
        the answer, or why it gave none, is said here, never a hang of the window."""
        role, endpoint = self.role.currentText(), self.endpoint()
        settings = self.engine.settings
        try:
            use_server(settings.models, role, endpoint, self.allow_remote.isChecked())
        except FindlingError as exc:
            self.answer.setText(error_text(exc))  # refused: nothing kept
            return
        save_settings(settings, self.engine.home_override)
        self.answer.setText(f"Asking {endpoint.where()}…")
        self.use_button.setEnabled(False)
        run_task(lambda: try_server(role, endpoint), self._answered, self._silent, long=True)

    def _answered(self, said: str) -> None:
        self.use_button.setEnabled(True)
        self.answer.setText(f"Kept. It answers: {said}.")

    def _silent(self, exc: BaseException) -> None:
        self.use_button.setEnabled(True)
        self.answer.setText(f"Kept, but it does not answer now: {error_text(exc)}")

    def use_this_computer(self) -> None:
        role = self.role.currentText()
        settings = self.engine.settings
        try:
            use_local(
                settings.models, role, self.engine.models.manifest.for_role(role).name, self.engine.models.manifest
            )
        except FindlingError as exc:
            self.answer.setText(error_text(exc))
            return
        save_settings(settings, self.engine.home_override)
        self._show_role(role)
