"""The preview walks the matches (F3 / Shift+F3, buttons, "hit 3 of 7") and finds documents
like the one shown."""

from __future__ import annotations

from PySide6.QtCore import Qt

from tests.helpers import index_files, write


def _search(qtbot, window, text, rows):
    window.activateWindow()
    window.search_field.setFocus()
    window.search_field.clear()
    qtbot.keyClicks(window.search_field, text)
    qtbot.waitUntil(lambda: window.results.rowCount() == rows, timeout=5000)


def test_next_and_previous_match_with_position(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    write(docs / "q.txt", "# Quokkas\n\n" + "\n\n".join(f"Paragraph {i}: the quokka smiles." for i in range(4)))
    window.engine.add_source(docs)
    window.engine.index()
    _search(qtbot, window, "quokka", 1)
    panel = window.preview_panel
    qtbot.waitUntil(lambda: panel.position.text().endswith("of 5"), timeout=5000)  # title and four paragraphs
    first = window.preview.current
    qtbot.keyClick(window.search_field, Qt.Key.Key_F3)
    assert window.preview.current == (first + 1) % 5
    assert panel.position.text() == f"hit {window.preview.current + 1} of 5"
    qtbot.keyClick(window.search_field, Qt.Key.Key_F3, Qt.KeyboardModifier.ShiftModifier)
    assert window.preview.current == first
    for _ in range(5):
        panel.next.click()  # around the end and back to the start
    assert window.preview.current == first
    cursor = window.preview.textCursor().position()
    assert window.preview.toPlainText()[cursor : cursor + 6].lower() == "quokka"


def test_no_matches_says_so(qtbot, window, tmp_path):
    window.preview.show_text("plain text", [], None, None)
    assert window.preview_panel.position.text() == "no matches in the text"
    assert not window.preview_panel.next.isEnabled()


def test_more_like_this(qtbot, embedder_installed, window, tmp_path):
    index_files(
        window.engine,
        tmp_path / "docs",
        {
            "tomato.md": "# Tomatoes\n\nWater tomato plants deeply twice a week in summer.",
            "beans.md": "# Beans\n\nRunner beans climb poles; water the vegetable garden at dawn.",
            "rust.md": "# Ownership\n\nThe borrow checker rejects two mutable references.",
        },
    )
    window.mode_box.setCurrentText("Keyword")
    _search(qtbot, window, "tomato", 1)
    window.preview_panel.similar.click()
    qtbot.waitUntil(lambda: window.results.rowCount() == 2, timeout=10000)
    assert window.results.hit(0).path.endswith("beans.md")
    assert "like Tomatoes" in window.statusBar().currentMessage()


def test_code_shows_with_line_numbers_and_text_without(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    write(
        docs / "tool.py",
        "\n".join(f"value_{i} = {i}  # quokka" if i == 30 else f"value_{i} = {i}" for i in range(1, 60)) + "\n",
    )
    write(docs / "note.md", "# Note\n\nA quokka in prose.")
    window.engine.add_source(docs)
    window.engine.index()
    window.mode_box.setCurrentText("Keyword")
    _search(qtbot, window, "quokka", 2)
    row = next(r for r in range(2) if window.results.hit(r).path.endswith("tool.py"))
    window.results_view.selectRow(row)
    qtbot.waitUntil(lambda: "value_30" in window.preview.toPlainText(), timeout=5000)
    numbers = window.preview.numbers
    assert not numbers.isHidden() and numbers.width_needed() > 0
    assert window.preview.lineWrapMode() == window.preview.LineWrapMode.NoWrap
    cursor_line = window.preview.textCursor().blockNumber() + 1
    assert cursor_line == 30  # the hit's line, as the gutter numbers it
    window.results_view.selectRow(1 - row)
    qtbot.waitUntil(lambda: "prose" in window.preview.toPlainText(), timeout=5000)
    assert numbers.isHidden() and numbers.width_needed() == 0


def test_matches_after_an_emoji_are_marked_on_the_word(qtbot, window):
    from findling.records import Highlight

    text = "Party 🎉🎉 notes: the quokka came.\nMore 🦘 and another quokka."
    starts = [i for i in range(len(text)) if text.startswith("quokka", i)]
    window.preview.show_text(text, [Highlight(s, s + 6) for s in starts], None, None)
    for _ in starts:
        cursor = window.preview.textCursor()
        cursor.movePosition(cursor.MoveOperation.Right, cursor.MoveMode.KeepAnchor, 6)
        assert cursor.selectedText() == "quokka"
        window.preview_panel.next_hit()


def test_the_byline_names_copies_and_near_copies(qtbot, window):
    panel = window.preview_panel
    panel.show_byline("Ada", ("/b/report.txt",), ("/c/report-final.txt",))
    assert panel.byline.text() == "· by Ada · 2 copies, also at /b/report.txt · nearly the same: /c/report-final.txt"
    assert "Nearly the same text at:\n/c/report-final.txt" in panel.byline.toolTip()
    panel.show_byline("", (), ("/x", "/y"))
    assert panel.byline.text() == "· 2 nearly the same"


def test_headings_show_bold_without_their_marks_and_matches_stay_on_their_words(qtbot, window):
    """A Word or web document's headings are read as `## Heading` (for passages to break at): the
    preview showed those marks; code keeps its `# comment`."""
    from findling.records import Highlight

    text = "# Quarterly budget\n\nThe quokka fund.\n\n## Kindergarten fees\n\nFees for the quokka 🎉 class."
    starts = [i for i in range(len(text)) if text.startswith("quokka", i)]
    heading = text.index("Kindergarten")
    window.preview.show_text(
        text, [Highlight(s, s + 6) for s in starts] + [Highlight(heading, heading + 12)], None, None
    )
    shown = window.preview.toPlainText()
    assert shown.splitlines()[0] == "Quarterly budget" and "## " not in shown and "\n#" not in shown
    for _ in range(len(starts) + 1):  # every match lights its word, past the marks taken out
        cursor = window.preview.textCursor()
        cursor.movePosition(cursor.MoveOperation.Right, cursor.MoveMode.KeepAnchor, 6)
        assert cursor.selectedText() in ("quokka", "Kinder")
        window.preview_panel.next_hit()
    block = window.preview.document().findBlockByNumber(4)
    assert block.text() == "Kindergarten fees"
    assert block.begin().fragment().charFormat().fontWeight() == 700  # a heading reads as one
    window.preview.show_text("# a comment\nx = 1  # quokka\n", [], None, None, ext="py")
    assert window.preview.toPlainText().startswith("# a comment")


def test_a_spreadsheets_values_stand_under_their_headings(qtbot, window, tmp_path):
    from openpyxl import Workbook
    from PySide6.QtGui import QTextCursor

    book = Workbook()
    sheet = book.active
    for row in (["Item", "Cost", "Note"], ["Kindergarten fees", 420, "spring"], ["Lunch", None, "free"]):
        sheet.append(row)
    (tmp_path / "docs").mkdir()
    book.save(tmp_path / "docs" / "budget.xlsx")
    window.engine.add_source(tmp_path / "docs")
    window.engine.index()
    window.mode_box.setCurrentText("Keyword")
    _search(qtbot, window, "kindergarten", 1)
    qtbot.waitUntil(lambda: "Lunch" in window.preview.toPlainText(), timeout=5000)
    shown = window.preview.toPlainText()

    def x(word: str) -> int:
        cursor = QTextCursor(window.preview.document())
        cursor.setPosition(shown.index(word))
        return window.preview.cursorRect(cursor).x()

    assert x("Cost") == x("420") and x("Note") == x("spring") == x("free")
    assert x("Note") > x("Cost") > x("Item")
