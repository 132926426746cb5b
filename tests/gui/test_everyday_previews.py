"""The window previews every everyday kind: the word found is in the preview, highlighted."""

from __future__ import annotations

import pytest

from findling.pathnames import container_file
from tests.ingest.test_everyday_formats import AUTHORS, WORDS, make_everyday_folder

READ_BY_OCR = {"screenshot.png", "scan.pdf"}
# the document that holds each file's last word, where it is inside the file: its own author
INSIDE_AUTHORS = {
    "bundle.zip": "openpyxl",  # data/inner.xlsx
    "message.eml": "python-docx",  # the attached report.docx
    "archive.mbox": "Ada <ada@example.org>",  # the second message
}


@pytest.mark.slow
def test_each_kind_previews_with_its_word(qtbot, window, tmp_path, ocr_installed):
    folder = make_everyday_folder(tmp_path / "desk", tmp_path)
    window.engine.add_source(folder)
    window.engine.index()
    window.mode_box.setCurrentText("Keyword")
    for name, words in WORDS.items():
        word = words[-1]
        window.search_field.setText(word)
        window.run_search(full=False)
        qtbot.waitUntil(
            lambda name=name: (
                window.results.rowCount() == 1 and container_file(window.results.hit(0).path).endswith(name)
            ),
            timeout=5000,
        )
        window.tabs.setCurrentIndex(0)
        window.results_view.setCurrentIndex(window.results.index(0, 0))
        qtbot.waitUntil(lambda word=word: word in window.preview.toPlainText().lower(), timeout=5000)
        qtbot.waitUntil(lambda: window.preview_panel.position.text().startswith("hit 1 of"), timeout=5000)
        # a word inside an archive or a mailbox is previewed in its own document, with that one's author
        author = INSIDE_AUTHORS.get(name) or AUTHORS.get(name)
        expected = [f"by {author}"] if author else []
        expected += ["text read by OCR"] if name in READ_BY_OCR else []
        assert window.preview_panel.byline.text() == "".join(f" · {part}" for part in expected).strip(), name
