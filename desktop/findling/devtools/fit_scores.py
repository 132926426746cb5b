"""Fit the absolute-relevance models of search/relevance.py on tuning splits only.

    python -m findling.devtools.fit_scores --workdir W \
        ../shared/datasets/scifact:train ../shared/datasets/nfcorpus:dev /tmp/para/dev:dev \
        docs/eval/pydocs-questions.tsv@/tmp/pydoc/root/usr/share/doc/python3.11/html

A dataset is a BEIR folder with its split (FOLDER:SPLIT), or known-item questions with the
folder they are about (QUESTIONS.tsv@FOLDER, as `findling eval --known-items` takes them).

For each query of each dataset split, every hybrid candidate's evidence (coverage,
saturation, cosine, and the last two against the query's best) is collected with its
qrels label; three logistic regressions are fitted by Newton's method and printed as the
ScoreModel lines to paste into relevance.py, with each model's ranking quality on the
same splits beside reciprocal rank fusion. Test splits are never read here: they are for
`findling eval`."""

from __future__ import annotations

import argparse
import hashlib
import math
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

from findling.devtools.eval import answers, build_index, load_beir, load_known_items
from findling.engine import Engine
from findling.search.relevance import HYBRID, ScoreModel, lane_agreements
from findling.settings import Settings

# Keyword and semantic use features monotone in their lane's score within a query, so
# that a lane alone keeps its own order.
MODELS = {
    "keyword": ("saturation", "saturation_share"),
    "semantic": ("cosine", "cosine_gap"),
    "hybrid": (
        "coverage",
        "saturation",
        "cosine",
        "saturation_share",
        "cosine_gap",
        "top_saturation",
        "top_coverage",
        "cosine_gap_agreement",
    ),
}


def _rows(engine: Engine, queries: list[tuple[str, str]], label: Callable[[str, int], int], pool: int) -> np.ndarray:
    """(query number, coverage, saturation, cosine, rrf score, label) of every hybrid candidate
    with evidence from both lanes."""
    rows: list[tuple[int, float, float, float, float, int]] = []
    for number, (qid, text) in enumerate(queries):
        result = engine.searcher.rank(text, pool, ("bm25", "vector"), False, "off")
        for r in result.explain.results:
            ev = r.evidence
            if ev.cosine is not None and ev.coverage is not None:
                rows.append((number, ev.coverage, ev.saturation or 0.0, ev.cosine, r.fused, label(qid, r.doc_id)))
    return np.asarray(rows, dtype=np.float64)


def collect_known_items(spec: str, workdir: Path, pool: int = 200) -> dict:
    """QUESTIONS.tsv@FOLDER: each question's target pages are its relevant documents."""
    questions, _, folder = spec.partition("@")
    items = load_known_items(Path(questions))
    resolved = Path(folder).expanduser().resolve()
    work = workdir / f"{resolved.name}-{hashlib.sha1(str(resolved).encode()).hexdigest()[:8]}"  # as eval's
    engine = Engine(work / "home", settings=Settings())
    try:
        engine.add_source(resolved)
        engine.index()
        paths = engine.document_paths()
        queries = [(str(i), item.query) for i, item in enumerate(items)]
        array = _rows(
            engine,
            queries,
            lambda qid, doc: int(doc in paths and answers(paths[doc], resolved, items[int(qid)].targets)),
            pool,
        )
    finally:
        engine.close()
    print(f"{Path(questions).name}: {len(items)} questions, {len(array)} candidates", file=sys.stderr)
    qrels = {str(i): {"target": 1} for i in range(len(items))}  # one answer each, for nDCG's ideal
    return {"name": Path(questions).stem, "rows": array, "qrels": qrels, "queries": list(qrels)}


def collect(spec: str, workdir: Path, pool: int = 200, exact: bool = False) -> dict:
    """The candidates of one split (see the module). `exact`: a BEIR split's index is in
    `workdir` itself, as `findling eval --workdir W` keeps it in W/NAME."""
    if "@" in spec:
        return collect_known_items(spec, workdir, pool)
    folder, _, split = spec.partition(":")
    dataset = load_beir(Path(folder), split or "train")
    # an index `findling eval --workdir W` built is used as it is
    work = workdir if exact or (workdir / "ids.json").exists() else workdir / dataset.name
    work.mkdir(parents=True, exist_ok=True)
    engine, mapping, _ = build_index(dataset, work, Settings())
    ids = {doc_id: mapping.get(path, "") for doc_id, path in engine.document_paths().items()}
    try:
        array = _rows(
            engine,
            list(dataset.queries.items()),
            lambda qid, doc: dataset.qrels[qid].get(ids.get(doc, ""), 0),
            pool,
        )
    finally:
        engine.close()
    print(
        f"{dataset.name}/{split}: {len(dataset.queries)} queries, {len(array)} candidates, "
        f"{int((array[:, 5] > 0).sum())} relevant",
        file=sys.stderr,
    )
    return {"name": f"{dataset.name}/{split}", "rows": array, "qrels": dataset.qrels, "queries": list(dataset.queries)}


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, steps: int = 50) -> np.ndarray:
    """Weights (intercept first) of P(y=1|x) by Newton's method with a little L2."""
    design = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(design.shape[1])
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-design @ w))
        gradient = design.T @ (p - y) + l2 * w
        hessian = (design * (p * (1 - p))[:, None]).T @ design + l2 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def ndcg_by(data: dict, key: np.ndarray) -> float:
    """Mean nDCG@10 of each query's candidates ordered by `key` (higher first); relevant
    documents that no lane found still count in the ideal ranking."""
    rows = data["rows"]
    scores = []
    for number, qid in enumerate(data["queries"]):
        mask = rows[:, 0] == number
        labels = rows[mask, 5][np.argsort(-key[mask], kind="stable")][:10]
        dcg = float(sum(label / math.log2(i + 2) for i, label in enumerate(labels)))
        ideal = sorted((v for v in data["qrels"][qid].values() if v > 0), reverse=True)[:10]
        idcg = sum(v / math.log2(i + 2) for i, v in enumerate(ideal))
        scores.append(dcg / idcg if idcg else 0.0)
    return statistics.fmean(scores)


def _per_query(rows: np.ndarray, column: int, fn) -> np.ndarray:
    out = np.zeros(len(rows))
    for number in np.unique(rows[:, 0]):
        mask = rows[:, 0] == number
        out[mask] = fn(rows[mask, column])
    return out


def _features(rows: np.ndarray) -> dict[str, np.ndarray]:
    """The evidence columns, with the relative ones as search/relevance.py's `relative`."""
    cosine_gap = _per_query(rows, 3, lambda v: v - v.max())
    return {
        "coverage": rows[:, 1],
        "saturation": rows[:, 2],
        "cosine": rows[:, 3],
        "saturation_share": _per_query(rows, 2, lambda v: v / v.max() if v.max() > 0 else v * 0),
        "cosine_gap": cosine_gap,
        "top_saturation": _per_query(rows, 2, lambda v: v * 0 + v.max()),
        "top_coverage": _per_query(rows, 1, lambda v: v * 0 + v.max()),
        "cosine_gap_agreement": cosine_gap * agreement(rows),
    }


def agreement(rows: np.ndarray) -> np.ndarray:
    """Each candidate's lane agreement on its query's other candidates (relevance.lane_agreements)."""
    out = np.zeros(len(rows))
    for number in np.unique(rows[:, 0]):
        mask = rows[:, 0] == number
        out[mask] = lane_agreements(rows[mask, 2].tolist(), rows[mask, 3].tolist())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+", help="FOLDER:SPLIT, tuning splits only (train, dev)")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--save", help="also write the collected evidence and labels to this .npz")
    args = parser.parse_args(argv)
    if any(spec.endswith(":test") for spec in args.datasets):
        parser.error("test splits are for checking, never for fitting")
    data = [collect(spec, Path(args.workdir)) for spec in args.datasets]
    if args.save:
        np.savez(args.save, **{d["name"].replace("/", "_"): d["rows"] for d in data})
    features = [_features(d["rows"]) for d in data]
    y = np.concatenate([(d["rows"][:, 5] > 0).astype(np.float64) for d in data])
    for name, columns in MODELS.items():
        w = fit_logistic(np.vstack([np.column_stack([f[c] for c in columns]) for f in features]), y)
        print(
            f"{name.upper()} = ScoreModel(intercept={w[0]:.3f}, "
            + ", ".join(f"{c}={v:.3f}" for c, v in zip(columns, w[1:]))
            + ")"
        )
        for d, f in zip(data, features):
            logit = w[0] + np.column_stack([f[c] for c in columns]) @ w[1:]
            print(
                f"  {d['name']}: nDCG@10 over the candidates — rrf {ndcg_by(d, d['rows'][:, 4]):.4f}, "
                f"{name} {ndcg_by(d, logit):.4f}"
            )
        if name == "hybrid":
            shipped = as_shipped(data, features, dict(zip(columns, w[1:])))
            print("  as shipped (query-level terms kept, the first three calibrated): " + repr(shipped))
    return 0


# the terms that are the same for every candidate of a query: they order nothing, and only
# calibrate (search/relevance.py keeps them when the candidates' weights are refitted)
QUERY_LEVEL = ("top_saturation", "top_coverage")


def as_shipped(data: list[dict], features: list[dict[str, np.ndarray]], weights: dict[str, float]) -> ScoreModel:
    """The hybrid model as relevance.py ships it: the fitted weights of a candidate's own
    evidence, the query-level terms in force (HYBRID's), and the intercept at which each
    query's first three are predicted as often relevant as they are, over all these splits
    (the joint fit's own query-level terms under-predicted them on the question sets)."""
    kept = {c: getattr(HYBRID, c) for c in QUERY_LEVEL}
    terms = {**weights, **kept}
    firsts, labels = [], []
    for d, f in zip(data, features):
        logit = sum(v * f[c] for c, v in terms.items())
        rows = d["rows"]
        for number in np.unique(rows[:, 0]):
            idx = np.nonzero(rows[:, 0] == number)[0]
            top = idx[np.argsort(-logit[idx], kind="stable")[:3]]
            firsts.append(logit[top])
            labels.append((rows[top, 5] > 0).astype(np.float64))
    x, y = np.concatenate(firsts), np.concatenate(labels)
    low, high = -20.0, 20.0
    for _ in range(60):  # the mean predicted probability rises with the intercept
        mid = (low + high) / 2
        if float(np.mean(1.0 / (1.0 + np.exp(-(mid + x))))) > float(y.mean()):
            high = mid
        else:
            low = mid
    return ScoreModel(intercept=round(mid, 3), **{c: round(float(v), 3) for c, v in terms.items()})


if __name__ == "__main__":
    raise SystemExit(main())
