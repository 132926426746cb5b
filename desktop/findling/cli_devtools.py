"""`findling eval` and `findling bench`: the measurement tools' commands, which a build without
devtools/ answers by saying they are not in it."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from findling.cli_commands import settings_of
from findling.errors import FindlingError

if TYPE_CHECKING:
    from findling.settings import Settings


def _without_measurement_tools() -> bool:
    """The installed app leaves the benchmarks out (they need numpy.random and the test
    corpora); they run from a source checkout."""
    import importlib.util

    if importlib.util.find_spec("findling.devtools") is not None:
        return False
    print(
        "findling: benchmarks and evaluation run from a source checkout (pip install -e .), not from the installed app",
        file=sys.stderr,
    )
    return True


def cmd_eval(args: argparse.Namespace) -> int:
    from pathlib import Path

    if _without_measurement_tools():
        return 2
    from findling.devtools.eval import MODES, evaluate, evaluate_known_items, print_table

    modes = tuple(m.strip() for m in args.modes.split(",")) if args.modes else MODES
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        print(f"findling: unknown mode(s) {', '.join(unknown)}; choose from {', '.join(MODES)}", file=sys.stderr)
        return 2
    settings = settings_of(args)
    if args.reranker:
        settings.pipeline.reranker = args.reranker
    if args.match:
        settings.search.match = args.match
    workdir = Path(args.workdir) if args.workdir else None
    if args.held_out or args.ask:
        result = _eval_held_out(args, workdir) if args.held_out else _eval_ask(args, workdir, settings)
        if args.json:
            print(json.dumps(result, indent=2))
        return 0
    if args.known_items:
        result = evaluate_known_items(
            Path(args.known_items), Path(args.dataset), modes, workdir, args.max_queries, settings, args.calibration
        )
    else:
        if not Path(args.dataset).is_dir():
            raise FindlingError(
                f"no dataset folder at {args.dataset}: give a BEIR folder (corpus.jsonl, queries.jsonl, qrels/)"
            )
        result = evaluate(Path(args.dataset), modes, workdir, args.split, args.max_queries, settings, args.calibration)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print_table(result)
    return 0


def _eval_held_out(args: argparse.Namespace, workdir: Path | None) -> dict:
    from findling.devtools.held_out import held_out, print_held_out

    if workdir is None:
        raise FindlingError("--held-out needs --workdir: the sets' indexes are kept there between runs")
    from pathlib import Path

    result = held_out(Path(args.dataset), workdir, args.fresh)
    if not args.json:
        print_held_out(result)
    return result


def _eval_ask(args: argparse.Namespace, workdir: Path | None, settings: Settings) -> dict:
    from pathlib import Path

    from findling.devtools.eval_ask import evaluate_ask, print_ask_table

    result = evaluate_ask(Path(args.ask), Path(args.dataset), workdir, args.max_queries, settings, args.split)
    if not args.json:
        print_ask_table(result)
    return result


def cmd_bench(args: argparse.Namespace) -> int:
    from pathlib import Path

    if _without_measurement_tools():
        return 2
    if args.cli:
        from findling.devtools.bench_cli import bench_cli, print_table

        timings = bench_cli(Path(args.cli), Path(args.workdir) if args.workdir else None, args.runs)
        if args.json:
            print(json.dumps(timings, indent=2))
        else:
            print_table(timings)
        return 0
    if args.gui:
        from findling.devtools.gui.bench_gui import bench_gui

        print(json.dumps(bench_gui(args.gui), indent=2))
        return 0
    if args.gui_start:
        from findling.devtools.gui.bench_start import bench_gui_start

        print(json.dumps(bench_gui_start(args.gui_start), indent=2))
        return 0
    if args.time_to_searchable:
        from findling.devtools.bench_searchable import bench_time_to_searchable

        print(
            json.dumps(
                bench_time_to_searchable(
                    Path(args.time_to_searchable), Path(args.workdir) if args.workdir else None, settings_of(args)
                ),
                indent=2,
            )
        )
        return 0
    if args.mcp:
        from findling.devtools.bench_mcp import bench_mcp

        print(
            json.dumps(
                bench_mcp(
                    Path(args.mcp), Path(args.workdir) if args.workdir else None, settings_of(args), args.queries
                ),
                indent=2,
            )
        )
        return 0
    if args.rerank:
        from findling.devtools.bench_rerank import bench_rerank

        print(
            json.dumps(
                bench_rerank(Path(args.rerank), Path(args.workdir) if args.workdir else None, settings_of(args)),
                indent=2,
            )
        )
        return 0
    if args.vectors:
        from findling.devtools.bench_vectors import bench_embedder, bench_vector_search, sample_texts

        corpus = Path(args.corpus) if args.corpus else None
        report: dict[str, object] = {
            "vector_search": bench_vector_search(args.vectors, workdir=Path(args.workdir) if args.workdir else None),
            "embedder": bench_embedder(sample_texts(corpus)),
        }
        print(json.dumps(report, indent=2))
        return 0
    from findling.devtools.bench import run_bench

    report = run_bench(
        docs=args.docs, corpus=args.corpus, workdir=args.workdir, queries=args.queries, reuse_index=args.reuse_index
    )
    if args.json:
        print(json.dumps(report, indent=2))
    return 0
