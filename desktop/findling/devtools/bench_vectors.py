"""`findling bench --vectors N`: the vector lane's speed, recall and memory on N chunk
vectors, and the embedder's throughput on real text."""

from __future__ import annotations

import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from findling.devtools.memory import rss_now_mb
from findling.devtools.vector_recall import exact_documents
from findling.paths import DB_FILENAME
from findling.search import vector_snapshot
from findling.search.vector_index import VectorIndex
from findling.store.db import Database
from findling.store.vectors import ensure_table, index_id, write_vectors


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(float(np.median(ordered)), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2),
    }


def _topics(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal((max(8, n // 500), dim)).astype(np.float32)


def _about(topics: np.ndarray, n: int, spread: float, rng: np.random.Generator) -> np.ndarray:
    """Unit vectors each near one of the topics, like real embeddings (not uniform noise): with
    a spread of 0.6 two chunks of one topic have a cosine of about 0.74."""
    labels = rng.integers(0, len(topics), n)
    vectors = topics[labels] + spread * rng.standard_normal((n, topics.shape[1])).astype(np.float32)
    unit: np.ndarray = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    return unit


def _write_vectors(home: Path, vectors: np.ndarray, docs: np.ndarray, dim: int) -> float:
    """The bench's vectors written as the engine writes them, with a stand-in document each
    (vectors are stored only for documents the index holds); the seconds it took."""
    db = Database(home / DB_FILENAME)  # the store alone: this measures the vector index, not the engine
    started = time.perf_counter()
    n = len(vectors)
    with db.transaction() as tx:
        table = ensure_table(tx, "bench-model", dim)
    for lo in range(0, n, 20000):
        hi = min(n, lo + 20000)
        with db.transaction() as tx:
            fresh = np.unique(docs[lo:hi])
            tx.executemany(
                "INSERT INTO documents (id, source_id, path, ext, size, mtime, status) "
                "VALUES (?, 1, ?, 'txt', 0, 0, 'ok')",
                [(int(d), f"/bench/{int(d)}.txt") for d in fresh[fresh > (docs[lo - 1] if lo else 0)]],
            )
            write_vectors(tx, table, docs[lo:hi].tolist(), [0] * (hi - lo), [(0, 10)] * (hi - lo), vectors[lo:hi])
    write_s = round(time.perf_counter() - started, 2)
    db.close()
    return write_s


def bench_vector_search(n: int, dim: int = 384, queries: int = 200, workdir: Path | None = None) -> dict:
    rng = np.random.default_rng(7)
    work = workdir or Path(tempfile.mkdtemp(prefix="findling-vbench-"))
    home = work / "vector-home"
    marker = home / f".complete-{n}-{dim}"
    topics = _topics(n, dim, rng)
    vectors = _about(topics, n, 0.6, rng)
    docs = np.arange(n) // 3 + 1  # three chunks a document
    write_s = None
    if not marker.exists():  # the same vectors every run (seeded): a second run reuses them
        shutil.rmtree(home, ignore_errors=True)
        home.mkdir(parents=True)
        write_s = _write_vectors(home, vectors, docs, dim)
        marker.touch()

    db = Database(home / DB_FILENAME)  # a fresh open: time the index becoming ready
    table = str(db.cursor().execute("SELECT table_name FROM vector_models").fetchall()[0][0])
    rss_before = rss_now_mb()
    persist = (home, index_id(db.cursor()))
    vector_snapshot.forget(home, table)  # the load timed is the whole one
    index = VectorIndex(db.cursor, table, dim, home, db.bulk_read, persist)  # as the engine's
    started = time.perf_counter()
    index.refresh()
    load_s = time.perf_counter() - started
    rss_after = rss_now_mb()

    # a question is about something the collection holds, further from its chunks than they are
    # from each other (a cosine of about 0.6, as a real question's best chunks have)
    qs = _about(topics, queries, 1.0, rng)
    for q in qs[:10]:
        index.search(q, 20)
    latencies, found = [], []
    for q in qs:  # timed back to back, the exact answers after: a float scan between searches
        t0 = time.perf_counter()  # leaves BLAS threads spinning against the index's kernel
        found.append(index.search(q, 20))
        latencies.append((time.perf_counter() - t0) * 1000)
    recalls = []
    for q, hits in zip(qs, found, strict=True):
        truth = exact_documents(vectors, docs, q)
        recalls.append(len(set(truth) & {h.doc_id for h in hits[:10]}) / 10)
    allowed = np.unique(rng.choice(docs, size=max(1, len(np.unique(docs)) // 10), replace=False)).astype(np.int32)
    filtered = []
    for q in qs[:50]:
        t0 = time.perf_counter()
        hits = index.search(q, 20, allowed)
        filtered.append((time.perf_counter() - t0) * 1000)
        assert all(h.doc_id in set(allowed.tolist()) for h in hits)
    resident = index.resident_bytes
    index.close()  # saves the snapshot the next process maps
    db.close()
    cold = {
        "full_load": _cold_search(home, table, dim, qs[0], snapshot=False),
        "snapshot": _cold_search(home, table, dim, qs[0], snapshot=True),
    }
    return {
        "vectors": n,
        "dim": dim,
        "write_s": write_s,
        "load_s": round(load_s, 2),
        "float_matrix_mb": round(vectors.nbytes / 1e6, 1),
        "index_resident_mb": round(resident / 1e6, 1),
        "rss_growth_mb": round(rss_after - rss_before, 1),
        "top20": _percentiles(latencies),
        "top20_filtered_10pct": _percentiles(filtered),
        "recall_at_10": round(float(np.mean(recalls)), 4),
        "cold_search": cold,
    }


_COLD = """
import json, resource, sys, time
started = time.perf_counter()
from pathlib import Path
import numpy as np
from findling.search.vector_index import VectorIndex
from findling.store.db import Database
from findling.store.vectors import index_id
home, table, dim, snapshot = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
query = np.array(json.loads(sys.argv[5]), dtype=np.float32)
db = Database(home / "findling.duckdb")
persist = (home, index_id(db.cursor())) if snapshot else None
index = VectorIndex(db.cursor, table, dim, None, db.bulk_read, persist)
hits = index.search(query, 20)
seconds = time.perf_counter() - started
try:  # VmHWM: this process's own peak (ru_maxrss carries the parent's across fork and exec)
    peak = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
except OSError:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"in_process_s": round(seconds, 3), "peak_rss_mb": round(peak, 1), "hits": len(hits)}))
"""


def _cold_search(home: Path, table: str, dim: int, query: np.ndarray, snapshot: bool) -> dict:
    """One search in a new process (imports, the database opened, the index made ready): what a
    cold `findling vsearch` pays for the vectors, with the snapshot the last process saved or
    without (every vector read from the database). The process does not save: a rerun measures
    the same."""
    import json
    import subprocess

    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _COLD, str(home), table, str(dim), "1" if snapshot else "0", json.dumps(query.tolist())],
        capture_output=True,
        text=True,
        timeout=600,
    )
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        return {"error": proc.stderr[-500:]}
    measured: dict = json.loads(proc.stdout.strip().splitlines()[-1])
    measured["process_s"] = round(wall, 3)
    return measured


def bench_embedder(texts: list[str], seconds: float = 5.0) -> dict:
    """The embedder's windows a second as indexing runs it (real windows, the passage format,
    batches sorted by length, every core) beside this CPU's limit for the model: full windows
    of exactly `window_tokens`, no padding, nothing but the model run."""
    import numpy as np

    from findling.models.embedder import Embedder, embedding_windows
    from findling.models.service import ModelService
    from findling.settings import ModelSettings

    service = ModelService(ModelSettings())
    reason = service.unavailable_reason("embedder")
    if reason:
        return {"skipped": reason.text}
    spec = service.spec("embedder")
    windows = [spec.passage("Sample", t[lo:hi]) for t in texts for lo, hi in embedding_windows(t, spec.window_length)]
    result: dict[str, object] = {"model": spec.name, "window_tokens": spec.window_length, "windows": len(windows)}
    for threads in (1, 0):
        embedder = Embedder(spec, service.store, threads=threads)
        embedder.embed(windows[:16])
        tokens = sum(len(e.ids) for e in embedder.tokenize(windows))
        started = time.perf_counter()
        embedder.embed(windows)
        pipeline = len(windows) / (time.perf_counter() - started)
        # the limit: the model alone on full windows, as many runs as fit in `seconds`
        ids = np.array([(e.ids * spec.window_length)[: spec.window_length] for e in embedder.tokenize(windows[:16])])
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids)}
        if "token_type_ids" in embedder.session.input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        embedder.session.run(None, feed)
        runs, started = 0, time.perf_counter()
        while time.perf_counter() - started < seconds:
            embedder.session.run(None, feed)
            runs += 1
        limit = runs * len(ids) / (time.perf_counter() - started)
        mean_tokens = tokens / len(windows)
        result["every_core" if threads == 0 else "one_thread"] = {
            "windows_per_s": round(pipeline, 1),
            "mean_tokens": round(mean_tokens, 1),
            "model_limit_windows_per_s": round(limit, 1),
            # windows are shorter than full ones: the share is of tokens a second
            "share_of_limit": round(pipeline * mean_tokens / (limit * spec.window_length), 2),
            "provider": embedder.provider,
        }
    return result


def sample_texts(corpus: Path | None, count: int = 256, chars: int = 1000) -> list[str]:
    rng = random.Random(5)
    if corpus is not None:
        files = sorted(corpus.rglob("*.md"))[:2000]
        texts = []
        for path in files:
            text = path.read_text(encoding="utf-8", errors="replace")
            if len(text) > chars:
                start = rng.randrange(len(text) - chars)
                texts.append(text[start : start + chars])
            if len(texts) >= count:
                return texts
        if texts:
            return texts
    words = "the index stores every document and answers questions by meaning and by words".split()
    return [" ".join(rng.choice(words) for _ in range(180)) for _ in range(count)]
