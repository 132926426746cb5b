"""`findling bench`: indexing and BM25 speed on N documents, beside SQLite FTS5 on the
same documents in the same run. Numbers for the closing note, never a timed test."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from findling.devtools.memory import peak_rss_mb, rss_now_mb
from findling.engine import Engine
from findling.errors import MAX_QUERY_CHARS
from findling.ingest.extract import NotText, extract
from findling.ingest.formats import kind_of
from findling.records import MatchMode, SearchMode, SearchRequest
from findling.settings import Settings
from findling.text.analyzer import STOPWORDS

_WORD = re.compile(r"[A-Za-z]{4,}")
_DOCS_PER_FOLDER = 200


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _paragraphs_from(folder: Path, limit_chars: int = 200_000_000) -> list[str]:
    """Real paragraphs from a folder of documentation (text, rst, html)."""
    paragraphs: list[str] = []
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in sorted(files):
            path = os.path.join(root, name)
            if kind_of(path) not in ("text", "rst", "markdown", "html"):
                continue
            try:
                with open(path, "rb") as handle:
                    text = extract(path, handle.read()).text
            except (NotText, OSError, Exception):
                continue
            for para in re.split(r"\n\s*\n", text):
                para = para.strip()
                if len(para) > 40:
                    paragraphs.append(para)
                    total += len(para)
            if total > limit_chars:
                return paragraphs
    return paragraphs


def _synthetic_paragraphs(rng: random.Random, count: int = 200_000) -> list[str]:
    """Zipf-distributed pseudo-words, for machines without a real corpus at hand."""
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qu", "ber", "don", "fel", "gor"]
    vocab = ["".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))) for _ in range(60_000)]
    weights = [1.0 / (rank + 1) for rank in range(len(vocab))]
    paragraphs = []
    for _ in range(count):
        words = rng.choices(vocab, weights=weights, k=rng.randint(20, 120))
        paragraphs.append(" ".join(words) + ".")
    return paragraphs


def build_corpus(target: Path, docs: int, source: Path | None, seed: int = 13) -> Path:
    marker = target / ".complete"
    wanted = json.dumps({"docs": docs, "source": str(source), "seed": seed})
    if marker.exists() and marker.read_text() == wanted:
        return target
    shutil.rmtree(target, ignore_errors=True)
    rng = random.Random(seed)
    paragraphs = _paragraphs_from(source) if source else _synthetic_paragraphs(rng)
    if not paragraphs:
        raise SystemExit(f"no text found under {source}")
    _log(f"corpus: {len(paragraphs)} paragraphs to cut {docs} documents from")
    position = 0
    for i in range(docs):
        folder = target / f"part{i // _DOCS_PER_FOLDER:04d}"
        if i % _DOCS_PER_FOLDER == 0:
            folder.mkdir(parents=True, exist_ok=True)
        size = int(min(20000, rng.lognormvariate(7.6, 0.8)))  # median ~2 KB, long tail
        parts, length = [], 0
        if position >= len(paragraphs):
            position = rng.randrange(len(paragraphs))
        while length < size:
            para = paragraphs[position % len(paragraphs)]
            position += 1
            parts.append(para)
            length += len(para)
        title = " ".join(parts[0].split()[:8])
        (folder / f"doc{i:06d}.md").write_text(f"# {title}\n\n" + "\n\n".join(parts) + "\n", encoding="utf-8")
    marker.write_text(wanted)
    return target


def _queries(corpus: Path, count: int, rng: random.Random) -> list[str]:
    files = sorted(corpus.rglob("*.md"))
    queries: list[str] = []
    while len(queries) < count:
        text = rng.choice(files).read_text(encoding="utf-8")
        words = [w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS]
        if len(words) < 5:
            continue
        start = rng.randrange(len(words) - 3)
        queries.append(" ".join(words[start : start + rng.choice((1, 2, 2, 3))]))
    return queries


def _long_queries(corpus: Path, count: int, rng: random.Random) -> list[str]:
    """Pasted paragraphs: 150–250 consecutive words of one document ("find what is like this")."""
    files = sorted(corpus.rglob("*.md"))
    queries: list[str] = []
    for _ in range(count * 20):
        if len(queries) >= count:
            break
        words = rng.choice(files).read_text(encoding="utf-8").split()
        if len(words) < 150:
            continue
        size = rng.randint(150, min(250, len(words)))
        start = rng.randrange(len(words) - size + 1)
        pasted = " ".join(words[start : start + size])
        # as long as a face takes: the cap (errors.MAX_QUERY_CHARS) refuses longer, as a user sees
        queries.append(pasted[: pasted.rfind(" ", 0, MAX_QUERY_CHARS + 1)] if len(pasted) > MAX_QUERY_CHARS else pasted)
    return queries or [" ".join(_WORD.findall(files[0].read_text(encoding="utf-8"))[:200])]


def _keywords(query: str, match: MatchMode) -> SearchRequest:
    return SearchRequest(query, SearchMode.KEYWORD, limit=20, match=match)


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 2),
        "mean_ms": round(statistics.fmean(ordered), 2),
    }


def _time_all(queries: list[str], run: Callable[[str], object], warmup: int = 10) -> dict[str, float]:
    for q in queries[:warmup]:
        run(q)
    samples = []
    for q in queries:
        started = time.perf_counter()
        run(q)
        samples.append((time.perf_counter() - started) * 1000)
    return _percentiles(samples)


def _fts5(corpus: Path, db_path: Path, queries: list[str]) -> dict[str, object]:
    if db_path.exists():
        db_path.unlink()
    con = sqlite3.connect(db_path)
    con.execute(
        "CREATE VIRTUAL TABLE docs USING fts5(path UNINDEXED, title, body, "
        "tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    started = time.perf_counter()
    batch = []
    for path in sorted(corpus.rglob("*.md")):
        text = path.read_text(encoding="utf-8")
        title = text.split("\n", 1)[0].lstrip("# ")
        batch.append((str(path), title, text))
        if len(batch) >= 1000:
            con.executemany("INSERT INTO docs VALUES (?, ?, ?)", batch)
            batch.clear()
    con.executemany("INSERT INTO docs VALUES (?, ?, ?)", batch)
    con.commit()
    index_s = time.perf_counter() - started

    def search(q: str, joiner: str) -> list:
        match = joiner.join('"' + w.replace('"', "") + '"' for w in q.split())
        return con.execute(
            "SELECT path, bm25(docs, 0.0, 2.0, 1.0) AS s FROM docs WHERE docs MATCH ? ORDER BY s LIMIT 20", [match]
        ).fetchall()

    result = {
        "index_s": round(index_s, 2),
        "disk_mb": round(db_path.stat().st_size / 1e6, 1),
        "all_terms": _time_all(queries, lambda q: search(q, " ")),
        "any_term": _time_all(queries, lambda q: search(q, " OR ")),
    }
    con.close()
    return result


def run_bench(  # noqa: PLR0915 - a measurement script: one step after another, as the report reads
    docs: int = 20000,
    corpus: str | None = None,
    workdir: str | None = None,
    queries: int = 200,
    reuse_index: bool = False,
) -> dict[str, object]:
    work = Path(workdir) if workdir else Path(tempfile.mkdtemp(prefix="findling-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    rng = random.Random(99)
    started = time.perf_counter()
    corpus_dir = build_corpus(work / f"corpus-{docs}", docs, Path(corpus) if corpus else None)
    corpus_bytes = sum(p.stat().st_size for p in corpus_dir.rglob("*.md"))
    _log(f"corpus ready in {time.perf_counter() - started:.1f}s: {docs} documents, {corpus_bytes / 1e6:.1f} MB")

    index_home = work / "findling-home"
    saved = index_home / "bench-index.json"
    settings = Settings()
    if reuse_index and saved.exists():  # the same corpus indexed by an earlier run: time searching only
        _log(f"reusing the index in {index_home}")
        indexed = json.loads(saved.read_text())
        engine = Engine(index_home, settings=settings)
    else:
        shutil.rmtree(index_home, ignore_errors=True)
        engine = Engine(index_home, settings=settings)
        engine.add_source(corpus_dir)
        _log("indexing with Findling (keywords: this bench times the text index, as FTS5's)…")
        started = time.perf_counter()
        report = engine.index(embed=False)  # embedding 100k documents on a laptop's CPU takes hours
        index_s = time.perf_counter() - started
        started = time.perf_counter()
        noop = engine.index(embed=False)
        indexed = {
            "index_s": index_s,
            "added": report.added,
            "failed": report.failed,
            "peak_rss_mb": peak_rss_mb(),
            "rescan_no_change_s": time.perf_counter() - started,
            "unchanged": noop.unchanged,
        }
        saved.write_text(json.dumps(indexed))
    status = engine.status(problem_limit=0)

    qs = _queries(corpus_dir, queries, rng)
    _log(f"timing {len(qs)} queries…")
    lane_all = _time_all(qs, lambda q: engine.searcher.rank_keywords(_keywords(q, "all")))
    lane_any = _time_all(qs, lambda q: engine.searcher.rank_keywords(_keywords(q, "any")))
    cold = _time_all(qs[:40], lambda q: engine.find(SearchRequest(q, mode=SearchMode.KEYWORD, limit=20)), warmup=0)
    started = time.perf_counter()
    engine.warm()  # what the app does in the background after its window shows
    warm_s = time.perf_counter() - started
    with_snippets = _time_all(qs, lambda q: engine.find(SearchRequest(q, mode=SearchMode.KEYWORD, limit=20)))
    rss_searching = rss_now_mb()
    _log(f"search with snippets: p50 {with_snippets['p50_ms']} ms; RSS while searching {rss_searching:.0f} MB")
    paragraphs = _long_queries(corpus_dir, max(20, queries // 4), rng)
    long_any = _time_all(paragraphs, lambda q: engine.searcher.rank_keywords(_keywords(q, "any")), warmup=3)

    # One changed file: rewritten, then searchable through the live-update path.
    files = sorted(corpus_dir.rglob("*.md"))
    update_ms = []
    for i in range(7):
        target = files[rng.randrange(len(files))]
        word = f"freshword{i}x{rng.randrange(10**6)}"
        with open(target, "a", encoding="utf-8") as handle:
            handle.write(f"\n\n{word}\n")
        t0 = time.perf_counter()
        engine.update_paths([target], embed=False)
        found = engine.find(SearchRequest(word, mode=SearchMode.KEYWORD)).hits
        update_ms.append((time.perf_counter() - t0) * 1000)
        assert found and found[0].path == str(target), "the changed file must be found"
    engine.close()

    _log("indexing the same documents with SQLite FTS5…")
    fts5 = _fts5(corpus_dir, work / "fts5.sqlite", qs)

    result = {
        "documents": docs,
        "corpus_mb": round(corpus_bytes / 1e6, 1),
        "corpus_source": corpus or "synthetic",
        "findling": {
            "index_s": round(indexed["index_s"], 2),
            "docs_per_s": round(docs / indexed["index_s"], 1),
            "added": indexed["added"],
            "failed": indexed["failed"],
            "disk_mb": round(status.size_bytes / 1e6, 1),
            "chunks": status.chunks,
            "terms": status.terms,
            "postings": status.postings,
            "rescan_no_change_s": round(indexed["rescan_no_change_s"], 2),
            "unchanged": indexed["unchanged"],
            "bm25_top20_all_terms": lane_all,
            "bm25_top20_any_term": lane_any,
            "search_with_snippets_before_warm": cold,
            "warm_s": round(warm_s, 2),
            "search_with_snippets": with_snippets,
            "rss_while_searching_mb": round(rss_searching, 1),
            "bm25_top20_paragraph_query": long_any,
            "one_changed_file_searchable_ms": {
                "median": round(statistics.median(update_ms), 1),
                "max": round(max(update_ms), 1),
            },
            "peak_rss_mb": round(indexed["peak_rss_mb"], 1),
        },
        "sqlite_fts5": fts5,
    }
    _print_table(result)
    return result


def _print_table(r: dict) -> None:
    f, s = r["findling"], r["sqlite_fts5"]
    rows = [
        ("documents", r["documents"], ""),
        ("corpus MB", r["corpus_mb"], ""),
        ("index time s", f["index_s"], s["index_s"]),
        ("docs/s", f["docs_per_s"], round(r["documents"] / s["index_s"], 1)),
        ("disk MB", f["disk_mb"], s["disk_mb"]),
        ("top-20 all terms p50 ms", f["bm25_top20_all_terms"]["p50_ms"], s["all_terms"]["p50_ms"]),
        ("top-20 all terms p95 ms", f["bm25_top20_all_terms"]["p95_ms"], s["all_terms"]["p95_ms"]),
        ("top-20 any term p50 ms", f["bm25_top20_any_term"]["p50_ms"], s["any_term"]["p50_ms"]),
        ("top-20 any term p95 ms", f["bm25_top20_any_term"]["p95_ms"], s["any_term"]["p95_ms"]),
        ("paragraph query p50 ms", f["bm25_top20_paragraph_query"]["p50_ms"], ""),
        ("paragraph query p95 ms", f["bm25_top20_paragraph_query"]["p95_ms"], ""),
        ("search+snippets cold p50 ms", f["search_with_snippets_before_warm"]["p50_ms"], ""),
        ("warm-up s", f["warm_s"], ""),
        ("search+snippets p50 ms", f["search_with_snippets"]["p50_ms"], ""),
        ("search+snippets p95 ms", f["search_with_snippets"]["p95_ms"], ""),
        ("changed file searchable ms", f["one_changed_file_searchable_ms"]["median"], ""),
        ("rescan, nothing changed s", f["rescan_no_change_s"], ""),
        ("peak RSS MB (indexing)", f["peak_rss_mb"], ""),
        ("RSS while searching MB", f["rss_while_searching_mb"], ""),
    ]
    print(f"{'':<30}{'findling':>12}{'sqlite fts5':>14}")
    for name, a, b in rows:
        print(f"{name:<30}{a!s:>12}{b!s:>14}")
