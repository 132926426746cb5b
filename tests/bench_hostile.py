"""The hostile cases at their full, reported sizes, each indexed by `findling add` in a
fresh index, timed, with the peak resident memory of the whole process tree (the command
and its extraction workers, summed, sampled every 20 ms), and the outcome from status.

    python -m tests.bench_hostile DIR [--json]

Then the whole folder in one run. Linux only (reads /proc)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.hostile import build


def _tree_rss(root_pid: int) -> int:
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            parents[int(entry.name)] = int(fields[1])
            rss[int(entry.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError, ValueError):
            continue
    tree, frontier = {root_pid}, [root_pid]
    while frontier:
        pid = frontier.pop()
        for child, parent in parents.items():
            if parent == pid and child not in tree:
                tree.add(child)
                frontier.append(child)
    return sum(rss.get(pid, 0) for pid in tree)


def run_measured(args: list[str], env: dict[str, str]) -> tuple[float, int, subprocess.CompletedProcess]:
    started = time.perf_counter()
    proc = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, err = proc.communicate()
    done.set()
    sampler.join()
    return time.perf_counter() - started, peak, subprocess.CompletedProcess(args, proc.returncode, out, err)


def _outcome(home: Path, case_dir: Path, bad: str) -> str:
    env = {**os.environ, "FINDLING_HOME": str(home)}
    status = json.loads(
        subprocess.run(
            [sys.executable, "-m", "findling", "status", "--json"], env=env, capture_output=True, text=True, check=True
        ).stdout
    )
    for problem in status["problems"]:
        if problem["path"].startswith(str(case_dir)) and not problem["path"].endswith("control.txt"):
            label = "indexed, partly" if problem["status"] == "ok" else problem["status"]
            return f"{label}: {problem['error'][:70]}"
    return f"indexed ({status['indexed']} documents)" if bad else f"nothing indexed from it ({status['indexed']} docs)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", help="where to build the cases (several GB free)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    base = Path(args.dir)
    shutil.rmtree(base, ignore_errors=True)
    started = time.perf_counter()
    cases = build(base / "folder", base / "outside", full=True)
    print(f"built {len(cases)} cases in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    rows = []
    for case in cases:
        home = base / "homes" / case.name
        env = {**os.environ, "FINDLING_HOME": str(home), "NO_COLOR": "1"}
        seconds, peak, proc = run_measured(
            [sys.executable, "-m", "findling", "add", str(base / "folder" / case.name)], env
        )
        outcome = (
            _outcome(home, base / "folder" / case.name, case.bad)
            if proc.returncode == 0
            else f"exit {proc.returncode}: {proc.stderr.strip()[-120:]}"
        )
        rows.append(
            {"case": case.name, "seconds": round(seconds, 2), "peak_rss_mb": round(peak / 2**20), "outcome": outcome}
        )
        print(f"{case.name:<24} {seconds:6.1f} s {peak / 2**20:7.0f} MB  {outcome}", file=sys.stderr)
    home = base / "homes" / "_all"
    seconds, peak, proc = run_measured(
        [sys.executable, "-m", "findling", "add", str(base / "folder")], {**os.environ, "FINDLING_HOME": str(home)}
    )
    whole = {
        "seconds": round(seconds, 2),
        "peak_rss_mb": round(peak / 2**20),
        "exit": proc.returncode,
        "summary": proc.stdout.strip().splitlines()[1:2],
    }
    if args.json:
        print(json.dumps({"cases": rows, "whole_run": whole}, indent=2))
    else:
        print(f"{'case':<24} {'seconds':>8} {'peak RSS':>9}  outcome")
        for row in rows:
            print(f"{row['case']:<24} {row['seconds']:8.1f} {row['peak_rss_mb']:6d} MB  {row['outcome']}")
        print(
            f"{'whole folder, one run':<24} {whole['seconds']:8.1f} {whole['peak_rss_mb']:6d} MB  exit {whole['exit']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
