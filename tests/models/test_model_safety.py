"""Models that are damaged, of the wrong kind, or half swapped never break a search."""

from __future__ import annotations

import os

import pytest

from findling.models.download import ModelStore
from findling.models.manifest import load_manifest
from findling.models.signature import ModelSignatureError
from findling.records import SearchMode, SearchRequest
from tests.conftest import CROSS_ENCODER, MINILM, needs_models
from tests.helpers import write

pytestmark = needs_models

_UNPINNED = """
[roles]
embedder = { default = "custom-embedder" }
reranker = { default = "custom-reranker" }
generator = { default = "custom-embedder" }

[models.custom-embedder]
role = "embedder"
repo = "local/custom-embedder"
revision = "main"
pooling = "mean"
max_length = 256
dimension = 384
files = [
    { path = "model.onnx", kind = "model" },
    { path = "tokenizer.json", kind = "tokenizer" },
    { path = "config.json", kind = "config" },
]

[models.custom-reranker]
role = "reranker"
repo = "local/custom-reranker"
revision = "main"
max_length = 512
files = [
    { path = "model.onnx", kind = "model" },
    { path = "tokenizer.json", kind = "tokenizer" },
    { path = "config.json", kind = "config" },
]
"""


@pytest.fixture
def unpinned(tmp_path):
    path = tmp_path / "models.toml"
    path.write_text(_UNPINNED, encoding="utf-8")
    return load_manifest(path)


def test_a_cross_encoder_is_refused_as_the_embedder(tmp_path, unpinned):
    store = ModelStore(tmp_path / "models")
    with pytest.raises(ModelSignatureError, match="looks like a reranker, not an embedder"):
        store.import_dir(unpinned.get("custom-embedder"), CROSS_ENCODER)
    assert store.status(unpinned.get("custom-embedder")).state == "missing"
    assert store.import_dir(unpinned.get("custom-reranker"), CROSS_ENCODER).state == "installed"


def test_reimport_keeps_the_working_copy_until_the_new_one_is_in(tmp_path, unpinned, monkeypatch):
    spec = unpinned.get("custom-embedder")
    store = ModelStore(tmp_path / "models")
    store.import_dir(spec, MINILM)
    real_replace = os.replace
    calls = []

    def killed_at_the_swap(src, dst):
        calls.append((src, dst))
        if len(calls) == 2:  # the working copy is set aside; the new one is not in yet
            raise KeyboardInterrupt("killed")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", killed_at_the_swap)
    with pytest.raises(KeyboardInterrupt):
        store.import_dir(spec, MINILM)
    monkeypatch.setattr(os, "replace", real_replace)
    assert ModelStore(tmp_path / "models").status(spec).state == "installed"  # the set-aside copy came back


def test_a_same_size_corruption_is_damaged_and_query_falls_back(tmp_path, docs, monkeypatch, embedder_installed):
    from findling.engine import Engine
    from findling.models.download import ModelStore as Store

    write(docs / "a.txt", "alpha bravo charlie")
    with Engine(tmp_path / "home") as engine:
        engine.add_source(docs)
        engine.index()
    model = Store().folder(embedder_installed) / "model.onnx"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    model.write_bytes(bytes(data))  # same size, new mtime
    assert Store().status(embedder_installed).state == "damaged"
    with Engine(tmp_path / "home") as engine:
        result = engine.find(SearchRequest("alpha"))
        assert [h.path for h in result.hits] == [str(docs / "a.txt")]  # keyword search still answers
        assert any("semantic search is off" in note.text for note in result.notes)
        semantic = engine.find(SearchRequest("alpha", mode=SearchMode.SEMANTIC))
        assert semantic.hits == () and "semantic search is off" in semantic.notes[0].text


def test_an_unchanged_model_is_not_hashed_again(tmp_path, unpinned, monkeypatch):
    import findling.models.download as download

    spec = unpinned.get("custom-reranker")
    ModelStore(tmp_path / "models").import_dir(spec, CROSS_ENCODER)
    monkeypatch.setattr(download, "sha256_file", lambda *a, **k: pytest.fail("hashed an unchanged file"))
    assert ModelStore(tmp_path / "models").status(spec).state == "installed"
