"""Fit the absolute-relevance models of search/relevance.py on tuning splits only.

    python -m findling.devtools.fit_scores --workdir W ../shared/datasets/scifact:train ../shared/datasets/nfcorpus:dev

For each query of each dataset split, every hybrid candidate's evidence (coverage,
saturation, cosine) is collected with its qrels label; three logistic regressions are
fitted by Newton's method (keyword: coverage+saturation, semantic: cosine, hybrid: all
three) and printed as the ScoreModel lines to paste into relevance.py, with each model's
ranking quality on the same splits beside reciprocal rank fusion. Test splits are never
read here: they are for `findling eval`."""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from pathlib import Path

import numpy as np

from findling.devtools.eval import build_index, load_beir
from findling.settings import Settings

FEATURES = ("coverage", "saturation", "cosine")
MODELS = {"keyword": (0, 1), "semantic": (2,), "hybrid": (0, 1, 2)}


def collect(spec: str, workdir: Path, pool: int = 200) -> dict:
    folder, _, split = spec.partition(":")
    dataset = load_beir(Path(folder), split or "train")
    work = workdir / dataset.name
    work.mkdir(parents=True, exist_ok=True)
    engine, mapping, _ = build_index(dataset, work, Settings())
    ids = {doc_id: mapping.get(path, "") for doc_id, path in engine.document_paths().items()}
    rows: list[tuple[int, float, float, float, float, int]] = []  # query, features, rrf rank, label
    try:
        for number, (qid, text) in enumerate(dataset.queries.items()):
            result = engine.rank(text, pool, ("bm25", "vector"), False, "off")
            rels = dataset.qrels[qid]
            for r in result.explain.results:
                ev = r.evidence
                if ev.cosine is None or ev.coverage is None:
                    continue
                rows.append((number, ev.coverage, ev.saturation or 0.0, ev.cosine, r.fused_rank,
                             rels.get(ids.get(r.doc_id, ""), 0)))
    finally:
        engine.close()
    array = np.asarray(rows, dtype=np.float64)
    print(f"{dataset.name}/{split}: {len(dataset.queries)} queries, {len(rows)} candidates, "
          f"{int((array[:, 5] > 0).sum())} relevant", file=sys.stderr)
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+", help="FOLDER:SPLIT, tuning splits only (train, dev)")
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args(argv)
    if any(spec.endswith(":test") for spec in args.datasets):
        parser.error("test splits are for checking, never for fitting")
    data = [collect(spec, Path(args.workdir)) for spec in args.datasets]
    x = np.vstack([d["rows"][:, 1:4] for d in data])
    y = np.concatenate([(d["rows"][:, 5] > 0).astype(np.float64) for d in data])
    fitted = {}
    for name, columns in MODELS.items():
        w = fit_logistic(x[:, columns], y)
        fitted[name] = {"intercept": round(float(w[0]), 3)} | {
            FEATURES[c]: round(float(v), 3) for c, v in zip(columns, w[1:])
        }
        print(f"{name.upper()} = ScoreModel(" + ", ".join(f"{k}={v}" for k, v in fitted[name].items()) + ")")
    for d in data:
        rows = d["rows"]
        h = fitted["hybrid"]
        logit = h["intercept"] + h["coverage"] * rows[:, 1] + h["saturation"] * rows[:, 2] + h["cosine"] * rows[:, 3]
        print(f"{d['name']}: nDCG@10 over the candidates — rrf {ndcg_by(d, -rows[:, 4]):.4f}, "
              f"evidence {ndcg_by(d, logit):.4f}")
    print(json.dumps(fitted))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
