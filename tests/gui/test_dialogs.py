"""Settings offer only what this machine runs; Help lists the keys and the query syntax."""

from __future__ import annotations

from findling.gui import settings_dialog as settings_module
from findling.gui.help_dialog import SHORTCUTS, HelpDialog
from findling.models import runtime
from findling.search.query_parser import SYNTAX_EXAMPLES
from findling.settings import load_settings


def test_settings_offer_only_available_providers_and_say_why_not(qtbot, window, monkeypatch):
    monkeypatch.setattr(runtime, "available_providers", lambda: ["CPUExecutionProvider"])
    window.engine.settings.models.provider = "cuda"  # saved on another machine
    dialog = settings_module.SettingsDialog(window.engine, window)
    qtbot.addWidget(dialog)
    offered = [dialog.provider.itemText(i) for i in range(dialog.provider.count())]
    assert offered == ["auto", "cpu"] and dialog.provider.currentText() == "auto"
    note = dialog.provider_note.text()
    assert "“cuda” is not available here" in note and "onnxruntime-gpu" in note and "coreml: macOS only" in note


def test_results_shown_takes_small_numbers(qtbot, window):
    dialog = settings_module.SettingsDialog(window.engine, window)
    qtbot.addWidget(dialog)
    dialog.limit.clear()
    qtbot.keyClicks(dialog.limit, "2")
    dialog.save()
    assert window.engine.settings.search.limit == 2
    assert load_settings(window.engine.home_override).search.limit == 2


def test_help_lists_shortcuts_and_syntax(qtbot, window):
    dialog = HelpDialog(window)
    qtbot.addWidget(dialog)
    assert dialog.shortcuts.rowCount() == len(SHORTCUTS) and dialog.syntax.rowCount() == len(SYNTAX_EXAMPLES)
    keys = [dialog.shortcuts.item(r, 0).text() for r in range(dialog.shortcuts.rowCount())]
    assert "Down / Up, Page Down / Page Up" in keys and "F3 / Shift+F3" in keys
    examples = [dialog.syntax.item(r, 0).text() for r in range(dialog.syntax.rowCount())]
    assert any(e.startswith("ext:") for e in examples) and any(e.startswith("after:") for e in examples)
    menus = [a.text() for a in window.menuBar().actions()]
    assert "&Help" in menus
