"""Which text format each embedder should see: vector-lane nDCG@10 per passage format on
tuning splits, from the chunks of an eval index (built by `findling eval --workdir W`).

    python -m findling.devtools.embed_formats --workdir W ../shared/datasets/scifact:train \\
        --format "title: {title} | text: {text}" --format "{text}" --format "{title}. {text}"

Every window of every chunk is embedded in each format (the model of the active manifest,
as the product would), documents are ranked by their best window's cosine, exactly as the
vector lane does, and nDCG@10 is printed per format with the embedding speed."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from findling.devtools.eval import load_beir, ndcg_at
from findling.engine import Engine
from findling.models.embedder import embedding_windows
from findling.settings import Settings


def measure(spec: str, workdir: Path, formats: list[str], threads: int) -> dict:
    folder, _, split = spec.partition(":")
    dataset = load_beir(Path(folder), split or "train")
    work = workdir / dataset.name
    mapping = json.loads((work / "ids.json").read_text())
    settings = Settings()
    settings.models.threads = threads
    engine = Engine(work / "home", settings=settings, read_only=True)
    try:
        paths = engine.document_paths()
        cur = engine._db.cursor()  # a measurement tool reading the eval index's chunks
        titles = dict(cur.execute("SELECT id, coalesce(title, '') FROM documents WHERE status = 'ok'").fetchall())
        rows = cur.execute("SELECT doc_id, text FROM chunks ORDER BY doc_id, ordinal").fetchall()
        embedder = engine.models.embedder()
        windows = [
            (doc_id, text[lo:hi])
            for doc_id, text in rows
            for lo, hi in embedding_windows(text, embedder.spec.window_length)
        ]
        doc_of = np.asarray([d for d, _ in windows])
        queries = list(dataset.queries.items())
        query_vectors = embedder.embed([text for _, text in queries], kind="query")
        out: dict = {"dataset": f"{dataset.name}/{split}", "windows": len(windows), "formats": {}}
        for fmt in formats:
            started = time.perf_counter()
            formatted = replace(embedder.spec, passage_format=fmt)  # the product's own formatting
            matrix = embedder.embed([formatted.passage(titles.get(d, ""), t) for d, t in windows])
            seconds = time.perf_counter() - started
            scores = query_vectors @ matrix.T
            ndcg = []
            for (qid, _), row in zip(queries, scores):
                best: dict[int, float] = {}
                for i in np.argsort(-row)[:400]:
                    best.setdefault(int(doc_of[i]), float(row[i]))
                ranked = [mapping.get(paths.get(d, ""), "") for d in sorted(best, key=lambda d: -best[d])]
                ndcg.append(ndcg_at(ranked, dataset.qrels[qid]))
            out["formats"][fmt] = {
                "ndcg@10": round(statistics.fmean(ndcg), 4),
                "windows_per_s": round(len(windows) / seconds, 1),
            }
            print(f"{dataset.name}/{split} {fmt!r}: {out['formats'][fmt]}", file=sys.stderr, flush=True)
        return out
    finally:
        engine.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+", help="FOLDER:SPLIT")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--format", action="append", dest="formats", required=True)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    results = [measure(spec, Path(args.workdir), args.formats, args.threads) for spec in args.datasets]
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
