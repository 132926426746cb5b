"""`findling eval DATASET_DIR`: retrieval quality and latency on a BEIR dataset, for each
search mode, in a throwaway index (kept in --workdir to reuse the embeddings).

`findling eval --known-items QUESTIONS.tsv FOLDER`: the same over a real folder, for
known-item questions (each names the files that answer it): hit@1, hit@3, MRR@10 per mode
and per kind of question.

`--calibration` adds, per mode, how often a result with a given score is relevant: the
score is meant as an absolute estimate, so each bucket's share should rise with the score."""

from __future__ import annotations

import hashlib
import json
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from findling.engine import Engine
from findling.errors import FindlingError
from findling.records import IndexReport, Lane, Note, RerankerMode, SearchMode, SearchRequest
from findling.search.results import RankedEntry
from findling.settings import Settings

MODES = ("bm25", "vector", "hybrid", "hybrid+rerank", "full")
BUCKETS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001)
CALIBRATION_DEPTH = 10  # results per query that the calibration table counts


@dataclass(frozen=True)
class Dataset:
    name: str
    corpus: dict[str, tuple[str, str]]  # id -> (title, text)
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]  # query id -> doc id -> relevance


def load_beir(folder: Path, split: str = "test") -> Dataset:
    missing = [
        name for name in ("corpus.jsonl", "queries.jsonl", f"qrels/{split}.tsv") if not (folder / name).is_file()
    ]
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


def split_of(number: int) -> str:
    """The split the sets built here put their `number`th query in: every third is for tuning
    (dev), the rest for checking (test), as docs/eval/everyday-questions.tsv splits."""
    return "dev" if number % 3 == 0 else "test"


@dataclass(frozen=True)
class KnownItem:
    query: str
    targets: frozenset[str]  # file names without extension; any one answers the query
    kind: str


def load_known_items(path: Path) -> list[KnownItem]:
    """Lines `query<TAB>targets[<TAB>kind]`, targets comma-separated; `#` lines are comments.
    Split on tabs only: queries may hold quotes (pasted error messages)."""
    items = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise FindlingError(f"cannot read the questions file {path}: {exc.strerror or exc}") from None
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) < 2 or not fields[0].strip() or not fields[1].strip():
            raise FindlingError(f"{path}:{number}: expected `query<TAB>targets[<TAB>kind]`")
        targets = frozenset(t.strip() for t in fields[1].split(",") if t.strip())
        items.append(KnownItem(fields[0].strip(), targets, fields[2].strip() if len(fields) > 2 else ""))
    if not items:
        raise FindlingError(f"{path} holds no questions")
    return items


def result_name(path: str) -> str:
    """How a known-item set names a result: the file name without its extension."""
    base = os.path.basename(path)
    return base.rsplit(".", 1)[0] if "." in base else base


def answers(path: str, folder: Path, targets: frozenset[str]) -> bool:
    """Whether a result is one of a question's targets: by its file name without the extension,
    or, for a target with a slash (`json/decoder`), by its path under the folder without it."""
    if result_name(path) in targets:
        return True
    within = os.path.relpath(path, folder).replace(os.sep, "/")
    return within.rsplit(".", 1)[0] in targets


def judged_ids(query_id: str, rows: list[tuple[str, ...]], rels: dict[str, int]) -> list[str]:
    """One id per listed result, the one judged: of the documents a result names (itself and
    its copies, all shown in that one row), the one the qrels rate highest. Copies' labels
    differ: NFCorpus rates one of two identical abstracts and not the other for 219 of the
    261 (query, copy) pairs it rates in test, so which copy a list happens to name first must
    not decide. The ideal ranking still counts each copy apart, so a list that names copies
    once scores at most what one listing them twice could.

    The query's own document is left out. Where a dataset's queries are also in its corpus
    under the same id (ArguAna's arguments, Quora's questions), the query finds itself first;
    BEIR's evaluation leaves that document out (`ignore_identical_ids`), and its published
    figures, which these are compared with, are measured so."""
    out = []
    for row in rows:
        named = [doc_id for doc_id in row if doc_id != query_id]
        if named:
            out.append(max(named, key=lambda doc_id: rels.get(doc_id, 0)))
    return out


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


def _index_line(report: IndexReport, seconds: float) -> str:
    """What indexing did: a migration's pages read again show as read again, not as nothing."""
    return f"index: {report.added} added, {report.updated} read again, {report.unchanged} unchanged in {seconds:.1f}s"


def build_index(dataset: Dataset, work: Path, settings: Settings) -> tuple[Engine, dict[str, str], float]:
    """Write the corpus as Markdown files (title as heading) and index them. The mapping from
    file to corpus id is by real path, as the index keeps paths: a work folder reached through
    a link judges the same files."""
    work = work.resolve()
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
    mapping = {os.path.realpath(path): doc_id for path, doc_id in json.loads(mapping_file.read_text()).items()}
    engine = Engine(home, settings=settings)
    engine.add_source(docs)
    started = time.perf_counter()
    report = engine.index()
    seconds = time.perf_counter() - started
    emb = report.embedding
    _log(
        _index_line(report, seconds)
        + (f"; embedded {emb.documents} ({emb.seconds:.1f}s)" if emb and emb.documents else "")
        + (f"; vectors off: {emb.skipped.text}" if emb and emb.skipped else "")
    )
    return engine, mapping, seconds


@dataclass(frozen=True)
class Ranking:
    rows: list[tuple[int, ...]]  # each listed result's documents: itself, then the copies it names
    scores: list[float]  # the score each result shows the user
    notes: tuple[Note, ...]
    stages: dict[str, tuple[str, str]]  # stage -> (status, reason)


Runner = Callable[[str], Ranking]


def _listed(
    engine: Engine, entries: Sequence[RankedEntry], notes: tuple[Note, ...], stages: dict[str, tuple[str, str]]
) -> Ranking:
    """A ranking as the list a person sees: a copy once, in the row of the first of its copies."""
    rows = engine.searcher.listed_with_copies(entries)
    return Ranking([(e.doc_id, *copies) for e, copies in rows], [e.score for e, _ in rows], notes, stages)


def _runner(engine: Engine, mode: str) -> Runner:
    """The mode as a function from query text to ranked doc ids (top 100). `bm25` is the
    product's keyword search, exactly as `findling search` ranks (its match mode from the
    settings, relaxed to some of the words when no document has them all, newer first among
    equals); the others are the pipeline over their lanes. Every list as a person sees it: a
    copy once. Timed around the ranking itself: snippet rendering is presentation, measured
    by `findling bench`."""
    if mode == "bm25":

        def keywords(text: str) -> Ranking:
            ranked, relaxed = engine.searcher.rank_keywords(SearchRequest(text, SearchMode.KEYWORD, limit=100))
            notes = (Note("relaxed to some of the words"),) if relaxed else ()
            return _listed(engine, ranked, notes, {})

        return keywords
    runs: dict[str, tuple[tuple[Lane, ...], bool, RerankerMode | None]] = {
        "vector": (("vector",), False, "off"),
        "hybrid": (("bm25", "vector"), False, "off"),
        "hybrid+rerank": (("bm25", "vector"), False, None),
        "full": (("bm25", "vector"), True, None),
    }
    lanes, expand, rerank = runs[mode]

    def run(text: str) -> Ranking:
        result = engine.searcher.rank(text, 100, lanes, expand, rerank)
        stages: dict[str, tuple[str, str]] = {s.name: (s.status, s.reason) for s in result.explain.stages}
        return _listed(engine, result.entries, result.notes, stages)

    return run


class _Calibration:
    """Counts of (score bucket -> results, relevant results) over the top results."""

    def __init__(self) -> None:
        self.counts = [[0, 0] for _ in BUCKETS[:-1]]

    def add(self, scores: list[float], relevant: list[bool]) -> None:
        for score, rel in list(zip(scores, relevant))[:CALIBRATION_DEPTH]:
            bucket = next(i for i in range(len(BUCKETS) - 1) if score < BUCKETS[i + 1])
            self.counts[bucket][0] += 1
            self.counts[bucket][1] += int(rel)

    def table(self) -> list[dict]:
        return [
            {
                "from": BUCKETS[i],
                "to": min(1.0, BUCKETS[i + 1]),
                "results": n,
                "relevant": round(r / n, 3) if n else None,
            }
            for i, (n, r) in enumerate(self.counts)
        ]


def _timed_modes(
    engine: Engine,
    modes: tuple[str, ...],
    queries: list[tuple[str, str]],
    judge: Callable[[str, list[tuple[int, ...]]], dict[str, float]],
    relevant: Callable[[str, list[tuple[int, ...]]], list[bool]],
    kinds: dict[str, str] | None = None,
    calibration: bool = False,
) -> dict:
    """Run every query in every mode: the mean of each metric `judge` gives, p50/p95
    latency, metrics per kind of query, and optionally the calibration table."""
    out: dict = {}
    for mode in modes:
        run = _runner(engine, mode)
        run(queries[0][1])  # load models outside the timings
        metrics: dict[str, list[float]] = {}
        by_kind: dict[str, dict[str, list[float]]] = {}
        latency: list[float] = []
        notes: set[str] = set()
        table = _Calibration()
        for qid, text in queries:
            started = time.perf_counter()
            ranking = run(text)
            latency.append((time.perf_counter() - started) * 1000)
            notes.update(note.text for note in ranking.notes)
            for name in ("expansion", "rerank"):
                status, reason = ranking.stages.get(name, ("", ""))
                if (
                    status == "skipped"
                    and mode in ("hybrid+rerank", "full")
                    and reason not in ("expansion off", "reranking is off", "skipped_strong")
                ):
                    notes.add(f"{name} skipped: {reason}")
            scored = judge(qid, ranking.rows)
            for key, value in scored.items():
                metrics.setdefault(key, []).append(value)
                if kinds and kinds.get(qid):
                    by_kind.setdefault(kinds[qid], {}).setdefault(key, []).append(value)
            if calibration:
                table.add(ranking.scores, relevant(qid, ranking.rows))
        ordered = sorted(latency)
        result: dict[str, object] = {key: round(statistics.fmean(values), 4) for key, values in metrics.items()}
        result["p50_ms"] = round(statistics.median(ordered), 1)
        result["p95_ms"] = round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 1)
        result["notes"] = sorted(notes)
        if by_kind:
            result["kinds"] = {
                kind: {key: round(statistics.fmean(values), 4) for key, values in kind_metrics.items()}
                | {"queries": len(next(iter(kind_metrics.values())))}
                for kind, kind_metrics in sorted(by_kind.items())
            }
        if calibration:
            result["calibration"] = table.table()
        out[mode] = result
        _log(f"{mode}: { {k: v for k, v in result.items() if k not in ('kinds', 'calibration')} }")
    return out


def evaluate(
    folder: Path,
    modes: tuple[str, ...] = MODES,
    workdir: Path | None = None,
    split: str = "test",
    max_queries: int = 0,
    settings: Settings | None = None,
    calibration: bool = False,
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

    def judged(qid: str, rows: list[tuple[int, ...]]) -> list[str]:
        return judged_ids(qid, [tuple(corpus_ids.get(d, "") for d in row) for row in rows], dataset.qrels[qid])

    def judge(qid: str, rows: list[tuple[int, ...]]) -> dict[str, float]:
        ranked, rels = judged(qid, rows), dataset.qrels[qid]
        return {"ndcg@10": ndcg_at(ranked, rels), "recall@100": recall_at(ranked, rels), "mrr@10": mrr_at(ranked, rels)}

    def relevant(qid: str, rows: list[tuple[int, ...]]) -> list[bool]:
        return [dataset.qrels[qid].get(d, 0) > 0 for d in judged(qid, rows)]

    out: dict = {
        "dataset": dataset.name,
        "split": split,
        "queries": len(queries),
        "documents": len(dataset.corpus),
        "index_s": round(index_s, 1),
    }
    try:
        out["modes"] = _timed_modes(engine, modes, queries, judge, relevant, calibration=calibration)
    finally:
        engine.close()
    return out


def indexed_folder(folder: Path, workdir: Path | None, settings: Settings | None) -> tuple[Engine, float]:
    """An engine over an index of `folder` (kept under --workdir, so a second run only checks for
    changes), brought up to date; and the seconds that took."""
    resolved = folder.expanduser().resolve()
    if not resolved.is_dir():
        raise FindlingError(f"no folder at {folder}: give the folder the questions are about")
    slug = f"{resolved.name}-{hashlib.sha1(str(resolved).encode()).hexdigest()[:8]}"
    work = (workdir or Path(tempfile.mkdtemp(prefix="findling-eval-"))) / slug
    work.mkdir(parents=True, exist_ok=True)
    engine = Engine(work / "home", settings=settings or Settings())
    try:
        engine.add_source(resolved)
        started = time.perf_counter()
        report = engine.index()
    except BaseException:
        engine.close()
        raise
    index_s = time.perf_counter() - started
    _log(_index_line(report, index_s))
    return engine, index_s


def evaluate_known_items(
    questions: Path,
    folder: Path,
    modes: tuple[str, ...] = MODES,
    workdir: Path | None = None,
    max_queries: int = 0,
    settings: Settings | None = None,
    calibration: bool = False,
) -> dict:
    """Index `folder` (kept under --workdir, so a second run only checks for changes) and
    ask each question in each mode."""
    items = load_known_items(questions)
    if max_queries:
        items = items[:max_queries]
    resolved = folder.expanduser().resolve()
    engine, index_s = indexed_folder(folder, workdir, settings)
    try:
        paths = engine.document_paths()
        names = {doc_id: result_name(path) for doc_id, path in paths.items()}
        queries = [(str(i), item.query) for i, item in enumerate(items)]
        targets = {str(i): item.targets for i, item in enumerate(items)}

        def relevant(qid: str, rows: list[tuple[int, ...]]) -> list[bool]:
            """A result answers where it or a copy it names is a target (a page listed under
            its source names the page)."""
            return [any(d in paths and answers(paths[d], resolved, targets[qid]) for d in row) for row in rows]

        def judge(qid: str, rows: list[tuple[int, ...]]) -> dict[str, float]:
            first = next((rank for rank, hit in enumerate(relevant(qid, rows[:10]), 1) if hit), 0)
            return {"mrr@10": 1.0 / first if first else 0.0, "hit@1": float(first == 1), "hit@3": float(0 < first <= 3)}

        kinds = {str(i): item.kind for i, item in enumerate(items)}
        return {
            "dataset": questions.name,
            "folder": str(resolved),
            "queries": len(items),
            "documents": len(names),
            "index_s": round(index_s, 1),
            "modes": _timed_modes(engine, modes, queries, judge, relevant, kinds, calibration),
        }
    finally:
        engine.close()


def rises(table: list[dict], least: int = 20) -> bool:
    """Whether the share of relevant results never falls from one bucket to the next by
    more than sampling error explains (two standard errors of the difference)."""
    rows = [r for r in table if r["relevant"] is not None and r["results"] >= least]
    for low, high in zip(rows, rows[1:]):
        p = (low["relevant"] * low["results"] + high["relevant"] * high["results"]) / (low["results"] + high["results"])
        error = 2 * math.sqrt(max(p * (1 - p), 1e-9) * (1 / low["results"] + 1 / high["results"]))
        if high["relevant"] < low["relevant"] - error:
            return False
    return True


def print_table(result: dict) -> None:
    split = f"{result['split']}: " if "split" in result else ""
    print(
        f"{result['dataset']} ({split}{result['queries']} queries, {result['documents']} documents, "
        f"indexed in {result['index_s']}s)"
    )
    modes = result["modes"]
    if not modes:
        return
    keys = [k for k in next(iter(modes.values())) if k not in ("p50_ms", "p95_ms", "notes", "kinds", "calibration")]
    print(f"{'mode':<15}" + "".join(f"{k:>11}" for k in keys) + f"{'p50 ms':>9}{'p95 ms':>9}")
    for mode, m in modes.items():
        print(f"{mode:<15}" + "".join(f"{m[k]:>11.4f}" for k in keys) + f"{m['p50_ms']:>9.1f}{m['p95_ms']:>9.1f}")
        for kind, km in m.get("kinds", {}).items():
            print(f"  {kind + ' (' + str(km['queries']) + ')':<13}" + "".join(f"{km[k]:>11.4f}" for k in keys))
        for note in m["notes"]:
            print(f"{'':<15}note: {note}")
    for mode, m in modes.items():
        if "calibration" not in m:
            continue
        print(f"\ncalibration, {mode}: share of the top {CALIBRATION_DEPTH} results that are relevant, by score")
        for row in m["calibration"]:
            share = "" if row["relevant"] is None else f"{row['relevant']:.3f}"
            print(f"  {row['from']:.1f}–{row['to']:.1f} {row['results']:>7} results  {share:>6}")
        print(
            f"  monotonic (buckets with 20+ results, within two standard errors): "
            f"{'yes' if rises(m['calibration']) else 'no'}"
        )
