"""A keyword search from a terminal loads only what it uses: no model runtime, tokenizer, hub
client, MCP SDK, numpy or ranking pipeline (their imports cost a command most of its time)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.helpers import index_files

HEAVY = (
    "onnxruntime",
    "tokenizers",
    "huggingface_hub",
    "mcp",
    "pydantic",
    "urllib.request",
    "findling.search.pipeline",
    "findling.search.vector_lane",
    "findling.models.embedder",
    "findling.models.download",
    "PySide6",
    "numpy",  # 50 ms of a cold keyword search: near copies are compared in plain Python
)

_PROBE = """
import json, sys
from findling.cli import main
code = main(sys.argv[1:])
print(json.dumps({"code": code, "loaded": sorted(m for m in %r if m in sys.modules)}), file=sys.stderr)
""" % (HEAVY,)


def _loaded(home, *argv) -> tuple[int, list[str]]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE, "--home", str(home), *argv], capture_output=True, text=True, timeout=60
    )
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["code"], report["loaded"]


def test_keyword_search_get_and_status_load_no_model_runtime(engine, tmp_path):
    folder = index_files(engine, tmp_path / "docs", {"melon.md": "# Melons\n\nA melon ripens in August."})
    engine.close()
    home = engine.home
    for argv in (
        ("search", "melon"),
        ("get", str(folder / "melon.md")),
        ("why-not", "melon", str(folder / "melon.md"), "--mode", "keyword"),
    ):
        code, loaded = _loaded(home, *argv)
        assert code == 0 and loaded == [], (argv, loaded)


def test_the_probe_sees_a_runtime_when_one_is_loaded(engine, tmp_path):
    """The check itself can fail: hybrid search builds the pipeline, and the probe reports it."""
    index_files(engine, tmp_path / "docs", {"melon.md": "# Melons\n\nA melon ripens in August."})
    engine.close()
    code, loaded = _loaded(engine.home, "query", "melon")
    assert code == 0 and "findling.search.pipeline" in loaded


def test_a_command_builds_its_parser_once(engine, tmp_path, monkeypatch, capsys):
    """Building the parser (every command and option) took 22 ms, a fifth of a cold search's
    own time, and a search built it twice: once to check for a mistyped command (issue 62, 8)."""
    from findling import cli

    index_files(engine, tmp_path / "docs", {"melon.md": "# Melons\n\nA melon ripens in August."})
    engine.close()
    built = []
    real = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: built.append(1) or real())
    assert cli.main(["--home", str(engine.home), "search", "melon"]) == 0
    assert "melon.md" in capsys.readouterr().out and len(built) == 1
    assert cli.main(["--home", str(engine.home), "serch", "melon"]) == 2
    assert "did you mean 'search'?" in capsys.readouterr().err and len(built) == 2


def test_a_rescan_that_finds_nothing_changed_reads_no_file(engine, tmp_path):
    """Reading and analysing files brings numpy, the language detector and the worker pool, and
    the hub's client ssl and http: a tenth of a second of a rescan that finds nothing to read
    (issue 62, 8: rescans beside Recoll's). A changed file brings the readers, and the probe
    sees it."""
    folder = index_files(engine, tmp_path / "docs", {"melon.md": "# Melons\n\nA melon ripens in August."})
    engine.close()
    reading = ("numpy", "findling.ingest.prepare", "findling.ingest.workers", "urllib.request")
    probe = _PROBE.replace(repr(HEAVY), repr(reading))

    def loaded() -> tuple[int, list[str]]:
        proc = subprocess.run(
            [sys.executable, "-c", probe, "--home", str(engine.home), "index"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        report = json.loads(proc.stderr.strip().splitlines()[-1])
        return report["code"], report["loaded"]

    assert loaded() == (0, [])
    (folder / "melon.md").write_text("# Melons\n\nA melon ripens in September.", encoding="utf-8")
    code, modules = loaded()
    assert code == 0 and "findling.ingest.prepare" in modules
