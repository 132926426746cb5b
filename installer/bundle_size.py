"""What a built app folder weighs, by part, and whether it is within its bound.

    python installer/bundle_size.py dist/Findling [--max-mb 300] [--top 25]

Parts are the first two path levels under _internal (a package, or one library), sizes
are regular files only (links count nothing), in MB of 10^6 bytes."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path


def part_sizes(folder: Path) -> Counter[str]:
    sizes: Counter[str] = Counter()
    for path in folder.rglob("*"):
        if path.is_symlink() or not path.is_file():
            continue
        rel = path.relative_to(folder).parts
        if rel[0] in ("_internal", "Contents") and len(rel) > 1:
            rel = rel[1:]
        key = "/".join(rel[:2]) if len(rel) > 2 else rel[0]
        sizes[key] += path.stat().st_size
    return sizes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--max-mb", type=float, help="fail when the folder is larger")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args(argv)
    sizes = part_sizes(args.folder)
    total = sum(sizes.values())
    for name, size in sizes.most_common(args.top):
        print(f"{size / 1e6:8.1f} MB  {name}")
    print(f"{total / 1e6:8.1f} MB  total ({len(sizes)} parts)")
    if args.max_mb is not None and total / 1e6 > args.max_mb:
        print(f"over the bound of {args.max_mb:.0f} MB", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
