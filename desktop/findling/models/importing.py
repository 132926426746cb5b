"""Importing a model from a folder, whatever its layout: a Hugging Face repository copy
(`onnx/model_quantized.onnx`), an export (`model.onnx`), or a folder holding one `.onnx`.
The model is recognised from its ONNX inputs and outputs (its role) and its files (which
manifest entry it is), so the name is optional; a folder with a `findling-model.toml` is
a custom model (bring your own embedder or reranker):

    role = "embedder"          # optional: read from the ONNX graph
    name = "my-embedder"       # optional: the folder's name
    pooling = "mean"           # embedders: mean | cls | last
    end_token = "<|endoftext|>"  # with last: the token every input ends with
    query_prefix = "query: "
    passage_prefix = "passage: "
    max_length = 512
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from findling.errors import FindlingError
from findling.models.manifest import Manifest, ManifestError, ModelFile, ModelSpec, spec_from_table
from findling.models.signature import onnx_role

CUSTOM_FILE = "findling-model.toml"
_WHAT = {
    "model": "the ONNX model",
    "weights": "the ONNX model's weights",
    "tokenizer": "the tokenizer",
    "config": "the model's configuration",
}


class ModelImportError(FindlingError):
    """A folder cannot be imported as a model; the message says what is missing or wrong."""


def onnx_files(source: Path) -> list[Path]:
    """The ONNX files of a folder in the usual places: the folder itself and `onnx/`."""
    found = [*sorted(source.glob("*.onnx")), *sorted((source / "onnx").glob("*.onnx"))]
    return [p for p in found if p.is_file()]


def _pick_onnx(source: Path, wanted: ModelFile, digest: Callable[[Path], str]) -> Path | None:
    candidates = onnx_files(source)
    if wanted.sha256:  # pinned: the file with that hash, wherever it is (else the checksum check refuses it)
        exact = [source / wanted.path, source / Path(wanted.path).name]
        for path in [*(p for p in exact if p.is_file()), *candidates]:
            if digest(path) == wanted.sha256:
                return path
    for path in (source / wanted.path, source / Path(wanted.path).name):
        if path.is_file():
            return path
    if len(candidates) == 1:
        return candidates[0]
    if len(candidates) > 1:
        names = ", ".join(str(p.relative_to(source)) for p in candidates)
        raise ModelImportError(
            f"{source} holds several ONNX files ({names}); keep the one to use, or copy it to {wanted.path}"
        )
    return None


def locate(spec: ModelSpec, source: Path, digest: Callable[[Path], str]) -> dict[str, Path]:
    """Each of the spec's files found in `source` (repository path, bare name, or for the
    model any one .onnx in the folder or onnx/); one error naming everything missing.
    `digest`: the file hash that pinned files are matched by."""
    found: dict[str, Path] = {}
    missing: list[str] = []
    for f in spec.files:
        if f.kind == "model":
            path = _pick_onnx(source, f, digest)
        else:
            path = next((p for p in (source / f.path, source / Path(f.path).name) if p.is_file()), None)
        if path is None:
            missing.append(f"{f.path} ({_WHAT.get(f.kind, f.kind)})")
        else:
            found[f.path] = path
    if missing:
        present = ", ".join(sorted(str(p.relative_to(source)) for p in source.rglob("*") if p.is_file())[:12])
        raise ModelImportError(
            f"{source} is missing {'; '.join(missing)} for {spec.name}; it holds: {present or 'nothing'}"
        )
    return found


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-") or "custom-model"


def custom_spec(source: Path, role: str | None = None) -> ModelSpec:
    """The spec a folder's findling-model.toml describes, with its files found in the folder."""
    try:
        table: dict[str, Any] = tomllib.loads((source / CUSTOM_FILE).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ModelImportError(f"cannot read {source / CUSTOM_FILE}: {exc}") from exc
    models = onnx_files(source)
    if len(models) != 1:
        raise ModelImportError(
            f"{source} must hold exactly one ONNX model (in the folder or onnx/), found {len(models)}"
        )
    table.setdefault("role", role or onnx_role(models[0]))
    if table["role"] not in ("embedder", "reranker"):  # a generator or OCR model needs more than one file
        raise ModelImportError(f"{CUSTOM_FILE}: role must be embedder or reranker, got {table['role']!r}")
    config = source / "config.json"
    if "dimension" not in table and table["role"] == "embedder" and config.is_file():
        table["dimension"] = int(json.loads(config.read_text(encoding="utf-8")).get("hidden_size", 0))
    files = [{"path": "model.onnx", "kind": "model"}, {"path": "tokenizer.json", "kind": "tokenizer"}]
    if config.is_file():
        files.append({"path": "config.json", "kind": "config"})
    table["files"] = files
    table.setdefault("repo", f"local:{source.name}")
    table.setdefault("revision", "local")
    name = _slug(str(table.pop("name", source.name)))
    try:
        return spec_from_table(name, table)
    except ManifestError as exc:
        raise ModelImportError(f"{source / CUSTOM_FILE}: {exc}") from exc


def custom_table(spec: ModelSpec, files: dict[str, dict[str, Any]]) -> str:
    """The description an imported custom model keeps beside its files, pinned to them."""
    import tomli_w

    table = {
        "role": spec.role,
        "repo": spec.repo,
        "revision": spec.revision,
        "pooling": spec.pooling,
        "end_token": spec.end_token,
        "query_prefix": spec.query_prefix,
        "passage_prefix": spec.passage_prefix,
        "max_length": spec.max_length,
        "dimension": spec.dimension,
        "passage_format": spec.passage_format,
        "window_tokens": spec.window_tokens,
        "files": [
            {"path": f.path, "kind": f.kind, "sha256": files[f.path]["sha256"], "size": files[f.path]["size"]}
            for f in spec.files
        ],
    }
    return tomli_w.dumps(table)


def identify(source: Path, manifest: Manifest, digest: Callable[[Path], str]) -> ModelSpec:
    """Which model a folder holds: its findling-model.toml, else the manifest entry of the
    ONNX file's role that the folder's files point to (pinned hash, or the repository's
    name in the folder name or config.json); a clear error when that is not decided."""
    if not source.is_dir():
        raise ModelImportError(f"{source} is not a folder")
    if (source / CUSTOM_FILE).is_file():
        return custom_spec(source)
    models = onnx_files(source)
    if not models:
        raise ModelImportError(f"{source} holds no ONNX model (looked for *.onnx in it and in onnx/)")
    hashes = {digest(path) for path in models}
    pinned = [
        s for s in manifest.models.values() if all(f.sha256 in hashes for f in s.files if f.path.endswith(".onnx"))
    ]
    if len(pinned) == 1:  # every ONNX file a manifest entry pins is here (OCR's two, for one)
        return pinned[0]
    if len(models) > 1:
        names = ", ".join(str(p.relative_to(source)) for p in models)
        raise ModelImportError(
            f"{source} holds several ONNX files ({names}): name the model to import, "
            "e.g. findling models import NAME DIR"
        )
    role = onnx_role(models[0])
    same_role = [s for s in manifest.models.values() if s.role == role]
    model_hash = digest(models[0])
    by_hash = [s for s in same_role if any(f.sha256 == model_hash for f in s.files)]
    if len(by_hash) == 1:
        return by_hash[0]
    hints = source.name.lower()
    config = source / "config.json"
    if config.is_file():
        hints += " " + str(json.loads(config.read_text(encoding="utf-8")).get("_name_or_path", "")).lower()
    by_name = [s for s in same_role if s.repo.split("/")[-1].lower() in hints or s.name.lower() in hints]
    if len(by_name) == 1:
        return by_name[0]
    names = ", ".join(s.name for s in same_role)
    raise ModelImportError(
        f"{source} holds {'an' if role[0] in 'aeiou' else 'a'} {role}, but not one Findling "
        f"knows by name: name it (findling models import NAME DIR; {role}s: {names}) or add a "
        f"{CUSTOM_FILE} to import it as a custom model"
    )
