"""What the vector index's shortlist gives up on real embeddings: the chunk vectors of real
indexes (each `--home`, e.g. the eval work folders) pooled into one index, real questions
(`--queries`: BEIR queries.jsonl or a known-item .tsv) embedded, and each question's top ten
documents from the index compared with exact float search over every vector, at several
shortlist shares (the rows the rotated head's first pass hands on).

    python -m findling.devtools.vector_recall --home /tmp/ew-scifact/scifact/home \\
        --home /tmp/ew-py/html-1d3fed0f/home --queries ../shared/datasets/scifact/queries.jsonl \\
        --queries docs/eval/pydocs-questions.tsv

The synthetic million of `bench --vectors` has well-separated topics; this is the check that
real text, whose topics blur into each other and whose vectors are far from isotropic, is
found as well."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from findling.paths import DB_FILENAME
from findling.search.vector_index import VectorIndex
from findling.store.db import Database
from findling.store.vectors import ensure_table, read_vectors, write_vectors

_DOCS_A_HOME = 10_000_000


def _questions(path: Path) -> list[str]:
    texts = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        texts.append(str(json.loads(line)["text"]) if path.suffix == ".jsonl" else line.split("\t")[0])
    return texts


def _pool(homes: list[Path], work: Path) -> tuple[Database, str, str, int]:
    db = Database(work / DB_FILENAME)
    model, dim = "", 0
    for number, home in enumerate(homes):
        source = Database(home / DB_FILENAME, read_only=True)
        cur = source.cursor()
        found = cur.execute("SELECT model, table_name, dim FROM vector_models").fetchall()
        if not found:
            raise SystemExit(f"{home} holds no vectors")
        model, table, dim = str(found[0][0]), str(found[0][1]), int(found[0][2])
        with db.transaction() as tx:
            target = ensure_table(tx, model, dim)
        for _seqs, doc_ids, ordinals, starts, ends, floats in read_vectors(cur, table, -1, 20_000):
            with db.transaction() as tx:
                write_vectors(
                    tx,
                    target,
                    (doc_ids.astype(np.int64) + number * _DOCS_A_HOME).tolist(),
                    ordinals.tolist(),
                    list(zip(starts.tolist(), ends.tolist(), strict=True)),
                    floats,
                )
        source.close()
    return db, target, model, dim


def _embedded(model: str, texts: list[str]) -> np.ndarray:
    from findling.models.service import ModelService
    from findling.settings import ModelSettings

    service = ModelService(ModelSettings())
    reason = service.unavailable_reason("embedder")
    if reason:
        raise SystemExit(reason)
    embedder = service.embedder()
    if embedder.spec.vector_key != model:
        raise SystemExit(f"the indexes hold {model}'s vectors; the embedder installed is {embedder.spec.vector_key}")
    return np.concatenate([embedder.embed(texts[lo : lo + 64], kind="query") for lo in range(0, len(texts), 64)])


def exact_documents(floats: np.ndarray, doc_ids: np.ndarray, query: np.ndarray, k: int = 10) -> list[int]:
    """The k best documents by their best row's exact score, best first."""
    scores = floats @ query
    top = np.argpartition(-scores, min(len(scores) - 1, 40 * k))[: 40 * k + 1]
    found: list[int] = []
    for row in top[np.argsort(-scores[top])]:
        if int(doc_ids[row]) not in found:
            found.append(int(doc_ids[row]))
        if len(found) == k:
            break
    return found


def measure(homes: list[Path], queries: list[Path], shares: list[float]) -> dict:
    texts = [t for path in queries for t in _questions(path)]
    with tempfile.TemporaryDirectory(prefix="findling-recall-") as folder:
        work = Path(folder)
        db, table, model, dim = _pool(homes, work)
        vectors = _embedded(model, texts)
        parts = list(read_vectors(db.cursor(), table, -1, 65_536))
        doc_ids = np.concatenate([p[1] for p in parts])
        floats = np.concatenate([p[5] for p in parts])
        truth = [exact_documents(floats, doc_ids, q) for q in vectors]
        del floats
        index = VectorIndex(db.cursor, table, dim, work)
        started = time.perf_counter()
        index.refresh()
        result: dict = {
            "vectors": len(index),
            "questions": len(texts),
            "load_s": round(time.perf_counter() - started, 2),
        }
        for share in shares:
            index.shortlist_share = share
            recalls, latencies = [], []
            for q, expected in zip(vectors, truth, strict=True):
                t0 = time.perf_counter()
                got = [h.doc_id for h in index.search(q, 10)]
                latencies.append((time.perf_counter() - t0) * 1000)
                recalls.append(len(set(got) & set(expected)) / max(1, len(expected)))
            result[f"shortlist_share_{share:g}"] = {
                "rows_read_whole": index.shortlist(len(index), 10) or len(index),
                "recall_at_10": round(float(np.mean(recalls)), 4),
                "questions_below_0.9": int(sum(r < 0.9 for r in recalls)),
                "p50_ms": round(float(np.median(latencies)), 2),
            }
        index.close()
        db.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--home", action="append", type=Path, required=True, help="a Findling home with vectors")
    parser.add_argument("--queries", action="append", type=Path, required=True, help="queries.jsonl or a .tsv")
    parser.add_argument("--share", action="append", type=float, help="shortlist shares to measure")
    args = parser.parse_args(argv)
    shares = args.share or [0.005, 1.0]
    print(json.dumps(measure(args.home, args.queries, shares), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
