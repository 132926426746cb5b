"""The window shows what the index holds and what the query asked: a preview that fails says so
in the pane, and nothing of an earlier list survives a bad query, a cleared field, a removed
folder or a new query."""

from __future__ import annotations

import re
import time

import pytest
from PySide6.QtCore import QPoint, Qt

from findling.records import SearchMode, SearchRequest
from findling.search.facets import facet_counts
from tests.helpers import index_files, write

XHTML = (
    '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">'
    '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Routine vacuuming</title></head><body>'
    '<div class="sect1"><h2>Routine Vacuuming</h2><p>PostgreSQL databases require periodic maintenance '
    "known as vacuuming. The autovacuum daemon does it for most installations.</p></div></body></html>"
)


def _search(qtbot, window, text: str, rows: int | None = None) -> None:
    window.mode_box.setCurrentText("Keyword")
    window.search_field.setText(text)
    window.run_search(full=False)
    if rows is not None:
        qtbot.waitUntil(lambda: window.results.rowCount() == rows, timeout=5000)


def test_an_xhtml_page_with_an_xml_declaration_previews_formatted(qtbot, window, tmp_path):
    index_files(window.engine, tmp_path / "docs", {"routine-vacuuming.html": XHTML})
    _search(qtbot, window, "vacuuming", rows=1)
    panel = window.preview_panel
    qtbot.waitUntil(lambda: panel.view() is panel.formatted and panel.formatted.hit_count >= 2, timeout=5000)
    assert "periodic maintenance" in panel.formatted.document().toPlainText()
    assert window.statusBar().currentMessage().startswith("1 result")


def test_a_failed_preview_clears_the_pane_and_says_so_there(qtbot, window, tmp_path, monkeypatch):
    index_files(window.engine, tmp_path / "docs", {"a.md": "the quokka smiles", "b.md": "a quokka sleeps"})
    _search(qtbot, window, "quokka", rows=2)
    qtbot.waitUntil(lambda: "quokka" in window.preview.toPlainText(), timeout=5000)

    def broken(*_args):
        raise OSError("the disk went away")

    monkeypatch.setattr(window.engine, "document_text", broken)
    window.results_view.setCurrentIndex(window.results.index(1, 0))
    qtbot.waitUntil(lambda: "failed: OSError: the disk went away" in window.preview.toPlainText(), timeout=5000)
    assert "quokka" not in window.preview.toPlainText()
    assert window.statusBar().currentMessage().startswith("2 results")  # the count stays where it was


def test_nothing_of_an_earlier_list_survives(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    folder = index_files(window.engine, tmp_path / "docs", {"a.md": "the quokka smiles", "b.md": "a quokka sleeps"})
    _search(qtbot, window, "quokka", rows=2)
    qtbot.waitUntil(lambda: "quokka" in window.preview.toPlainText(), timeout=5000)
    # a bad query: an error, and no list under it
    _search(qtbot, window, "quokka after:yesterdayish")
    qtbot.waitUntil(lambda: "Search failed" in window.statusBar().currentMessage(), timeout=5000)
    assert window.results.rowCount() == 0 and window.preview.toPlainText() == ""
    # Esc in the field: no list, no preview, no count
    _search(qtbot, window, "quokka", rows=2)
    qtbot.waitUntil(lambda: "quokka" in window.preview.toPlainText(), timeout=5000)
    window.why_not(str(folder / "a.md"))
    qtbot.waitUntil(
        lambda: window.why_not_answer.isVisible() and "Why not" in window.why_not_answer.text(), timeout=5000
    )
    window.search_field.setFocus()
    qtbot.keyClick(window.search_field, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.results.rowCount() == 0, timeout=5000)
    assert window.preview.toPlainText() == ""
    assert not window.why_not_answer.isVisible()  # it answered the query that is gone
    assert "result" not in window.statusBar().currentMessage()
    # a removed folder takes its results with it
    _search(qtbot, window, "quokka", rows=2)
    window.refresh_sources()
    qtbot.waitUntil(lambda: window.sources_model.rowCount() == 1, timeout=5000)
    window.sources_view.setCurrentIndex(window.sources_model.index(0))
    asked: list[str] = []
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: asked.append(a[2]) or QMessageBox.StandardButton.No)
    window.remove_selected_source()  # Remove asks first, naming what leaves; No keeps it all
    assert "Its 2 documents leave the index" in asked[0] and window.sources_model.rowCount() == 1
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    window.remove_selected_source()
    qtbot.waitUntil(lambda: window.results.rowCount() == 0, timeout=5000)


def test_window_state_is_kept_per_index(qtbot, window, tmp_path, settings):
    from findling.engine import Engine
    from findling.gui.main_window import MainWindow
    from findling.gui.state import FILENAME

    window.history.add("quokka habitats")
    window.close()  # geometry written, beside this index
    with Engine(tmp_path / "other-home", settings=settings) as other_engine:
        other = MainWindow(other_engine, debounce_ms=10)
        qtbot.addWidget(other)
        assert "quokka habitats" not in other.history.items()
        other.history.add("tax forms")
        other.close()
    assert (window.engine.home / FILENAME).exists() and (tmp_path / "other-home" / FILENAME).exists()
    again = MainWindow(window.engine, debounce_ms=10)
    qtbot.addWidget(again)
    assert "quokka habitats" in again.history.items() and "tax forms" not in again.history.items()


def test_the_window_follows_changes_made_elsewhere_and_while_it_was_closed(qtbot, tmp_path, settings):
    """Files edited while the app was closed are searched after launch, and a folder added by
    `findling add` while the window holds the index appears, is counted and watched."""
    import os
    import subprocess
    import sys

    from findling.engine import Engine
    from findling.gui.main_window import MainWindow
    from findling.server.handle import IndexHandle

    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        folder = index_files(engine, tmp_path / "docs", {"a.md": "the quokka smiles"})
    (folder / "b.md").write_text("a wombat digs while the app is closed")  # the app is closed now

    from findling.gui.app import _Activation

    activation = _Activation()  # as app.open_index wires it
    handle = IndexHandle.open(home, settings=settings, kind="app", on_change=activation.changed.emit)
    try:
        assert handle.engine is not None
        window = MainWindow(handle.engine, debounce_ms=10, rescan=True)
        qtbot.addWidget(window)
        activation.changed.connect(window.follow_change)
        qtbot.waitUntil(
            lambda: window.engine.find(SearchRequest("wombat", mode=SearchMode.KEYWORD)).total_matched == 1,
            timeout=20000,
        )

        other = tmp_path / "other"
        other.mkdir()
        (other / "c.md").write_text("the numbat eats termites")
        env = dict(os.environ, FINDLING_HOME=str(home), NO_COLOR="1")
        added = subprocess.run(
            [sys.executable, "-m", "findling", "add", str(other)], env=env, capture_output=True, text=True, timeout=120
        )
        assert added.returncode == 0, added.stderr
        qtbot.waitUntil(lambda: window.sources_model.rowCount() == 2, timeout=10000)
        qtbot.waitUntil(lambda: str(other) in window.watcher.folders, timeout=10000)
        (other / "d.md").write_text("an echidna walks by")  # an edit in the new folder, seen live
        qtbot.waitUntil(
            lambda: window.engine.find(SearchRequest("echidna", mode=SearchMode.KEYWORD)).total_matched == 1,
            timeout=20000,
        )
        window.close()
    finally:
        from findling.gui.tasks import wait_for_tasks

        wait_for_tasks(10)
        handle.close()


def test_importing_an_embedder_embeds_what_is_indexed(qtbot, window, tmp_path, monkeypatch):
    from tests.conftest import MINILM

    if not MINILM.exists():
        import pytest

        pytest.skip("../shared/models is not beside the checkout")
    from findling.gui.models_dialog import ModelsDialog
    from findling.models.download import ModelStore

    index_files(window.engine, tmp_path / "docs", {"a.md": "the quokka smiles", "b.md": "a wombat digs"})
    assert window.engine.status().embedded == 0
    monkeypatch.delenv("FINDLING_MODELS_MANIFEST", raising=False)
    window.engine.models.use_store(ModelStore(tmp_path / "models"))
    window.engine.models.reload_manifest()
    dialog = ModelsDialog(window.engine, window)
    qtbot.addWidget(dialog)
    dialog.installed.connect(window.model_installed)  # as show_models connects it
    dialog.import_folder(MINILM, dialog.specs[0])
    qtbot.waitUntil(lambda: window.engine.status().embedded == 2, timeout=60000)
    qtbot.waitUntil(lambda: "2 of 2 documents embedded" in window.index_label.text(), timeout=10000)


def test_new_exclude_patterns_drop_what_they_exclude(qtbot, window, tmp_path, monkeypatch):
    from findling.gui import settings_dialog

    index_files(
        window.engine,
        tmp_path / "docs",
        {"a.md": "the quokka smiles", "b.pdf.txt": "quokka notes", "c.log": "quokka log"},
    )
    _search(qtbot, window, "quokka", rows=3)

    def save_with_exclude(dialog) -> int:
        dialog.exclude.setPlainText("*.log")
        dialog.save()
        return 1

    monkeypatch.setattr(settings_dialog.SettingsDialog, "exec", save_with_exclude)
    window.show_settings()
    qtbot.waitUntil(
        lambda: window.engine.find(SearchRequest("quokka", mode=SearchMode.KEYWORD)).total_matched == 2, timeout=20000
    )
    qtbot.waitUntil(lambda: window.results.rowCount() == 2, timeout=10000)


def test_open_says_so_when_no_application_opens_the_file(qtbot, window, tmp_path, monkeypatch):
    from PySide6.QtGui import QDesktopServices

    index_files(window.engine, tmp_path / "docs", {"a.quokka.md": "the quokka smiles"})
    _search(qtbot, window, "quokka", rows=1)
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: False)
    window.open_result(0)
    assert "no application on this computer opens it" in window.statusBar().currentMessage()


def test_a_facets_count_is_the_rows_its_click_shows_in_hybrid_mode(qtbot, embedder_installed, window, tmp_path):
    index_files(
        window.engine,
        tmp_path / "docs",
        {
            "db.md": "# Databases\n\nA database keeps tables of rows.",
            "recipe.txt": "Whip the mascarpone with sugar for the tiramisu.",
            "garden.txt": "Water tomato plants deeply twice a week.",
            "db-notes.txt": "Database indexes make lookups fast.",
        },
    )
    window.mode_box.setCurrentText("Hybrid")
    window.search_field.setText("database")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: window.results.rowCount() >= 2, timeout=10000)
    shown = [window.results.hit(r) for r in range(window.results.rowCount())]
    counts = dict(facet_counts(shown, [str(tmp_path / "docs")], 0)["type"])
    assert sum(counts.values()) == window.results.rowCount()
    assert {window.results.hit(r).path.rsplit("/", 1)[-1] for r in range(window.results.rowCount())} == {
        "db.md",
        "db-notes.txt",
    }  # no unrelated recipe or garden padding the list
    window.apply_facet("type", "Markdown")
    qtbot.waitUntil(lambda: window.results.rowCount() == counts["Markdown"], timeout=10000)


def test_results_sort_by_a_clicked_column_header(qtbot, window, tmp_path):
    import os
    import time

    folder = index_files(
        window.engine,
        tmp_path / "docs",
        {"big.md": "quokka " + "words " * 400, "small.md": "quokka", "middle.md": "quokka " + "words " * 40},
    )
    os.utime(folder / "small.md", (time.time() - 86400 * 30,) * 2)
    window.engine.index()
    _search(qtbot, window, "quokka", rows=3)
    header = window.results_view.horizontalHeader()
    columns = window.results.COLUMNS
    assert columns[4:] == ("Modified", "Size")
    qtbot.mouseClick(
        header.viewport(),
        Qt.MouseButton.LeftButton,
        pos=header.rect().topLeft() + QPoint(header.sectionViewportPosition(5) + 5, 5),
    )
    names = [window.results.hit(r).path.rsplit("/", 1)[-1] for r in range(3)]
    sizes = [window.results.hit(r).size for r in range(3)]
    assert sizes == sorted(sizes) or sizes == sorted(sizes, reverse=True)
    assert names[0] in ("small.md", "big.md")
    window.results_view.horizontalHeader().setSortIndicator(4, Qt.SortOrder.AscendingOrder)
    assert window.results.hit(0).path.endswith("small.md")  # the oldest first
    assert window.results.data(window.results.index(0, 5)).endswith("bytes")


def test_a_live_update_that_embeds_the_index_shows_its_progress(qtbot, window, tmp_path, monkeypatch):
    """One edited file after a model arrived embeds everything not yet embedded: shown, not quiet."""
    folder = index_files(window.engine, tmp_path / "docs", {f"n{i}.md": f"note {i} about quokkas" for i in range(3)})
    from tests.conftest import MINILM, write_test_manifest

    if not MINILM.exists():
        import pytest

        pytest.skip("../shared/models is not beside the checkout")
    from findling.models.download import ModelStore
    from findling.models.manifest import load_manifest

    manifest = write_test_manifest(tmp_path / "models.toml")
    monkeypatch.setenv("FINDLING_MODELS_MANIFEST", str(manifest))
    ModelStore().import_dir(load_manifest(manifest).get("minilm-test"), MINILM)
    window.engine.models.reload_manifest()
    seen = []
    window.indexing.progress.connect(seen.append)
    (folder / "n0.md").write_text("note 0 about quokkas, edited")
    window.indexing.files_changed([str(folder / "n0.md")])
    qtbot.waitUntil(lambda: window.engine.status().embedded == 3, timeout=60000)
    qtbot.waitUntil(lambda: any(p.phase == "embedding" and p.total == 3 for p in seen), timeout=10000)


def test_a_custom_date_range_filters_from_one_day_to_another(qtbot, window, tmp_path, monkeypatch):
    import os
    from datetime import date, datetime

    from findling.gui import main_window as main_window_module

    folder = index_files(
        window.engine, tmp_path / "docs", {"old.md": "quokka 1", "mid.md": "quokka 2", "new.md": "quokka 3"}
    )
    for name, day in (("old.md", date(2023, 5, 1)), ("mid.md", date(2024, 2, 10)), ("new.md", date.today())):
        stamp = datetime.combine(day, datetime.min.time()).timestamp() + 3600
        os.utime(folder / name, (stamp, stamp))
    window.engine.index()
    _search(qtbot, window, "quokka", rows=3)
    monkeypatch.setattr(main_window_module, "ask_date_range", lambda *_a: (date(2024, 1, 1), date(2024, 3, 31)))
    window.date_box.setCurrentIndex(window.date_box.count() - 1)
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=5000)
    assert window.results.hit(0).path.endswith("mid.md")
    assert window.date_box.currentText() == "2024-01-01 to 2024-03-31"
    monkeypatch.setattr(main_window_module, "ask_date_range", lambda *_a: None)  # Cancel keeps the range in force
    window.date_box.setCurrentIndex(0)
    qtbot.waitUntil(lambda: window.results.rowCount() == 3, timeout=5000)
    window.date_box.setCurrentIndex(window.date_box.count() - 1)
    assert window.date_box.currentIndex() == 0 and window.results.rowCount() == 3


def test_two_folders_of_one_name_are_told_apart(qtbot, window, tmp_path):
    for parent in ("python", "rust"):
        index_files(window.engine, tmp_path / parent / "html", {f"{parent}.md": "quokka"})
    window.refresh_sources()
    qtbot.waitUntil(lambda: window.sources_model.rowCount() == 2, timeout=5000)
    shown = {window.sources_model.data(window.sources_model.index(r)).split("\n")[0] for r in range(2)}
    assert shown == {"python/html", "rust/html"}
    assert {window.folder_box.itemText(i) for i in range(1, 3)} == {"python/html", "rust/html"}


def test_the_semantic_list_on_screen_is_the_one_why_not_explains(qtbot, embedder_installed, window, tmp_path):
    docs = {
        "cat.txt": "The cat slept on the warm windowsill all afternoon.",
        "dog.txt": "A dog dozed by the fire after its long walk.",
        "paris.md": "Paris is the capital and largest city of France.",
        "db.md": "ERROR: connection refused on port 5432 while the nightly job ran.",
        "bread.md": "Knead the dough, let it rise overnight, bake at 230 degrees.",
        "tax.md": "The quarterly tax return is due at the end of the month.",
    }
    folder = index_files(window.engine, tmp_path / "docs", docs)
    window.engine.settings.search.limit = 3  # some documents are left out of the list
    window.mode_box.setCurrentText("Semantic")
    window.search_field.setText("a pet resting")
    window.run_search(full=True)
    qtbot.waitUntil(
        lambda: (
            window.searches.shown is not None and window.searches.shown.rerank is None and window.results.rowCount() > 0
        ),
        timeout=20000,
    )
    request = window.searches.shown
    assert request.mode is SearchMode.SEMANTIC and request.text == "a pet resting"
    listed = [window.results.hit(r).path for r in range(window.results.rowCount())]
    assert listed == [h.path for h in window.engine.find(request).hits]  # the engine's list, as shown
    answers = {}

    def ask(path):
        window.searches.why_not(path, lambda answer: answers.__setitem__(path, answer), pytest.fail)
        qtbot.waitUntil(lambda: path in answers, timeout=20000)
        return answers[path]

    for rank, path in enumerate(listed, 1):
        answer = ask(path)
        assert (answer.reason, answer.rank) == ("shown", rank), answer.summary
    left_out = [str(folder / name) for name in docs if str(folder / name) not in listed]
    assert left_out
    for path in left_out:
        assert ask(path).reason != "shown"


def test_open_and_show_in_folder_say_so_when_the_opener_fails(qtbot, window, tmp_path, monkeypatch):
    """xdg-open started, found no application and said so on stderr: the window says it too
    (it said nothing: Qt counts a started opener as success)."""
    opener = tmp_path / "xdg-open"
    opener.write_text("#!/bin/sh\necho \"xdg-open: no method available for opening '$1'\" >&2\nexit 3\n")
    opener.chmod(0o755)
    monkeypatch.setattr("findling.gui.opening.xdg_open", lambda: str(opener))
    index_files(window.engine, tmp_path / "docs", {"a.quokka.md": "the quokka smiles"})
    _search(qtbot, window, "quokka", rows=1)
    window.open_result(0)
    qtbot.waitUntil(
        lambda: "no application on this computer opens it" in window.statusBar().currentMessage(), timeout=10000
    )
    message = window.statusBar().currentMessage()
    assert "a.quokka.md" in message and "no method available" in message and "Copy path" in message
    window.statusBar().clearMessage()
    window.open_path(str(tmp_path / "docs"))  # Show in folder, with no file manager
    qtbot.waitUntil(lambda: "Could not open" in window.statusBar().currentMessage(), timeout=10000)


@pytest.mark.parametrize("mode", ["Hybrid", "Semantic"])
def test_a_filter_alone_lists_its_documents_in_the_window_in_every_mode(qtbot, window, tmp_path, mode):
    index_files(window.engine, tmp_path / "docs", {"plan.md": "the garden plan", "notes.txt": "garden notes"})
    window.mode_box.setCurrentText(mode)
    window.search_field.setText("ext:md")
    window.run_search(full=True)
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=10000)
    assert window.results.hit(0).path.endswith("plan.md")
    assert "no words" not in window.statusBar().currentMessage()


def test_the_explain_tab_tells_a_keyword_results_story(qtbot, window, tmp_path):
    """Keyword mode's Explain tab was blank: no sentence, no timeline, no details."""
    index_files(
        window.engine, tmp_path / "docs", {"a.md": "the quokka smiles at the quokka", "b.md": "a quokka sleeps"}
    )
    _search(qtbot, window, "quokka", rows=2)
    window.results_view.setCurrentIndex(window.results.index(0, 0))
    qtbot.waitUntil(lambda: "keyword #1" in window.explain_sentence.text(), timeout=5000)
    assert window.explain_model.rowCount() > 0
    assert "candidates in" in window.explain_summary.text() and " 0 ms" not in window.explain_summary.text()
    assert "skipped" in window.timeline.toolTip() and " ms" in window.timeline.toolTip()  # the stages drawn


def test_a_long_facet_row_never_widens_the_window_nor_cuts_its_words(qtbot, window):
    """The window grew to fit the row (1280 → 1313 px, again after each resize); at 1024 the
    buttons were squeezed until "We…11 Doc…s 3"; two folders named html read "html · html"."""
    from PySide6.QtWidgets import QApplication

    facets = {
        "type": [(name, 10 + i) for i, name in enumerate(["Web pages", "Documents", "Spreadsheets", "Presentations"])],
        "modified": [(name, 3) for name in ["Today", "This week", "This month", "This year", "Older"]],
        "folder": [("/srv/docs/python3.11/html", 6), ("/srv/docs/rust/html", 1), ("/home/me/Notes and drafts", 2)],
    }
    for width, height in ((1280, 800), (1024, 640)):
        window.resize(width, height)
        QApplication.processEvents()
        for _ in range(3):
            window.facets.set_facets(facets)
            QApplication.processEvents()
            assert window.width() == width
        shown = window.facets.shown()
        assert shown, "nothing of the row is shown"
        for widget in shown:
            assert widget.width() >= widget.sizeHint().width(), widget.text()  # whole words
        assert "python3.11/html 6" in window.facets.toolTip() and "rust/html 1" in window.facets.toolTip()


def test_a_semantic_hit_lights_the_passage_that_matched(qtbot, embedder_installed, window, tmp_path):
    """It said "no matches in the text" for every semantic hit and lit nothing."""
    from PySide6.QtWidgets import QApplication

    filler = "\n\n".join(f"Section {i}: the quarterly tax return is due at the end of the month." for i in range(30))
    index_files(
        window.engine,
        tmp_path / "docs",
        {"cat.md": filler + "\n\nThe cat sleeps on the warm windowsill all afternoon.\n\n" + filler},
    )
    window.engine.embed()
    window.mode_box.setCurrentText("Semantic")
    window.search_field.setText("a pet resting in the sun")
    window.run_search(full=True)
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=20000)
    window.results_view.setCurrentIndex(window.results.index(0, 0))
    panel = window.preview_panel
    qtbot.waitUntil(lambda: "found by meaning" in panel.position.text(), timeout=10000)
    QApplication.processEvents()
    pane = window.preview
    assert pane.by_meaning and panel.view() is pane
    (band,) = [s for s in pane.extraSelections() if s.format.background().color().alpha() > 40]
    assert "windowsill" in band.cursor.selectedText()


def test_the_match_column_says_what_each_result_matched(qtbot, window, tmp_path):
    from PySide6.QtCore import Qt

    index_files(window.engine, tmp_path / "docs", {"a.md": "the quokka smiles", "b.md": "a quokka sleeps"})
    _search(qtbot, window, "quokka smiles", rows=2)
    labels = {
        window.results.hit(r).path.rsplit("/", 1)[-1]: window.results.data(
            window.results.index(r, 2), Qt.ItemDataRole.DisplayRole
        )
        for r in range(2)
    }
    assert labels["a.md"].endswith("· every word") and labels["b.md"].endswith("· some words"), labels


def test_a_run_asked_for_elsewhere_shows_in_the_bar_and_the_panel_agrees(
    qtbot, embedder_installed, window, tmp_path, monkeypatch
):
    """Embedding started by `findling add` (served by the window's engine) showed no bar; the
    summary said "39 of 39 documents embedded" while the bar said "Embedding 16/1173" and the
    folder row "0 indexed". One record: the bar, the summary and the folder row agree."""
    import threading

    from findling.records import IndexProgress

    docs = tmp_path / "docs"
    for i in range(40):
        write(docs / f"note{i:02}.txt", f"Note {i}: the harbour ferry leaves at {i % 12 + 1} o'clock from pier {i}.")
    window.engine.add_source(docs)
    monkeypatch.setattr("findling.ingest.embedding.FIRST_PER_BATCH", 16)
    reached, release = threading.Event(), threading.Event()

    def progress(p: IndexProgress) -> None:  # another caller's run, held after its first batch
        if p.phase == "embedding" and p.done > 0 and not release.is_set():
            reached.set()
            release.wait(60)

    run = threading.Thread(target=lambda: window.engine.index(progress=progress))
    run.start()
    try:
        qtbot.waitUntil(reached.is_set, timeout=60000)
        qtbot.waitUntil(
            lambda: window.progress_label.text().startswith("Embedding: 16 of 40 documents searchable by meaning"),
            timeout=5000,
        )
        assert window.progress.isVisible() and (window.progress.value(), window.progress.maximum()) == (16, 40)
        qtbot.waitUntil(lambda: "16 of 40 documents embedded" in window.index_label.text(), timeout=8000)
        qtbot.waitUntil(
            lambda: "40 indexed" in (window.sources_model.data(window.sources_model.index(0)) or ""), timeout=5000
        )
    finally:
        release.set()
        run.join(60)
    qtbot.waitUntil(lambda: "40 of 40 documents embedded" in window.index_label.text(), timeout=60000)
    qtbot.waitUntil(lambda: not window.progress.isVisible(), timeout=5000)


def test_a_search_that_loads_its_model_says_where_its_time_went(
    qtbot, embedder_installed, window, tmp_path, monkeypatch
):
    """The bar said "2 results in 2347 ms" while Explain said "15 candidates in 40 ms": the first
    search had loaded the embedder. Both now name the loading."""
    index_files(window.engine, tmp_path / "docs", {"db.md": "A database keeps tables of rows."})
    searcher = window.engine._search
    checked = searcher.semantic_off

    def loading_slowly():
        time.sleep(0.15)  # as a first search loading the model (at least this long)
        return checked()

    monkeypatch.setattr(searcher, "semantic_off", loading_slowly)
    window.mode_box.setCurrentText("Hybrid")
    window.search_field.setText("database")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=10000)
    assert "s of it loading the search model" in window.statusBar().currentMessage()
    window.results_view.setCurrentIndex(window.results.index(0, 0))
    qtbot.waitUntil(
        lambda: (
            re.search(r"in \d+ ms, after \d+\.\d s loading the search model", window.explain_summary.text()) is not None
        ),
        timeout=5000,
    )
    monkeypatch.setattr(searcher, "semantic_off", checked)
    window.search_field.setText("tables")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("1 result in"), timeout=10000)
    assert "loading" not in window.statusBar().currentMessage()  # loaded: said no more


def test_the_bar_follows_the_depth_pass_once_every_document_has_a_vector(window, monkeypatch):
    """Once every document had its first vector the bar stood full for the hours the depth pass
    took, beside "5,964 of 25,474 documents whole" (issue 62: say what it did). It follows the
    documents whole from then on, as the line does."""
    from findling.records import Activity, EmbedDepth

    first = Activity("embedding", 25, 40, "documents", started=time.time(), depth=EmbedDepth(0, 40, 30.0, 600.0))
    deep = Activity("embedding", 40, 40, "documents", started=time.time(), depth=EmbedDepth(10, 40, 0.0, 480.0))
    for activity, shown in ((first, (25, 40)), (deep, (10, 40))):
        monkeypatch.setattr(window.engine, "activity", lambda activity=activity: activity)
        window._show_activity()
        assert (window.progress.value(), window.progress.maximum()) == shown
    assert window.progress_label.text().startswith("Embedding every passage: 10 of 40 documents whole")
