"""The `findling` command's commands: each `cmd_*` takes the parsed command line (cli.py's
parser) and returns the exit code; they call the same engine API as the window."""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from typing import TYPE_CHECKING

from findling.answer.sentences import with_citations
from findling.errors import FindlingError
from findling.faces import presentation
from findling.faces.payloads import (
    answer_json,
    multi_get_json,
    outline_json,
    result_json,
    slice_json,
    status_json,
    why_not_json,
)
from findling.faces.presentation import explain_columns, explain_lines, explain_row, report_counts
from findling.faces.terminal import color as _color
from findling.faces.terminal import dump_json, print_answer, print_payload, print_slice, print_status, print_why_not
from findling.filter_options import OPTIONS
from findling.pathnames import printable
from findling.records import (
    AnswerSentence,
    Filters,
    IndexProgress,
    RerankerMode,
    SearchMode,
    SearchRequest,
    SearchResult,
)
from findling.search.filter_table import filters_from_options

if TYPE_CHECKING:
    from pathlib import Path

    from findling.models.service import ModelService
    from findling.settings import Settings


class ProgressBar:
    """One line on stderr, redrawn in place; to a file or a pipe (a log, `| tee`, cron), a plain
    line at most every LOG_EVERY_S seconds: `add` to a file printed one line in 30 minutes."""

    LOG_EVERY_S = 10.0

    def __init__(self) -> None:
        self.enabled = sys.stderr.isatty()
        self.width = 30
        self._logged_at = 0.0
        self._logged_phase = ""
        self._reader_left = False

    def __call__(self, p: IndexProgress) -> None:
        if not self.enabled:
            self._log(p)
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

    def _log(self, p: IndexProgress) -> None:
        """A line for a reader that is not a terminal: at each new phase, then every LOG_EVERY_S."""
        now = time.monotonic()
        if self._reader_left or p.phase == "done":
            return
        if p.phase == self._logged_phase and now - self._logged_at < self.LOG_EVERY_S:
            return
        self._logged_at, self._logged_phase = now, p.phase
        if p.phase == "scanning":
            line = "scanning folders…"
        elif p.phase == "optimizing":
            line = "optimizing the index…"
        else:
            done, total = p.base + p.done, p.base + p.total
            share = f" ({done / total:.0%})" if total else ""
            what = "embedded" if p.phase == "embedding" else "read"
            line = f"{done:,} of {total:,} {'documents' if p.phase == 'embedding' else 'files'} {what}{share}"
            if p.failed:
                line += f", {p.failed:,} failed"
        try:
            print(f"findling: {line}", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            self._reader_left = True  # nothing more to say to a reader that left


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
    return filters_from_options(**{option.name: getattr(args, option.name) for option in OPTIONS})


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
            source = engine.add_source(
                path, include=args.include or (), exclude=args.exclude or (), gitignore=args.gitignore
            )
            unfollowed = "" if source.gitignore else " (its .gitignore files not followed)"
            print(f"added {printable(source.path)}{unfollowed}")
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
        kept = [f"{report.added + report.updated:,} files read"]
        if report.embedding is not None and (report.embedding.documents or report.embedding.deepened):
            kept = [presentation.embedded_words(report.embedding)]
        print(f"stopped; kept {', '.join(kept)}; `findling index` continues", file=sys.stderr)
        return 130
    print(f"indexed in {report.seconds:.1f}s: {report_counts(report, every=True)}")
    emb = report.embedding
    if emb is not None and emb.skipped:
        print(f"semantic search is off: {presentation.note_text(emb.skipped, 'terminal')}")
    elif emb is not None and (emb.documents or emb.deepened):
        print(f"embedded with {emb.model} in {emb.seconds:.1f}s: {presentation.embedded_words(emb)}")
    if emb is not None and emb.stopped:
        print(f"embedding stopped: {emb.stopped}")
    for warning in report.warnings[:20]:
        print(f"warning: {printable(warning)}", file=sys.stderr)
    for folder in engine.status().sources:
        if folder.left_out and not folder.indexed and folder.source.gitignore:
            print(f"to read them: findling add --no-gitignore {printable(folder.source.path)}", file=sys.stderr)
    if report.failed:
        print("see the failures with: findling status")
    return 0


def cmd_index(args: argparse.Namespace) -> int:
    if args.background:
        return _index_in_background(args)
    if args.compact:
        _compact(args)
    with _engine(args, take_from_background=True) as engine:
        if args.repair:
            found = engine.check_index()
            removed = engine.repair_index()
            print(f"repaired: {'; '.join(found) or 'nothing was wrong'} ({removed:,} documents taken out)")
        return _run_index(engine)


def _compact(args: argparse.Namespace) -> None:
    """The index copied compact into its place (store/compaction.py), held by no process meanwhile:
    a background run hands it over; a window or server holding it is named, and nothing changes."""
    from findling.paths import DB_FILENAME, data_home
    from findling.store.compaction import compact

    with _engine(args, take_from_background=True) as engine:  # a background run lets go of it
        if engine.role != "owner":
            raise FindlingError(
                "another Findling (the window, or findling serve) holds the index: close it, then run "
                "findling index --compact again"
            )
    print("compacting the index…", file=sys.stderr, flush=True)
    before, after = compact(data_home(args.home) / DB_FILENAME, _settings(args).index.memory_limit_mb)
    given = max(0, before - after) / 1e6
    print(f"compacted: {before / 1e6:,.1f} MB -> {after / 1e6:,.1f} MB ({given:,.1f} MB given back)")


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


def cmd_ask(args: argparse.Namespace) -> int:
    question = " ".join(args.query) if isinstance(args.query, list) else args.query
    shown: list[AnswerSentence] = []

    def said(sentence: AnswerSentence) -> None:  # each checked sentence as soon as it is
        if not args.json:
            print(
                ("" if not shown else " ") + printable(with_citations(sentence.text, sentence.cites)),
                end="",
                flush=True,
            )
        shown.append(sentence)

    with _engine(args) as engine:
        answer = engine.ask(question, _filters(args), on_sentence=said)
    if args.json:
        print(dump_json(answer_json(answer)))
        return 0
    if shown:
        print()
    print_answer(answer_json(answer), _color(), streamed=bool(shown) and not answer.abstained)
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


def _list_models(service: ModelService) -> int:
    from findling.models.manifest import ROLES, model_size

    manifest = service.manifest
    for role in ROLES:
        if role not in manifest.defaults:  # a manifest of one's own may leave a role out
            continue
        chosen = service.spec(role).name
        for name in (manifest.defaults[role], *manifest.alternatives.get(role, ())):
            spec = manifest.get(name)
            st = service.store.status(spec)
            mark = "*" if name == chosen else " "
            print(f"{mark} {role:<10} {name:<26} {st.state:<10} {model_size(spec, st.size):>12}  {spec.repo}")
        if (endpoint := service.endpoint(role)) is not None:
            print(f"* {role:<10} {endpoint.where()}")
    print("* = in use")
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from findling.models.service import ModelService
    from findling.settings import load_settings

    if args.action == "use":
        return _use_model(args)
    service = ModelService(load_settings(args.home).models)
    manifest = service.manifest
    if args.action == "list":
        return _list_models(service)
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


def _use_model(args: argparse.Namespace) -> int:
    """`models use ROLE NAME` (a local model) or `models use ROLE --url URL --model NAME`: saved in
    settings.toml, then tried once so the user learns at once whether the server answers."""
    from findling.models.choice import try_server, use_local, use_server
    from findling.models.manifest import ROLES
    from findling.models.remote import Endpoint
    from findling.models.service import ModelService
    from findling.settings import load_settings, save_settings

    role, local = args.name, args.dir
    if role not in ROLES:
        print("findling: name the role: embedder, reranker, generator or ocr", file=sys.stderr)
        return 2
    settings = load_settings(args.home)
    if args.url is None:
        if not local:
            print(f"findling: name the model ({role} NAME) or its server (--url URL --model NAME)", file=sys.stderr)
            return 2
        use_local(settings.models, role, local, ModelService(settings.models).manifest)
        save_settings(settings, args.home)
        print(f"{role}: {local}, on this computer")
        return 0
    endpoint = Endpoint(args.url.rstrip("/"), args.model or "", args.api or "openai", args.key_env or "")
    use_server(settings.models, role, endpoint, args.allow_remote)  # refused: nothing saved
    save_settings(settings, args.home)
    print(f"{role}: {endpoint.where()}")
    try:
        said = try_server(role, endpoint)
    except FindlingError as exc:
        print(f"saved, but the server does not answer now: {exc}", file=sys.stderr)
        return 1
    print(f"it answers: {said}")
    return 0


def cmd_why_not(args: argparse.Namespace) -> int:
    with _engine(args) as engine:
        answer = engine.why_not(_request(args, SearchMode(args.mode)), args.file)
    if args.json:
        print(dump_json(why_not_json(answer)))
    else:
        print_why_not(why_not_json(answer))
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


def cmd_settings(args: argparse.Namespace) -> int:
    """Each setting as declared once (settings.SPECS), with the value settings.toml gives it."""
    from findling.settings import SPECS, load_settings, settings_path

    settings = load_settings(args.home)
    rows = []
    for key, spec in SPECS.items():
        section, name = key.split(".")
        value = getattr(getattr(settings, section), name)
        allowed = (
            f"{spec.range[0]:g}–{spec.range[1]:g}"
            if spec.range
            else ", ".join(spec.choices)
            if spec.choices
            else {bool: "true, false", list: "list of text", str: "text"}.get(spec.kind, spec.kind.__name__)
        )
        rows.append({"key": key, "value": value, "default": spec.default, "allowed": allowed, "help": spec.help})
    if args.json:
        print(dump_json({"file": str(settings_path(args.home)), "settings": rows}))
        return 0
    print(f"# {settings_path(args.home)}  (* not the default)")
    for row in rows:
        mark = "*" if row["value"] != row["default"] else " "
        print(f"{mark} {row['key']} = {json.dumps(row['value'], ensure_ascii=False)}  [{row['allowed']}]")
        print(f"      {row['help']}")
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
