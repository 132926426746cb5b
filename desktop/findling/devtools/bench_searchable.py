"""`findling bench --time-to-searchable FOLDER`: from dropping a folder on an empty index to
keyword-searchable (text committed) and to fully embedded, with the embedder's throughput.
Uses the installed models (the same manifest and cache as the app)."""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from findling.devtools.memory import peak_rss_mb
from findling.engine import Engine
from findling.records import IndexProgress, SearchMode, SearchRequest
from findling.settings import Settings


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def bench_time_to_searchable(folder: Path, workdir: Path | None = None, settings: Settings | None = None) -> dict:
    work = workdir or Path(tempfile.mkdtemp(prefix="findling-tts-"))
    home = work / "tts-home"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    marks: dict[str, float] = {}
    last_log = [0.0]

    def progress(p: IndexProgress) -> None:
        now = time.perf_counter()
        if p.phase == "embedding":
            marks.setdefault("searchable", now)
        if now - last_log[0] > 10:
            last_log[0] = now
            _log(f"{now - started:7.1f} s  {p.phase} {p.done}/{p.total}")

    with Engine(home, settings=settings or Settings()) as engine:
        started = time.perf_counter()
        engine.add_source(folder)
        report = engine.index(progress)
        finished = time.perf_counter()
        searchable = marks.get("searchable", finished)
        first_query_ms = _timed_ms(lambda: engine.find(SearchRequest("function", mode=SearchMode.KEYWORD, limit=10)))
        status = engine.status()
        embedded = report.embedding
        embed_s = finished - searchable
        result: dict[str, object] = {
            "folder": str(folder),
            "documents": status.indexed,
            "failed": status.failed,
            "skipped": status.skipped,
            "chunks": status.chunks,
            "text_mb": round(status.size_bytes / 1e6, 1),
            "keyword_searchable_s": round(searchable - started, 1),
            "fully_embedded_s": round(finished - started, 1) if embedded and not embedded.skipped else None,
            "embedding_s": round(embed_s, 1),
            "embedding": {
                "model": embedded.model if embedded else "",
                "skipped": embedded.skipped.text if embedded and embedded.skipped else "",
                "windows": embedded.vectors if embedded else 0,
                "windows_computed": embedded.computed if embedded else 0,
                "windows_per_s": round(embedded.computed / embed_s, 1) if embedded and embed_s > 0 else 0,
                "provider": engine.models.embedder().provider if embedded and not embedded.skipped else "",
            },
            "first_keyword_query_ms": round(first_query_ms, 1),
            "peak_rss_mb": round(peak_rss_mb(), 1),
        }
    return result


def _timed_ms(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return (time.perf_counter() - started) * 1000
