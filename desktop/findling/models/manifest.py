"""The model manifest (`resources/models.toml`): which models exist for each role, where
they live on the hub, and how to run them."""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from findling.errors import FindlingError
from findling.paths import resources_dir
from findling.records import Role

ROLES = ("embedder", "reranker", "generator", "ocr")
POOLINGS = ("mean", "cls", "last")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")


class ManifestError(FindlingError):
    """The model manifest is missing or malformed."""


@dataclass(frozen=True)
class ModelFile:
    path: str  # relative to the repository root, e.g. onnx/model_quantized.onnx
    kind: str  # model | weights (the graph's external data, beside it) | tokenizer | config
    sha256: str | None = None
    size: int | None = None


DEFAULT_PASSAGE_FORMAT = "title: {title} | text: {text}"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    role: Role
    repo: str
    revision: str
    files: tuple[ModelFile, ...]
    license: str = ""
    pooling: str = "mean"  # embedders: mean | cls | last (the last real token's, as decoders pool)
    query_prefix: str = ""
    passage_prefix: str = ""
    max_length: int = 512
    dimension: int = 0
    output: str = "logit"  # rerankers
    prompt_format: str = "chatml"  # generators
    languages: tuple[str, ...] = ()
    # embedders: how a passage reads to the model, with {title} and {text}; the prefix is
    # added after. Chosen per model by devtools/embed_formats.py on tuning splits.
    passage_format: str = DEFAULT_PASSAGE_FORMAT
    # embedders: tokens per embedding window (0 = max_length); a model trained on short
    # inputs is faster and no worse on windows of its training length.
    window_tokens: int = 0
    # embedders pooling the last token: the token that ends every input (Qwen3's
    # <|endoftext|>), added where the tokenizer does not add it itself
    end_token: str = ""

    @property
    def window_length(self) -> int:
        return min(self.window_tokens or self.max_length, self.max_length)

    @property
    def vector_key(self) -> str:
        """What an embedder's vectors are stored under: the model, and the passage format and
        window length when they are not the defaults (such vectors are another model's)."""
        variant = "" if self.passage_format == DEFAULT_PASSAGE_FORMAT else self.passage_format
        if self.window_length != self.max_length:
            variant += f"|window={self.window_length}"
        if not variant:
            return self.name
        return f"{self.name}@{hashlib.sha1(variant.encode()).hexdigest()[:8]}"

    def passage(self, title: str, text: str) -> str:
        return self.passage_format.replace("{title}", title).replace("{text}", text)

    @property
    def pinned(self) -> bool:
        return bool(_COMMIT.match(self.revision))

    @property
    def download_size(self) -> int | None:
        """Bytes to download, when the manifest pins every file's size."""
        sizes = [f.size for f in self.files]
        return sum(s for s in sizes if s is not None) if all(s is not None for s in sizes) else None

    def file_of_kind(self, kind: str) -> ModelFile:
        for f in self.files:
            if f.kind == kind:
                return f
        raise ManifestError(f"model {self.name} lists no {kind} file")


@dataclass(frozen=True)
class Manifest:
    models: dict[str, ModelSpec]
    defaults: dict[str, str]
    alternatives: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def get(self, name: str) -> ModelSpec:
        try:
            return self.models[name]
        except KeyError:
            known = ", ".join(sorted(self.models))
            raise ManifestError(f"unknown model '{name}' (known: {known})") from None

    def for_role(self, role: str, chosen: str | None = None) -> ModelSpec:
        name = chosen or self.defaults.get(role)
        if not name:
            raise ManifestError(f"no model configured for the {role} role")
        spec = self.get(name)
        if spec.role != role:
            raise ManifestError(f"model '{name}' is a {spec.role}, not a {role}")
        return spec


def manifest_path() -> Path:
    override = os.environ.get("FINDLING_MODELS_MANIFEST")
    return Path(override) if override else resources_dir() / "models.toml"


def _passage_format(name: str, value: object) -> str:
    if not isinstance(value, str) or "{text}" not in value:
        raise ManifestError(f"model '{name}': passage_format must be a string holding {{text}}, got {value!r}")
    return value


def spec_from_table(name: str, raw: dict[str, Any]) -> ModelSpec:
    if raw.get("pooling", "mean") not in POOLINGS:
        raise ManifestError(f"model '{name}': pooling is one of {', '.join(POOLINGS)}, not {raw.get('pooling')!r}")
    try:
        files = tuple(
            ModelFile(path=f["path"], kind=f.get("kind", "config"), sha256=f.get("sha256"), size=f.get("size"))
            for f in raw["files"]
        )
        return ModelSpec(
            name=name,
            role=raw["role"],
            repo=raw["repo"],
            revision=raw.get("revision", "main"),
            files=files,
            license=raw.get("license", ""),
            pooling=raw.get("pooling", "mean"),
            query_prefix=raw.get("query_prefix", ""),
            passage_prefix=raw.get("passage_prefix", ""),
            max_length=int(raw.get("max_length", 512)),
            dimension=int(raw.get("dimension", 0)),
            output=raw.get("output", "logit"),
            prompt_format=raw.get("prompt_format", "chatml"),
            languages=tuple(raw.get("languages", ())),
            passage_format=_passage_format(name, raw.get("passage_format", DEFAULT_PASSAGE_FORMAT)),
            window_tokens=int(raw.get("window_tokens", 0)),
            end_token=str(raw.get("end_token", "")),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ManifestError(f"model '{name}' in the manifest is malformed: {exc}") from exc


def load_manifest(path: Path | None = None) -> Manifest:
    path = path or manifest_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ManifestError(f"cannot read the model manifest {path}: {exc}") from exc
    models = {name: spec_from_table(name, raw) for name, raw in data.get("models", {}).items()}
    defaults: dict[str, str] = {}
    alternatives: dict[str, tuple[str, ...]] = {}
    for role, entry in data.get("roles", {}).items():
        if role not in ROLES:
            raise ManifestError(f"unknown role '{role}' in {path}")
        defaults[role] = entry["default"]
        alternatives[role] = tuple(entry.get("alternatives", ()))
        for name in (defaults[role], *alternatives[role]):
            if name not in models:
                raise ManifestError(f"role {role} names '{name}', which {path} does not define")
    for spec in models.values():
        if spec.role not in ROLES:
            raise ManifestError(f"model '{spec.name}' has unknown role '{spec.role}'")
    return Manifest(models=models, defaults=defaults, alternatives=alternatives)


def with_custom(manifest: Manifest, custom: list[ModelSpec]) -> Manifest:
    """The manifest plus imported custom models, each an alternative for its role (a
    manifest model of the same name wins)."""
    models = dict(manifest.models)
    alternatives = dict(manifest.alternatives)
    for spec in custom:
        if spec.name in models:
            continue
        models[spec.name] = spec
        alternatives[spec.role] = (*alternatives.get(spec.role, ()), spec.name)
    return Manifest(models=models, defaults=manifest.defaults, alternatives=alternatives)


def model_size(spec: ModelSpec, installed_bytes: int) -> str:
    """What a model weighs, for lists: installed bytes, else the manifest's pinned sizes."""
    size = installed_bytes or spec.download_size
    return f"{size / 1e6:.1f} MB" if size else "size unknown"
