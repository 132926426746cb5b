"""Kill -9 in the middle of indexing: the index opens, nothing is half-written or
duplicated, and the next run finishes the job."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.server.handle import IndexHandle
from findling.settings import Settings
from tests.helpers import assert_index_consistent, wait_until, write

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each

N_FILES = 1500
N_EMBED = 600


def _corpus(folder):
    for i in range(N_FILES):
        words = " ".join(f"w{(i * 7 + j) % 997}" for j in range(120))
        write(folder / f"d{i // 100}" / f"f{i}.md", f"# File {i}\n\nunique{i} {words}\n")


def _check_consistent(home) -> int:
    with Engine(home, settings=Settings()) as engine:
        total = assert_index_consistent(engine)
        chunkless = (
            engine.database.cursor()
            .execute(
                "SELECT count(*) FROM documents d WHERE status = 'ok' AND NOT EXISTS "
                "(SELECT 1 FROM chunks c WHERE c.doc_id = d.id)"
            )
            .fetchone()[0]
        )
        assert chunkless == 0, "a document visible without its chunks"
        return total


def _wait_for_first_commit(home, proc, timeout=60.0):
    """The write-ahead log appears with the first committed batch: kill after that."""
    wal = home / "findling.duckdb.wal"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if wal.exists() and wal.stat().st_size > 0:
            return
        time.sleep(0.01)
    pytest.fail(
        f"no batch was committed before the run {'ended' if proc.poll() is not None else 'timed out'}: "
        "the kill could not land mid-run"
    )


def _start_index(home, docs, settings_toml: str) -> tuple[dict, subprocess.Popen]:
    """Add `docs` to a fresh index at `home`, then start `findling index` in its own
    process group (so a kill takes its worker processes too)."""
    home.mkdir()
    (home / "settings.toml").write_text(settings_toml)
    env = {**os.environ, "FINDLING_HOME": str(home)}
    subprocess.run(
        [sys.executable, "-m", "findling", "add", "--no-index", str(docs)], env=env, check=True, capture_output=True
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "findling", "index"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    return env, proc


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.0, 0.3, 0.9])
def test_kill_during_index_then_resume(tmp_path, delay):
    docs = tmp_path / "docs"
    _corpus(docs)
    home = tmp_path / "home"
    env, proc = _start_index(home, docs, "[index]\nbatch_files = 50\nworkers = 1\n")
    _wait_for_first_commit(home, proc)
    time.sleep(delay)
    os.killpg(proc.pid, signal.SIGKILL)  # the worker processes die with it
    proc.wait()
    partial = _check_consistent(home)
    print(f"killed after {delay}s with {partial} of {N_FILES} indexed")
    assert partial < N_FILES, "the kill landed after the run: nothing to resume"
    subprocess.run([sys.executable, "-m", "findling", "index"], env=env, check=True, capture_output=True)
    assert _check_consistent(home) == N_FILES
    with Engine(home) as engine:
        assert engine.find(SearchRequest("unique777", mode=SearchMode.KEYWORD)).hits[0].path.endswith("f777.md")
        assert engine.find(SearchRequest("w5", mode=SearchMode.KEYWORD, limit=5000)).total_matched == sum(
            1 for i in range(N_FILES) if any((i * 7 + j) % 997 == 5 for j in range(120))
        )


@pytest.mark.slow
def test_kill_during_embedding_then_resume(tmp_path, embedder_installed):
    docs = tmp_path / "docs"
    for i in range(N_EMBED):
        write(docs / f"e{i}.txt", f"Note {i}: " + " ".join(f"topic{(i * j) % 89}" for j in range(60)))
    home = tmp_path / "home"
    env, proc = _start_index(home, docs, "[models]\nthreads = 1\n")
    _wait_for_first_commit(home, proc)  # from here the run owns the index and answers others

    def embedding_begun() -> bool:
        if proc.poll() is not None:
            return True
        with IndexHandle.open(home, serve=False) as running:  # a client of the run, asking how far it got
            return running.status().embedded > 0

    wait_until(embedding_begun, 120, "the first documents to be embedded")
    assert proc.poll() is None, "the run ended before the kill"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()

    def embedded() -> tuple[int, int]:
        with Engine(home) as engine:
            assert_index_consistent(engine)
            cur = engine.database.cursor()
            table = cur.execute("SELECT table_name FROM vector_models").fetchall()
            table = table[0] if table else None
            if table is None:
                return 0, 0
            # each document's windows are written in one transaction: all of them or none
            per_doc = cur.execute(
                f"""SELECT count(DISTINCT v.doc_id), count(*) FILTER (c.n IS NULL OR v.windows <> c.n)
                    FROM (SELECT doc_id, count(DISTINCT ordinal) AS windows FROM {table[0]} GROUP BY doc_id) v
                    LEFT JOIN (SELECT doc_id, count(*) AS n FROM chunks GROUP BY doc_id) c USING (doc_id)"""
            ).fetchone()
            return per_doc

    partial_docs, broken = embedded()
    assert broken == 0
    print(f"killed with {partial_docs} of {N_EMBED} documents embedded")
    assert 0 < partial_docs < N_EMBED, "the kill did not land during embedding: nothing would prove the resume"
    subprocess.run([sys.executable, "-m", "findling", "index"], env=env, check=True, capture_output=True)
    done_docs, broken = embedded()
    assert (done_docs, broken) == (N_EMBED, 0)
    with Engine(home) as engine:
        assert engine.find(SearchRequest("Note 17", mode=SearchMode.SEMANTIC, limit=5)).hits
