"""The `findling` command line. It calls the same engine API as the GUI."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import asdict

from findling.errors import FindlingError
from findling.launch import VERSION_LINE
from findling.pathnames import printable
from findling.records import Filters, IndexProgress, RerankerMode, SearchMode, SearchRequest, SearchResult
from findling.search.presentation import explain_columns, explain_lines, explain_row, report_counts
from findling.server.payloads import multi_get_json, outline_json, result_json, slice_json, status_json
from findling.terminal import color as _color
from findling.terminal import dump_json, print_payload, print_slice, print_status, print_why_not, reader_left


class ProgressBar:
    """One line on stderr, redrawn in place; silent when stderr is not a terminal."""

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.width = 30

    def __call__(self, p: IndexProgress) -> None:
        if not self.enabled:
            return
        if p.phase == "scanning":
            line = "scanning folders…"
        elif p.phase == "optimizing":
            line = "optimizing the index…"
        elif p.phase == "done":
            line = ""
        else:
            done, total = p.base + p.done, p.base + p.total  # embedding: of the whole index, as status says
            frac = done / total if total else 1.0
            filled = int(frac * self.width)
            name = printable(os.path.basename(p.current)[:40])
            what = "embedding" if p.phase == "embedding" else "reading"
            line = f"[{'#' * filled}{'.' * (self.width - filled)}] {what} {done}/{total} {name}"
            if p.failed:
                line += f" ({p.failed} failed)"
        sys.stderr.write("\r\033[K" + line)
        if p.phase == "done":
            sys.stderr.write("\r\033[K")
        sys.stderr.flush()

    def clear(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _settings(args: argparse.Namespace):
    from findling.settings import load_settings

    settings = load_settings(args.home)
    if settings.models.threads == 0:
        # A command in a terminal has no UI thread to keep a core free for.
        settings.models.threads = os.cpu_count() or 1
    return settings


def _engine(args: argparse.Namespace, take_from_background: bool = False):
    """The index: opened here when no other Findling holds it (and then served to others while this
    command runs), else reached through the Findling that does. Output is the same either way.
    `take_from_background`: a command that indexes takes the index from a background embedding
    run instead of waiting on it as its client (server/background.py)."""
    from findling.server.handle import IndexHandle

    return IndexHandle.open(args.home, settings=_settings(args), take_from_background=take_from_background)


def _filters(args: argparse.Namespace) -> Filters:
    return Filters.from_options(args.ext, args.folder, args.after, args.before, args.path)


def _request(args: argparse.Namespace, mode: SearchMode) -> SearchRequest:
    """The request a search command sends: `search` (keyword), `query` (hybrid) or `vsearch`
    (semantic). why-not builds the same one from the same options, so it explains the list that
    command shows."""
    text, limit, filters = args.query, args.limit, _filters(args)
    if mode is SearchMode.KEYWORD:
        return SearchRequest(text, mode, limit, filters, match=getattr(args, "match", None))
    expand = True if getattr(args, "expand", False) else False if getattr(args, "no_expand", False) else None
    rerank: RerankerMode | None = "off" if getattr(args, "no_rerank", False) else getattr(args, "reranker", None)
    return SearchRequest(text, mode, limit, filters, getattr(args, "min_score", 0.0), expand, rerank)


def _print_result(args: argparse.Namespace, result: SearchResult) -> int:
    """A result as the search verbs print it: JSON with --json, else the readable list."""
    if args.json:
        print(dump_json(result_json(result)))
    else:
        print_results(result)
    return 0


def print_results(result: SearchResult) -> None:
    print_payload(result_json(result), _color())


# -- commands ---------------------------------------------------------------------------


def cmd_add(args: argparse.Namespace) -> int:
    """Add, and index the text; return once it is keyword-searchable. Embedding for semantic
    search goes on in the background (`--wait`: here, before returning)."""
    from findling.server.background import continue_in_background

    with _engine(args, take_from_background=True) as engine:
        for path in args.paths:
            source = engine.add_source(path, include=args.include or (), exclude=args.exclude or ())
            print(f"added {printable(source.path)}")
        if args.no_index:
            return 0
        code = _run_index(engine, embed=args.wait)
        status = engine.status()
        pending = status.embeddable - status.embedded
        if code == 0 and not args.wait and status.embedder and pending > 0:
            where = "in the background" if continue_in_background(engine, args.home) else "in the Findling window"
            print(
                f"keyword-searchable now; embedding {pending:,} documents for semantic search {where} "
                "(findling status shows how far; findling add --wait waits for it)"
            )
    return code


def cmd_remove(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        removed = engine.remove_source(args.path)
        print(f"removed {printable(args.path)} ({removed} documents)")
    return 0


class _StopOnSignal:
    """Ctrl-C or SIGTERM during indexing: the first one stops the run at the next file,
    keeps the batch in flight and ends the workers; a second one quits at once."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self._previous: dict[int, object] = {}

    def _handle(self, signum: int, _frame: object) -> None:
        if self.event.is_set():
            raise KeyboardInterrupt
        self.event.set()

    def __enter__(self) -> threading.Event:
        for signum in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
            if signum is not None:
                self._previous[signum] = signal.signal(signum, self._handle)
        return self.event

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]


def _run_index(engine, embed: bool = True) -> int:
    if not engine.sources():
        print("no folders to index yet: findling add PATH")
        return 0
    progress = ProgressBar()
    with _StopOnSignal() as stop:
        report = engine.index(progress=progress, cancel=stop, embed=embed)
    progress.clear()
    if report.cancelled or (report.embedding is not None and report.embedding.cancelled):
        committed = report.added + report.updated
        print(f"stopped; {committed} files committed; `findling index` continues", file=sys.stderr)
        return 130
    print(f"indexed in {report.seconds:.1f}s: {report_counts(report, every=True)}")
    emb = report.embedding
    if emb is not None and emb.skipped:
        print(f"semantic search is off: {emb.skipped}")
    elif emb is not None and emb.documents:
        print(f"embedded {emb.documents} documents ({emb.vectors} vectors) with {emb.model} in {emb.seconds:.1f}s")
    for warning in report.warnings[:20]:
        print(f"warning: {printable(warning)}", file=sys.stderr)
    if report.failed:
        print("see the failures with: findling status")
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    if args.background:
        return _index_in_background(args)
    with _engine(args, take_from_background=True) as engine:
        if args.repair:
            found = engine.check_index()
            removed = engine.repair_index()
            print(f"repaired: {'; '.join(found) or 'nothing was wrong'} ({removed:,} documents taken out)")
        return _run_index(engine)


def _index_in_background(args: argparse.Namespace) -> int:
    """The detached run `findling add` starts (server/background.py): it embeds what is pending
    unless a window holds the index, and gives the index to any process that asks for it."""
    from findling.server.background import open_for_background

    handle = open_for_background(args.home, _settings(args))
    if handle is None:
        return 0
    with handle:
        report = handle.index()
    return 0 if not (report.embedding and report.embedding.cancelled) else 130


def cmd_search(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        result = engine.find(_request(args, SearchMode.KEYWORD))
    return _print_result(args, result)


def print_explain(result: SearchResult) -> None:
    explain = result.explain
    if explain is None:
        return
    print(f"\nexplain: mode {explain.mode}")
    for line in explain_lines(explain):
        print(f"  {printable(line)}")
    titles = {h.doc_id: h.title for h in result.hits}
    print(f"  {explain_columns()}")
    for i, r in enumerate(explain.results, 1):
        print(f"  {printable(explain_row(i, r, titles.get(r.doc_id, '')))}")
    print("  timings ms: " + ", ".join(f"{k} {v:.1f}" for k, v in explain.timings_ms.items()))


def cmd_query(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        result = engine.find(_request(args, SearchMode.HYBRID))
    if args.json:
        extra = {"explain": result.explain.to_dict()} if args.explain and result.explain else {}
        print(dump_json(result_json(result, extra)))
        return 0
    print_results(result)
    if args.explain:
        print_explain(result)
    return 0


def cmd_vsearch(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        result = engine.find(_request(args, SearchMode.SEMANTIC))
    return _print_result(args, result)


def cmd_get(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        piece = engine.get(args.ref, args.from_line, args.lines)
    if args.json:
        print(dump_json(slice_json(piece)))
    else:
        print_slice(slice_json(piece), args.line_numbers)
    return 0


def cmd_symbols(args: argparse.Namespace) -> int:
    """A source file's outline: one line per definition, indented under its owner."""
    with _engine(args) as engine:
        outline = engine.symbols(args.ref)
    if args.json:
        print(dump_json(outline_json(outline)))
        return 0
    if not outline.symbols:
        why = "none found" if outline.language else "not a source file Findling reads definitions in"
        print(f"{printable(outline.path)}: no definitions ({why})")
        return 0
    open_ends: list[int] = []
    for symbol in outline.symbols:
        while open_ends and open_ends[-1] < symbol.end:
            open_ends.pop()
        indent = "  " * len(open_ends)
        print(f"{symbol.line:>6}  {indent}{symbol.kind:<9} {printable(symbol.signature or symbol.qualname)}")
        open_ends.append(symbol.end)
    return 0


def cmd_multi_get(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        found = engine.multi_get(args.refs, max_bytes=args.max_bytes, max_lines=args.max_lines)
    if args.json:
        print(dump_json(multi_get_json(found)))
    else:
        for piece in found.documents:
            print(f"==> #{piece.docid} {printable(piece.path)} <==")
            print(printable(piece.text, one_line=False).rstrip("\n"))
            print()
        for ref, why in found.left_out:
            print(f"left out: {printable(ref)}: {printable(why)}", file=sys.stderr)
        if found.left_out_total > len(found.left_out):
            print(f"left out: {found.left_out_total - len(found.left_out)} more", file=sys.stderr)
    return 0 if found.documents else 1


def cmd_similar(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        result = engine.similar(args.ref, limit=args.limit, filters=_filters(args))
    return _print_result(args, result)


def cmd_mcp(args: argparse.Namespace) -> int:
    if args.print_config:
        from findling.server.client_config import client_config

        print(client_config(args.print_config, args.home))
        return 0
    from findling.server.handle import IndexHandle
    from findling.server.mcp_server import run_stdio

    with IndexHandle.open(args.home, settings=_settings(args)) as handle:
        run_stdio(handle, allow_write=args.allow_write)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from findling.server.http_api import load_token, serve, token_path

    if args.print_token:
        print(load_token(args.home))
        return 0
    from findling.server.handle import IndexHandle

    with IndexHandle.open(args.home, settings=_settings(args)) as handle:
        load_token(args.home)
        print(
            f"Findling serves MCP at http://127.0.0.1:{args.port}/mcp, POST /query and GET /health; send "
            f"Authorization: Bearer <the token in {token_path(args.home)}>",
            file=sys.stderr,
        )
        serve(handle, port=args.port, allow_write=args.allow_write, home=args.home)
    return 0


def _model_progress():
    if not sys.stderr.isatty():
        return None

    def show(p) -> None:
        frac = p.done / p.total if p.total else 0.0
        sys.stderr.write(f"\r\033[K{p.model}: {p.file} {p.done / 1e6:.1f}/{p.total / 1e6:.1f} MB ({frac:.0%})")
        sys.stderr.flush()

    return show


def cmd_models(args: argparse.Namespace) -> int:
    from findling.models.service import ModelService
    from findling.settings import load_settings

    service = ModelService(load_settings(args.home).models)
    manifest = service.manifest
    if args.action == "list":
        from findling.models.manifest import ROLES, model_size

        for role in ROLES:
            if role not in manifest.defaults:  # a manifest of one's own may leave a role out
                continue
            chosen = service.spec(role).name
            for name in (manifest.defaults[role], *manifest.alternatives.get(role, ())):
                spec = manifest.get(name)
                st = service.store.status(spec)
                mark = "*" if name == chosen else " "
                print(f"{mark} {role:<10} {name:<26} {st.state:<10} {model_size(spec, st.size):>12}  {spec.repo}")
        print("* = in use")
        return 0
    if args.action == "import":
        from pathlib import Path

        from findling.models.download import sha256_file
        from findling.models.importing import identify

        folder = args.dir or args.name  # the name is optional: the folder says which model it holds
        if not folder:
            print("findling: give the folder to import from", file=sys.stderr)
            return 2
        spec = manifest.get(args.name) if args.dir else identify(Path(folder), manifest, sha256_file)
        status = service.store.import_dir(spec, Path(folder))
        print(f"{spec.name} ({spec.role}): {status.state} from {folder}")
        if spec.name not in (
            manifest.defaults.get(spec.role),
            *manifest.alternatives.get(spec.role, ()),
        ) or spec.repo.startswith("local:"):
            print(
                f'to use it: set {spec.role} = "{spec.name}" under [models] in settings.toml, '
                "or choose it in the window's Models dialog"
            )
        return 0
    if not args.name:
        print("findling: name a model (see findling models list)", file=sys.stderr)
        return 2
    spec = manifest.get(args.name)
    if args.action == "pull":
        status = service.store.pull(spec, progress=_model_progress())
        if sys.stderr.isatty():
            sys.stderr.write("\r\033[K")
        print(f"{spec.name}: {status.state} ({status.size / 1e6:.1f} MB, {status.detail})")
    elif args.action == "remove":
        print(f"{spec.name}: {'removed' if service.store.remove(spec) else 'was not installed'}")
    return 0


def cmd_why_not(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        answer = engine.why_not(_request(args, SearchMode(args.mode)), args.file)
    if args.json:
        print(dump_json(asdict(answer)))
    else:
        print_why_not(asdict(answer))
    return 0


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
    settings = _settings(args)
    if args.reranker:
        settings.pipeline.reranker = args.reranker
    if args.match:
        settings.search.match = args.match
    workdir = Path(args.workdir) if args.workdir else None
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


def cmd_gui(args: argparse.Namespace) -> int:
    try:
        from findling.gui.app import main as gui_main
    except ImportError as exc:
        print(f"findling: the desktop app needs PySide6 ({exc}); the CLI works without it", file=sys.stderr)
        return 2
    return gui_main(args.home, demo=args.demo)


def cmd_status(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        st = engine.status()
    if args.json:
        print(dump_json(status_json(st)))
    else:
        print_status(status_json(st))
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from findling.doctor import run_checks

    checks = run_checks(args.home)
    for check in checks:
        mark = "-- " if check.optional else "ok " if check.ok else "!! "
        print(f"{mark} {check.name:<24} {check.detail}")
    return 0 if all(c.ok for c in checks) else 1


def cmd_install_cli(args: argparse.Namespace) -> int:
    from pathlib import Path

    from findling.executables import install_command

    link, on_path = install_command(Path(args.dir) if args.dir else None)
    print(f"{link} -> {link.resolve()}")
    if not on_path:
        print(
            f"{link.parent} is not on PATH: add it in your shell profile, e.g.\n"
            f"  echo 'export PATH=\"{link.parent}:$PATH\"' >> ~/.zprofile   # macOS (zsh)\n"
            f"  echo 'export PATH=\"{link.parent}:$PATH\"' >> ~/.profile    # Linux"
        )
    return 0


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
                    Path(args.time_to_searchable), Path(args.workdir) if args.workdir else None, _settings(args)
                ),
                indent=2,
            )
        )
        return 0
    if args.mcp:
        from findling.devtools.bench_mcp import bench_mcp

        print(
            json.dumps(
                bench_mcp(Path(args.mcp), Path(args.workdir) if args.workdir else None, _settings(args), args.queries),
                indent=2,
            )
        )
        return 0
    if args.rerank:
        from findling.devtools.bench_rerank import bench_rerank

        print(
            json.dumps(
                bench_rerank(Path(args.rerank), Path(args.workdir) if args.workdir else None, _settings(args)), indent=2
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


def build_parser() -> argparse.ArgumentParser:  # noqa: PLR0915 - every command and its options, declared in one readable table
    parser = argparse.ArgumentParser(prog="findling", description="Local-first desktop search.")
    parser.add_argument("-V", "--version", action="version", version=VERSION_LINE)
    parser.add_argument("--selftest", action="store_true", help="check this installation end to end and exit")
    parser.add_argument("--home", help="folder holding the index (default: FINDLING_HOME or the user data dir)")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("add", help="add folders or files to the index and index them")
    p.add_argument("paths", nargs="+")
    p.add_argument("--include", action="append", help="only index files matching this gitignore-style pattern")
    p.add_argument("--exclude", action="append", help="skip files matching this gitignore-style pattern")
    p.add_argument("--no-index", action="store_true", help="add without indexing now")
    p.add_argument(
        "--wait",
        action="store_true",
        help="also wait for the embedding (semantic search), which otherwise goes on in the background",
    )
    p.set_defaults(func=cmd_add)

    p = sub.add_parser("remove", help="remove a folder and its documents from the index")
    p.add_argument("path")
    p.set_defaults(func=cmd_remove)

    p = sub.add_parser("index", help="bring the index up to date with the folders")
    p.add_argument(
        "--repair",
        action="store_true",
        help="first mend what `findling doctor` finds wrong in the index (documents of removed folders, "
        "duplicates), then read again what that took out",
    )
    p.add_argument("--background", action="store_true", help=argparse.SUPPRESS)  # the run `add` starts
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="keyword (BM25) search")
    p.add_argument("query", nargs="+", help="the query; words after the options count too")
    _search_options(p)
    p.add_argument(
        "--match",
        choices=["most", "all", "any"],
        help="most: any word, ranked by how much of the query a file holds and its title (default); "
        "all: every word required; any: any word",
    )
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("query", help="hybrid search: keywords and meaning, fused, reranked")
    p.add_argument("query", nargs="+", help="the query; words after the options count too")
    _search_options(p)
    p.add_argument("--explain", action="store_true", help="show every stage's scores and timings")
    p.add_argument("--expand", action="store_true", help="expand the query with the generator")
    p.add_argument("--no-expand", action="store_true")
    p.add_argument("--no-rerank", action="store_true")
    p.add_argument("--reranker", choices=["auto", "cross-encoder", "llm", "off"], default=None)
    p.add_argument("--min-score", type=float, default=0.0, help="drop results below this final score (0–1)")
    p.set_defaults(func=cmd_query)

    p = sub.add_parser("vsearch", help="semantic search: documents by meaning")
    p.add_argument("query", nargs="+", help="the query; words after the options count too")
    _search_options(p)
    p.set_defaults(func=cmd_vsearch)

    p = sub.add_parser("get", help="print an indexed document (by docid or path), or lines of it")
    p.add_argument("ref", help="#docid or path, optionally :LINE or :LINE:COUNT (e.g. #3fa9c2:120:40)")
    p.add_argument("--from-line", type=int, default=None, help="first line (1-based)")
    p.add_argument("--lines", type=int, default=None, help="how many lines")
    p.add_argument("-l", "--line-numbers", action="store_true", help="number the lines")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_get)

    p = sub.add_parser("symbols", help="a source file's outline: its functions, classes and methods")
    p.add_argument("ref", help="#docid or path of an indexed source file")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_symbols)

    p = sub.add_parser("multi-get", help="print several indexed documents (docids, paths or glob patterns)")
    p.add_argument("refs", nargs="+")
    p.add_argument("--max-bytes", type=int, default=60_000, help="stop adding documents past this much text")
    p.add_argument("--max-lines", type=int, default=None, help="only the first N lines of each")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_multi_get)

    p = sub.add_parser("similar", help="documents like a given one (docid or path), by meaning")
    p.add_argument("ref")
    _search_options(p)
    p.set_defaults(func=cmd_similar)

    p = sub.add_parser("why-not", help="why a file is (or is not) among a query's results")
    p.add_argument("query")
    # not `path`: that is --path's, the filter (the file once filtered the search to itself)
    p.add_argument("file", metavar="path", help="the file you expected to find")
    p.add_argument(
        "--mode",
        choices=list(SearchMode),
        default=SearchMode.HYBRID.value,
        help="which search to explain: query (hybrid), search (keyword) or vsearch (semantic)",
    )
    _search_options(p)
    p.add_argument("--match", choices=["most", "all", "any"], help="keyword mode: as search --match")
    p.add_argument("--min-score", type=float, default=0.0, help="the score floor the search used")
    p.set_defaults(func=cmd_why_not)

    p = sub.add_parser("mcp", help="serve the index to AI agents over MCP (stdio)")
    p.add_argument("--allow-write", action="store_true", help="also offer add_folder, remove_folder and index")
    p.add_argument(
        "--print-config",
        metavar="CLIENT",
        choices=["claude-desktop", "claude-code", "cursor", "vscode", "codex"],
        help="print the snippet that registers this server with CLIENT: claude-desktop, claude-code, "
        "cursor, vscode or codex",
    )
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("serve", help="serve MCP over HTTP plus POST /query and GET /health on 127.0.0.1")
    p.add_argument("--port", type=int, default=8765)
    p.add_argument("--allow-write", action="store_true", help="also offer add_folder, remove_folder and index")
    p.add_argument("--print-token", action="store_true", help="print the bearer token clients must send")
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("models", help="list, download, import or remove models")
    p.add_argument("action", choices=["list", "pull", "import", "remove"])
    p.add_argument("name", nargs="?")
    p.add_argument(
        "dir",
        nargs="?",
        help="for import: the folder holding the model files (`findling models import DIR` recognises the model)",
    )
    p.set_defaults(func=cmd_models)

    p = sub.add_parser(
        "eval",
        help="retrieval quality on a BEIR dataset (nDCG@10, Recall@100, MRR@10) or on "
        "known-item questions over a folder (hit@1, hit@3, MRR@10)",
    )
    p.add_argument(
        "dataset",
        help="folder with corpus.jsonl, queries.jsonl and qrels/; with --known-items, the "
        "folder the questions are about",
    )
    p.add_argument(
        "--known-items",
        metavar="QUESTIONS.tsv",
        help="lines `query<TAB>targets[<TAB>kind]`, targets comma-separated file names without extension",
    )
    p.add_argument(
        "--calibration", action="store_true", help="also print how often results in each score bucket are relevant"
    )
    p.add_argument(
        "--modes",
        help="comma-separated subset of: bm25 (keyword search, as `findling search` ranks), vector, hybrid, "
        "hybrid+rerank, full",
    )
    p.add_argument(
        "--match",
        choices=("most", "all", "any"),
        help="bm25 mode: as `findling search --match` (default: the settings' match, as `findling search`)",
    )
    p.add_argument("--split", default="test", help="the qrels file to judge by: test, or train/dev for tuning")
    p.add_argument("--workdir", help="keep the throwaway index here, to reuse it (and its embeddings)")
    p.add_argument("--max-queries", type=int, default=0, help="only the first N queries (quick runs)")
    p.add_argument(
        "--reranker",
        choices=["auto", "cross-encoder", "llm", "off"],
        help="the reranker for the hybrid+rerank and full modes",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("gui", help="open the desktop app")
    p.add_argument("--demo", action="store_true", help="open on a small bundled sample folder")
    p.set_defaults(func=cmd_gui)

    p = sub.add_parser("status", help="what is indexed, and which files failed")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)

    p = sub.add_parser("doctor", help="check the installation")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser(
        "install-cli",
        help="link `findling` into ~/.local/bin (macOS .app, Linux folder) so terminals and agents can run it",
    )
    p.add_argument("--dir", help="folder for the link (default: ~/.local/bin)")
    p.set_defaults(func=cmd_install_cli)

    p = sub.add_parser("bench", help="measure indexing and search speed against SQLite FTS5")
    p.add_argument("--docs", type=int, default=20000, help="number of documents (up to 100000)")
    p.add_argument("--corpus", help="folder of real text to cut documents from (e.g. an unpacked linux-doc)")
    p.add_argument("--workdir", help="where to build the corpus and indexes (default: a temp dir)")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument(
        "--reuse-index",
        action="store_true",
        help="time searching on the index an earlier run left in --workdir (no re-indexing)",
    )
    p.add_argument(
        "--cli",
        metavar="FOLDER",
        help="instead: median wall time of common commands on an index of FOLDER, with and without an owner",
    )
    p.add_argument("--runs", type=int, default=50, help="runs of each command for --cli")
    p.add_argument("--gui", metavar="FOLDER", help="instead: the app's event-loop lateness while it indexes FOLDER")
    p.add_argument(
        "--gui-start",
        metavar="HOME",
        help="instead: seconds from launching the app on the index in HOME to a window ready for typing",
    )
    p.add_argument(
        "--time-to-searchable",
        metavar="FOLDER",
        help="instead: seconds from adding FOLDER to an empty index until keyword-searchable and fully embedded",
    )
    p.add_argument("--rerank", metavar="FOLDER", help="instead: reranking latency of the top candidates over FOLDER")
    p.add_argument(
        "--mcp",
        metavar="FOLDER",
        help="instead: MCP `query` round trips (stdio, and through the owner's endpoint) beside in-process",
    )
    p.add_argument(
        "--vectors",
        type=int,
        default=0,
        help="instead: vector search on this many chunk vectors, and embedder throughput",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_bench)
    parser.set_defaults(commands=tuple(sub.choices))  # for "did you mean"
    return parser


def _result_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 10_000:
        raise argparse.ArgumentTypeError(f"must be between 1 and 10000, got {value}")
    return value


def _search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("-n", "--limit", type=_result_count, default=None, help="number of results (1–10000)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--ext", action="append", help="only files with this extension (repeatable)")
    p.add_argument("--path", action="append", help="only paths containing this text")
    p.add_argument("--folder", action="append", help="only files under this folder")
    p.add_argument("--after", help="modified on or after (YYYY-MM-DD, 7d, …)")
    p.add_argument("--before", help="modified before (YYYY-MM-DD, 7d, …)")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line as the CLI reads it. Query words may follow the options
    (`findling query "why it fails" -n 5 ext:md`): they join the query."""
    parser = build_parser()
    args, extra = parser.parse_known_args(list(argv))
    if extra:
        if not isinstance(getattr(args, "query", None), list) or any(w.startswith("-") for w in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.query += extra
    if isinstance(getattr(args, "query", None), list):
        args.query = " ".join(args.query)
    return args


def _did_you_mean(argv: list[str]) -> str:
    """For a mistyped command (`findling serch`), the command meant; "" when the words are fine."""
    import difflib

    words = iter(argv)
    command = None
    for word in words:
        if word in _VALUE_OPTIONS:
            next(words, None)  # the option's value is no command
        elif not word.startswith("-"):
            command = word
            break
    choices = _command_names()
    if command is None or command in choices:
        return ""
    close = difflib.get_close_matches(command, choices, n=1, cutoff=0.6)
    if not close:
        return ""
    return f"findling: there is no command '{command}'; did you mean '{close[0]}'? (findling --help lists them)"


_VALUE_OPTIONS = ("--home",)


def _command_names() -> list[str]:
    return list(build_parser().get_default("commands"))


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--selftest" in argv:
        from findling.selftest import run_selftest

        return run_selftest()
    suggestion = _did_you_mean(argv)
    if suggestion:
        print(suggestion, file=sys.stderr)
        return 2
    args = parse_args(argv)
    try:
        return args.func(args)
    except FindlingError as exc:
        print(f"findling: {printable(str(exc))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nstopped; the index keeps everything committed so far", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return reader_left()


def run() -> None:
    """The `findling` command: `main`, then leave without the interpreter's teardown. Every
    index is closed by then (IndexHandle.close); what is left to tear down is native
    libraries' threads, and DuckDB can abort a process exiting with them ("terminate called
    without an active exception", duckdb#13904: seen once in ~500 short CLI processes here)."""
    code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a reader that left, or a closed stream: nothing more to say
    os._exit(code)


if __name__ == "__main__":
    run()
