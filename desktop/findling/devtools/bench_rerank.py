"""`findling bench --rerank FOLDER`: how long reranking the top candidates takes, per query,
on an index of FOLDER (kept under --workdir), with the settings' passage length and count.
The goal is the top 20 in 300 ms p50 on a 2-core CPU."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from findling.engine import Engine
from findling.errors import FindlingError
from findling.records import SearchRequest
from findling.settings import Settings

_QUESTIONS = (
    "how do I restore a single table from a backup",
    "why is my query slow",
    "configure connection limits",
    "what does the error permission denied mean",
    "change the default port",
    "set up replication between servers",
    "which settings control memory use",
    "how to write a trigger",
    "delete old rows automatically",
    "compare two timestamps across time zones",
    "export results to a csv file",
    "who can read this table",
)


def bench_rerank(
    folder: Path, workdir: Path | None = None, settings: Settings | None = None, rounds: int = 3
) -> dict[str, object]:
    if not folder.is_dir():
        raise FindlingError(f"no folder at {folder}")
    work = workdir or Path(tempfile.mkdtemp(prefix="findling-bench-rerank-"))
    engine = Engine(work / "home", settings=settings or Settings())
    try:
        engine.add_source(folder)
        engine.index()
        reason = engine.models.unavailable_reason("reranker")
        if reason is not None:
            raise FindlingError(f"cannot measure reranking: {reason}")
        engine.find(
            SearchRequest(_QUESTIONS[0], rerank="cross-encoder", expand=False)
        )  # load the model outside the timings
        rerank_ms: list[float] = []
        passages: list[int] = []
        for _ in range(rounds):
            for question in _QUESTIONS:
                explain = engine.find(SearchRequest(question, rerank="cross-encoder", expand=False)).explain
                assert explain is not None
                stage = explain.stage("rerank")
                if stage is not None and stage.status == "ran":
                    rerank_ms.append(stage.ms)
                    passages.append(int(stage.detail.get("passages", 0)))
        if not rerank_ms:
            raise FindlingError("the reranker never ran")
        ordered = sorted(rerank_ms)
        s = engine.settings.pipeline
        report: dict[str, object] = {
            "candidates": s.rerank_top,
            "passages_per_query": round(statistics.fmean(passages), 1),
            "passage_chars": s.rerank_chars,
            "max_tokens": s.rerank_max_tokens,
            "threads": engine.settings.models.threads,
            "queries": len(ordered),
            "p50_ms": round(statistics.median(ordered), 1),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 1),
        }
        print(f"rerank: {report}", file=sys.stderr)
        return report
    finally:
        engine.close()
