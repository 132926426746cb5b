"""`findling --selftest`: prove an installation (or a PyInstaller bundle) works end to end:
onnxruntime runs a model, a tiny folder is indexed (a DuckDB file) and searched, the Qt
app starts offscreen, the command-line executable answers, and the MCP server answers a
tool call over stdio. Exit status 0 when every check passes."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from findling.executables import app_executables, command_line


def _check(name: str, fn: Callable[[], str], report: list[tuple[str, bool, str]]) -> None:
    started = time.perf_counter()
    try:
        detail = fn()
        ok = True
    except Exception as exc:  # the report names every failure; the run goes on
        detail = f"{type(exc).__name__}: {exc}"
        ok = False
    report.append((name, ok, f"{detail} ({(time.perf_counter() - started) * 1000:.0f} ms)"))


def mcp_check(home: Path) -> str:
    """Start `findling mcp` as an agent would (stdio, the SDK's client) and call `status`."""
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    command = command_line()
    params = StdioServerParameters(
        command=command[0], args=[*command[1:], "--home", str(home), "mcp"], env=dict(os.environ)
    )

    async def call() -> str:
        with anyio.fail_after(120):
            async with Client(params) as client:
                tools = {t.name for t in (await client.list_tools()).tools}
                result = await client.call_tool("status", {})
        if result.is_error or not isinstance(result.structured_content, dict):
            raise RuntimeError(f"status failed: {result.content}")
        return f"{len(tools)} tools; status says {result.structured_content['documents']} documents"

    return anyio.run(call)


def _grammars() -> str:
    from findling.ingest.code_symbols import grammar_check

    return grammar_check()


def run_selftest(stream=sys.stdout) -> int:  # noqa: C901 - each check of the installation in turn, each reported on its own
    report: list[tuple[str, bool, str]] = []
    with tempfile.TemporaryDirectory(prefix="findling-selftest-") as tmp:
        root = Path(tmp)
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

        def onnx() -> str:
            import numpy as np

            from findling.models.runtime import create_session
            from findling.paths import resources_dir

            session = create_session(resources_dir() / "selftest" / "double.onnx", threads=1)
            out = session.run(None, {"x": np.ones((1, 4), dtype=np.float32)})[0]
            if not np.allclose(out, 2.0):
                raise RuntimeError(f"wrong output {out}")
            return f"onnxruntime on {session.provider}"

        def index_and_search() -> str:
            import duckdb

            from findling.engine import Engine
            from findling.records import SearchMode, SearchRequest

            docs = root / "docs"
            docs.mkdir()
            (docs / "a.md").write_text("# Self test\n\nThe quick brown fox jumps over the lazy dog.\n")
            (docs / "b.html").write_text("<title>Other</title><p>Nothing to see here.</p>")
            with Engine(root / "home") as engine:
                engine.add_source(docs)
                report_ = engine.index()
                hits = engine.find(SearchRequest("fox", SearchMode.KEYWORD)).hits
                if report_.added != 2 or len(hits) != 1 or not hits[0].path.endswith("a.md"):
                    raise RuntimeError(f"indexed {report_.added}, found {[h.path for h in hits]}")
                query = engine.find(SearchRequest("lazy dog"))
            return f"duckdb {duckdb.__version__}: indexed 2 files, search and query found {len(query.hits)} result(s)"

        def qt() -> str:
            from findling.gui.selftest import window_check

            return window_check(root / "qt-home")

        def executables() -> str:
            from findling import __version__

            command = command_line()
            proc = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=120)
            if proc.returncode != 0 or __version__ not in proc.stdout:
                raise RuntimeError(f"{command[0]} --version printed {proc.stdout!r} {proc.stderr[-300:]!r}")
            missing = [p.name for p in app_executables() if not p.is_file()]
            if missing:
                raise RuntimeError(f"missing beside it: {', '.join(missing)}")
            return f"{Path(command[0]).name} prints {proc.stdout.strip()!r}"

        def mcp() -> str:
            return mcp_check(root / "home")  # the index the search check built

        for name, fn in (
            ("onnxruntime", onnx),
            ("index and search", index_and_search),
            ("code grammars", _grammars),
            ("qt app", qt),
            ("command line", executables),
            ("mcp over stdio", mcp),
        ):
            _check(name, fn, report)
    passed = all(ok for _, ok, _ in report)
    lines = [f"{'ok ' if ok else 'FAIL'} {name:<18} {detail}" for name, ok, detail in report]
    lines.append("selftest passed" if passed else "selftest FAILED")
    text = "\n".join(lines) + "\n"
    if stream is not None:  # a windowed app (Windows) has no stdout
        stream.write(text)
    target = os.environ.get("FINDLING_SELFTEST_REPORT")
    if target:
        Path(target).write_text(text, encoding="utf-8")
    return 0 if passed else 1
