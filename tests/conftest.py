from __future__ import annotations

from pathlib import Path

import pytest

from findling.engine import Engine
from findling.settings import Settings

SHARED = Path(__file__).resolve().parents[1].parent / "shared"


@pytest.fixture(autouse=True, scope="session")
def _isolated_session(tmp_path_factory):
    """Module- and session-scoped fixtures run before the per-test isolation below: they too get
    a home and a model cache of their own, never the user's (where a real model may be installed)."""
    import os

    base = tmp_path_factory.mktemp("session")
    saved = {name: os.environ.get(name) for name in ("FINDLING_HOME", "FINDLING_CACHE")}
    os.environ["FINDLING_HOME"] = str(base / "home")
    os.environ["FINDLING_CACHE"] = str(base / "cache")
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path, monkeypatch):
    """No test touches the real user data or cache dirs."""
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("FINDLING_CACHE", str(tmp_path / "cache"))


@pytest.fixture
def settings() -> Settings:
    s = Settings()
    s.index.workers = 1
    return s


@pytest.fixture
def engine(tmp_path, settings):
    eng = Engine(tmp_path / "home", settings=settings)
    yield eng
    eng.close()


@pytest.fixture
def long_pages(monkeypatch):
    """The small pages a test writes count as a manual's long pages, among which keyword
    search's title bonus and nearness count in full (keyword/evidence.py long_page_weight); among short
    pages such as abstracts they hardly count."""
    monkeypatch.setattr("findling.search.keyword.sql.LONG_PAGE", 1.0)
    monkeypatch.setattr("findling.search.keyword.evidence.LONG_PAGE", 1.0)


@pytest.fixture
def docs(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    return folder


SHARED_MODELS = SHARED / "models"
MINILM = SHARED_MODELS / "all-MiniLM-L6-v2-int8"
SMOLLM = SHARED_MODELS / "SmolLM2-135M-Instruct-q4"
CROSS_ENCODER = SHARED_MODELS / "test-crossencoder-untrained-int8"


def shared_sha256(rel: str) -> str:
    for line in (SHARED_MODELS / "SHA256SUMS").read_text().splitlines():
        digest, name = line.split(maxsplit=1)
        if name.strip() == rel:
            return digest
    raise KeyError(rel)


needs_models = pytest.mark.skipif(not MINILM.exists(), reason="../shared/models is not beside the checkout")


def write_test_manifest(path: Path) -> Path:
    """A manifest naming the real model files from ../shared/models, pinned by sha256,
    under repo ids that the test hub mirror serves."""

    def files(folder: str, entries: list[tuple[str, str]]) -> str:
        rows = []
        for rel, kind in entries:
            full = SHARED_MODELS / folder / rel
            rows.append(
                f'    {{ path = "{rel}", kind = "{kind}", sha256 = "{shared_sha256(f"{folder}/{rel}")}", '
                f"size = {full.stat().st_size} }},"
            )
        return "files = [\n" + "\n".join(rows) + "\n]\n"

    text = (
        '[roles]\nembedder = { default = "minilm-test" }\nreranker = { default = "ce-test" }\n'
        'generator = { default = "smollm-test" }\n\n'
        '[models.minilm-test]\nrole = "embedder"\nrepo = "findling-test/all-MiniLM-L6-v2-int8"\n'
        'revision = "main"\npooling = "mean"\nmax_length = 256\ndimension = 384\n'
        + files(
            "all-MiniLM-L6-v2-int8",
            [("model.onnx", "model"), ("tokenizer.json", "tokenizer"), ("config.json", "config")],
        )
        + '\n[models.ce-test]\nrole = "reranker"\nrepo = "findling-test/test-crossencoder-untrained-int8"\n'
        'revision = "main"\nmax_length = 512\n'
        + files(
            "test-crossencoder-untrained-int8",
            [("model.onnx", "model"), ("tokenizer.json", "tokenizer"), ("config.json", "config")],
        )
        + '\n[models.smollm-test]\nrole = "generator"\nrepo = "findling-test/SmolLM2-135M-Instruct-q4"\n'
        'revision = "main"\nmax_length = 8192\n'
        + files(
            "SmolLM2-135M-Instruct-q4",
            [
                ("model.onnx", "model"),
                ("tokenizer.json", "tokenizer"),
                ("config.json", "config"),
                ("generation_config.json", "config"),
            ],
        )
    )
    ocr = ocr_model_dir()
    if ocr is not None:  # the shipped entry, pinned to the wheel's files
        text = text.replace("[roles]\n", '[roles]\nocr = { default = "pp-ocrv4" }\n', 1)
        shipped = (Path(__file__).resolve().parents[1] / "resources" / "models.toml").read_text(encoding="utf-8")
        text += "\n" + shipped[shipped.index("[models.pp-ocrv4]") :]
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def embedder_installed(tmp_path, monkeypatch):
    """The real MiniLM int8 embedder from ../shared/models, installed through `import`."""
    if not MINILM.exists():
        pytest.skip("../shared/models is not beside the checkout")
    from findling.models.download import ModelStore
    from findling.models.manifest import load_manifest

    manifest_file = write_test_manifest(tmp_path / "models.toml")
    monkeypatch.setenv("FINDLING_MODELS_MANIFEST", str(manifest_file))
    manifest = load_manifest(manifest_file)
    spec = manifest.get("minilm-test")
    ModelStore().import_dir(spec, MINILM)
    return spec


def ocr_model_dir() -> Path | None:
    """The PP-OCRv4 files inside the rapidocr_onnxruntime wheel (a dev dependency), found
    without importing it (its import needs OpenCV)."""
    import importlib.util

    spec = importlib.util.find_spec("rapidocr_onnxruntime")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "models"
    return folder if (folder / "ch_PP-OCRv4_rec_infer.onnx").is_file() else None


@pytest.fixture
def ocr_installed():
    """The OCR model of the shipped manifest, installed through `findling models import` from the
    wheel's folder, as a user without network would."""
    from findling.models.download import ModelStore
    from findling.models.manifest import load_manifest

    folder = ocr_model_dir()
    if folder is None:
        pytest.skip("rapidocr_onnxruntime (the OCR model's wheel) is not installed")
    spec = load_manifest(Path(__file__).resolve().parents[1] / "resources" / "models.toml").get("pp-ocrv4")
    ModelStore().import_dir(spec, folder)
    return spec


@pytest.fixture
def all_models_installed(embedder_installed):
    """Embedder, (untrained) cross-encoder and SmolLM2 from ../shared/models."""
    import os

    from findling.models.download import ModelStore
    from findling.models.manifest import load_manifest

    manifest = load_manifest(Path(os.environ["FINDLING_MODELS_MANIFEST"]))
    store = ModelStore()
    store.import_dir(manifest.get("ce-test"), CROSS_ENCODER)
    store.import_dir(manifest.get("smollm-test"), SMOLLM)
    return manifest
