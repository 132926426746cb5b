"""The window with a shared collection attached (ingest/sharing.py): File ▸ Attach shared
collection copies it in, the Folders panel lists it under Shared, its documents are found, and
opening one whose folder is not on this computer says the preview holds its text."""

from __future__ import annotations

from importlib.util import find_spec

import pytest
from PySide6.QtCore import Qt

from tests.helpers import published_collection, write

pytestmark = pytest.mark.skipif(find_spec("lance") is None, reason="the findling[shared] extra is not installed")


def test_an_attached_collection_is_listed_under_shared_and_its_text_is_shown(
    qtbot, window, tmp_path, settings, monkeypatch
):
    from PySide6.QtGui import QDesktopServices

    notes = tmp_path / "team" / "notes"
    write(notes / "garden.md", "# Garden\n\nThe zucchini glut of August fills the greenhouse.")
    write(notes / "boats.md", "# Boats\n\nThe mainsail and the jib at the regatta.")
    published_collection(settings, tmp_path / "publisher", notes, tmp_path / "collection", name="team notes")
    (tmp_path / "team").rename(tmp_path / "elsewhere")  # as on the publisher's machine only

    mine = tmp_path / "zz-mine"  # after the collection's folder by path: the Shared group comes last anyway
    write(mine / "todo.md", "# Todo\n\nWater the tomatoes.")
    window.engine.add_source(mine)
    window.attach_shared(str(tmp_path / "collection"))
    qtbot.waitUntil(
        lambda: (
            window.sources_model.rowCount() == 2
            and not window.indexing.running
            and (window.sources_model.source(1).indexed == 2)
        ),
        timeout=20000,
    )
    assert window.sources_model.source(0).source.path == str(mine)  # the folders here, then Shared
    shown = window.sources_model.data(window.sources_model.index(1), Qt.ItemDataRole.DisplayRole)
    assert shown.startswith("Shared · team notes\n2 documents")
    tip = window.sources_model.data(window.sources_model.index(1), Qt.ItemDataRole.ToolTipRole)
    assert "shared: team notes from" in tip and "publication" in tip

    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toLocalFile()))
    window.search_field.clear()
    qtbot.keyClicks(window.search_field, "zucchini")
    qtbot.waitUntil(lambda: window.results.rowCount() == 1, timeout=5000)
    folder = window.results.data(window.results.index(0, 3), Qt.ItemDataRole.DisplayRole)
    assert folder.startswith("Shared · team notes · ")
    window.open_result(0)
    assert opened == []
    assert "is not on this computer: the preview shows the text the index holds" in window.statusBar().currentMessage()


def test_an_unreachable_collection_is_said_once(qtbot, window, tmp_path, settings):
    notes = tmp_path / "notes"
    write(notes / "garden.md", "# Garden\n\nThe zucchini glut of August.")
    published_collection(settings, tmp_path / "publisher", notes, tmp_path / "collection", name="team notes")
    window.attach_shared(str(tmp_path / "collection"))
    qtbot.waitUntil(lambda: window.sources_model.rowCount() == 1 and not window.indexing.running, timeout=20000)
    qtbot.waitUntil(lambda: "Shared: team notes: publication" in window.statusBar().currentMessage(), timeout=5000)

    (tmp_path / "collection").rename(tmp_path / "gone")  # the share is unmounted
    said = []
    for _ in range(2):
        window.statusBar().clearMessage()
        window.update_index()
        qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Indexed"), timeout=20000)
        said.append(window.statusBar().currentMessage())
    assert "Shared: team notes: cannot be reached" in said[0] and "copy of 1 documents stays searchable" in said[0]
    assert "cannot be reached" not in said[1]
    qtbot.waitUntil(lambda: window.sources_model.source(0).attached.error != "", timeout=5000)
    shown = window.sources_model.data(window.sources_model.index(0), Qt.ItemDataRole.DisplayRole)
    tip = window.sources_model.data(window.sources_model.index(0), Qt.ItemDataRole.ToolTipRole)
    assert shown == "Shared · team notes\n1 documents · unreachable" and "not reachable at the last try" in tip
