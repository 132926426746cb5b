"""The real download code against a local mirror of the hub serving real model files."""

from __future__ import annotations

import threading

import pytest

from findling.models.download import (
    DownloadCancelled,
    ModelChecksumError,
    ModelDownloadError,
    ModelMissingError,
    ModelStore,
)
from findling.models.manifest import load_manifest
from tests.conftest import MINILM, needs_models, write_test_manifest
from tests.models.hub_mirror import HubMirror, MirrorRepo, MirrorState

pytestmark = needs_models

COMMIT = "a" * 40


@pytest.fixture
def manifest(tmp_path):
    return load_manifest(write_test_manifest(tmp_path / "models.toml"))


@pytest.fixture
def mirror():
    state = MirrorState(repos={"findling-test/all-MiniLM-L6-v2-int8": MirrorRepo(MINILM, COMMIT)})
    with HubMirror(state) as hub:
        yield hub


def test_full_download_verified_and_locked(tmp_path, manifest, mirror):
    spec = manifest.get("minilm-test")
    store = ModelStore(tmp_path / "models", endpoint=mirror.endpoint)
    seen = []
    status = store.pull(spec, progress=seen.append)
    assert status.state == "installed"
    assert seen[-1].done == seen[-1].total == sum(f.size for f in spec.files)
    model = store.verified_path(spec, spec.file_of_kind("model"))
    assert model.read_bytes() == (MINILM / "model.onnx").read_bytes()
    # every file after the first came from the commit the hub resolved "main" to
    gets = [path for method, path, _ in mirror.state.requests if method == "GET"]
    assert all(f"/resolve/{COMMIT}/" in p for p in gets)
    # a second pull downloads nothing
    mirror.state.requests.clear()
    store.pull(spec)
    assert not [r for r in mirror.state.requests if r[0] == "GET"]


def test_interrupted_download_resumes_with_range(tmp_path, manifest, mirror):
    spec = manifest.get("minilm-test")
    store = ModelStore(tmp_path / "models", endpoint=mirror.endpoint)
    mirror.state.cut_after = 5_000_000
    with pytest.raises(ModelDownloadError, match="resume"):
        store.pull(spec)
    part = tmp_path / "models" / "minilm-test" / "model.onnx.part"
    assert part.exists() and 0 < part.stat().st_size < (MINILM / "model.onnx").stat().st_size
    assert store.status(spec).state == "partial"
    with pytest.raises(ModelMissingError):
        store.verified_path(spec, spec.file_of_kind("model"))  # a partial model is never loaded
    already = part.stat().st_size
    mirror.state.requests.clear()
    assert store.pull(spec).state == "installed"
    ranges = [r for m, p, r in mirror.state.requests if m == "GET" and p.endswith("model.onnx")]
    assert ranges == [f"bytes={already}-"], "the second pull asks only for the missing bytes"
    assert (
        store.verified_path(spec, spec.file_of_kind("model")).stat().st_size == (MINILM / "model.onnx").stat().st_size
    )


def test_checksum_mismatch_refused(tmp_path, manifest, mirror):
    spec = manifest.get("minilm-test")
    store = ModelStore(tmp_path / "models", endpoint=mirror.endpoint)
    mirror.state.corrupt = True
    with pytest.raises(ModelChecksumError, match="does not match"):
        store.pull(spec)
    folder = tmp_path / "models" / "minilm-test"
    assert not (folder / "model.onnx").exists() and not (folder / "model.onnx.part").exists()
    assert store.status(spec).state != "installed"


def test_server_without_range_support_restarts_cleanly(tmp_path, manifest, mirror):
    spec = manifest.get("minilm-test")
    store = ModelStore(tmp_path / "models", endpoint=mirror.endpoint)
    mirror.state.cut_after = 1_000_000
    with pytest.raises(ModelDownloadError):
        store.pull(spec)
    mirror.state.ignore_range = True
    assert store.pull(spec).state == "installed"


def test_unreachable_hub_degrades_gracefully(tmp_path, manifest):
    spec = manifest.get("minilm-test")
    store = ModelStore(tmp_path / "models", endpoint="http://127.0.0.1:9")
    with pytest.raises(ModelDownloadError, match="cannot reach"):
        store.pull(spec)
    assert store.status(spec).state == "missing"


def test_unknown_repo_is_a_clear_error(tmp_path, manifest, mirror):
    spec = manifest.get("ce-test")  # not served by this mirror
    with pytest.raises(ModelDownloadError, match="not found"):
        ModelStore(tmp_path / "models", endpoint=mirror.endpoint).pull(spec)


def test_cancel_keeps_partial_for_resume(tmp_path, manifest, mirror):
    spec = manifest.get("minilm-test")
    store = ModelStore(tmp_path / "models", endpoint=mirror.endpoint)
    cancel = threading.Event()

    def progress(p):
        if p.done > 2_000_000:
            cancel.set()

    with pytest.raises(DownloadCancelled):
        store.pull(spec, progress=progress, cancel=cancel)
    assert store.status(spec).state == "partial"
    assert store.pull(spec).state == "installed"


def test_tampered_file_is_never_loaded(tmp_path, manifest, mirror):
    spec = manifest.get("minilm-test")
    store = ModelStore(tmp_path / "models", endpoint=mirror.endpoint)
    store.pull(spec)
    path = tmp_path / "models" / "minilm-test" / "config.json"
    data = bytearray(path.read_bytes())
    data[0] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ModelChecksumError):
        ModelStore(tmp_path / "models", endpoint=mirror.endpoint).verified_path(spec, spec.files[2])


def test_import_from_folder(tmp_path, manifest):
    spec = manifest.get("minilm-test")
    store = ModelStore(tmp_path / "models", endpoint="http://127.0.0.1:9")
    assert store.import_dir(spec, MINILM).state == "installed"
    assert store.verified_path(spec, spec.file_of_kind("tokenizer")).exists()
    assert store.remove(spec) and store.status(spec).state == "missing"


def test_import_refuses_wrong_files(tmp_path, manifest):
    spec = manifest.get("minilm-test")
    wrong = tmp_path / "wrong"
    wrong.mkdir()
    for name in ("model.onnx", "tokenizer.json", "config.json"):
        (wrong / name).write_bytes(b"not the model")
    with pytest.raises(ModelChecksumError):
        ModelStore(tmp_path / "models").import_dir(spec, wrong)
    assert ModelStore(tmp_path / "models").status(spec).state == "missing"


def test_only_configured_endpoint_contacted(tmp_path, manifest, mirror):
    store = ModelStore(tmp_path / "models", endpoint=mirror.endpoint)
    with pytest.raises(ModelDownloadError, match="refusing"):
        store._request("http://example.org/x", {})


def test_packaged_models_are_found_before_any_download(tmp_path, manifest, monkeypatch):
    """The installers' "with models" variant: models shipped beside the app count as installed."""
    spec = manifest.get("minilm-test")
    bundled = tmp_path / "bundled"
    ModelStore(bundled).import_dir(spec, MINILM)
    monkeypatch.setenv("FINDLING_BUNDLED_MODELS", str(bundled))
    store = ModelStore(tmp_path / "empty-cache", endpoint="http://127.0.0.1:9")  # offline
    assert store.status(spec).state == "installed"
    assert store.verified_path(spec, spec.file_of_kind("model")).is_relative_to(bundled)
