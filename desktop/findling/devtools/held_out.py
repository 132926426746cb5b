"""`findling eval --held-out SETS.toml`: how hybrid search does on each collection when the
fusion's fitted model never saw that collection.

Each set names its collection, the split it is judged on (`check`) and the tuning splits it
lends to fitting (`fit`: none for a set that is only ever checked, as pgdocs-questions). For
each set, the hybrid relevance model (search/relevance.py's HYBRID, the fusion that orders
hybrid results) is fitted again on the tuning splits of every *other* collection, and the set
is searched with that model through the real pipeline; keyword and semantic search, which do
not use it, are run once. The table gives, per set, hybrid − the better lane with the set held
out, and the shipped model's hybrid beside it.

    [[set]]
    name = "SciFact"
    collection = "scifact"
    check = "$FINDLING_DATA/scifact:test"      # FOLDER:SPLIT (BEIR) or QUESTIONS.tsv@FOLDER
    fit = ["$FINDLING_DATA/scifact:train"]
    workdir = "scifact"                        # under --workdir: its index, kept between runs

Paths expand environment variables. Candidates' evidence is collected once per tuning split
and kept under --workdir (`held-out/*.npz`); `--fresh` collects it again (after a change to
the lanes). Test splits are never fitted on: a `fit` entry ending in `:test` is refused."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from findling.devtools import fit_scores
from findling.devtools.eval import _log, evaluate, evaluate_known_items
from findling.errors import FindlingError
from findling.search import relevance
from findling.search.relevance import ScoreModel
from findling.settings import Settings

LANES = ("bm25", "vector")


@dataclass(frozen=True)
class HeldOutSet:
    name: str
    collection: str
    check: str
    fit: tuple[str, ...]
    workdir: Path

    @property
    def metric(self) -> str:
        return "mrr@10" if "@" in self.check else "ndcg@10"


def load_sets(path: Path, workdir: Path) -> list[HeldOutSet]:
    """The sets of a SETS.toml (see the module)."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise FindlingError(f"cannot read the held-out sets {path}: {exc}") from exc
    sets = []
    for entry in raw.get("set", []):
        fit = tuple(os.path.expandvars(spec) for spec in entry.get("fit", []))
        if any(spec.endswith(":test") for spec in fit):
            raise FindlingError(f"{entry['name']}: test splits are for checking, never for fitting")
        sets.append(
            HeldOutSet(
                entry["name"],
                entry["collection"],
                os.path.expandvars(entry["check"]),
                fit,
                workdir / entry.get("workdir", entry["collection"]),
            )
        )
    if not sets:
        raise FindlingError(f"{path} names no [[set]]")
    for item in sets:  # said before hours of evaluation, not as numpy's empty concatenation after
        if not any(other.fit for other in sets if other.collection != item.collection):
            raise FindlingError(
                f"{item.name}: no other collection in {path} has a `fit` split, and a set's model is "
                "fitted on the other collections' only"
            )
    return sets


def _cached_rows(spec: str, work: Path, cache: Path, fresh: bool) -> dict:
    """fit_scores' candidates of one tuning split, collected once and kept."""
    key = hashlib.sha1(spec.encode()).hexdigest()[:12]
    file = cache / f"{key}.npz"
    if file.exists() and not fresh:
        stored = np.load(file, allow_pickle=False)
        meta = json.loads(str(stored["meta"]))
        return {"name": meta["name"], "rows": stored["rows"], "qrels": meta["qrels"], "queries": meta["queries"]}
    data = fit_scores.collect(spec, work, exact=True)
    cache.mkdir(parents=True, exist_ok=True)
    meta = {"name": data["name"], "qrels": data["qrels"], "queries": data["queries"]}
    np.savez(file, rows=data["rows"], meta=np.asarray(json.dumps(meta)))
    return data


def _index_of(spec: str, item: HeldOutSet) -> Path:
    """Where `findling eval` keeps the index a tuning split is searched in, so that fitting and
    checking search the same index (a BEIR folder's splits share one)."""
    if "@" in spec:
        return item.workdir
    return item.workdir / Path(spec.partition(":")[0]).name


def fitting_pool(tuning: dict[tuple[str, str], dict], collection: str) -> list[dict]:
    """The tuning splits a set's model is fitted on: every other collection's (a collection's
    sets share its documents, as NFCorpus's queries and its paragraph queries do)."""
    return [rows for (owner, _), rows in tuning.items() if owner != collection]


def fitted(data: list[dict]) -> ScoreModel:
    """The hybrid model fitted on these splits' candidates, as fit_scores fits it."""
    columns = fit_scores.MODELS["hybrid"]
    features = [fit_scores._features(d["rows"]) for d in data]
    x = np.vstack([np.column_stack([f[c] for c in columns]) for f in features])
    y = np.concatenate([(d["rows"][:, 5] > 0).astype(np.float64) for d in data])
    w = fit_scores.fit_logistic(x, y)
    return ScoreModel(intercept=float(w[0]), **{c: float(v) for c, v in zip(columns, w[1:])})


@contextmanager
def hybrid_model(model: ScoreModel) -> Iterator[None]:
    """Searches in this process order hybrid results by `model` (restored after)."""
    shipped = relevance.HYBRID
    relevance.HYBRID = model
    try:
        yield
    finally:
        relevance.HYBRID = shipped


def _evaluated(item: HeldOutSet, modes: tuple[str, ...]) -> dict[str, float]:
    settings = Settings()
    settings.pipeline.reranker = "off"
    if "@" in item.check:
        questions, _, folder = item.check.partition("@")
        result = evaluate_known_items(Path(questions), Path(folder), modes, item.workdir, settings=settings)
    else:
        folder, _, split = item.check.partition(":")
        result = evaluate(Path(folder), modes, item.workdir, split or "test", settings=settings)
    return {mode: float(result["modes"][mode][item.metric]) for mode in modes}


def held_out(sets_file: Path, workdir: Path, fresh: bool = False) -> dict:
    """Every set's lanes, shipped hybrid and held-out hybrid (see the module)."""
    sets = load_sets(sets_file, workdir)
    cache = workdir / "held-out"
    tuning = {
        (s.collection, spec): _cached_rows(spec, _index_of(spec, s), cache, fresh) for s in sets for spec in s.fit
    }
    out = []
    for item in sets:
        others = fitting_pool(tuning, item.collection)
        model = fitted(others)
        lanes = _evaluated(item, (*LANES, "hybrid"))
        with hybrid_model(model):
            alone = _evaluated(item, ("hybrid",))["hybrid"]
        better = max(lanes["bm25"], lanes["vector"])
        row: dict[str, Any] = {
            "set": item.name,
            "metric": item.metric,
            "keyword": round(lanes["bm25"], 4),
            "vector": round(lanes["vector"], 4),
            "hybrid": round(lanes["hybrid"], 4),
            "held_out": round(alone, 4),
            "margin": round(alone - better, 4),
            "fitted_on": sorted({d["name"] for d in others}),
        }
        _log(f"held out {item.name}: {row}")
        out.append(row)
    return {"sets": out, "passes": all(r["margin"] >= 0.01 for r in out)}


def print_held_out(result: dict) -> None:
    print(f"{'set':28s} {'metric':8s} {'keyword':>8s} {'vector':>8s} {'hybrid':>8s} {'held out':>9s} {'− better':>9s}")
    for r in result["sets"]:
        print(
            f"{r['set']:28s} {r['metric']:8s} {r['keyword']:8.4f} {r['vector']:8.4f} {r['hybrid']:8.4f} "
            f"{r['held_out']:9.4f} {r['margin']:+9.4f}"
        )
    verdict = "every set" if result["passes"] else "not every set"
    print(f"held out, hybrid is at least the better lane + .01 on {verdict}", file=sys.stderr)
