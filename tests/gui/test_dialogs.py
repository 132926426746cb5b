"""Settings offer only what this machine runs; Help lists the keys and the query syntax."""

from __future__ import annotations

from pathlib import Path

import pytest

from findling.gui import settings_dialog as settings_module
from findling.gui.help_dialog import SHORTCUTS, HelpDialog
from findling.models import runtime
from findling.search.query_parser import SYNTAX_EXAMPLES
from findling.settings import load_settings
from tests.helpers import index_files


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


def test_questions_can_be_searched_instead_of_answered(qtbot, window):
    dialog = settings_module.SettingsDialog(window.engine, window)
    qtbot.addWidget(dialog)
    assert dialog.answer.isChecked()
    dialog.answer.setChecked(False)
    dialog.save()
    assert not load_settings(window.engine.home_override).ask.answer_questions
    window.search_field.setText("How much is the household insurance premium?")
    window.run_search(full=True)
    assert not window.answer_pane.isVisible()  # searched, not answered


def test_the_dialog_allows_what_the_settings_declare(qtbot, window):
    """Its boxes had ranges of their own (threads 0–64, results 1–1000) beside the settings'."""
    from findling.settings import SPECS

    dialog = settings_module.SettingsDialog(window.engine, window)
    qtbot.addWidget(dialog)
    for box, key in ((dialog.limit, "search.limit"), (dialog.threads, "models.threads")):
        assert (box.minimum(), box.maximum()) == SPECS[key].range and box.toolTip() == SPECS[key].help


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


def test_add_folder_opens_where_folders_were_added_not_where_a_model_came_from(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    from findling.gui.models_dialog import ModelsDialog

    models_parent, docs_parent = tmp_path / "downloads", tmp_path / "papers"
    (models_parent / "minilm").mkdir(parents=True)
    (docs_parent / "2026").mkdir(parents=True)
    asked: list[str] = []
    answers = iter([str(models_parent / "minilm"), str(docs_parent / "2026"), ""])

    def ask(_parent, _title, start=""):
        asked.append(start)
        return next(answers)

    monkeypatch.setattr(QFileDialog, "getExistingDirectory", staticmethod(ask))
    dialog = ModelsDialog(window.engine, window)
    monkeypatch.setattr(dialog, "import_folder", lambda *_a: None)
    dialog.import_selected()  # a model imported from downloads/minilm
    monkeypatch.setattr(window, "add_paths", lambda _paths: None)
    window.choose_folder()  # Add folder…: not in downloads
    window.choose_folder()  # again: where the last folder was added from
    assert asked[1] != str(models_parent) and asked[1] == str(Path.home())
    assert asked[2] == str(docs_parent)


def test_an_offline_download_says_what_to_do_in_the_window(qtbot, window, monkeypatch):
    """It led with a file path and an errno and pointed a window user to a CLI command."""
    from findling.gui.models_dialog import ModelsDialog

    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    window.engine.models._store = None  # made again, with the unreachable hub
    dialog = ModelsDialog(window.engine, window)
    dialog.table.selectRow(1)  # the second role's model: the answer names it, not the first row's
    dialog.pull_selected()
    qtbot.waitUntil(lambda: "could not be downloaded" in dialog.status.text(), timeout=20000)
    text = dialog.status.text()
    assert text.startswith(dialog.specs[1].name + " could not be downloaded")
    assert "cannot reach 127.0.0.1:9" in text and "Import from folder" in text
    assert "Errno" not in text and "findling models" not in text and ".onnx" not in text


def test_the_folders_panel_says_semantic_search_is_on_as_soon_as_the_embedder_is_imported(
    qtbot, window, tmp_path, monkeypatch
):
    from findling.gui.models_dialog import ModelsDialog
    from tests.conftest import MINILM, write_test_manifest

    if not MINILM.exists():
        pytest.skip("../shared/models is not beside the checkout")
    monkeypatch.setenv("FINDLING_MODELS_MANIFEST", str(write_test_manifest(tmp_path / "models.toml")))
    window.engine.models.reload_manifest()
    words = " ".join(f"river{i % 13} stone{i % 7} harbour{i % 5}" for i in range(400))
    index_files(window.engine, tmp_path / "docs", {f"n{i}.txt": f"note {i} {words}" for i in range(40)})
    window.refresh_sources()
    qtbot.waitUntil(lambda: "semantic search: off" in window.index_label.text(), timeout=5000)
    dialog = ModelsDialog(window.engine, window)
    dialog.installed.connect(window.model_installed)
    dialog.import_folder(MINILM, dialog.specs[0])  # the dialog stays open
    qtbot.waitUntil(lambda: "semantic search: off" not in window.index_label.text(), timeout=10000)
    assert window.indexing.running  # said while the embedding still runs, not after it
    window.indexing.stop()
