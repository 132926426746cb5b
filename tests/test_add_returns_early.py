"""`findling add` returns once the folder is keyword-searchable; embedding goes on in the
background, and a text run never waits for another run's embedding."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from tests.helpers import wait_until, write

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each


def _notes(folder, count, word):
    for i in range(count):
        write(folder / f"{word}{i}.txt", f"{word} note {i}: " + " ".join(f"topic{(i * j) % 89}" for j in range(60)))


@pytest.mark.slow
def test_a_text_run_does_not_wait_for_a_running_embedding(tmp_path, settings, embedder_installed):
    settings.models.threads = 1
    first, second = tmp_path / "first", tmp_path / "second"
    _notes(first, 300, "alpha")
    write(second / "late.txt", "a zebra arrived late")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(first)
        embedding = threading.Event()

        def progress(p):
            if p.phase == "embedding" and p.done > 0:
                embedding.set()

        reports = []
        run = threading.Thread(target=lambda: reports.append(engine.index(progress=progress)))
        run.start()
        wait_until(embedding.is_set, 120, "the first run to be embedding")
        engine.add_source(second)
        report = engine.index(embed=False)  # while the first run embeds
        assert report.added == 1 and report.embedding is None
        assert run.is_alive(), "the text run waited for the whole embedding"
        hits = engine.find(SearchRequest("zebra", SearchMode.KEYWORD)).hits
        assert [os.path.basename(h.path) for h in hits] == ["late.txt"]  # keyword-searchable at once
        run.join(300)
        (first_report,) = reports
        assert not first_report.embedding.cancelled  # it stepped aside and went on
        status = engine.status()
        assert status.embedded == status.embeddable == 301  # the late file embedded by the same run


@pytest.mark.slow
def test_add_returns_when_keyword_searchable_and_embeds_in_the_background(tmp_path, embedder_installed):
    docs, home = tmp_path / "docs", tmp_path / "clihome"
    _notes(docs, 200, "beta")
    env = {**os.environ, "FINDLING_HOME": str(home), "NO_COLOR": "1"}
    home.mkdir()
    (home / "settings.toml").write_text("[models]\nthreads = 1\n")

    def findling(*args):
        proc = subprocess.run(
            [sys.executable, "-m", "findling", *args], capture_output=True, text=True, env=env, timeout=300
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    out = findling("add", str(docs))
    assert "200 added" in out and "keyword-searchable now; embedding" in out and "in the background" in out
    assert "beta7.txt" in findling("search", "beta", "note", "7", "--json")

    def embedded():
        status = json.loads(findling("status", "--json"))
        return status["embedded"] == status["embeddable"] == 200

    wait_until(embedded, 300, "the background run to embed every document")
    wait_until(lambda: not (home / "owner.endpoint").exists(), 60, "the background run to let the index go")
    out = findling("add", "--wait", str(docs))  # today's behaviour for scripts: nothing left to embed
    assert "keyword-searchable now" not in out
