"""How the vector lane should see a document and a long query: vector nDCG@10 per way of
cutting documents into vectors and of scoring them, from the chunks of an eval index
(built by `findling eval --workdir W`).

    python -m findling.devtools.doc_vectors --workdir W ../shared/datasets/scifact:train /tmp/para/dev:dev

Document sides: the product's embedding windows at 128 and 256 tokens (a document scored
by its best window), one whole-document vector (the document's passage, cut by the
tokenizer at the model's limit), the mean of a document's 128-token windows, and mixes of
them. Query sides: the query as the model's tokenizer cuts it (today), and a long query
cut into windows of the window length, as documents are, with their vectors averaged or
each scored. Vectors are cached in the workdir, so a second run only scores."""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from findling.devtools.eval import load_beir, ndcg_at
from findling.engine import Engine
from findling.ingest.embedding_windows import document_windows
from findling.models.embedder import Embedder, embedding_windows, normalize
from findling.settings import Settings


def _document_texts(rows: list[tuple[int, int, int, str]]) -> dict[int, str]:
    """Each document's text, put back together from its overlapping chunks."""
    texts: dict[int, str] = {}
    for doc_id, _ordinal, start, text in rows:
        have = texts.get(doc_id, "")
        texts[doc_id] = have[:start] + text if start <= len(have) else have + text
    return texts


def _embed_timed(embedder: Embedder, texts: list[str], kind: str = "passage") -> tuple[np.ndarray, float]:
    started = time.perf_counter()
    vectors = embedder.embed(texts, kind=kind)
    return vectors, time.perf_counter() - started


def _vectors(work: Path, embedder: Embedder, cur, titles: dict[int, str]) -> dict[str, np.ndarray]:
    cache = work / "doc_vectors.npz"
    if cache.exists():
        return dict(np.load(cache))
    rows = cur.execute("SELECT doc_id, ordinal, start_char, text FROM chunks ORDER BY doc_id, ordinal").fetchall()
    by_doc: dict[int, list[tuple[int, int, str]]] = {}
    for doc_id, ordinal, start, text in rows:
        by_doc.setdefault(doc_id, []).append((ordinal, start, text))
    spec = embedder.spec
    out: dict = {}  # name -> array, as np.savez takes them
    for tokens in (128, 256):
        docs, texts = [], []
        for doc_id, chunks in by_doc.items():
            for _ordinal, _lo, _hi, window in document_windows(chunks, tokens):
                docs.append(doc_id)
                texts.append(spec.passage(titles.get(doc_id, ""), window))
        vectors, seconds = _embed_timed(embedder, texts)
        out[f"w{tokens}_doc"], out[f"w{tokens}_vec"] = np.asarray(docs), vectors
        print(f"  {len(texts)} windows of {tokens} tokens: {len(texts) / seconds:.0f}/s", file=sys.stderr, flush=True)
    whole = _document_texts(rows)
    doc_ids = sorted(whole)
    passages = [spec.passage(titles.get(d, ""), whole[d]) for d in doc_ids]
    vectors, seconds = _embed_timed(embedder, passages)
    out["whole_doc"], out["whole_vec"] = np.asarray(doc_ids), vectors
    out["whole_tokens"] = np.asarray([len(e.ids) for e in embedder.tokenize(passages)])
    print(f"  {len(passages)} whole documents: {len(passages) / seconds:.0f}/s", file=sys.stderr, flush=True)
    np.savez(cache, **out)
    return out


def _best(doc_of: np.ndarray, scores: np.ndarray, n_docs: int) -> np.ndarray:
    """Per query, each document's best row score: [queries, n_docs] (−1 where it has none)."""
    best = np.full((scores.shape[0], n_docs), -1.0, dtype=np.float32)
    for q in range(scores.shape[0]):
        np.maximum.at(best[q], doc_of, scores[q])
    return best


def _mean_rows(doc_of: np.ndarray, vectors: np.ndarray, n_docs: int) -> np.ndarray:
    sums = np.zeros((n_docs, vectors.shape[1]), dtype=np.float32)
    np.add.at(sums, doc_of, vectors)
    return normalize(sums)


def _query_sides(embedder: Embedder, texts: list[str]) -> dict[str, np.ndarray]:
    """Today's query vector, and a long query cut into windows of the window length."""
    cut = embedder.embed(texts, kind="query")
    windows = [[t[lo:hi] for lo, hi in embedding_windows(t, embedder.spec.window_length)] for t in texts]
    flat = [w for ws in windows for w in ws]
    owner = np.repeat(np.arange(len(texts)), [len(ws) for ws in windows])
    vectors = embedder.embed(flat, kind="query")
    first = np.asarray([0, *np.cumsum([len(ws) for ws in windows])[:-1]])
    return {
        "cut": cut,
        "window-mean": _mean_rows(owner, vectors, len(texts)),
        "first-window": vectors[first],
        "windows": vectors,
        "owner": owner,
    }


def measure(spec: str, workdir: Path, threads: int) -> dict:
    folder, _, split = spec.partition(":")
    dataset = load_beir(Path(folder), split or "train")
    work = workdir if (workdir / "ids.json").exists() else workdir / dataset.name
    mapping = json.loads((work / "ids.json").read_text())
    settings = Settings()
    settings.models.threads = threads
    engine = Engine(work / "home", settings=settings, read_only=True)
    try:
        paths = engine.document_paths()
        cur = engine._db.cursor()  # a measurement tool reading the eval index's chunks
        titles = dict(cur.execute("SELECT id, coalesce(title, '') FROM documents WHERE status = 'ok'").fetchall())
        embedder = engine.models.embedder()
        if not isinstance(embedder, Embedder):
            raise SystemExit("doc_vectors measures the local ONNX embedder (it reads its tokenizer)")
        vectors = _vectors(work, embedder, cur, titles)
        queries = list(dataset.queries.items())
        names = np.asarray([mapping.get(paths.get(d, ""), "") for d in range(int(vectors["whole_doc"].max()) + 1)])
        n_docs = len(names)
        whole = np.zeros((n_docs, vectors["whole_vec"].shape[1]), dtype=np.float32)
        whole[vectors["whole_doc"]] = vectors["whole_vec"]
        fits = np.zeros(n_docs, dtype=bool)
        fits[vectors["whole_doc"]] = vectors["whole_tokens"] < embedder.spec.max_length
        mean128 = _mean_rows(vectors["w128_doc"], vectors["w128_vec"], n_docs)
        out: dict = {"dataset": f"{dataset.name}/{split}", "queries": len(queries), "by_query_side": {}}
        sides = _query_sides(embedder, [text for _, text in queries])
        windows, owner = sides.pop("windows"), sides.pop("owner")
        per_window = _best(vectors["w128_doc"], windows @ vectors["w128_vec"].T, n_docs)
        sums = np.zeros((len(queries), n_docs), dtype=np.float32)
        np.add.at(sums, owner, per_window)
        each_window = sums / np.bincount(owner)[:, None]
        for side, q in sides.items():
            w128 = _best(vectors["w128_doc"], q @ vectors["w128_vec"].T, n_docs)
            w256 = _best(vectors["w256_doc"], q @ vectors["w256_vec"].T, n_docs)
            doc = q @ whole.T
            mean = q @ mean128.T
            doc_fit = np.where(fits[None, :], doc, -1.0)
            scorers: dict[str, np.ndarray] = {
                "windows128 (today)": w128,
                "windows256": w256,
                "whole document": doc,
                "mean of windows128": mean,
                "max(whole, windows128)": np.maximum(doc, w128),
                "max(whole if it fits, windows128)": np.maximum(doc_fit, w128),
                "max(whole, windows256)": np.maximum(doc, w256),
                "mean over query windows of their best windows128": each_window,
                "half today, half mean over query windows": 0.5 * each_window + 0.5 * w128,
            }
            for a in (0.25, 0.5, 0.75):
                scorers[f"{a}·whole + {1 - a}·windows128"] = a * doc + (1 - a) * w128
                scorers[f"{a}·mean + {1 - a}·windows128"] = a * mean + (1 - a) * w128
            table = {}
            for label, scores in scorers.items():
                top = np.argsort(-scores, axis=1)[:, :10]
                table[label] = round(
                    statistics.fmean(
                        ndcg_at([str(n) for n in names[row]], dataset.qrels[qid]) for (qid, _), row in zip(queries, top)
                    ),
                    4,
                )
            out["by_query_side"][side] = table
            print(f"{dataset.name}/{split} query {side}: {json.dumps(table, indent=1)}", file=sys.stderr, flush=True)
        out["vectors"] = {
            "windows128": len(vectors["w128_doc"]),
            "windows256": len(vectors["w256_doc"]),
            "documents": len(vectors["whole_doc"]),
            "documents_that_fit": int(fits.sum()),
            "documents_of_one_window128": int(np.sum(np.bincount(vectors["w128_doc"]) == 1)),
        }
        return out
    finally:
        engine.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("datasets", nargs="+", help="FOLDER:SPLIT")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    results = [measure(spec, Path(args.workdir), args.threads) for spec in args.datasets]
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
