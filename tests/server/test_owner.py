"""One index, many processes: the first to open it owns it and serves the others through its
endpoint; the others get the same answers; a dead owner blocks nobody."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from findling.errors import FindlingError, NotFoundError
from findling.records import SearchMode, SearchRequest
from findling.server.endpoint import address
from findling.server.handle import IndexHandle


def _cli(*args: str, home: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, FINDLING_HOME=str(home), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "findling", *args], capture_output=True, text=True, env=env, timeout=timeout
    )


def _notes(folder: Path, count: int = 3) -> Path:
    folder.mkdir(exist_ok=True)
    for i in range(count):
        (folder / f"note{i}.md").write_text(f"# Note {i}\n\nThe borrow checker, note {i}.\nAnother line {i}.\n")
    return folder


def test_a_cli_command_while_another_process_owns_the_index_gets_the_same_answer(tmp_path, settings):
    home = tmp_path / "home"
    docs = _notes(tmp_path / "docs")
    with IndexHandle.open(home, settings=settings) as owner:
        assert owner.role == "owner"
        owner.add_source(str(docs))
        owner.index()
        as_client = _cli("search", "borrow", "-n", "50", home=home)
        status = _cli("status", home=home)
        missing = _cli("get", "/etc/hostname", home=home)
    alone = _cli("search", "borrow", "-n", "50", home=home)
    assert as_client.returncode == 0, as_client.stderr
    assert "note0.md" in as_client.stdout and as_client.stdout == alone.stdout
    assert "3 indexed" in status.stdout
    assert missing.returncode == 2 and "not under any indexed folder" in missing.stderr


def test_a_client_gets_index_progress_and_its_relative_paths_mean_its_own_folder(tmp_path, settings, monkeypatch):
    home = tmp_path / "home"
    _notes(tmp_path / "docs", 5)
    with IndexHandle.open(home, settings=settings) as owner, IndexHandle.open(home) as client:
        assert client.role == "client" and owner.role == "owner"
        monkeypatch.chdir(tmp_path)
        source = client.add_source("docs")
        assert source.path == str(tmp_path / "docs")
        seen = []
        report = client.index(progress=seen.append)
        assert report.added == 5
        assert any(p.phase == "indexing" for p in seen) and seen[-1].phase == "done"
        hit = client.find(SearchRequest("borrow", mode=SearchMode.KEYWORD)).hits[0]
        piece = client.get(f"#{hit.docid}:3:1")
        assert piece.text == f"The borrow checker, note {hit.path[-4]}.\n" and piece.first_line == 3
        with pytest.raises(NotFoundError):
            client.get("#000000")


def _indexed_owner(tmp_path: Path, settings) -> tuple[Path, IndexHandle]:
    """An owner of a fresh index of three notes."""
    home = tmp_path / "home"
    owner = IndexHandle.open(home, settings=settings)
    owner.add_source(str(_notes(tmp_path / "docs")))
    owner.index()
    return home, owner


def test_the_owner_leaving_makes_the_next_client_call_take_the_index(tmp_path, settings):
    home, owner = _indexed_owner(tmp_path, settings)
    client = IndexHandle.open(home)
    assert client.role == "client"
    owner.close()
    assert client.find(SearchRequest("borrow", mode=SearchMode.KEYWORD)).total_matched == 3
    assert client.role == "owner"
    client.close()


_OWNER = """
import sys, time
from findling.server.handle import IndexHandle
handle = IndexHandle.open(sys.argv[1])
print("ready", flush=True)
time.sleep(600)
"""


def _start_owner(home: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", _OWNER, str(home)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
@pytest.mark.slow
def test_killing_the_owner_mid_request_fails_that_request_and_the_next_command_starts_cleanly(tmp_path):
    home = tmp_path / "home"
    docs = _notes(tmp_path / "docs", 400)
    owner = _start_owner(home)
    try:
        client = IndexHandle.open(home)
        assert client.role == "client"
        client.add_source(str(docs))
        killed = threading.Event()

        def kill_on_first_file(p) -> None:
            if p.phase == "indexing" and not killed.is_set():
                killed.set()
                os.kill(owner.pid, signal.SIGKILL)

        with pytest.raises(FindlingError, match="stopped while answering"):
            client.index(progress=kill_on_first_file)
        assert killed.is_set()
        owner.wait(10)
        client.close()
    finally:
        owner.kill()
    assert Path(str(address(home))).exists()  # the dead owner's socket is still there…
    done = _cli("index", home=home, timeout=120)  # …and blocks nothing
    assert done.returncode == 0, done.stderr
    found = _cli("search", "borrow", "-n", "1", "--json", home=home)
    assert found.returncode == 0 and '"total": 400' in found.stdout


def test_the_window_takes_the_index_over_from_a_headless_owner(tmp_path, settings):
    home, headless = _indexed_owner(tmp_path, settings)
    started = time.monotonic()
    app = IndexHandle.open(home, kind="app")
    try:
        assert app.role == "owner" and headless.role in ("client", "owner")
        # The former owner's next call is answered by the window's engine.
        assert headless.find(SearchRequest("borrow", mode=SearchMode.KEYWORD)).total_matched == 3
        assert headless.role == "client"
        assert time.monotonic() - started < 30
    finally:
        headless.close()
        app.close()


def test_the_window_takes_the_index_from_an_owner_that_leaves_without_answering(tmp_path, settings, monkeypatch):
    """A background `findling index` whose run stops for the handover exits at once, before its
    reply is sent: the window sees the connection close and owns the index all the same."""
    home, headless = _indexed_owner(tmp_path, settings)

    def leaves_without_a_word(conn) -> None:
        assert conn.recv() == ("handover",)  # the only request in this test
        headless._release()  # lets the index go, then its process would exit: no reply

    monkeypatch.setattr(headless._server, "_handler", leaves_without_a_word)
    app = IndexHandle.open(home, kind="app")
    try:
        assert app.role == "owner"
        assert app.find(SearchRequest("borrow", mode=SearchMode.KEYWORD)).total_matched == 3
    finally:
        app.close()
        headless.close()
