"""What it costs an agent to search through MCP: `query` round trips over stdio (the SDK's client
against `findling mcp`) and through the owner's endpoint (a CLI or MCP server that is a client),
beside the same queries in-process."""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from findling.records import SearchMode, SearchRequest
from findling.server.handle import IndexHandle
from findling.settings import Settings


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _queries(handle: IndexHandle, count: int) -> list[str]:
    """Titles of indexed documents: queries with answers, the way an agent asks."""
    titles = [
        h.title
        for h in handle.find(SearchRequest("the", mode=SearchMode.KEYWORD, limit=max(count * 3, 30), match="any")).hits
        if h.title.strip()
    ]
    return list(dict.fromkeys(titles))[:count] or ["the"]


def _p50(samples: list[float]) -> float:
    return round(statistics.median(samples), 2)


async def _timed_calls(client: Any, tool: str, asked: list[str]) -> list[float]:
    """Milliseconds of each call of the tool, one question after another."""
    times = []
    for text in asked:
        started = time.perf_counter()
        result = await client.call_tool(tool, {"query": text, "limit": 10})
        times.append((time.perf_counter() - started) * 1000)
        if result.is_error:
            raise RuntimeError(str(result.content[0]))
    return times


def bench_mcp(folder: Path, workdir: Path | None = None, settings: Settings | None = None, queries: int = 40) -> dict:
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    work = workdir or Path(tempfile.mkdtemp(prefix="findling-mcpbench-"))
    home = work / "mcp-home"
    fresh = not (home / "findling.duckdb").exists()
    with IndexHandle.open(home, settings=settings, serve=False) as owner:
        if fresh:
            owner.add_source(str(folder))
            _log(f"indexing {folder}…")
            owner.index()
        asked = _queries(owner, queries)
        for text in asked[:3]:  # warm caches and models the same way for every path
            owner.find(SearchRequest(text, limit=10))
        in_process = []
        for text in asked:
            started = time.perf_counter()
            owner.find(SearchRequest(text, limit=10))
            in_process.append((time.perf_counter() - started) * 1000)

    env = dict(os.environ, FINDLING_HOME=str(home))
    stdio: list[float] = []
    keyword: list[float] = []  # the `search` tool: keyword only, what an agent calls most
    endpoint: list[float] = []

    async def session() -> None:
        params = StdioServerParameters(command=sys.executable, args=["-m", "findling", "mcp"], env=env)
        async with Client(params) as client:
            for text in asked[:3]:
                await client.call_tool("query", {"query": text, "limit": 10})
            stdio.extend(await _timed_calls(client, "query", asked))
            keyword.extend(await _timed_calls(client, "search", asked))
            # While the MCP server owns the index, this process is a client of its endpoint.
            with IndexHandle.open(home) as client_handle:
                if client_handle.role != "client":
                    raise RuntimeError("the MCP server did not own the index")

                def through_endpoint() -> None:
                    for text in asked:
                        started = time.perf_counter()
                        client_handle.find(SearchRequest(text, limit=10))
                        endpoint.append((time.perf_counter() - started) * 1000)

                await anyio.to_thread.run_sync(through_endpoint)

    anyio.run(session)
    if workdir is None:
        shutil.rmtree(work, ignore_errors=True)
    base = _p50(in_process)
    return {
        "folder": str(folder),
        "queries": len(asked),
        "in_process_p50_ms": base,
        "mcp_stdio_p50_ms": _p50(stdio),
        "mcp_stdio_overhead_ms": round(_p50(stdio) - base, 2),
        "mcp_search_tool_p50_ms": _p50(keyword),
        "endpoint_client_p50_ms": _p50(endpoint),
        "endpoint_overhead_ms": round(_p50(endpoint) - base, 2),
    }
