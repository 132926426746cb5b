"""A big folder's run says what it does and what it left (issue 62, 4): progress lines reach a
file or a pipe, and after a stopped run `status` and `doctor` say how many files were found and
not read, until a run reads them."""

from __future__ import annotations

import threading

from findling.cli import main
from findling.cli_indexing import ProgressBar
from findling.engine import Engine
from findling.faces.presentation import waiting_line
from tests.helpers import write


def test_progress_reaches_a_pipe_in_plain_lines(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(ProgressBar, "LOG_EVERY_S", 0.0)
    for i in range(30):
        write(tmp_path / "docs" / f"note{i:02d}.txt", f"note number {i} about harbour tides")
    assert main(["add", str(tmp_path / "docs")]) == 0
    said = capsys.readouterr().err.splitlines()
    assert "findling: scanning folders…" in said
    assert "findling: 30 of 30 files read (100%)" in said, said
    assert not any("\r" in line or "\033" in line for line in said)  # no redrawing for a pipe


def test_a_stopped_run_leaves_its_unread_files_said_until_read(tmp_path, settings, capsys, monkeypatch):
    docs = tmp_path / "docs"
    for i in range(60):
        write(docs / f"note{i:02d}.txt", f"note number {i} about harbour tides")
    settings.index.batch_files = 10
    settings.index.workers = 1
    home = tmp_path / "home"
    stop = threading.Event()

    def progress(p) -> None:
        if p.phase == "indexing" and p.done >= 25:
            stop.set()

    with Engine(home, settings=settings) as engine:
        engine.add_source(str(docs))
        report = engine.index(progress=progress, cancel=stop, embed=False)
        assert report.cancelled
        status = engine.status()
        [folder] = status.sources
        assert folder.indexed + folder.waiting == 60 and folder.waiting > 0, folder
        assert waiting_line(status, "terminal") == (
            f"{folder.waiting} files were found but not read yet: run findling index to read them"
        )
    monkeypatch.setenv("FINDLING_HOME", str(home))
    capsys.readouterr()
    assert main(["status"]) == 0
    assert f"{folder.waiting} not read yet" in capsys.readouterr().out
    assert main(["doctor"]) in (0, 1)
    assert "found but not read yet" in capsys.readouterr().out
    assert main(["index"]) == 0
    capsys.readouterr()
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "60 indexed" in out and "not read yet" not in out


def test_index_says_embeddings_time_left_in_a_pipe_as_the_window_does(
    tmp_path, capsys, monkeypatch, embedder_installed
):
    """Issue 61: the time left is said the same in the window, `status`, `index` and MCP. `index`
    printed "12 of 40 documents embedded (30%)" with no time at all."""
    import re

    from findling.ingest import embed_pace

    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(ProgressBar, "LOG_EVERY_S", 0.0)
    monkeypatch.setattr(embed_pace, "SETTLE_S", 0.0)  # a rate from the first batch on
    for i in range(80):
        write(
            tmp_path / "docs" / f"note{i:02d}.md", f"# Tides {i}\n\n" + f"Harbour tide table {i} for the ferry. " * 90
        )
    assert main(["add", "--wait", str(tmp_path / "docs")]) == 0
    said = [line for line in capsys.readouterr().err.splitlines() if "Embedding" in line]
    assert said and all(line.startswith("findling: Embedding") for line in said), said
    timed = r"(about \d+(\.\d)? (min|h)|less than a minute)"
    assert any(
        re.fullmatch(
            rf"findling: Embedding: \d+ of 80 documents searchable by meaning, all in {timed}; "
            rf"every passage in {timed}",
            line,
        )
        for line in said
    ), said
    assert any(
        re.fullmatch(rf"findling: Embedding every passage: \d+ of \d+ documents whole, {timed} left", line)
        for line in said
    ), said
