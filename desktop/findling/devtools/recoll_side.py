"""Recoll side by side: the same known-item questions over the same folder, one `recollq`
process per question, as a person at a terminal would run it.

    python -m findling.devtools.recoll_side docs/eval/pydocs-questions.tsv FOLDER [--workdir W]

Needs Recoll's command-line tools (Debian: `apt-get install recollcmd`). The folder is
indexed into its own Recoll configuration under the workdir (kept, so a second run only
queries), then every question runs twice: Recoll's default (all words) and `-o` (any
word, its best on natural-language questions). Prints MRR@10, hit@1 and hit@3 per mode and
per kind, and the median wall time of one query process; compare with `findling eval
--known-items` on the same files."""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from findling.devtools.eval import answers, load_known_items

MODES = {"all words": [], "any word": ["-o"]}


def _configure(folder: Path, config: Path) -> None:
    config.mkdir(parents=True, exist_ok=True)
    conf = config / "recoll.conf"
    if not conf.exists():
        conf.write_text(f"topdirs = {folder}\nskippedNames+ = _sources _static _images _downloads\n", encoding="utf-8")
        subprocess.run(["recollindex", "-c", str(config)], check=True, capture_output=True)


def _ranked(config: Path, flags: list[str], query: str) -> tuple[list[str], float]:
    started = time.perf_counter()
    out = subprocess.run(
        ["recollq", "-c", str(config), "-b", "-n", "10", *flags, query], capture_output=True, text=True
    ).stdout
    took = (time.perf_counter() - started) * 1000
    paths = [line.strip().removeprefix("file://") for line in out.splitlines() if line.startswith("file://")]
    return paths, took


def measure(questions: Path, folder: Path, workdir: Path) -> dict:
    items = load_known_items(questions)
    config = workdir / f"recoll-{folder.resolve().name}"
    _configure(folder.resolve(), config)
    out: dict = {"questions": len(items), "folder": str(folder), "modes": {}}
    for mode, flags in MODES.items():
        scores: dict[str, dict[str, list[float]]] = {}
        times = []
        for item in items:
            paths, took = _ranked(config, flags, item.query)
            times.append(took)
            first = next(
                (rank for rank, path in enumerate(paths, 1) if answers(path, folder.resolve(), item.targets)), 0
            )
            for kind in ("all", item.kind or "other"):
                kept = scores.setdefault(kind, {"mrr@10": [], "hit@1": [], "hit@3": []})
                kept["mrr@10"].append(1 / first if first else 0.0)
                kept["hit@1"].append(float(first == 1))
                kept["hit@3"].append(float(0 < first <= 3))
        out["modes"][mode] = {
            kind: {k: round(statistics.fmean(v), 4) for k, v in metrics.items()} for kind, metrics in scores.items()
        } | {"p50_ms": round(statistics.median(times), 1)}
        print(f"recoll, {mode}: {out['modes'][mode]}", file=sys.stderr, flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("questions")
    parser.add_argument("folder")
    parser.add_argument("--workdir", help="keep Recoll's index here (default: a temporary folder)")
    args = parser.parse_args(argv)
    if shutil.which("recollq") is None or shutil.which("recollindex") is None:
        print("recoll_side: Recoll's command-line tools are not installed (apt-get install recollcmd)", file=sys.stderr)
        return 2
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="findling-recoll-"))
    print(json.dumps(measure(Path(args.questions), Path(args.folder), workdir), indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
