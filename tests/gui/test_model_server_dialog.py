"""The Models dialog's Model server form: a server on another machine is refused unless allowed,
one on this machine is kept and asked once (its answer shown, the window never waiting), the
Models table then says where the role runs, and Run on this computer goes back."""

from __future__ import annotations

import pytest

from findling.settings import load_settings
from tests.models.test_model_server import NAME, Server

pytestmark = pytest.mark.slow  # a model server process


def test_a_model_server_is_chosen_asked_and_shown(qtbot, window, tmp_path):
    from findling.gui.model_server_dialog import ModelServerDialog
    from findling.gui.models_dialog import ModelsDialog

    server = Server(tmp_path)
    try:
        form = ModelServerDialog(window.engine, "embedder", window)
        qtbot.addWidget(form)
        form.api.setCurrentText("openai")
        form.url.setText("https://api.example.com")
        form.model.setText("text-embedding-3-small")
        form.use_button.click()
        assert "document text would leave the machine" in form.answer.text()
        assert load_settings(window.engine.home_override).models.embedder_url == ""  # refused: nothing kept

        form.url.setText(server.url)
        form.model.setText(NAME)
        form.use_button.click()
        qtbot.waitUntil(lambda: "It answers" in form.answer.text(), timeout=30_000)
        assert "384-dimension vectors" in form.answer.text()
        saved = load_settings(window.engine.home_override).models
        assert (saved.embedder_url, saved.embedder, saved.embedder_api) == (server.url, NAME, "openai")

        models = ModelsDialog(window.engine, window)
        qtbot.addWidget(models)
        row = [models.table.item(r, 0).text() for r in range(models.table.rowCount())].index("embedder")
        assert models.table.item(row, 2).text() == "model server"
        assert models.table.item(row, 4).text() == f"OpenAI-compatible server at 127.0.0.1:{server.port}, {NAME}"
        models.table.selectRow(row)
        models.pull_selected()  # nothing to download for a role a server runs: said, not tried
        assert "A model server runs the embedder" in models.status.text()

        form.use_this_computer()
        assert load_settings(window.engine.home_override).models.embedder_url == ""
        assert form.answer.text().endswith("on this computer")
    finally:
        server.stop()


def test_the_window_searches_by_keywords_and_says_so_while_the_server_is_down(qtbot, window, tmp_path):
    from findling.models.choice import use_server
    from findling.models.remote import Endpoint
    from tests.helpers import write

    server = Server(tmp_path)
    try:
        use_server(window.engine.settings.models, "embedder", Endpoint(server.url, NAME), False)
        docs = tmp_path / "docs"
        write(docs / "zebra.md", "# Zebras\n\nZebras graze on the savanna in herds.")
        write(docs / "soup.md", "# Soup\n\nSimmer the tomatoes for an hour.")
        window.add_paths([str(docs)])
        qtbot.waitUntil(lambda: window.engine.status().embedded == 2, timeout=30_000)
        assert "embeddings by OpenAI-compatible server" in window.index_label.text()
    finally:
        server.stop()
    window.search_field.clear()
    qtbot.keyClicks(window.search_field, "zebra herds")
    window.search_field.returnPressed.emit()  # the whole pipeline, as Enter asks for it
    qtbot.waitUntil(lambda: "cannot be reached" in window.statusBar().currentMessage(), timeout=30_000)
    assert window.results.rowCount() >= 1 and window.results.hit(0).path.endswith("zebra.md")
