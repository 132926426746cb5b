"""`findling bench --cli [FOLDER]`: what one command costs from a terminal or an agent's shell.
The median wall time of N runs of each common command, on an index of FOLDER, first with no
Findling holding the index (each command opens it), then with an owner running (`findling mcp`,
as an agent would start it): each command is then a client of its endpoint. Beside them, the
same interpreter's `-c pass` and `python3 -c pass`, measured in the same run: ratios hold where
the machine's speed does not."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _median_ms(argv: list[str], env: dict[str, str], runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        samples.append((time.perf_counter() - started) * 1000)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} failed: {proc.stderr.strip()[-500:]}")
    return round(statistics.median(samples), 1)


def _first_word_and_file(folder: Path) -> tuple[str, Path]:
    """A word some document holds, and that document: queries with answers."""
    import re

    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in (".md", ".txt", ".html", ".rst", ".py"):
            words = re.findall(r"[A-Za-z]{6,}", path.read_text(encoding="utf-8", errors="replace"))
            if words:
                return words[len(words) // 2].lower(), path
    raise RuntimeError(f"no text file with words under {folder}")


def _wait_for_owner(home: Path, timeout_s: float = 60.0) -> None:
    from findling.server.endpoint import connect

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        conn = connect(home)
        if conn is not None:
            conn.close()
            return
        time.sleep(0.05)
    raise RuntimeError("the owner did not start listening")


def _compile_package() -> None:
    """Bytecode for every module, as an install has (pip and the bundle ship it): with
    PYTHONDONTWRITEBYTECODE set, a source checkout would otherwise compile each module it
    imports on every run, and the table would time the compiler (60 ms of a cold search here)."""
    import compileall

    import findling

    compileall.compile_dir(str(Path(findling.__file__).parent), quiet=1)


def bench_cli(folder: Path, workdir: Path | None = None, runs: int = 50) -> dict:
    _compile_package()
    work = workdir or Path(tempfile.mkdtemp(prefix="findling-clibench-"))
    home = work / "cli-home"
    findling = [sys.executable, "-m", "findling"]
    script = shutil.which("findling", path=str(Path(sys.executable).parent))
    if script is not None:
        findling = [script]  # the console script, as a person types it
    env = dict(os.environ, FINDLING_HOME=str(home))
    if not (home / "findling.duckdb").exists():
        _log(f"indexing {folder}…")
        subprocess.run([*findling, "add", str(folder)], env=env, check=True, capture_output=True)
    word, path = _first_word_and_file(folder)
    commands = {
        "--version": ["--version"],
        f"search {word}": ["search", word, "-n", "10"],
        "get PATH": ["get", str(path)],
        "status": ["status"],
        f"why-not {word} PATH": ["why-not", word, str(path), "--mode", "keyword"],
    }
    baselines = {"this python -c pass": [sys.executable, "-c", "pass"]}  # the interpreter findling runs on
    system_python = shutil.which("python3")
    if system_python is not None:
        baselines["python3 -c pass"] = [system_python, "-c", "pass"]  # as the issue measures it, from PATH
    out: dict = {"runs": runs, "folder": str(folder), "baselines_ms": {}, "no_owner_ms": {}, "owner_ms": {}}
    for name, argv in baselines.items():
        out["baselines_ms"][name] = _median_ms(argv, env, runs)
    for name, argv in commands.items():
        _log(f"no owner: {name}")
        out["no_owner_ms"][name] = _median_ms([*findling, *argv], env, runs)
    owner = subprocess.Popen(
        [*findling, "mcp"], env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait_for_owner(home)
        for name, argv in commands.items():
            _log(f"owner running: {name}")
            out["owner_ms"][name] = _median_ms([*findling, *argv], env, runs)
    finally:
        assert owner.stdin is not None
        owner.stdin.close()  # stdio ends: the MCP server lets the index go and exits
        owner.wait(30)
    base = out["baselines_ms"][next(iter(baselines))]
    out["ratios_to_interpreter"] = {
        name: {"no_owner": round(out["no_owner_ms"][name] / base, 1), "owner": round(out["owner_ms"][name] / base, 1)}
        for name in commands
    }
    return out


def print_table(report: dict) -> None:
    baselines = report["baselines_ms"]
    print(f"median of {report['runs']} runs, ms; " + "; ".join(f"{k}: {v:.1f}" for k, v in baselines.items()))
    first = next(iter(baselines.values()))
    print(f"{'command':<34}{'no owner':>10}{'×':>6}{'owner':>10}{'×':>6}")
    for name, ms in report["no_owner_ms"].items():
        with_owner = report["owner_ms"][name]
        print(f"{name[:33]:<34}{ms:>10.1f}{ms / first:>6.1f}{with_owner:>10.1f}{with_owner / first:>6.1f}")
