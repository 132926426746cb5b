"""`findling eval DATASET_DIR`: retrieval quality and latency on a BEIR dataset, for each
search mode, in a throwaway index (kept in --workdir to reuse the embeddings)."""

from __future__ import annotations

import json
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from findling.engine import Engine
from findling.errors import FindlingError
from findling.settings import Settings

MODES = ("bm25", "vector", "hybrid", "hybrid+rerank", "full")


@dataclass(frozen=True)
class Dataset:
    name: str
    corpus: dict[str, tuple[str, str]]  # id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]  # query id -> doc id -> relevance


def load_beir(folder: Path, split: str = "test") -> Dataset:
    missing = [name for name in ("corpus.jsonl", "queries.jsonl", f"qrels/{split}.tsv") if not (folder / name).is_file()]
    if missing:
        raise FindlingError(f"{folder} is not a BEIR dataset: it has no {', '.join(missing)}")
    corpus = {}
    with open(folder / "corpus.jsonl", encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            corpus[str(doc["_id"])] = (doc.get("title") or "", doc.get("text") or "")
    queries = {}
    with open(folder / "queries.jsonl", encoding="utf-8") as handle:
        for line in handle:
            q = json.loads(line)
            queries[str(q["_id"])] = q["text"]
    qrels: dict[str, dict[str, int]] = {}
    with open(folder / "qrels" / f"{split}.tsv", encoding="utf-8") as handle:
        next(handle)
        for line in handle:
            qid, did, score = line.rstrip("\n").split("\t")
            qrels.setdefault(qid, {})[did] = int(score)
    return Dataset(folder.name, corpus, {q: queries[q] for q in qrels if q in queries}, qrels)


def ndcg_at(ranked: list[str], rels: dict[str, int], k: int = 10) -> float:
    dcg = sum(rels.get(d, 0) / math.log2(i + 2) for i, d in enumerate(ranked[:k]))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    idcg = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(ranked: list[str], rels: dict[str, int], k: int = 100) -> float:
    relevant = {d for d, r in rels.items() if r > 0}
    return len(relevant & set(ranked[:k])) / len(relevant) if relevant else 0.0


def mrr_at(ranked: list[str], rels: dict[str, int], k: int = 10) -> float:
    for i, d in enumerate(ranked[:k]):
        if rels.get(d, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def build_index(dataset: Dataset, work: Path, settings: Settings) -> tuple[Engine, dict[str, str], float]:
    """Write the corpus as Markdown files (title as heading) and index them."""
    docs = work / "docs"
    mapping_file = work / "ids.json"
    home = work / "home"
    fresh = not mapping_file.exists()
    if fresh:
        docs.mkdir(parents=True, exist_ok=True)
        mapping = {}
        for i, (doc_id, (title, text)) in enumerate(dataset.corpus.items()):
            name = f"d{i:07d}.md"
            folder = docs / f"p{i // 1000:03d}"
            folder.mkdir(exist_ok=True)
            body = f"# {title}\n\n{text}\n" if title else f"{text}\n"
            (folder / name).write_text(body, encoding="utf-8")
            mapping[str(folder / name)] = doc_id
        mapping_file.write_text(json.dumps(mapping))
    mapping = json.loads(mapping_file.read_text())
    engine = Engine(home, settings=settings)
    engine.add_source(docs)
    started = time.perf_counter()
    report = engine.index()
    seconds = time.perf_counter() - started
    emb = report.embedding
    _log(f"index: {report.added} added, {report.unchanged} unchanged in {seconds:.1f}s"
         + (f"; embedded {emb.documents} ({emb.seconds:.1f}s)" if emb and emb.documents else "")
         + (f"; vectors off: {emb.skipped}" if emb and emb.skipped else ""))
    return engine, mapping, seconds


Runner = Callable[[str], tuple[list[int], tuple[str, ...], dict[str, tuple[str, str]]]]


def _runner(engine: Engine, mode: str) -> Runner:
    """The mode as a function from query text to ranked doc ids (top 100). Timed around the
    pipeline itself: snippet rendering is presentation, measured by `findling bench`."""
    lanes, expand, rerank = {
        "bm25": (("bm25",), False, "off"),
        "vector": (("vector",), False, "off"),
        "hybrid": (("bm25", "vector"), False, "off"),
        "hybrid+rerank": (("bm25", "vector"), False, None),
        "full": (("bm25", "vector"), True, None),
    }[mode]

    def run(text: str) -> tuple[list[int], tuple[str, ...], dict[str, tuple[str, str]]]:
        result = engine.rank(text, 100, lanes, expand, rerank)
        stages: dict[str, tuple[str, str]] = {s.name: (s.status, s.reason) for s in result.explain.stages}
        return [e.doc_id for e in result.entries], result.notes, stages

    return run


def evaluate(
    folder: Path,
    modes: tuple[str, ...] = MODES,
    workdir: Path | None = None,
    split: str = "test",
    max_queries: int = 0,
    settings: Settings | None = None,
) -> dict:
    dataset = load_beir(folder, split)
    settings = settings or Settings()
    work = (workdir or Path(tempfile.mkdtemp(prefix="findling-eval-"))) / dataset.name
    work.mkdir(parents=True, exist_ok=True)
    engine, mapping, index_s = build_index(dataset, work, settings)
    corpus_ids = {doc_id: mapping.get(path, "") for doc_id, path in engine.document_paths().items()}
    queries = list(dataset.queries.items())
    if max_queries:
        queries = queries[:max_queries]
    out: dict = {"dataset": dataset.name, "split": split, "queries": len(queries), "documents": len(dataset.corpus),
                 "index_s": round(index_s, 1), "modes": {}}
    try:
        for mode in modes:
            run = _runner(engine, mode)
            run(queries[0][1])  # load models outside the timings
            ndcg, recall, mrr, latency = [], [], [], []
            notes: set[str] = set()
            for qid, text in queries:
                started = time.perf_counter()
                doc_ids, lane_notes, stages = run(text)
                latency.append((time.perf_counter() - started) * 1000)
                notes.update(lane_notes)
                for name in ("expansion", "rerank"):
                    status, reason = stages.get(name, ("", ""))
                    if status == "skipped" and mode in ("hybrid+rerank", "full") and reason not in (
                            "expansion off", "reranking is off", "skipped_strong"):
                        notes.add(f"{name} skipped: {reason}")
                ranked = [corpus_ids.get(d, "") for d in doc_ids]
                rels = dataset.qrels[qid]
                ndcg.append(ndcg_at(ranked, rels))
                recall.append(recall_at(ranked, rels))
                mrr.append(mrr_at(ranked, rels))
            ordered = sorted(latency)
            out["modes"][mode] = {
                "ndcg@10": round(statistics.fmean(ndcg), 4),
                "recall@100": round(statistics.fmean(recall), 4),
                "mrr@10": round(statistics.fmean(mrr), 4),
                "p50_ms": round(statistics.median(ordered), 1),
                "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 1),
                "notes": sorted(notes),
            }
            _log(f"{mode}: {out['modes'][mode]}")
    finally:
        engine.close()
    return out


def print_table(result: dict) -> None:
    print(f"{result['dataset']} ({result['split']}: {result['queries']} queries, {result['documents']} documents, "
          f"indexed in {result['index_s']}s)")
    print(f"{'mode':<15}{'nDCG@10':>9}{'R@100':>8}{'MRR@10':>8}{'p50 ms':>9}{'p95 ms':>9}")
    for mode, m in result["modes"].items():
        print(f"{mode:<15}{m['ndcg@10']:>9.4f}{m['recall@100']:>8.4f}{m['mrr@10']:>8.4f}{m['p50_ms']:>9.1f}"
              f"{m['p95_ms']:>9.1f}")
        for note in m["notes"]:
            print(f"{'':<15}note: {note}")
