"""Everything a user may set, declared once and loaded from settings.toml.

`findling settings` lists these, the Settings dialog shows them and `findling eval` sweeps
them; each default lives here and nowhere else. The numbers measurement chose for ranking and
answering, which are not the user's to set, live in tuning.py.
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
from findling.vocabulary import MATCH_MODES, RERANKER_MODES, RESULT_LIMIT, SERVER_APIS

SETTINGS_FILENAME = "settings.toml"
# DuckDB's budget while indexing (the store's default too). 512 -> 256 MB: `findling bench --docs
# 100000` indexed in 382 s (422 s), peak RSS 850 MB (1,090), searches unchanged; the kernel's AMD
# register headers peaked at 957 MB (1,199), 5 % slower (docs/eval/disk-scale.md)
MEMORY_LIMIT_MB = 256


@dataclass(frozen=True)
class SettingSpec:
    """One setting, declared once: its key in settings.toml, type, default, allowed values and
    help. Loading checks by it, `findling settings` lists it, the Settings dialog reads its
    range and help."""

    key: str  # "search.limit"
    kind: type
    default: Any
    help: str
    range: tuple[float, float] | None = None  # inclusive, for numbers
    choices: tuple[str, ...] | None = None  # for text with a fixed vocabulary


def setting(
    default: Any, help: str, *, range: tuple[float, float] | None = None, choices: tuple[str, ...] | None = None
) -> Any:
    """A settings field with its help and allowed values (every number has a range: a negative
    size or a NaN weight is never meant)."""
    meta = {"help": help, "range": range, "choices": choices}
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class IndexSettings:
    max_file_mb: float = setting(50.0, "files larger than this (MB) are not read", range=(0.001, 4096))
    exclude: list[str] = setting(
        ["node_modules/", "__pycache__/"], "gitignore-style patterns left out of every folder, beside its own"
    )
    chunk_tokens: int = setting(800, "length of a passage the vector lane embeds, in tokens", range=(32, 8192))
    chunk_overlap: float = setting(0.15, "share of a passage repeated in the next", range=(0.0, 0.9))
    # BM25F-style: title terms count this many times in tf and document length
    title_weight: float = setting(2.0, "how many times a title's words count in the index", range=(0.0, 100))
    # for folders whose short notes the detector misreads; changing it (or how text is cut and
    # weighed) makes the next `index` read every file again
    language: str = setting(
        "auto", "the language words are stemmed in: auto detects each document's", choices=("auto", *STEMMERS)
    )
    code_symbols: bool = setting(
        True, "source files cut at their functions, classes and methods, each passage named by its definition"
    )
    ocr: bool = setting(True, "words in pictures and scanned PDF pages read by the OCR model, when installed")
    batch_files: int = setting(1000, "files read between commits", range=(1, 100_000))
    workers: int = setting(0, "extraction processes; 0 = one per core, at low priority", range=(0, 256))
    memory_limit_mb: int = setting(
        MEMORY_LIMIT_MB, "DuckDB's memory budget; beyond it sorts spill to disk", range=(64, 1_048_576)
    )
    # an extraction that runs longer is stopped (its worker is killed and replaced) and the file
    # recorded as timed out; a worker's address space is capped, so a decompression bomb fails
    # that file instead of exhausting memory
    file_timeout_s: float = setting(30.0, "seconds one file may take to read", range=(1, 86_400))
    worker_memory_mb: int = setting(1536, "memory one reading process may use (MB)", range=(0, 1_048_576))
    max_text_mb: float = setting(16.0, "text kept per document (MB); status says what was cut", range=(0.001, 4096))
    # off: a link to ~/.ssh or /etc must not make those files searchable
    follow_outside_links: bool = setting(False, "follow symbolic links whose target is outside the added folders")
    gitignore: bool = setting(
        True, "a new folder's .gitignore files leave files out, as git does (each folder can choose otherwise)"
    )
    busy_wait_s: float = setting(
        10.0, "seconds a command waits for an index another Findling holds without answering", range=(0.0, 3600)
    )


@dataclass
class SearchSettings:
    limit: int = setting(20, "results shown", range=RESULT_LIMIT)
    # e.g. "code -g {path}:{line}", "kate --line {line} {path}", "gedit +{line} {path}"
    open_at_line: str = setting(
        "", "command that opens a file at a line ({path}, {line}); empty: VS Code's `code` when on PATH"
    )
    # e.g. "okular --page {page} {path}", "evince --page-index={page} {path}"; empty: the default
    # PDF viewer when it takes a page (Evince, Okular, Atril, Xreader, zathura, qpdfview, MuPDF,
    # SumatraPDF), else the first of them on PATH, else the item is not offered
    open_at_page: str = setting("", "command that opens a PDF at a page ({path}, {page} from 1)")
    k1: float = setting(1.2, "BM25 term-frequency saturation", range=(0.0, 10))
    b: float = setting(0.75, "BM25 length normalisation", range=(0.0, 1))
    # measured with `findling eval --match` (docs/eval)
    match: MatchMode = setting(
        "most",
        "keyword matching: most (any word, titles weighed), all (every word, relaxed when none has), any",
        choices=MATCH_MODES,
    )
    title_boost: float = setting(
        2.0, "ranking gain for the share of the query's weight in a title or file name", range=(0.0, 100)
    )
    # see search/keyword/words.py: the most telling words by idf × count
    max_query_terms: int = setting(16, "words a long (pasted) query keeps", range=(1, 62))
    snippet_chars: int = setting(240, "length of a result's snippet", range=(20, 100_000))
    recency_weight: float = setting(
        0.01, "among near-equal scores, the most a file modified now gains; 0: off", range=(0.0, 1)
    )
    recency_half_life_days: float = setting(30.0, "days after which the recency gain halves", range=(0.01, 100_000))
    # 0.10 called 11 of 100 PostgreSQL-manual questions "no good matches"; 0.05 calls 1, and
    # nonsense queries score about 0.02 (docs/eval)
    weak_score: float = setting(
        0.05, "semantic and hybrid results below this score are left out, or marked weak", range=(0.0, 1)
    )


@dataclass
class PipelineSettings:
    """The hybrid query pipeline's parameters (docs/pipeline.md)."""

    strong_top: float = setting(0.84, "a keyword result this strong skips expansion…", range=(0.0, 1))
    strong_gap: float = setting(0.14, "…when this far ahead of the second", range=(0.0, 1))
    strong_k: int = setting(5, "keyword results read for the strong-signal check", range=(1, 1000))
    # off: with the small generator available here expansion cost more than it gained
    expand: bool = setting(False, "query expansion by the generator (variants and a HyDE passage)")
    lexical_variants: int = setting(2, "keyword variants expansion writes", range=(0, 10))
    semantic_variants: int = setting(2, "meaning variants expansion writes", range=(0, 10))
    hyde: bool = setting(True, "expansion writes a hypothetical answer passage")
    expansion_tokens: int = setting(120, "tokens expansion may generate", range=(1, 4096))
    rrf_k: float = setting(60.0, "reciprocal rank fusion's k", range=(0.001, 100_000))
    weight_original: float = setting(2.0, "fusion weight of the lists for the query as typed", range=(0.0, 100))
    weight_variant: float = setting(1.0, "fusion weight of an expansion variant's lists", range=(0.0, 100))
    weight_hyde: float = setting(1.4, "fusion weight of the HyDE passage's list", range=(0.0, 100))
    bonus_first: float = setting(0.05, "fusion bonus for a list's first result", range=(0.0, 1))
    bonus_top3: float = setting(0.02, "fusion bonus for a list's second and third", range=(0.0, 1))
    fusion: FusionMode = setting(
        "evidence",
        "candidates ordered by their absolute score (evidence) or by reciprocal rank fusion (rrf)",
        choices=("evidence", "rrf"),
    )
    self_test: bool = setting(
        True, "weigh words and meaning in each folder as its own documents show (a self-test after embedding)"
    )
    reranker: RerankerMode = setting(
        "auto",
        "auto: a cross-encoder when installed; llm: the generator's yes/no judgement; off",
        choices=RERANKER_MODES,
    )
    rerank_top: int = setting(20, "candidates reranked", range=(1, 1000))
    # a cross-encoder's cost grows with passages, characters and tokens: one short passage each
    # keeps 20 candidates in one batch within 300 ms on a 2-core CPU (`findling bench --rerank`)
    rerank_chunks: int = setting(1, "passages per candidate the reranker reads", range=(1, 100))
    rerank_chars: int = setting(350, "characters of each passage reranked", range=(50, 100_000))
    rerank_max_tokens: int = setting(96, "tokens of each passage reranked", range=(16, 8192))


@dataclass
class ModelSettings:
    embedder: str = setting("", "embedding model, by name (as the models list names it); empty: the default")
    reranker: str = setting("", "reranking model, by name; empty: the default")
    generator: str = setting("", "generator model, by name; empty: the default")
    ocr: str = setting("", "OCR model, by name; empty: the default")
    # `findling models use embedder --url URL --model NAME`: the embedder above is then the
    # server's model name
    embedder_url: str = setting("", "the model server that embeds (http://localhost:11434); empty: run it here")
    embedder_api: str = setting("openai", "the API that server speaks", choices=SERVER_APIS)
    embedder_key_env: str = setting("", "the environment variable holding that server's API key; empty: none")
    reranker_url: str = setting("", "the model server that reranks (POST /v1/rerank); empty: run it here")
    reranker_api: str = setting("openai", "the API that server speaks (the rerank shape)", choices=("openai",))
    reranker_key_env: str = setting("", "the environment variable holding that server's API key; empty: none")
    generator_url: str = setting("", "the model server that generates (query expansion, the LLM judge)")
    generator_api: str = setting("openai", "the API that server speaks", choices=SERVER_APIS)
    generator_key_env: str = setting("", "the environment variable holding that server's API key; empty: none")
    server_requests: int = setting(
        2, "requests sent to a model server at once while embedding (it batches them on its side)", range=(1, 16)
    )
    allow_remote: bool = setting(
        False, "use model servers on other machines (document text then leaves this one); off: this network only"
    )
    provider: str = setting("auto", "where models run", choices=("auto", "cpu", "cuda", "directml", "coreml"))
    threads: int = setting(
        0,
        "model threads; 0 = every core for the embedder (its background runs at the lowest "
        "priority, holding back for searches), every core but one for the other models",
        range=(0, 1024),
    )
    hub_endpoint: str = setting("", "the hub models download from; empty: huggingface.co (or HF_ENDPOINT)")


@dataclass
class AskSettings:
    """Answers written from the user's files (findling ask, the window's Answer pane)."""

    answer_questions: bool = setting(True, "the window answers a question (a search ending in ?) above its results")
    passages: int = setting(5, "passages from the best results the answer is written from", range=(1, 20))
    passage_chars: int = setting(700, "the most characters of each passage the model reads", range=(100, 8000))
    # a result at least this relevant is a "good match" (faces/presentation.py): below it, the
    # files do not seem to answer, and Findling says so instead of answering
    min_score: float = setting(0.2, "the least relevance of the best result that Findling answers from", range=(0, 1))
    max_tokens: int = setting(160, "the longest answer the model writes, in tokens", range=(16, 2048))


@dataclass
class Settings:
    index: IndexSettings = field(default_factory=IndexSettings)
    search: SearchSettings = field(default_factory=SearchSettings)
    models: ModelSettings = field(default_factory=ModelSettings)
    pipeline: PipelineSettings = field(default_factory=PipelineSettings)
    ask: AskSettings = field(default_factory=AskSettings)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _specs() -> dict[str, SettingSpec]:
    found: dict[str, SettingSpec] = {}
    for name, group in vars(Settings()).items():
        for f in dataclasses.fields(group):
            default = f.default_factory() if callable(f.default_factory) else f.default
            key = f"{name}.{f.name}"
            found[key] = SettingSpec(
                key, type(default), default, f.metadata["help"], f.metadata["range"], f.metadata["choices"]
            )
    return found


SPECS: dict[str, SettingSpec] = _specs()


def _checked(name: str, value: Any) -> Any:
    """`value` for the key `name`, or a FindlingError naming the key and what it allows."""
    spec = SPECS[name]
    expected = spec.kind
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
    if spec.range is not None:
        low, high = spec.range
        number = float(value) if isinstance(value, (int, float)) else math.nan
        if not (math.isfinite(number) and low <= number <= high):
            raise FindlingError(f"settings: '{name}' must be between {low:g} and {high:g}, got {value!r}")
    if spec.choices is not None and value not in spec.choices:
        raise FindlingError(f"settings: '{name}' must be one of {', '.join(spec.choices)}; got {value!r}")
    return value


def _kind(expected: type) -> str:
    return {bool: "true or false", int: "a whole number", float: "a number", str: "text"}.get(
        expected, expected.__name__
    )


def validate(settings: Settings) -> None:
    """Check every value, as loading a file does (for settings built in code or a dialog)."""
    for key in SPECS:
        section, name = key.split(".")
        _checked(key, getattr(getattr(settings, section), name))


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
            setattr(target, key, _checked(f"{where}{key}", value))


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
