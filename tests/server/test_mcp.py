"""The MCP server driven by the SDK's own client, over stdio and over Streamable HTTP, and the
HTTP API's guards (Host, Origin, bearer token)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from findling.server.handle import IndexHandle

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each

READ_TOOLS = {"query", "search", "vsearch", "get", "multi_get", "similar", "status", "why_not", "symbols", "ask"}
WRITE_TOOLS = {"add_folder", "remove_folder", "index"}


@pytest.fixture
def indexed(tmp_path, settings, embedder_installed):
    """An index of a few notes, embedded with the real MiniLM, closed again (the server owns it)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "rust.md").write_text(
        "# Ownership\n\nThe borrow checker rejects two mutable references.\nLifetimes say how long a reference lives.\n"
    )
    (docs / "garden.md").write_text("# Tomatoes\n\nWater tomato plants deeply twice a week in summer.\n")
    (docs / "soup.md").write_text("# Soup\n\nSimmer the tomatoes with garlic and basil for an hour.\n")
    (docs / "kitchen.py").write_text('class Pot:\n    def simmer(self, minutes):\n        """Low heat."""\n')
    home = tmp_path / "home"
    with IndexHandle.open(home, settings=settings) as handle:
        handle.add_source(str(docs))
        handle.index()
    return home, docs


def _stdio(home: Path, *extra: str) -> StdioServerParameters:
    env = dict(os.environ, FINDLING_HOME=str(home))
    return StdioServerParameters(command=sys.executable, args=["-m", "findling", "mcp", *extra], env=env)


def _payload(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def test_stdio_tools_answer_and_refuse_properly(indexed):
    home, docs = indexed

    async def session() -> None:
        async with Client(_stdio(home)) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert names == READ_TOOLS
            found = _payload(await client.call_tool("query", {"query": "borrow checker", "limit": 3}))
            top = found["results"][0]
            assert top["path"].endswith("rust.md") and top["docid"].startswith("#") and top["line"] >= 1
            assert top["page"] is None  # a note has no pages: not "page 0"
            assert _payload(await client.call_tool("search", {"query": "tomatoes", "match": "all"}))["total"] == 2
            meaning = _payload(await client.call_tool("vsearch", {"query": "growing vegetables"}))
            assert meaning["results"][0]["path"].endswith("garden.md")
            # no generator installed here: the answer quotes the note, cited
            asked = _payload(await client.call_tool("ask", {"question": "How often should tomato plants be watered?"}))
            assert not asked["abstained"] and "twice a week" in asked["answer"] and asked["extractive"]
            assert asked["citations"][0]["path"].endswith("garden.md") and asked["citations"][0]["line"] >= 1
            assert asked["sentences"][0] == {**asked["sentences"][0], "cites": [1], "supported": True}
            piece = _payload(await client.call_tool("get", {"ref": f"{top['docid']}:3:1"}))
            assert piece["text"] == "The borrow checker rejects two mutable references.\n"
            assert piece["from_line"] == 3 and piece["total_lines"] == 4
            outline = _payload(await client.call_tool("symbols", {"ref": str(docs / "kitchen.py")}))
            assert [(s["kind"], s["qualname"], s["line"]) for s in outline["symbols"]] == [
                ("class", "Pot", 1),
                ("method", "Pot.simmer", 2),
            ]
            defined = _payload(await client.call_tool("search", {"query": "sym:simmer"}))
            assert defined["results"][0]["symbol"] == "Pot.simmer"
            many = _payload(await client.call_tool("multi_get", {"refs": ["*.md"], "max_bytes": 1000}))
            assert len(many["documents"]) == 3 and many["left_out"] == []
            capped = _payload(
                await client.call_tool("multi_get", {"refs": [str(docs / "*.md")], "max_bytes": 1000, "max_lines": 1})
            )
            assert all(d["text"].startswith("# ") and d["text"].count("\n") == 1 for d in capped["documents"])
            like = _payload(await client.call_tool("similar", {"ref": str(docs / "soup.md")}))
            assert like["results"] and all(not r["path"].endswith("soup.md") for r in like["results"])
            why = _payload(
                await client.call_tool(
                    "why_not", {"query": "borrow checker", "path": str(docs / "soup.md"), "mode": "keyword"}
                )
            )
            assert why["reason"] == "no_match" and "“borrow” and “checker”" in why["details"][0]
            status = _payload(await client.call_tool("status", {}))
            assert status["documents"] == 4 and status["semantic"]["embedder"] == "ready"
            assert not status["writes_allowed"]
            # Refusals are tool errors the agent can read, and the server keeps serving.
            outside = await client.call_tool("get", {"ref": "/etc/passwd"})
            assert outside.is_error and "not under any indexed folder" in outside.content[0].text
            bad = await client.call_tool("search", {"query": "x", "limit": "many"})
            assert bad.is_error and "limit" in bad.content[0].text
            too_many = await client.call_tool("query", {"query": "x", "limit": 100000})
            assert too_many.is_error
            unknown = await client.call_tool("get", {"ref": "#abcdef"})
            assert unknown.is_error and "#abcdef" in unknown.content[0].text
            bad_date = await client.call_tool("search", {"query": "x", "after": "someday"})
            assert bad_date.is_error
            assert _payload(await client.call_tool("search", {"query": "borrow"}))["total"] == 1

    anyio.run(session)


def test_writes_only_with_allow_write(indexed, tmp_path):
    home, _docs = indexed
    more = tmp_path / "more"
    more.mkdir()
    (more / "extra.txt").write_text("zebra crossing\n")

    async def session() -> None:
        async with Client(_stdio(home, "--allow-write")) as client:
            assert {t.name for t in (await client.list_tools()).tools} == READ_TOOLS | WRITE_TOOLS
            added = _payload(await client.call_tool("add_folder", {"path": str(more)}))
            assert added["indexed"] == 1
            assert _payload(await client.call_tool("search", {"query": "zebra"}))["total"] == 1
            assert _payload(await client.call_tool("remove_folder", {"path": str(more)}))["documents"] == 1
            assert _payload(await client.call_tool("index", {}))["failed"] == 0

    anyio.run(session)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def http_server(indexed):
    home, docs = indexed
    port = _free_port()
    env = dict(os.environ, FINDLING_HOME=str(home))
    token = subprocess.run(
        [sys.executable, "-m", "findling", "serve", "--print-token"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    proc = subprocess.Popen(
        [sys.executable, "-m", "findling", "serve", "--port", str(port)], env=env, stderr=subprocess.PIPE
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx2.get(f"{base}/health", headers={"Authorization": f"Bearer {token}"}).status_code == 200:
                break
        except httpx2.TransportError:
            time.sleep(0.2)
    else:
        proc.kill()
        pytest.fail(f"findling serve did not start: {proc.stderr.read() if proc.stderr else ''}")
    yield base, token, port
    proc.terminate()
    proc.wait(10)


def test_http_guards_refuse_missing_tokens_foreign_hosts_and_web_pages(http_server):
    base, token, port = http_server
    good = {"Authorization": f"Bearer {token}"}
    assert httpx2.get(f"{base}/health").status_code == 401
    assert httpx2.get(f"{base}/health", headers={"Authorization": "Bearer wrong"}).status_code == 401
    assert httpx2.post(f"{base}/mcp", json={}, headers={"Authorization": "Basic abc"}).status_code == 401
    assert httpx2.get(f"{base}/health", headers={**good, "Host": f"evil.example:{port}"}).status_code == 421
    assert httpx2.get(f"{base}/health", headers={**good, "Origin": "http://evil.example"}).status_code == 403
    assert httpx2.get(f"{base}/health", headers={**good, "Origin": f"http://localhost:{port}"}).status_code == 200
    health = httpx2.get(f"{base}/health", headers=good).json()
    assert health["status"] == "ok" and health["role"] == "owner"


def test_http_query_and_mcp_over_streamable_http(http_server):
    base, token, _port = http_server
    good = {"Authorization": f"Bearer {token}"}
    answer = httpx2.post(f"{base}/query", headers=good, json={"query": "borrow checker", "limit": 2})
    assert answer.status_code == 200, answer.text
    assert answer.json()["results"][0]["path"].endswith("rust.md")
    keyword = httpx2.post(f"{base}/query", headers=good, json={"query": "tomatoes", "mode": "keyword"}).json()
    assert keyword["total"] == 2
    assert httpx2.post(f"{base}/query", headers=good, json={"limit": 2}).status_code == 400
    assert httpx2.post(f"{base}/query", headers=good, content=b"{not json").status_code == 400
    assert httpx2.post(f"{base}/query", headers=good, json={"query": "x", "after": "someday"}).status_code == 400
    asked = httpx2.post(f"{base}/ask", headers=good, json={"question": "How often should tomato plants be watered?"})
    assert asked.status_code == 200, asked.text
    assert asked.json()["citations"][0]["path"].endswith("garden.md") and not asked.json()["abstained"]
    unknown = httpx2.post(f"{base}/ask", headers=good, json={"query": "tomatoes"})
    assert unknown.status_code == 400 and "question" in unknown.json()["error"]

    async def session() -> None:
        http = create_mcp_http_client(headers=good)
        async with http, Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client:
            assert {t.name for t in (await client.list_tools()).tools} == READ_TOOLS
            found = _payload(await client.call_tool("search", {"query": "garlic"}))
            assert found["results"][0]["path"].endswith("soup.md")
            refused = await client.call_tool("get", {"ref": "/etc/passwd"})
            assert refused.is_error

    anyio.run(session)


def test_print_config_names_the_mcp_command():
    out = subprocess.run(
        [sys.executable, "-m", "findling", "mcp", "--print-config", "claude-desktop"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    config = json.loads(out.split("\n", 1)[1])
    assert config["mcpServers"]["findling"]["args"][-1] == "mcp"
    codex = subprocess.run(
        [sys.executable, "-m", "findling", "mcp", "--print-config", "codex"], capture_output=True, text=True, check=True
    ).stdout
    assert "[mcp_servers.findling]" in codex


def test_http_query_refuses_bad_bodies_naming_the_field(http_server):
    base, token, _port = http_server
    good = {"Authorization": f"Bearer {token}"}

    def post(**kwargs):
        return httpx2.post(f"{base}/query", headers=good, **kwargs)

    for body, field in (
        ({"query": "x", "min_score": "abc"}, "min_score"),
        ({"query": "x", "ext": 5}, "ext"),
        ({"query": "x", "after": 5}, "after"),
        ({"query": "x", "limt": 5}, "limt"),
        ({"query": "x", "mode": "fuzzy"}, "mode"),
    ):
        answer = post(json=body)
        assert answer.status_code == 400 and field in answer.json()["error"], (body, answer.text)
    nested = post(content=b'{"query": "x", "ext": ' + b"[" * 20_000 + b"]" * 20_000 + b"}")
    assert nested.status_code == 400 and "error" in nested.json()
    assert post(content=b'{"query": "' + b"x" * 100_000 + b'"}').status_code == 413
    # One extension given as a string is that extension, not its letters.
    assert post(json={"query": "tomatoes", "mode": "keyword", "ext": "md"}).json()["total"] == 2
    assert post(json={"query": "tomatoes", "mode": "keyword", "ext": "txt"}).json()["total"] == 0
    assert httpx2.get(f"{base}/health", headers=good).status_code == 200  # still serving


def _closed_within(sock: socket.socket, seconds: float) -> bytes:
    """What the server sent before closing the connection, waiting at most `seconds`."""
    sock.settimeout(seconds)
    got = b""
    try:
        while chunk := sock.recv(4096):
            got += chunk
    except TimeoutError:
        pytest.fail(f"the server kept a half-sent request open for over {seconds} s")
    return got


@pytest.mark.slow
def test_http_drops_requests_whose_headers_or_body_never_finish(http_server):
    from findling.server.http_api import BODY_S, HEADERS_S

    base, token, port = http_server
    slow = []
    for _ in range(10):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"POST /query HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n" % port)  # headers never finished
        slow.append(s)
    body = socket.create_connection(("127.0.0.1", port))
    body.sendall(
        b"POST /query HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nAuthorization: Bearer %s\r\n"
        b'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"query"' % (port, token.encode())
    )
    started = time.monotonic()
    for s in slow:
        with s:
            _closed_within(s, HEADERS_S + 10)
    with body:
        assert b"408" in _closed_within(body, BODY_S + 10).split(b"\r\n", 1)[0]
    assert time.monotonic() - started < max(HEADERS_S, BODY_S) + 10
    assert httpx2.get(f"{base}/health", headers={"Authorization": f"Bearer {token}"}).status_code == 200


def test_mcp_and_cli_errors_are_findlings_own_words(indexed):
    home, docs = indexed
    huge_line = "#601a8c:" + "9" * 5000

    async def session() -> None:
        async with Client(_stdio(home)) as client:
            bad_date = await client.call_tool("search", {"query": "x", "after": "someday"})
            assert bad_date.is_error and "someday" in bad_date.content[0].text
            huge = await client.call_tool("get", {"ref": huge_line})
            assert huge.is_error and "at most 9 digits" in huge.content[0].text
            # Outside the added folders, an existing and a missing path get the same answer.
            there = _payload(await client.call_tool("why_not", {"query": "x", "path": "/etc/hostname"}))
            nowhere = _payload(await client.call_tool("why_not", {"query": "x", "path": "/no/such/file.md"}))
            assert there["reason"] == nowhere["reason"] == "outside"
            assert there["summary"] == nowhere["summary"]

    anyio.run(session)
    env = dict(os.environ, FINDLING_HOME=str(home))
    cli = subprocess.run([sys.executable, "-m", "findling", "get", huge_line], env=env, capture_output=True, text=True)
    assert cli.returncode == 2 and "at most 9 digits" in cli.stderr and "Traceback" not in cli.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is Unix's")
def test_serve_stopped_by_sigterm_leaves_no_owner_record(tmp_path):
    """The red team's 14: `findling serve` stopped with SIGTERM (what systemd and `kill` send)
    left its owner.endpoint: uvicorn raises the signal again after its shutdown, and Python's own
    SIGTERM ends the process before the index is closed."""
    import signal

    home = tmp_path / "home"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("zebra crossing\n")
    env = dict(os.environ, FINDLING_HOME=str(home))
    subprocess.run([sys.executable, "-m", "findling", "add", str(tmp_path / "docs")], env=env, check=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "findling", "serve", "--port", str(_free_port())], env=env, stderr=subprocess.PIPE
    )
    record = home / "owner.endpoint"
    deadline = time.monotonic() + 60
    while not record.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.1)
    assert record.exists()
    time.sleep(1.0)  # uvicorn listening too
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 128 + signal.SIGTERM
    assert not record.exists()
    assert b"Traceback" not in (proc.stderr.read() if proc.stderr else b"")
