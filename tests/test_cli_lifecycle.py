"""The command line at the edges of its life: `add` then `index` at once (the background run
gives the index to the command and leaves), and a reader that leaves a pipe early."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from findling.server.handle import IndexHandle, _ping
from tests.helpers import write

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each


def _findling(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "findling", *args], capture_output=True, text=True, env=env, timeout=300
    )


def _notes(folder: Path, count: int) -> None:
    for i in range(count):
        words = " ".join(f"topic{(i * j) % 97} river{(i + j) % 13}" for j in range(400))
        write(folder / f"note{i}.txt", f"note {i}\n\n{words}")


@pytest.mark.slow
def test_index_right_after_add_takes_the_index_from_the_background_run(tmp_path, embedder_installed):
    """`index` once stopped with "stopped; 0 files committed" (exit 130): the background run
    `add` started let the index go mid-embedding and the command counted that as its own stop."""
    docs, home = tmp_path / "docs", tmp_path / "clihome"
    _notes(docs, 40)
    env = {**os.environ, "FINDLING_HOME": str(home), "NO_COLOR": "1"}
    added = _findling(env, "add", str(docs))
    assert added.returncode == 0 and "in the background" in added.stdout, added.stderr
    # the detached run takes a while to start on a loaded machine: one that started after
    # `index` had done the work once answered the ping below on its way out
    _wait_for_owner(home, "background", within_s=60.0)
    indexed = _findling(env, "index")
    assert indexed.returncode == 0, indexed.stdout + indexed.stderr
    assert "stopped" not in indexed.stderr
    assert _ping(home) == ""  # nothing holds the index: the background run left when asked
    status = json.loads(_findling(env, "status", "--json").stdout)
    assert status["embedded"] == status["embeddable"] == 40


def _wait_for_owner(home: Path, kind: str, within_s: float) -> None:
    deadline = time.monotonic() + within_s
    while _ping(home) != kind:
        assert time.monotonic() < deadline, f"no {kind} run holds the index after {within_s:.0f} s"
        time.sleep(0.02)


def test_a_background_run_leaves_when_a_window_holds_the_index(tmp_path, embedder_installed):
    """The rule's other half: with a window open the window embeds, so the run `add` would
    start does nothing (it used to wait on the window as its client, and outlive it)."""
    from findling.server.background import open_for_background

    home = tmp_path / "home"
    with IndexHandle.open(home, kind="app"):
        assert open_for_background(str(home)) is None


def _left_early(env: dict[str, str], *args: str) -> tuple[int, str]:
    """Run a command whose reader closes the pipe before reading a byte."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "findling", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    return proc.wait(60), err


@pytest.mark.parametrize("owner", [False, True], ids=["alone", "beside-an-owner"])
def test_a_reader_that_leaves_the_pipe_is_no_error(tmp_path, owner):
    """`findling search … | head -1` printed a twelve-line BrokenPipeError (the short path that
    asks the owner of the index); `status | head` too."""
    docs, home = tmp_path / "docs", tmp_path / "home"
    for i in range(300):
        write(docs / f"pipe{i}.md", f"# pipe {i}\n\nwater flows through pipe number {i}")
    env = {**os.environ, "FINDLING_HOME": str(home), "NO_COLOR": "1"}
    assert _findling(env, "add", str(docs)).returncode == 0
    holder = IndexHandle.open(home) if owner else None
    try:
        for args in (("search", "pipe", "-n", "300"), ("status",), ("search", "pipe", "-n", "300", "--json")):
            code, err = _left_early(env, *args)
            assert (code, err) == (0, ""), (args, err)
    finally:
        if holder is not None:
            holder.close()
