"""The window's Answer pane: Enter on a question answers it above the results, each [n] selects
its result and lights its passage in the preview, the Explain tab says how the answer was made,
a decline names the closest files, and typing on ends the answer."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt, QUrl

from findling.gui.answer_pane import is_question
from tests.conftest import needs_models

NOTES = Path(__file__).resolve().parents[2] / "docs" / "eval" / "everyday-notes"


@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("How much is the household insurance premium?", True),
        ("how do I cancel the lease", True),
        ("premium?", False),  # one word is a search
        ("insurance premium", False),
        ("is it", False),  # a question word and little else: searched
        ('"what is"', False),  # a phrase
        ("sym:parse_args", False),
        ("when is the dentist appointment?", True),
    ],
)
def test_what_is_answered(text, question):
    assert is_question(text) == question


@pytest.fixture
def notes(embedder_installed, window):
    docs = Path(window.engine.home).parent / "notes"
    docs.mkdir()
    for name in ("car.txt", "insurance.txt", "garden.txt", "dentist.txt"):
        shutil.copy(NOTES / name, docs / name)
    window.engine.add_source(str(docs))
    window.engine.index()
    return docs


@needs_models
def test_a_question_is_answered_above_the_results_and_its_links_light_the_passages(qtbot, notes, window):
    window.search_field.setText("How much is the household insurance premium?")
    qtbot.keyClick(window.search_field, Qt.Key.Key_Return)
    assert window.answer_pane.isVisible()  # at once: "Answering from your files…"
    qtbot.waitUntil(lambda: window.answer_pane.answer is not None, timeout=30_000)
    answer = window.answer_pane.answer
    assert not answer.abstained and "186 euros" in answer.text, answer
    assert "cite:1" in window.answer_pane.body.toHtml()
    assert "every sentence checked" in window.answer_pane.heading.text()
    explained = window.answer_explain.text()
    assert not window.answer_explain.isHidden() and "[1] insurance.txt" in explained and "Time:" in explained
    qtbot.waitUntil(lambda: window.results.rowCount() > 0, timeout=10_000)

    citation = answer.citations[0]
    window.answer_pane.body.anchorClicked.emit(QUrl(f"cite:{citation.n}"))
    qtbot.waitUntil(lambda: window.preview._band == (citation.start, citation.end), timeout=10_000)
    assert window.current_hit().doc_id == citation.doc_id
    assert window.tabs.currentWidget() is window.preview_panel
    window._show_results(window.searches.result, True)  # the reranked list arrives after the click
    qtbot.wait(300)
    assert window.preview._band == (citation.start, citation.end)  # the cited passage stays lit

    window.search_field.clear()
    qtbot.keyClicks(window.search_field, "premium")  # typing on: the answer answered another question
    qtbot.waitUntil(lambda: not window.answer_pane.isVisible(), timeout=5_000)
    assert window.answer_explain.isHidden()


@needs_models
def test_a_question_the_files_do_not_answer_is_declined_with_the_closest_files(qtbot, notes, window):
    window.search_field.setText("When does my gym membership end?")
    qtbot.keyClick(window.search_field, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.answer_pane.answer is not None, timeout=30_000)
    assert window.answer_pane.answer.abstained
    assert window.answer_pane.heading.text() == "No answer in your files"
    assert "do not seem to answer" in window.answer_pane.body.toPlainText()


def test_keywords_are_searched_not_answered(qtbot, window):
    window.search_field.setText("insurance premium")
    qtbot.keyClick(window.search_field, Qt.Key.Key_Return)
    assert not window.answer_pane.isVisible()
