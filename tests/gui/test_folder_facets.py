"""A big tree in the window (issue 62, 7): the facets say when they count only the results shown,
and the In facet narrows a folder a level at a time (`linux` -> `arch` -> `arch/x86`)."""

from __future__ import annotations

import os

from tests.helpers import write


def _tree(tmp_path):
    tree = tmp_path / "linux"
    for i in range(12):
        write(tree / "arch" / "x86" / f"x{i:02d}.c", f"int quokka_{i}(void); /* quokka */")
    for i in range(8):
        write(tree / "arch" / "arm" / f"a{i:02d}.c", f"int quokka_arm_{i}(void);")
    for i in range(6):
        write(tree / "Documentation" / f"d{i}.rst", f"The quokka page {i}.")
    return tree


def _labels(window) -> list[str]:
    return [b.text() for b in window.facets.buttons]


def _folders(window) -> set[str]:
    return {os.path.basename(window.results.hit(r).path.rsplit("/", 1)[0]) for r in range(window.results.rowCount())}


def test_the_in_facet_narrows_a_tree_a_level_at_a_time(qtbot, window, tmp_path):
    tree = _tree(tmp_path)
    window.engine.add_source(tree)
    window.engine.index()
    window.refresh_sources()
    qtbot.waitUntil(lambda: window.indexed_folders == [str(tree)], timeout=5000)
    window.mode_box.setCurrentText("Keyword")
    window.search_field.setText("quokka")
    window.run_search(full=False)
    qtbot.waitUntil(lambda: window.results.rowCount() == 20, timeout=5000)
    assert window.facets.title_texts()[0].startswith("Of the 20 shown, type")  # 26 match, 20 listed
    arch = next(b for b in window.facets.buttons if b.text().startswith("arch "))
    arch.click()
    assert window.folder_box.currentData() == str(tree / "arch")
    qtbot.waitUntil(lambda: _folders(window) == {"x86", "arm"} and window.results.rowCount() == 20, timeout=5000)
    x86 = next(b for b in window.facets.buttons if b.text().startswith("x86 "))
    x86.click()
    assert window.folder_box.currentText() == os.path.join("linux", "arch", "x86")
    qtbot.waitUntil(lambda: _folders(window) == {"x86"} and window.results.rowCount() == 12, timeout=5000)
    assert not window.facets.title_texts()[0].startswith("Of the")  # every match is listed
