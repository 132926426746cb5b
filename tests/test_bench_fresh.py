"""`findling bench --vectors N` on a fresh install (no embedder) says the embedder is missing in
its JSON instead of crashing on a Note it could not serialise."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def test_bench_vectors_without_an_embedder_reports_it(tmp_path):
    env = {
        **os.environ,
        "HOME": str(tmp_path),
        "XDG_DATA_HOME": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
        "FINDLING_HOME": str(tmp_path / "home"),
    }
    env.pop("FINDLING_MODELS", None)
    proc = subprocess.run(
        [sys.executable, "-m", "findling", "bench", "--vectors", "2000", "--workdir", str(tmp_path / "work")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert "missing" in report["embedder"]["skipped"] or "not installed" in report["embedder"]["skipped"]
    assert report["vector_search"]


def test_the_benchs_pasted_paragraphs_fit_the_cap_every_face_has(tmp_path):
    """`findling bench --docs 100000` stopped at its paragraph queries (150-250 words, up to 2,029
    characters) once every face refused searches over 2,000 characters."""
    import random

    from findling.devtools.bench import _long_queries
    from findling.errors import MAX_QUERY_CHARS

    (tmp_path / "a.md").write_text(" ".join(f"characteristically{i}" for i in range(400)), encoding="utf-8")
    queries = _long_queries(tmp_path, 20, random.Random(1))
    assert len(queries) == 20 and all(0 < len(q) <= MAX_QUERY_CHARS for q in queries)
    assert all(len(q.split()) >= 90 for q in queries)  # still a pasted paragraph
