"""Importing models from a folder in any usual layout, recognised without a name, and custom
models described by a findling-model.toml."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from findling.cli import main
from findling.models.download import ModelStore, sha256_file
from findling.models.importing import ModelImportError, identify
from findling.models.manifest import load_manifest
from findling.models.service import ModelService
from findling.settings import ModelSettings
from tests.conftest import CROSS_ENCODER, MINILM, SMOLLM, needs_models

pytestmark = needs_models


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("FINDLING_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("FINDLING_MODELS_MANIFEST", raising=False)  # the shipped manifest
    return tmp_path / "cache"


def _folder(tmp_path: Path, name: str, files: dict[str, Path]) -> Path:
    folder = tmp_path / name
    for rel, src in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(src, folder / rel)
    return folder


@pytest.mark.slow
def test_shipped_folders_import_without_a_name(cache, capsys):
    assert main(["models", "import", str(MINILM)]) == 0
    assert "all-minilm-l6-v2 (embedder): installed" in capsys.readouterr().out
    assert main(["models", "import", str(SMOLLM)]) == 0
    assert "smollm2-135m-instruct (generator): installed" in capsys.readouterr().out


@pytest.mark.parametrize("layout", ["onnx/model_quantized.onnx", "onnx/model.onnx", "model.onnx", "exported.onnx"])
def test_any_usual_layout(cache, tmp_path, layout):
    folder = _folder(
        tmp_path,
        "copy",
        {
            layout: MINILM / "model.onnx",
            "tokenizer.json": MINILM / "tokenizer.json",
            "config.json": MINILM / "config.json",
        },
    )
    spec = load_manifest().get("all-minilm-l6-v2")
    assert ModelStore().import_dir(spec, folder).state == "installed"


def test_missing_files_are_named_with_what_is_there(cache, tmp_path):
    folder = _folder(tmp_path, "half", {"model.onnx": MINILM / "model.onnx"})
    spec = load_manifest().get("all-minilm-l6-v2")
    with pytest.raises(ModelImportError) as err:
        ModelStore().import_dir(spec, folder)
    message = str(err.value)
    assert "tokenizer.json (the tokenizer)" in message and "config.json" in message
    assert "it holds: model.onnx" in message


def test_several_onnx_files_or_an_unknown_model_ask_for_a_name(cache, tmp_path):
    manifest = load_manifest()
    both = _folder(tmp_path, "both", {"a.onnx": MINILM / "model.onnx", "onnx/b.onnx": MINILM / "model.onnx"})
    with pytest.raises(ModelImportError, match="several ONNX files"):
        identify(both, manifest, sha256_file)
    with pytest.raises(ModelImportError, match="holds a reranker, but not one Findling knows by name"):
        identify(CROSS_ENCODER, manifest, sha256_file)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(ModelImportError, match="holds no ONNX model"):
        identify(empty, manifest, sha256_file)


def test_a_custom_reranker_and_embedder_from_findling_model_toml(cache, tmp_path, capsys):
    reranker = _folder(
        tmp_path,
        "My Reranker",
        {"model.onnx": CROSS_ENCODER / "model.onnx", "tokenizer.json": CROSS_ENCODER / "tokenizer.json"},
    )
    (reranker / "findling-model.toml").write_text("max_length = 256\n")
    assert main(["models", "import", str(reranker)]) == 0
    out = capsys.readouterr().out
    assert "my-reranker (reranker): installed" in out and 'reranker = "my-reranker"' in out

    embedder = _folder(
        tmp_path,
        "mine",
        {
            "onnx/encoder.onnx": MINILM / "model.onnx",
            "tokenizer.json": MINILM / "tokenizer.json",
            "config.json": MINILM / "config.json",
        },
    )
    (embedder / "findling-model.toml").write_text(
        'name = "Notes Embedder"\nrole = "embedder"\npooling = "mean"\nquery_prefix = "query: "\nmax_length = 128\n'
    )
    assert main(["models", "import", str(embedder)]) == 0

    service = ModelService(ModelSettings(embedder="notes-embedder", reranker="my-reranker"))
    assert "notes-embedder" in service.manifest.alternatives["embedder"]
    vectors = service.embedder().embed(["borrow checker"], kind="query")
    assert vectors.shape == (1, 384) and np.isfinite(vectors).all()
    assert service.embedder().spec.query_prefix == "query: "
    scores = service.reranker().logits("borrow checker", ["the borrow checker rejects it", "tomatoes"])
    assert len(scores) == 2


def test_a_custom_model_of_the_wrong_role_is_refused(cache, tmp_path):
    folder = _folder(
        tmp_path,
        "gen",
        {"model.onnx": CROSS_ENCODER / "model.onnx", "tokenizer.json": CROSS_ENCODER / "tokenizer.json"},
    )
    (folder / "findling-model.toml").write_text('role = "embedder"\n')
    with pytest.raises(Exception, match="looks like a reranker, not an embedder"):
        ModelStore().import_dir(identify(folder, load_manifest(), sha256_file), folder)
