"""The app driven as a person would: drop folders, type, select, watch files change."""

from __future__ import annotations

import os

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from findling.gui.tasks import wait_for_tasks
from findling.records import SearchMode, SearchRequest
from tests.helpers import write


def _drop(window, paths):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(
        QPointF(10, 10), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    )
    window.dropEvent(event)


def _wait_idle(qtbot, window, timeout=20000):
    qtbot.waitUntil(lambda: window.sources_model.rowCount() > 0 and not window.indexing.running, timeout=timeout)


def _type(qtbot, window, text):
    window.search_field.clear()
    qtbot.keyClicks(window.search_field, text)


def test_drop_folder_indexes_and_results_appear(qtbot, window, docs):
    write(docs / "rust.md", "# Ownership\n\nThe borrow checker keeps references valid.")
    write(docs / "bread.txt", "Feed the sourdough starter before baking.")
    _drop(window, [docs])
    _wait_idle(qtbot, window)
    qtbot.waitUntil(
        lambda: (
            window.sources_model.rowCount() == 1
            and "2 indexed" in (window.sources_model.data(window.sources_model.index(0)) or "")
        ),
        timeout=5000,
    )
    # the panel keeps a short dated line; whether semantic search is on goes to the status bar only
    assert window.progress_label.text().startswith("Last indexed at ") and "emantic" not in window.progress_label.text()
    _type(qtbot, window, "borrow checker")
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=5000)
    hit = window.results.hit(0)
    assert hit.path == str(docs / "rust.md")
    assert "<b" in window.results.data(window.results.index(0, 1), Qt.ItemDataRole.UserRole + 2)


def test_selecting_a_result_fills_preview_and_explain(qtbot, window, docs):
    write(docs / "a.md", "# Alpha\n\n" + "filler text. " * 200 + "The quokka smiles at tourists.")
    write(docs / "b.md", "# Beta\n\nNothing about marsupials here.")
    window.add_paths([str(docs)])
    _wait_idle(qtbot, window)
    _type(qtbot, window, "quokka")
    qtbot.keyClick(window.search_field, Qt.Key.Key_Return)  # the full pipeline
    qtbot.waitUntil(lambda: window.results.rowCount() >= 1, timeout=5000)
    qtbot.waitUntil(lambda: "quokka" in window.preview.toPlainText(), timeout=5000)
    assert window.preview.highlighted >= 1
    assert window.explain_model.rowCount() >= 3
    rows = [window.explain_model.data(window.explain_model.index(r, 0)) for r in range(window.explain_model.rowCount())]
    assert "keywords: your query" in rows and "final score" in rows
    bars = {name: value for name, value, _ in window.score_bars.bars()}
    words = bars["words matched (share of the query's weight)"]
    assert words == 1.0 and 0.0 < bars["relevance"] <= 1.0  # evidence, on one 0–1 scale
    assert "closeness in meaning" not in bars  # no embedder here: no bar for it
    assert window.explain_sentence.text().startswith("Matched 100% of the query's words (keyword #1) → #1")
    stages = {name: why for name, _, why in window.timeline.stages()}
    # no embedder: the stage names the one lane that ran
    assert stages["keyword search"] == "" and stages["reranking"]  # skipped, and says why
    assert "keyword and meaning search" not in stages
    assert not window.explain_view.isVisible()  # the table is behind Details
    window.tabs.setCurrentIndex(1)
    window.details_button.click()
    assert window.explain_view.isVisible() and not window.explain_graphs.isVisible()
    assert window.explain_summary.text().startswith("1 candidate in ")  # "1 candidates" no more


def test_modes_and_filters(qtbot, window, docs):
    write(docs / "n.md", "zebra notes")
    write(docs / "n.txt", "zebra text")
    window.add_paths([str(docs)])
    _wait_idle(qtbot, window)
    _type(qtbot, window, "zebra")
    qtbot.waitUntil(lambda: window.results.rowCount() == 2, timeout=5000)
    window.type_box.setCurrentText("Markdown")
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=5000)
    assert window.results.hit(0).path.endswith("n.md")
    window.mode_box.setCurrentText("Semantic")  # no embedder installed: said, not raised
    qtbot.waitUntil(lambda: "semantic search is off" in window.statusBar().currentMessage(), timeout=5000)


def test_file_change_is_picked_up(qtbot, window, docs):
    write(docs / "live.txt", "original words")
    window.add_paths([str(docs)])
    _wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: str(docs) in window.watcher.folders, timeout=5000)
    write(docs / "fresh.txt", "a pangolin appeared")
    qtbot.waitUntil(lambda: "Live update" in window.statusBar().currentMessage(), timeout=15000)
    _type(qtbot, window, "pangolin")
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=5000)
    os.unlink(docs / "fresh.txt")
    qtbot.waitUntil(
        lambda: window.engine.find(SearchRequest("pangolin", mode=SearchMode.KEYWORD)).hits == (), timeout=15000
    )


def test_errors_are_shown_not_raised(qtbot, window, tmp_path):
    window.add_paths([str(tmp_path / "does-not-exist")])
    qtbot.waitUntil(lambda: "no such file or folder" in window.statusBar().currentMessage(), timeout=5000)
    _type(qtbot, window, "x after:notadate")
    qtbot.waitUntil(lambda: "cannot read the date" in window.statusBar().currentMessage(), timeout=5000)


def test_keyboard_focus_and_open(qtbot, window, docs, monkeypatch):
    from PySide6.QtGui import QDesktopServices

    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()))
    write(docs / "k.md", "keyboard navigation works")
    window.add_paths([str(docs)])
    _wait_idle(qtbot, window)
    window.results_view.setFocus()
    qtbot.keyClick(window, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.search_field.hasFocus()
    _type(qtbot, window, "keyboard")
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=5000)
    window.open_result(0)
    assert opened == [str(docs / "k.md")]


def test_pause_and_resume(qtbot, window, docs):
    for i in range(300):
        write(docs / f"p{i}.txt", f"paused document {i}")
    window.toggle_pause()  # paused before the folder arrives: nothing is indexed
    window.add_paths([str(docs)])
    _wait_idle(qtbot, window)
    assert window.engine.find(SearchRequest("paused", mode=SearchMode.KEYWORD)).hits == ()
    assert window.pause_button.text() == "Resume"
    window.toggle_pause()
    _wait_idle(qtbot, window, 60000)
    assert window.engine.find(SearchRequest("paused", mode=SearchMode.KEYWORD, limit=500)).total_matched == 300


def test_a_second_window_brings_the_first_forward(qtbot, tmp_path):
    from findling.gui.app import open_index

    home = str(tmp_path / "h")
    first, activation, _ = open_index(home)
    assert first is not None and first.role == "owner"
    seen = []
    activation.requested.connect(lambda: seen.append(True))
    second, _, code = open_index(home)
    assert second is None and code == 0
    qtbot.waitUntil(lambda: seen == [True], timeout=3000)
    first.close()


def test_models_dialog_downloads_with_progress(qtbot, window, tmp_path, monkeypatch):
    from tests.conftest import MINILM, needs_models, write_test_manifest  # noqa: F401

    if not MINILM.exists():
        import pytest

        pytest.skip("../shared/models is not beside the checkout")
    from findling.gui.models_dialog import ModelsDialog
    from findling.models.download import ModelStore
    from findling.models.manifest import load_manifest
    from tests.models.hub_mirror import HubMirror, MirrorRepo, MirrorState

    manifest = load_manifest(write_test_manifest(tmp_path / "m.toml"))
    state = MirrorState(repos={"findling-test/all-MiniLM-L6-v2-int8": MirrorRepo(MINILM)})
    with HubMirror(state) as hub:
        window.engine.models.use_manifest(manifest)
        window.engine.models.use_store(ModelStore(tmp_path / "models", endpoint=hub.endpoint))
        dialog = ModelsDialog(window.engine, window)
        qtbot.addWidget(dialog)
        assert dialog.table.item(0, 2).text() == "missing"
        seen = []
        dialog.progress.valueChanged.connect(seen.append)
        dialog.pull_selected()
        qtbot.waitUntil(lambda: dialog.table.item(0, 2).text() == "installed", timeout=20000)
        assert seen and max(seen) == 1000
        assert dialog.status.text() == "minilm-test: installed"


def test_models_dialog_offers_the_multilingual_embedder_for_foreign_folders(window, qtbot, tmp_path):
    from findling.gui.models_dialog import ModelsDialog
    from findling.models.manifest import load_manifest
    from findling.paths import resources_dir
    from findling.settings import load_settings

    folder = tmp_path / "notes"
    for i in range(3):
        write(folder / f"zh{i}.txt", "我在北京大学学习。北京的大学很多，图书馆也很大。")
    write(folder / "en.txt", "The library opens at nine and closes at six on weekdays.")
    window.engine.models.use_manifest(load_manifest(resources_dir() / "models.toml"))
    _index(window, folder)
    dialog = ModelsDialog(window.engine, window)
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.language_hint.isVisible() and "Chinese" in dialog.language_hint.text()
    assert dialog.use_multilingual_button.text() == "Use multilingual-e5-small"
    dialog.use_multilingual_button.click()
    assert window.engine.models.spec("embedder").name == "multilingual-e5-small"
    assert load_settings(window.engine.home_override).models.embedder == "multilingual-e5-small"
    assert not dialog.language_hint.isVisible()  # the embedder in use now understands them
    assert dialog.table.item(0, 1).text() == "multilingual-e5-small"


def test_reranked_list_replaces_the_fused_one_without_moving_the_selection(window, qtbot):
    import threading

    from PySide6.QtWidgets import QApplication

    from findling.records import Hit, SearchResult

    def hits(order):
        return tuple(
            Hit(doc_id=d, path=f"/docs/{d}.md", title=f"doc {d}", score=0.9 - 0.1 * i) for i, d in enumerate(order)
        )

    class Answers:
        """Answers the quick request and the complete one each when told to, in any order."""

        def __init__(self):
            self.release = {"quick": threading.Event(), "complete": threading.Event()}

        def files_named(self, text):
            return []

        def find(self, request):
            kind = "quick" if request.rerank == "off" else "complete"
            assert self.release[kind].wait(10)
            return SearchResult(request.text, hits([1, 2, 3, 4] if kind == "quick" else [3, 1, 4, 2]), 4)

    answers = Answers()
    window.searches.engine = answers
    window.mode_box.setCurrentText("Hybrid")
    window.search_field.setText("q")
    window.run_search(full=True)
    answers.release["quick"].set()
    qtbot.waitUntil(lambda: window.results.rowCount() == 4, timeout=5000)
    view = window.results_view
    view.setCurrentIndex(window.results.index(2, 0))  # the user moves to doc 3
    assert window.results.hit(view.currentIndex().row()).doc_id == 3
    answers.release["complete"].set()
    qtbot.waitUntil(lambda: window.results.hit(0).doc_id == 3, timeout=5000)
    assert [window.results.hit(r).doc_id for r in range(4)] == [3, 1, 4, 2]
    assert window.results.hit(view.currentIndex().row()).doc_id == 3  # still doc 3, now first
    assert window.statusBar().currentMessage().startswith("4 results")

    # a quick list that arrives after the reranked one is out of date and dropped
    answers = Answers()
    window.searches.engine = answers
    window.search_field.setText("q2")
    window.run_search(full=True)
    answers.release["complete"].set()
    qtbot.waitUntil(lambda: window.searches.result is not None and window.searches.result.query == "q2", timeout=5000)
    answers.release["quick"].set()
    assert wait_for_tasks(10)  # the quick answer is posted to the event loop before its task ends...
    QApplication.processEvents()  # ... and delivered here, if it is delivered at all
    assert [window.results.hit(r).doc_id for r in range(4)] == [3, 1, 4, 2]
    assert window.searches.shown.rerank is None  # the list on screen is the complete request's


def test_keyword_mode_is_the_search_command(window, qtbot, tmp_path):
    folder = tmp_path / "k"
    write(folder / "incident.txt", "The nightly import failed at 02:14.")
    write(folder / "other.txt", "Why the sky is blue: the air scatters light.")
    _index(window, folder)
    window.mode_box.setCurrentText("Keyword")
    window.search_field.setText("why did the nightly import fail")
    window.run_search(full=True)
    qtbot.waitUntil(lambda: window.results.rowCount() > 0, timeout=5000)
    assert [window.results.hit(r).path.endswith("incident.txt") for r in range(window.results.rowCount())] == [True]
    assert "the" not in window.searches.result.terms


def test_find_similar_to_a_passage_searches_with_it(window, qtbot, tmp_path):
    folder = tmp_path / "ex"
    write(folder / "ferry.txt", "The ferry to the island leaves at dawn; tickets are sold at the harbour office.")
    write(folder / "bread.txt", "Knead the dough, let it rise overnight, bake at high heat.")
    _index(window, folder)
    passage = "Tickets for the early ferry to the island\nare sold in the harbour office before dawn."
    window.preview.setPlainText(passage)
    window.preview.selectAll()
    window.preview.find_similar.emit(window.preview.textCursor().selectedText().replace("\u2029", "\n"))
    assert window.search_field.text() == " ".join(passage.split())
    qtbot.waitUntil(lambda: window.results.rowCount() > 0, timeout=5000)
    assert window.results.hit(0).path.endswith("ferry.txt")


def _index(window, folder):
    """Add and index a folder on the window's engine, outside the window's own indexing."""
    window.engine.add_source(folder)
    window.engine.index()


def test_the_cli_searches_while_the_window_holds_the_index(qtbot, tmp_path, monkeypatch):
    import subprocess
    import sys

    from PySide6.QtCore import QSettings

    from findling.gui.app import open_index
    from findling.gui.main_window import MainWindow

    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    home = tmp_path / "h"
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "plan.md").write_text("# Plan\n\nThe quarterly migration plan.\n")
    handle, _activation, _ = open_index(str(home))
    assert handle is not None and handle.engine is not None
    window = MainWindow(handle.engine, debounce_ms=10)
    qtbot.addWidget(window)
    window.show()
    try:
        window.add_paths([str(docs)])
        _wait_idle(qtbot, window)
        env = dict(os.environ, FINDLING_HOME=str(home))
        found = subprocess.run(
            [sys.executable, "-m", "findling", "search", "migration", "--json"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert found.returncode == 0, found.stderr
        assert '"total": 1' in found.stdout and "plan.md" in found.stdout
    finally:
        window.close()
        from findling.gui.tasks import wait_for_tasks

        wait_for_tasks(10)
        handle.close()


def test_models_dialog_imports_a_shipped_folder_and_sizes_show_before(qtbot, window, tmp_path, monkeypatch):
    """../shared/models holds model.onnx, not the hub's onnx/model_quantized.onnx: the dialog
    imports it as shipped, recognising which model it is."""
    from tests.conftest import MINILM

    if not MINILM.exists():
        import pytest

        pytest.skip("../shared/models is not beside the checkout")
    from findling.gui.models_dialog import ModelsDialog
    from findling.models.download import ModelStore

    monkeypatch.delenv("FINDLING_MODELS_MANIFEST", raising=False)
    window.engine.models.use_store(ModelStore(tmp_path / "models"))
    window.engine.models.reload_manifest()
    dialog = ModelsDialog(window.engine, window)
    qtbot.addWidget(dialog)
    assert dialog.table.item(0, 2).text() == "missing"
    assert dialog.table.item(0, 3).text() != "0.0 MB"
    assert "searches by keywords" in dialog.status.text()
    dialog.import_folder(MINILM, dialog.specs[2])  # the generator row is selected: the folder decides
    qtbot.waitUntil(lambda: dialog.table.item(0, 2).text() == "installed", timeout=20000)
    assert dialog.status.text() == "all-minilm-l6-v2: installed"
    assert dialog.table.item(0, 3).text() == "23.4 MB"
    dialog.refresh()
    assert "searches by keywords" not in dialog.status.text()


def test_models_dialog_removes_only_after_confirmation(qtbot, window, tmp_path, monkeypatch):
    from tests.conftest import MINILM

    if not MINILM.exists():
        import pytest

        pytest.skip("../shared/models is not beside the checkout")
    from PySide6.QtWidgets import QMessageBox

    from findling.gui.models_dialog import ModelsDialog
    from findling.models.download import ModelStore

    monkeypatch.delenv("FINDLING_MODELS_MANIFEST", raising=False)
    window.engine.models.use_store(ModelStore(tmp_path / "models"))
    window.engine.models.reload_manifest()
    spec = window.engine.models.spec("embedder")
    window.engine.models.store.import_dir(spec, MINILM)
    dialog = ModelsDialog(window.engine, window)
    qtbot.addWidget(dialog)
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.No)
    dialog.remove_selected()
    assert dialog.table.item(0, 2).text() == "installed" and "Semantic search stops" in asked[0]
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    dialog.remove_selected()
    assert dialog.table.item(0, 2).text() == "missing" and dialog.status.text() == "all-minilm-l6-v2: removed"


def test_the_search_field_keeps_its_room_on_a_small_screen(qtbot, window):
    """At 1024×640 the filter boxes go under the field instead of squeezing it to a few letters;
    on a wide window they sit beside it."""
    window.resize(1024, 640)
    qtbot.waitUntil(lambda: window.search_field.width() >= window.SEARCH_FIELD_MIN, timeout=3000)
    assert (
        window.mode_box.mapTo(window, window.mode_box.rect().topLeft()).y()
        > window.search_field.mapTo(window, window.search_field.rect().bottomLeft()).y()
    )
    window.resize(1600, 900)
    qtbot.waitUntil(
        lambda: (
            abs(
                window.mode_box.mapTo(window, window.mode_box.rect().center()).y()
                - window.search_field.mapTo(window, window.search_field.rect().center()).y()
            )
            < 8
        ),
        timeout=3000,
    )
    assert window.search_field.width() >= window.SEARCH_FIELD_MIN


@pytest.mark.slow
def test_importing_the_ocr_model_reads_the_pictures_and_removing_it_asks(qtbot, window, tmp_path, monkeypatch):
    from tests.conftest import ocr_model_dir

    folder = ocr_model_dir()
    if folder is None:
        import pytest

        pytest.skip("rapidocr_onnxruntime (the OCR model's wheel) is not installed")
    from PySide6.QtWidgets import QMessageBox

    from findling.gui.models_dialog import ModelsDialog
    from findling.models.download import ModelStore
    from findling.records import SearchMode, SearchRequest
    from tests.helpers import draw_page

    pictures = tmp_path / "pictures"
    pictures.mkdir()
    draw_page(["The florbulate dashboard"], size=(900, 240), mode="RGB").save(pictures / "screenshot.png")
    monkeypatch.delenv("FINDLING_MODELS_MANIFEST", raising=False)
    window.engine.models.use_store(ModelStore(tmp_path / "models"))
    window.engine.models.reload_manifest()
    window.engine.add_source(pictures)
    window.engine.index(embed=False)
    assert window.engine.find(SearchRequest("florbulate", SearchMode.KEYWORD)).hits == ()
    dialog = ModelsDialog(window.engine, window)
    qtbot.addWidget(dialog)
    dialog.installed.connect(window.model_installed)
    row = next(r for r in range(dialog.table.rowCount()) if dialog.table.item(r, 0).text() == "ocr")
    dialog.table.selectRow(row)
    dialog.import_folder(folder, dialog.specs[row])  # the wheel's folder: recognised by its files
    qtbot.waitUntil(lambda: dialog.table.item(row, 2).text() == "installed", timeout=20000)
    # the window reads the pictures again with it
    qtbot.waitUntil(
        lambda: window.engine.find(SearchRequest("florbulate", SearchMode.KEYWORD)).hits != (), timeout=30000
    )
    asked = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.No)
    dialog.table.selectRow(row)
    dialog.remove_selected()
    assert "Words in pictures and scans are no longer read" in asked[0]


def _offered(window, paths, actions):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(QPointF(10, 10), actions, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    event.setDropAction(Qt.DropAction.MoveAction if actions & Qt.DropAction.MoveAction else event.dropAction())
    window.dropEvent(event)
    return event


def test_a_drop_offered_as_move_is_taken_as_copy_and_a_move_only_drop_is_refused(qtbot, window, docs):
    """A file manager that honours Move would take the user's folder away once the window said it
    moved it: Findling takes Copy (or Link), never Move."""
    write(docs / "kept.md", "the folder stays where it is")
    refused = _offered(window, [docs], Qt.DropAction.MoveAction)
    assert not refused.isAccepted() and window.sources_model.rowCount() == 0
    taken = _offered(window, [docs], Qt.DropAction.MoveAction | Qt.DropAction.CopyAction)
    assert taken.isAccepted() and taken.dropAction() == Qt.DropAction.CopyAction
    _wait_idle(qtbot, window)
    assert (docs / "kept.md").exists() and window.sources_model.rowCount() == 1
