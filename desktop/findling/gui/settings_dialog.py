"""Settings a person changes: provider, threads, exclude patterns, result count."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QSpinBox,
)

from findling.engine import Engine
from findling.models.runtime import provider_choices
from findling.settings import SPECS, save_settings


def _declared(box: QSpinBox, key: str) -> QSpinBox:
    """The box takes the setting's range and help as settings.SPECS declares them."""
    spec = SPECS[key]
    if spec.range is not None:
        box.setRange(int(spec.range[0]), int(spec.range[1]))
    box.setToolTip(spec.help)
    return box


class SettingsDialog(QDialog):
    def __init__(self, engine: Engine, parent=None) -> None:
        super().__init__(parent)
        self.engine = engine
        s = engine.settings
        self.setWindowTitle("Settings")
        self.provider = QComboBox()
        choices = provider_choices()
        self.provider.addItems([name for name, why in choices if why is None])
        missing = [f"{name}: {why}" for name, why in choices if why is not None]
        note = "Not available here: " + "; ".join(missing) + "." if missing else ""
        if self.provider.findText(s.models.provider) < 0:
            note = f"The saved choice “{s.models.provider}” is not available here, so models run on the CPU. " + note
        self.provider.setCurrentText(s.models.provider if self.provider.findText(s.models.provider) >= 0 else "auto")
        self.provider_note = QLabel(note)
        self.provider_note.setWordWrap(True)
        self.provider_note.setTextFormat(Qt.TextFormat.PlainText)
        self.provider_note.setVisible(bool(note))
        self.threads = _declared(QSpinBox(), "models.threads")
        self.threads.setSpecialValueText("automatic (every core but one)")
        self.threads.setValue(s.models.threads)
        self.limit = _declared(QSpinBox(), "search.limit")
        self.limit.setValue(s.search.limit)
        self.answer = QCheckBox("Answer questions from the files, above the results")
        self.answer.setChecked(s.ask.answer_questions)
        self.answer.setToolTip(SPECS["ask.answer_questions"].help)
        self.exclude = QPlainTextEdit("\n".join(s.index.exclude))
        self.exclude.setToolTip(SPECS["index.exclude"].help)
        self.provider.setToolTip(SPECS["models.provider"].help)
        form = QFormLayout(self)
        form.addRow("Run models on", self.provider)
        form.addRow("", self.provider_note)
        form.addRow("Model threads", self.threads)
        form.addRow("Results shown", self.limit)
        form.addRow("Questions", self.answer)
        form.addRow("Exclude patterns (gitignore style, one a line)", self.exclude)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def save(self) -> None:
        s = self.engine.settings
        s.models.provider = self.provider.currentText()
        s.models.threads = self.threads.value()
        s.search.limit = self.limit.value()
        s.ask.answer_questions = self.answer.isChecked()
        s.index.exclude = [line.strip() for line in self.exclude.toPlainText().splitlines() if line.strip()]
        save_settings(s, self.engine.home_override)
        self.accept()
