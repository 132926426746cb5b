"""All tunable parameters in one place, loaded from settings.toml.

`findling eval` sweeps these and the GUI shows them, so every default from the pipeline
spec lives here and nowhere else.
"""

from __future__ import annotations

import dataclasses
import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import tomli_w

from findling.errors import FindlingError
from findling.paths import config_dir
from findling.records import FusionMode, MatchMode, RerankerMode
from findling.text.analyzer import STEMMERS

SETTINGS_FILENAME = "settings.toml"


@dataclass
class IndexSettings:
    max_file_mb: float = 50.0
    # gitignore-style patterns applied to every source, in addition to the source's own.
    exclude: list[str] = field(default_factory=lambda: ["node_modules/", "__pycache__/"])
    chunk_tokens: int = 800
    chunk_overlap: float = 0.15
    # BM25F-style: title terms count this many times in tf and document length.
    title_weight: float = 2.0
    # The language words are stemmed in: "auto" detects each document's; a code (en, de, fr,
    # es, it, nl, pt, sv, da, no, fi, ru) uses that one for every document, for folders whose
    # short notes the detector misreads. Changing it (or how text is cut and weighed) makes
    # the next `index` read every file again.
    language: str = "auto"
    # Source files are cut at their functions, classes and methods (tree-sitter grammars for
    # Python, JavaScript/TypeScript, Go, Rust, Java, C/C++, C#, Ruby and shell), each chunk
    # named by its definition; off: windows, as for text.
    code_symbols: bool = True
    # words in pictures and scanned PDF pages read by the OCR model, when it is installed
    ocr: bool = True
    batch_files: int = 256
    # Extraction processes; 0 = one per core, at low priority.
    workers: int = 0
    # DuckDB's memory budget; beyond it sorts and joins spill to disk.
    memory_limit_mb: int = 512
    # Each file's budget: an extraction that runs longer is stopped (its worker process is
    # killed and replaced) and the file recorded as timed out; a worker's address space is
    # capped, so a decompression bomb fails that file instead of exhausting memory.
    file_timeout_s: float = 30.0
    worker_memory_mb: int = 1536
    # Text kept per document; the rest is dropped and status says so.
    max_text_mb: float = 16.0
    # Follow symbolic links whose target lies outside the added folders (off: a link to
    # ~/.ssh or /etc must not make those files searchable).
    follow_outside_links: bool = False
    # How long a command waits for an index that another Findling holds without answering (an
    # older version, or a stuck one) before it says so.
    busy_wait_s: float = 10.0


@dataclass
class SearchSettings:
    limit: int = 20
    # The command that opens a file at a line (the window's "Open at line"): {path} and
    # {line} are filled in, e.g. "code -g {path}:{line}", "kate --line {line} {path}",
    # "gedit +{line} {path}", "subl {path}:{line}". "" = VS Code's `code` when it is on
    # PATH, else the item is not offered (the system's default app opens files at the top).
    open_at_line: str = ""
    # The command that opens a PDF at a page (the window's "Open at page"): {path} and {page}
    # (from 1), e.g. "okular --page {page} {path}", "evince --page-index={page} {path}",
    # "SumatraPDF.exe -page {page} {path}". "" = the default PDF viewer when it takes a page
    # (Evince, Okular, Atril, Xreader, zathura, qpdfview, MuPDF, SumatraPDF), else the first of
    # them on PATH, else the item is not offered.
    open_at_page: str = ""
    k1: float = 1.2
    b: float = 0.75
    # "most": documents holding any of the words (a split word's parts together), ranked by
    # BM25 times 1 + title_boost × the share of the query's weight in their title or file
    # name (search/bm25.py _ranked_sql). "all": every non-stopword term must match, relaxed
    # to "any" when nothing does.
    # "any": plain BM25 over any word. Measured with `findling eval --match` (docs/eval).
    match: MatchMode = "most"
    title_boost: float = 2.0
    # A longer query (a pasted paragraph) keeps its most telling words, by idf × count,
    # and matches any of them: see search/bm25.py `_top_groups`.
    max_query_terms: int = 16
    snippet_chars: int = 240
    # Among near-equal scores, newer files first: a file modified now gains at most this
    # much (half of it after recency_half_life_days); 0 turns it off.
    recency_weight: float = 0.01
    recency_half_life_days: float = 30.0
    # Semantic and hybrid results below this score are marked weak; when no result scores
    # better, only the closest few are shown, with a note that nothing matched well. On the
    # PostgreSQL-manual questions 0.10 called 11 of 100 real questions "no good matches"
    # (3 lost their answer from view); 0.05 calls 1, and nonsense queries score about 0.02.
    weak_score: float = 0.05


@dataclass
class PipelineSettings:
    """The hybrid query pipeline's parameters (docs/pipeline.md)."""

    strong_top: float = 0.84
    strong_gap: float = 0.14
    strong_k: int = 5
    # Off by default: with the small generator available here expansion cost more than it
    # gained (see the eval table in the project notes); turn on with a stronger model.
    expand: bool = False
    lexical_variants: int = 2
    semantic_variants: int = 2
    hyde: bool = True
    expansion_tokens: int = 120
    rrf_k: float = 60.0
    weight_original: float = 2.0
    weight_variant: float = 1.0
    weight_hyde: float = 1.4
    bonus_first: float = 0.05
    bonus_top3: float = 0.02
    # How candidates are ordered before reranking: "evidence" by their absolute score
    # (search/relevance.py), "rrf" by weighted reciprocal rank fusion.
    fusion: FusionMode = "evidence"
    # auto: a cross-encoder when one is installed; llm: the generator's yes/no judgement; off
    reranker: RerankerMode = "auto"
    rerank_top: int = 20
    # passages per candidate, their length in characters and in tokens: a cross-encoder's
    # cost grows with all three. One short passage each (the window the vector lane
    # matched, else the one around the query words), as short as MS MARCO's training
    # passages, keeps 20 candidates in one batch within 300 ms on a 2-core CPU (measured
    # by `findling bench --rerank`: 96 tokens 267 ms p50, 112 tokens 348, 160 tokens 436).
    rerank_chunks: int = 1
    rerank_chars: int = 350
    rerank_max_tokens: int = 96


@dataclass
class ModelSettings:
    # Model names from resources/models.toml; "" = the role's default.
    embedder: str = ""
    reranker: str = ""
    generator: str = ""
    ocr: str = ""
    # auto | cpu | cuda | directml | coreml
    provider: str = "auto"
    # onnxruntime threads; 0 = every core but one, so the UI stays responsive.
    threads: int = 0
    # The hub to download from; "" = huggingface.co (or HF_ENDPOINT).
    hub_endpoint: str = ""


@dataclass
class Settings:
    index: IndexSettings = field(default_factory=IndexSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    models: ModelSettings = field(default_factory=ModelSettings)
    pipeline: PipelineSettings = field(default_factory=PipelineSettings)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


# Allowed values beyond the type: (low, high) inclusive for numbers, a tuple of choices
# for strings. Every number has a range: a negative size or a NaN weight is never meant.
_RANGES: dict[str, tuple[float, float]] = {
    "index.max_file_mb": (0.001, 4096),
    "index.chunk_tokens": (32, 8192),
    "index.chunk_overlap": (0.0, 0.9),
    "search.title_boost": (0.0, 100),
    "index.title_weight": (0.0, 100),
    "index.batch_files": (1, 100_000),
    "index.workers": (0, 256),
    "index.memory_limit_mb": (64, 1_048_576),
    "index.file_timeout_s": (1, 86_400),
    "index.worker_memory_mb": (0, 1_048_576),
    "index.max_text_mb": (0.001, 4096),
    "index.busy_wait_s": (0.0, 3600),
    "search.limit": (1, 10_000),
    "search.k1": (0.0, 10),
    "search.max_query_terms": (1, 62),
    "search.b": (0.0, 1),
    "search.snippet_chars": (20, 100_000),
    "search.recency_weight": (0.0, 1),
    "search.recency_half_life_days": (0.01, 100_000),
    "search.weak_score": (0.0, 1),
    "pipeline.strong_top": (0.0, 1),
    "pipeline.strong_gap": (0.0, 1),
    "pipeline.strong_k": (1, 1000),
    "pipeline.lexical_variants": (0, 10),
    "pipeline.semantic_variants": (0, 10),
    "pipeline.expansion_tokens": (1, 4096),
    "pipeline.rrf_k": (0.001, 100_000),
    "pipeline.weight_original": (0.0, 100),
    "pipeline.weight_variant": (0.0, 100),
    "pipeline.weight_hyde": (0.0, 100),
    "pipeline.bonus_first": (0.0, 1),
    "pipeline.bonus_top3": (0.0, 1),
    "pipeline.rerank_top": (1, 1000),
    "pipeline.rerank_chunks": (1, 100),
    "pipeline.rerank_chars": (50, 100_000),
    "pipeline.rerank_max_tokens": (16, 8192),
    "models.threads": (0, 1024),
}
_CHOICES: dict[str, tuple[str, ...]] = {
    "search.match": ("most", "all", "any"),
    "index.language": ("auto", *STEMMERS),
    "pipeline.reranker": ("auto", "cross-encoder", "llm", "off"),
    "pipeline.fusion": ("evidence", "rrf"),
    "models.provider": ("auto", "cpu", "cuda", "directml", "coreml"),
}


def _checked(name: str, value: Any, current: Any) -> Any:
    """`value` for the key `name` (whose default is `current`), or a FindlingError naming
    the key and what it allows."""
    expected = type(current)
    # bool is an int to Python, never to a person writing settings.toml
    if isinstance(value, bool) != (expected is bool):
        raise FindlingError(f"settings: '{name}' must be {_kind(expected)}, got {value!r}")
    if expected is float and isinstance(value, int):
        value = float(value)
    if expected is list:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise FindlingError(f"settings: '{name}' must be a list of strings (patterns), got {value!r}")
        return value
    if not isinstance(value, expected):
        raise FindlingError(f"settings: '{name}' must be {_kind(expected)}, got {value!r}")
    if name in _RANGES:
        low, high = _RANGES[name]
        if not (math.isfinite(value) and low <= value <= high):
            raise FindlingError(f"settings: '{name}' must be between {low:g} and {high:g}, got {value!r}")
    if name in _CHOICES and value not in _CHOICES[name]:
        raise FindlingError(f"settings: '{name}' must be one of {', '.join(_CHOICES[name])}; got {value!r}")
    return value


def _kind(expected: type) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(
        expected, expected.__name__
    )


def validate(settings: Settings) -> None:
    """Check every value, as loading a file does (for settings built in code or a dialog)."""
    for section in dataclasses.fields(settings):
        group = getattr(settings, section.name)
        for f in dataclasses.fields(group):
            default = f.default_factory() if callable(f.default_factory) else f.default
            _checked(f"{section.name}.{f.name}", getattr(group, f.name), default)


def _merge(target: Any, values: dict[str, Any], where: str) -> None:
    known = {f.name: f for f in dataclasses.fields(target)}
    for key, value in values.items():
        if key not in known:
            raise FindlingError(f"settings: unknown key '{where}{key}'")
        current = getattr(target, key)
        if dataclasses.is_dataclass(current):
            if not isinstance(value, dict):
                raise FindlingError(f"settings: '{where}{key}' must be a table")
            _merge(current, value, f"{where}{key}.")
        else:
            setattr(target, key, _checked(f"{where}{key}", value, current))


def settings_path(home: str | os.PathLike[str] | None = None) -> Path:
    return config_dir(home) / SETTINGS_FILENAME


def load_settings(home: str | os.PathLike[str] | None = None) -> Settings:
    settings = Settings()
    path = settings_path(home)
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise FindlingError(f"cannot read settings file {path}: {exc}") from exc
        _merge(settings, data, "")
    return settings


def save_settings(settings: Settings, home: str | os.PathLike[str] | None = None) -> Path:
    validate(settings)
    path = settings_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(tomli_w.dumps(settings.to_dict()), encoding="utf-8")
    os.replace(tmp, path)
    return path
