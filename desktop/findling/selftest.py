"""`findling --selftest`: prove an installation (or a PyInstaller bundle) works end to end:
the store opens, fts and vss load, onnxruntime runs a model, a tiny folder is indexed and
searched, and the Qt app starts offscreen. Exit status 0 when every check passes."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def _check(name: str, fn: Callable[[], str], report: list[tuple[str, bool, str]]) -> None:
    started = time.perf_counter()
    try:
        detail = fn()
        ok = True
    except Exception as exc:  # the report names every failure; the run goes on
        detail = f"{type(exc).__name__}: {exc}"
        ok = False
    report.append((name, ok, f"{detail} ({(time.perf_counter() - started) * 1000:.0f} ms)"))


def run_selftest(stream=sys.stdout) -> int:
    report: list[tuple[str, bool, str]] = []
    with tempfile.TemporaryDirectory(prefix="findling-selftest-") as tmp:
        root = Path(tmp)
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

        def extensions() -> str:
            import duckdb

            from findling.store.extensions import load_extension

            con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
            for name in ("fts", "vss"):
                load_extension(con, name)
            stem = con.execute("SELECT stem('running', 'english')").fetchall()[0][0]
            distance = con.execute("SELECT array_distance([1, 2]::FLOAT[2], [1, 2]::FLOAT[2])").fetchall()[0][0]
            con.close()
            return f"duckdb {duckdb.__version__}: fts stem(running)={stem}, vss array_distance={distance}"

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
            from findling.engine import Engine

            docs = root / "docs"
            docs.mkdir()
            (docs / "a.md").write_text("# Self test\n\nThe quick brown fox jumps over the lazy dog.\n")
            (docs / "b.html").write_text("<title>Other</title><p>Nothing to see here.</p>")
            with Engine(root / "home") as engine:
                engine.add_source(docs)
                report_ = engine.index()
                hits = engine.search("fox").hits
                if report_.added != 2 or len(hits) != 1 or not hits[0].path.endswith("a.md"):
                    raise RuntimeError(f"indexed {report_.added}, found {[h.path for h in hits]}")
                query = engine.query("lazy dog")
            return f"indexed 2 files, search and query found {len(query.hits)} result(s)"

        def qt() -> str:
            from findling.gui.selftest import window_check

            return window_check(root / "qt-home")

        for name, fn in (("duckdb extensions", extensions), ("onnxruntime", onnx),
                         ("index and search", index_and_search), ("qt app", qt)):
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
