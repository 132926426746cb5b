"""Why not this file? in the window: drop it on the Explain tab, or pick it from its folder's
menu in the Folders panel."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QFileDialog

from tests.helpers import index_files


def _drop_at(window, path, point: QPoint):
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    window.dropEvent(
        QDropEvent(
            QPointF(point), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
        )
    )


def _indexed(qtbot, window, tmp_path):
    docs = index_files(
        window.engine,
        tmp_path / "docs",
        {
            "zebra.md": "# Zebras\n\nThe zebra crossing has stripes.",
            "horse.md": "# Horses\n\nA horse has a mane.",
            ".gitignore": "*.log\n",
            "zebra.log": "zebra in a log",
        },
    )
    window.mode_box.setCurrentText("Keyword")
    window.search_field.setText("zebra")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=5000)
    return docs


def test_dropping_a_file_on_the_explain_tab_says_why_not(qtbot, window, tmp_path):
    docs = _indexed(qtbot, window, tmp_path)
    window.tabs.setCurrentIndex(1)
    page = window.explain_page
    _drop_at(window, docs / "zebra.log", page.mapTo(window, page.rect().center()))
    qtbot.waitUntil(lambda: "Why not zebra.log?" in window.why_not_answer.text(), timeout=5000)
    assert "`*.log`" in window.why_not_answer.text() and ".gitignore" in window.why_not_answer.text()
    assert window.sources_model.rowCount() <= 1  # the drop did not add it as a folder
    _drop_at(window, docs / "horse.md", page.mapTo(window, page.rect().center()))
    qtbot.waitUntil(lambda: "Why not horse.md?" in window.why_not_answer.text(), timeout=5000)
    assert "contains none of “zebra”" in window.why_not_answer.text()


def test_the_folders_menu_asks_for_the_file(qtbot, window, tmp_path, monkeypatch):
    docs = _indexed(qtbot, window, tmp_path)
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(docs / "zebra.md"), ""))
    window.ask_why_not(str(docs))
    qtbot.waitUntil(lambda: "Why not zebra.md?" in window.why_not_answer.text(), timeout=5000)
    assert "It is in the results, at #1." in window.why_not_answer.text()
    assert window.tabs.currentIndex() == 1


def test_asking_before_searching_says_how(qtbot, window, tmp_path):
    window.search_field.clear()
    window.why_not(str(tmp_path / "x.md"))
    assert window.why_not_answer.text().startswith("Search first")


def test_the_window_answers_in_its_own_words_not_terminal_commands(qtbot, window, tmp_path):
    """Why-not's answers were written for the terminal ("add its folder with findling add", "run
    findling index"): the window's answer names its menus instead."""
    _indexed(qtbot, window, tmp_path)
    outside = tmp_path / "elsewhere" / "notes.md"
    outside.parent.mkdir()
    outside.write_text("zebra notes")
    window.why_not(str(outside))
    qtbot.waitUntil(lambda: "Why not notes.md?" in window.why_not_answer.text(), timeout=5000)
    assert "File → Add folder" in window.why_not_answer.text()
    late = tmp_path / "docs" / "late.md"
    late.write_text("a zebra that came late")
    window.why_not(str(late))
    qtbot.waitUntil(lambda: "Why not late.md?" in window.why_not_answer.text(), timeout=5000)
    assert "File → Update index, F5" in window.why_not_answer.text()
    assert "findling " not in window.why_not_answer.text()
