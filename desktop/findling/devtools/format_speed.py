"""Files per second and peak memory of reading each kind of file, as the extraction workers read
them: `python -m findling.devtools.format_speed DIR [--repeat N] [--ocr]`.

The files of DIR (not its subfolders) are grouped by extension; each group is read `repeat`
times by prepare() in a fresh process of its own (one core, as one worker), whose peak
resident memory is the group's. With --ocr the installed OCR model reads pictures and scans."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path


def _child(paths: list[str], repeat: int, ocr: list[str]) -> None:
    from findling.ingest.prepare import PrepareTask, prepare
    from findling.records import DocumentRow

    models = (ocr[0], ocr[1]) if ocr else ()
    started = time.perf_counter()
    documents = 0
    for _ in range(repeat):
        for path in paths:
            row = prepare(PrepareTask(path, ocr_models=models, ocr_seconds=600))
            if isinstance(row, DocumentRow):
                documents += 1 + len(row.members)
    seconds = time.perf_counter() - started
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"files": len(paths) * repeat, "documents": documents, "seconds": seconds, "peak_mb": peak_mb}))


def _ocr_models() -> list[str]:
    from findling.engine import Engine

    with Engine() as engine:
        models = engine.ocr_models()
    if isinstance(models, str):
        raise SystemExit(f"OCR is not available: {models}")
    return list(models)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--ocr", action="store_true")
    parser.add_argument("--child", nargs="*", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        spec = json.loads(args.child[0])
        _child(spec["paths"], spec["repeat"], spec["ocr"])
        return 0
    ocr = _ocr_models() if args.ocr else []
    groups: dict[str, list[str]] = defaultdict(list)
    for path in sorted(args.folder.iterdir()):
        if path.is_file():
            groups["".join(path.suffixes[-2:]) if path.name.endswith(".tar.gz") else path.suffix].append(str(path))
    print(f"{'kind':<10} {'files':>6} {'docs':>6} {'files/s':>9} {'peak RSS':>9}")
    for kind, paths in sorted(groups.items()):
        repeat = max(1, args.repeat // 10) if kind in (".png", ".jpg", ".pdf") and ocr else args.repeat
        spec = json.dumps({"paths": paths, "repeat": repeat, "ocr": ocr})
        out = subprocess.run(
            [sys.executable, "-m", "findling.devtools.format_speed", str(args.folder), "--child", spec],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        r = json.loads(out.strip().splitlines()[-1])
        rate = r["files"] / r["seconds"] if r["seconds"] else 0.0
        print(f"{kind:<10} {r['files']:>6} {r['documents']:>6} {rate:>9.1f} {r['peak_mb']:>7.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
