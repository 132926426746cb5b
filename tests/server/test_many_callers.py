"""Many callers on one index at once, as agents make them: bursts of CLI processes, owners that
exit while they answer, and an MCP server started with the bare environment an MCP client gives."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment

from findling.records import SearchMode, SearchRequest
from findling.server.handle import IndexHandle

pytestmark = [pytest.mark.slow, *(pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets and signals"),)]

# It leaves as the findling command does (cli.run): through interpreter teardown, DuckDB
# can abort a process whose threads used it (duckdb#13904; seen once here in a full suite run).
_OWNER = """
import os, sys
from findling.server.handle import IndexHandle
handle = IndexHandle.open(sys.argv[1])
print("ready", flush=True)
sys.stdin.readline()
handle.close()
print("closed", flush=True)
os._exit(0)
"""


def _notes(folder: Path, count: int) -> Path:
    folder.mkdir(exist_ok=True)
    for i in range(count):
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\nThe borrow checker, note {i}.\n")
    return folder


def _env(home: Path, **extra: str) -> dict[str, str]:
    return dict(os.environ, FINDLING_HOME=str(home), NO_COLOR="1", **extra)


class _Owner:
    """Another process that owns the index until told to close (gracefully, as a CLI command or
    a server does when it ends)."""

    def __init__(self, home: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-c", _OWNER, str(home)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        assert self.proc.stdout is not None and self.proc.stdout.readline().strip() == "ready"

    def close(self) -> None:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write("close\n")
        self.proc.stdin.flush()
        assert self.proc.stdout.readline().strip() == "closed"
        assert self.proc.wait(30) == 0

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.mark.slow
def test_bursts_of_twenty_cli_processes_all_answer_and_none_hangs(tmp_path, settings):
    home = tmp_path / "home"
    with IndexHandle.open(home, settings=settings) as handle:
        handle.add_source(str(_notes(tmp_path / "docs", 5)))
        handle.index()
    command = [sys.executable, "-m", "findling", "search", "borrow", "--json"]
    for _ in range(10):
        procs = [
            subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(home))
            for _ in range(20)
        ]
        try:
            answers = [p.communicate(timeout=120) for p in procs]
        finally:
            for p in procs:  # none is left running, whatever happened
                if p.poll() is None:
                    p.kill()
        for proc, (out, err) in zip(procs, answers, strict=True):
            assert proc.returncode == 0, err
            assert '"total": 5' in out


def test_an_owner_that_exits_hands_a_clients_indexing_run_over(tmp_path):
    home = tmp_path / "home"
    owner = _Owner(home)
    try:
        client = IndexHandle.open(home)
        assert client.role == "client"
        client.add_source(str(_notes(tmp_path / "docs", 400)))
        closing: list[threading.Thread] = []

        def close_owner_on_first_file(p) -> None:
            if p.phase == "indexing" and not closing:
                closing.append(threading.Thread(target=owner.close))
                closing[0].start()

        report = client.index(progress=close_owner_on_first_file)
        closing[0].join(60)
        assert owner.proc.returncode == 0  # it exited while the run went on
        assert report.added == 400 and not report.cancelled and report.failed == 0
        assert client.role == "owner"  # the run went on here, the index now held by this process
        assert client.find(SearchRequest("borrow", mode=SearchMode.KEYWORD, limit=1)).total_matched == 400
        client.close()
    finally:
        owner.kill()


def test_an_owner_that_exits_answers_every_read_it_was_given(tmp_path, settings):
    home = tmp_path / "home"
    with IndexHandle.open(home, settings=settings) as handle:
        handle.add_source(str(_notes(tmp_path / "docs", 30)))
        handle.index()
    owner = _Owner(home)
    errors: list[BaseException] = []
    counts: list[int] = []
    stop = threading.Event()

    def caller() -> None:
        try:
            with IndexHandle.open(home) as client:
                while not stop.is_set():
                    counts.append(client.find(SearchRequest("borrow", mode=SearchMode.KEYWORD)).total_matched)
                    client.status()
        except BaseException as exc:
            errors.append(exc)

    callers = [threading.Thread(target=caller) for _ in range(6)]
    try:
        for t in callers:
            t.start()
        while len(counts) < 30:
            stop.wait(0.01)
        owner.close()  # while the six are calling
        seen = len(counts)
        while len(counts) < seen + 30 and not errors:
            stop.wait(0.01)
    finally:
        stop.set()
        for t in callers:
            t.join(60)
        owner.kill()
    assert not errors, errors
    assert set(counts) == {30}


def test_mcp_started_with_the_sdks_bare_environment_reaches_the_owner(tmp_path, settings):
    """MCP clients start servers with only HOME, PATH, SHELL, TERM, USER and LOGNAME (plus what
    their config names); the owner here has a runtime folder of its own in XDG_RUNTIME_DIR."""
    home = tmp_path / "home"
    with IndexHandle.open(home, settings=settings) as handle:
        handle.add_source(str(_notes(tmp_path / "docs", 3)))
        handle.index()
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    owner = _Owner(home, env=_env(home, XDG_RUNTIME_DIR=str(runtime), TMPDIR=str(tmp_path)))
    try:
        bare = dict(get_default_environment(), FINDLING_HOME=str(home))
        assert "XDG_RUNTIME_DIR" not in bare and "TMPDIR" not in bare
        params = StdioServerParameters(command=sys.executable, args=["-m", "findling", "mcp"], env=bare)

        async def session() -> dict:
            async with Client(params) as client:
                result = await client.call_tool("status", {})
                assert not result.is_error, result.content[0].text
                return result.structured_content

        status = anyio.run(session)
        assert status["documents"] == 3
        assert owner.proc.poll() is None  # still the owner: the MCP server was its client
    finally:
        owner.close()
