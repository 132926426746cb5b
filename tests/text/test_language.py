"""Which stemmer a document is read with: its language, guessed from its function words."""

from __future__ import annotations

from findling.text.language import detect_language


def test_function_words_name_the_language():
    assert detect_language("Os gatos dormem hoje no jardim, e o cachorro está deitado debaixo da árvore. " * 3) == "pt"
    assert detect_language("Die Katzen schlafen heute im Garten, und der Hund liegt unter dem Baum. " * 3) == "de"
    assert detect_language("The cats sleep in the garden today, and the dog is under the tree. " * 3) == "en"


def test_a_table_of_the_os_module_s_names_is_not_portuguese():
    """`os` is Portuguese's article and Python's module: the Python docs' table of audit events
    (os.chdir, os.listdir, ... and a few English lines) was read as Portuguese."""
    rows = " ".join(f"os.{name} path, mode" for name in ("chdir", "listdir", "remove", "rename", "scandir") * 8)
    text = "This table contains all events raised by sys.audit calls in the standard library. " + rows
    assert detect_language(text) == "en"
