"""The `findling` command's commands: each `cmd_*` takes the parsed command line (cli.py's
parser) and returns the exit code; they call the same engine API as the window. Here: searching,
reading documents and the index's health; indexing is in cli_indexing.py, models in
cli_models.py, the measurement tools' commands in cli_devtools.py."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING

from findling.answer.sentences import with_citations
from findling.faces.explaining import explain_columns, explain_lines, explain_row
from findling.faces.payloads import (
    answer_json,
    multi_get_json,
    outline_json,
    result_json,
    slice_json,
    status_json,
    why_not_json,
)
from findling.faces.terminal import color as _color
from findling.faces.terminal import dump_json, print_answer, print_payload, print_slice, print_status, print_why_not
from findling.filter_options import OPTIONS
from findling.pathnames import printable
from findling.records import (
    AnswerSentence,
    Filters,
    RerankerMode,
    SearchMode,
    SearchRequest,
    SearchResult,
)
from findling.search.filter_table import filters_from_options
from findling.search.request_options import request_from_options

if TYPE_CHECKING:
    pass


def settings_of(args: argparse.Namespace):
    from findling.settings import load_settings

    settings = load_settings(args.home)
    if settings.models.threads == 0:
        # A command in a terminal has no UI thread to keep a core free for.
        settings.models.threads = os.cpu_count() or 1
    return settings


def open_index(args: argparse.Namespace, take_from_background: bool = False):
    """The index: opened here when no other Findling holds it (and then served to others while this
    command runs), else reached through the Findling that does. Output is the same either way.
    `take_from_background`: a command that indexes takes the index from a background embedding
    run instead of waiting on it as its client (server/background.py)."""
    from findling.server.handle import IndexHandle

    return IndexHandle.open(args.home, settings=settings_of(args), take_from_background=take_from_background)


def _filters(args: argparse.Namespace) -> Filters:
    return filters_from_options(**{option.name: getattr(args, option.name) for option in OPTIONS})


def _request(args: argparse.Namespace, mode: SearchMode) -> SearchRequest:
    """The request a search command sends: `search` (keyword), `query` (hybrid) or `vsearch`
    (semantic). why-not builds the same one from the same options, so it explains the list that
    command shows."""
    expand = True if getattr(args, "expand", False) else False if getattr(args, "no_expand", False) else None
    rerank: RerankerMode | None = "off" if getattr(args, "no_rerank", False) else getattr(args, "reranker", None)
    return request_from_options(mode, {**vars(args), "expand": expand, "rerank": rerank})


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


def cmd_search(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
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
    with open_index(args) as engine:
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

    with open_index(args) as engine:
        answer = engine.ask(question, _filters(args), on_sentence=said)
    if args.json:
        print(dump_json(answer_json(answer)))
        return 0
    if shown:
        print()
    print_answer(answer_json(answer), _color(), streamed=bool(shown) and not answer.abstained)
    return 0


def cmd_vsearch(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        result = engine.find(_request(args, SearchMode.SEMANTIC))
    return _print_result(args, result)


def cmd_get(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        piece = engine.get(args.ref, args.from_line, args.lines)
    if args.json:
        print(dump_json(slice_json(piece)))
    else:
        print_slice(slice_json(piece), args.line_numbers)
    return 0


def cmd_symbols(args: argparse.Namespace) -> int:
    """A source file's outline: one line per definition, indented under its owner."""
    with open_index(args) as engine:
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
    with open_index(args) as engine:
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
    with open_index(args) as engine:
        result = engine.similar(args.ref, limit=args.limit, filters=_filters(args))
    return _print_result(args, result)


def cmd_mcp(args: argparse.Namespace) -> int:
    if args.print_config:
        from findling.server.client_config import client_config

        print(client_config(args.print_config, args.home))
        return 0
    from findling.server.handle import IndexHandle
    from findling.server.mcp_server import run_stdio

    with IndexHandle.open(args.home, settings=settings_of(args)) as handle:
        run_stdio(handle, allow_write=args.allow_write)
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from findling.server.http_api import load_token, serve, token_path

    if args.print_token:
        print(load_token(args.home))
        return 0
    from findling.server.handle import IndexHandle

    with IndexHandle.open(args.home, settings=settings_of(args)) as handle:
        load_token(args.home)
        print(
            f"Findling serves MCP at http://127.0.0.1:{args.port}/mcp, POST /query and GET /health; send "
            f"Authorization: Bearer <the token in {token_path(args.home)}>",
            file=sys.stderr,
        )
        serve(handle, port=args.port, allow_write=args.allow_write, home=args.home)
    return 0


def cmd_why_not(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
        answer = engine.why_not(_request(args, SearchMode(args.mode)), args.file)
    if args.json:
        print(dump_json(why_not_json(answer)))
    else:
        print_why_not(why_not_json(answer))
    return 0


def cmd_gui(args: argparse.Namespace) -> int:
    try:
        from findling.gui.app import main as gui_main
    except ImportError as exc:
        print(f"findling: the desktop app needs PySide6 ({exc}); the CLI works without it", file=sys.stderr)
        return 2
    return gui_main(args.home, demo=args.demo)


def cmd_status(args: argparse.Namespace) -> int:
    with open_index(args) as engine:
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
