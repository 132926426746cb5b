"""A folder whose .gitignore leaves out everything (Debian's kernel tree: `/*`) says so beside it,
and its menu in the Folders panel lets the user follow no .gitignore there (issue 62, 1)."""

from __future__ import annotations

from PySide6.QtCore import Qt


def test_the_folder_menu_stops_following_its_gitignore(qtbot, window, tmp_path):
    tree = tmp_path / "linux"
    (tree / "Documentation").mkdir(parents=True)
    (tree / ".gitignore").write_text("/*\n!.gitignore\n")
    for i in range(3):
        (tree / "Documentation" / f"page{i}.rst").write_text(f"page {i} about the quokka scheduler\n")
    (tree / "README").write_text("quokka kernel\n")
    window.add_paths([str(tree)])
    qtbot.waitUntil(lambda: window.sources_model.rowCount() == 1 and not window.indexing.running, timeout=15000)
    qtbot.waitUntil(lambda: "left out by .gitignore" in _row_text(window), timeout=5000)
    assert "0 indexed" in _row_text(window)
    window.follow_gitignore(str(tree), False)
    qtbot.waitUntil(lambda: "4 indexed" in _row_text(window), timeout=15000)
    assert "left out" not in _row_text(window)
    assert window.sources_model.source(0).source.gitignore is False


def _row_text(window) -> str:
    return str(window.sources_model.data(window.sources_model.index(0, 0), Qt.ItemDataRole.DisplayRole))
