"""The `findling` command line. It calls the same engine API as the GUI."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any

from findling import VERSION_LINE
from findling.cli_commands import (
    cmd_ask,
    cmd_doctor,
    cmd_get,
    cmd_gui,
    cmd_install_cli,
    cmd_mcp,
    cmd_multi_get,
    cmd_query,
    cmd_search,
    cmd_serve,
    cmd_settings,
    cmd_similar,
    cmd_status,
    cmd_symbols,
    cmd_vsearch,
    cmd_why_not,
)
from findling.cli_devtools import cmd_bench, cmd_eval
from findling.cli_indexing import cmd_add, cmd_attach, cmd_index, cmd_publish, cmd_remove
from findling.cli_models import cmd_models
from findling.errors import FindlingError
from findling.faces.terminal import reader_left
from findling.filter_options import OPTIONS
from findling.pathnames import printable
from findling.records import SearchMode
from findling.vocabulary import MATCH_MODES, RERANKER_MODES, RESULT_LIMIT, SERVER_APIS


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
    follow = p.add_mutually_exclusive_group()
    follow.add_argument(
        "--no-gitignore",
        dest="gitignore",
        action="store_false",
        default=None,
        help="read what the folder's .gitignore files leave out (kept for the folder; --gitignore follows them again)",
    )
    follow.add_argument("--gitignore", dest="gitignore", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "--wait",
        action="store_true",
        help="also wait for the embedding (semantic search), which otherwise goes on in the background",
    )
    p.set_defaults(func=cmd_add)

    p = sub.add_parser("remove", help="remove a folder and its documents from the index")
    p.add_argument("path")
    p.set_defaults(func=cmd_remove)

    p = sub.add_parser(
        "publish",
        help="publish a folder of this index for others to attach: at a path (a shared drive) or "
        "s3://bucket/prefix (credentials and endpoint from the AWS environment); again: only what changed",
    )
    p.add_argument("path", help="a folder of this index")
    p.add_argument("--to", required=True, dest="uri", help="a folder path or an s3:// URI")
    p.add_argument("--name", default="", help="the collection's name (default: the folder's)")
    p.set_defaults(func=cmd_publish)

    p = sub.add_parser("attach", help="search a collection another Findling published, read-only, beside your folders")
    p.add_argument("uri", help="where it was published: a folder path or an s3:// URI")
    p.add_argument("--name", default="", help="what to call it here (default: its published name)")
    p.add_argument("--wait", action="store_true", help="also wait for its vectors to be copied in")
    p.set_defaults(func=cmd_attach)

    p = sub.add_parser("detach", help="stop searching an attached collection (its copy here is removed)")
    p.add_argument("path", help="its URI or name")
    p.set_defaults(func=cmd_remove)

    p = sub.add_parser("index", help="bring the index up to date with the folders")
    p.add_argument(
        "--repair",
        action="store_true",
        help="first mend what `findling doctor` finds wrong in the index (documents of removed folders, "
        "duplicates), then read again what that took out",
    )
    p.add_argument(
        "--compact",
        action="store_true",
        help="first give back the space of removed documents (the index file only grows otherwise); "
        "no other Findling may hold the index meanwhile",
    )
    p.add_argument("--background", action="store_true", help=argparse.SUPPRESS)  # the run `add` starts
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="keyword (BM25) search")
    p.add_argument("query", nargs="+", help="the query; words after the options count too")
    _search_options(p)
    p.add_argument(
        "--match",
        choices=MATCH_MODES,
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
    p.add_argument("--reranker", choices=RERANKER_MODES, default=None)
    p.add_argument("--min-score", type=float, default=0.0, help="drop results below this final score (0–1)")
    p.set_defaults(func=cmd_query)

    p = sub.add_parser("ask", help="an answer from your files, each sentence cited and checked")
    p.add_argument("query", nargs="+", help="the question; words after the options count too")
    p.add_argument("--json", action="store_true", help="print JSON")
    _filter_options(p)
    p.set_defaults(func=cmd_ask)

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
    p.add_argument("--match", choices=MATCH_MODES, help="keyword mode: as search --match")
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

    p = sub.add_parser(
        "models",
        help="list, download, import or remove models; `use` chooses a role's model, "
        "or the model server that runs it (findling models use embedder --url http://localhost:11434 "
        "--model nomic-embed-text --api ollama)",
    )
    p.add_argument("action", choices=["list", "pull", "import", "remove", "use"])
    p.add_argument("--url", help="use: the model server's address, e.g. http://localhost:11434")
    p.add_argument("--model", help="use: the model as the server names it")
    p.add_argument("--api", choices=SERVER_APIS, help="use: the API the server speaks (default openai)")
    p.add_argument("--key-env", help="use: the environment variable holding the server's API key")
    p.add_argument(
        "--allow-remote",
        action="store_true",
        help="use: allow a server on another machine (document text then leaves this one)",
    )
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
        "--ask",
        metavar="QUESTIONS.tsv",
        help="how `findling ask` answers, cites and declines: lines `question<TAB>targets[<TAB>split]`, "
        "the target - for a question the folder cannot answer",
    )
    p.add_argument(
        "--held-out",
        action="store_true",
        help="the dataset is a SETS.toml (docs/eval/held-out.toml): for each set, hybrid with the fusion's model "
        "fitted without that set's collection, against the better lane",
    )
    p.add_argument("--fresh", action="store_true", help="with --held-out: collect the tuning splits' evidence again")
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
        choices=MATCH_MODES,
        help="bm25 mode: as `findling search --match` (default: the settings' match, as `findling search`)",
    )
    p.add_argument("--split", default="test", help="the qrels file to judge by: test, or train/dev for tuning")
    p.add_argument("--workdir", help="keep the throwaway index here, to reuse it (and its embeddings)")
    p.add_argument("--max-queries", type=int, default=0, help="only the first N queries (quick runs)")
    p.add_argument(
        "--reranker",
        choices=RERANKER_MODES,
        help="the reranker for the hybrid+rerank and full modes",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("gui", help="open the desktop app")
    p.add_argument("--demo", action="store_true", help="open on a small bundled sample folder")
    p.set_defaults(func=cmd_gui)

    p = sub.add_parser("settings", help="every setting: its value, default, allowed values and what it does")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_settings)

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
    low, high = RESULT_LIMIT
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"must be between {low:g} and {high:g}, got {value}")
    return value


def _search_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "-n",
        "--limit",
        type=_result_count,
        default=None,
        help=f"number of results ({RESULT_LIMIT[0]}–{RESULT_LIMIT[1]:,})",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    _filter_options(p)


def _filter_options(p: argparse.ArgumentParser) -> None:
    """--ext, --path, --folder, --lang, --after, --before: as filter_options.OPTIONS declares them."""
    for option in OPTIONS:
        p.add_argument(
            f"--{option.name}",
            action="append" if option.repeated else "store",
            help=option.help,
            metavar=option.metavar,
        )


def parse_args(argv: Sequence[str], parser: argparse.ArgumentParser | None = None) -> argparse.Namespace:
    """The command line as the CLI reads it. Query words may follow the options
    (`findling query "why it fails" -n 5 ext:md`): they join the query."""
    parser = parser or build_parser()
    args, extra = parser.parse_known_args(list(argv))
    if extra:
        if not isinstance(getattr(args, "query", None), list) or any(w.startswith("-") for w in extra):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.query += extra
    if isinstance(getattr(args, "query", None), list):
        args.query = " ".join(args.query)
    return args


def _did_you_mean(argv: list[str], parser: argparse.ArgumentParser) -> str:
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
    choices = list(parser.get_default("commands"))
    if command is None or command in choices:
        return ""
    close = difflib.get_close_matches(command, choices, n=1, cutoff=0.6)
    if not close:
        return ""
    return f"findling: there is no command '{command}'; did you mean '{close[0]}'? (findling --help lists them)"


_VALUE_OPTIONS = ("--home",)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--selftest" in argv:
        from findling.selftest import run_selftest

        return run_selftest()
    parser = build_parser()  # once: building it is a fifth of a cold search's own time
    suggestion = _did_you_mean(argv, parser)
    if suggestion:
        print(suggestion, file=sys.stderr)
        return 2
    args = parse_args(argv, parser)
    previous = _unwind_on_sigterm()
    try:
        return args.func(args)
    except Terminated:
        return 128 + signal.SIGTERM
    except FindlingError as exc:
        from findling.faces.presentation import error_text

        print(f"findling: {printable(error_text(exc, 'terminal'))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nstopped; the index keeps everything committed so far", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return reader_left()
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


class Terminated(BaseException):
    """SIGTERM, unwound as Ctrl-C is: every index is closed and the owner's record removed on the
    way out. Python's own SIGTERM ends the process where it stands (`findling serve` stopped so
    left its owner.endpoint behind: uvicorn raises the signal again after its shutdown)."""


def _raise_terminated(_signum: int, _frame: object) -> None:
    raise Terminated


def _unwind_on_sigterm() -> Any:
    """The handler SIGTERM had, SIGTERM now raising Terminated; None where signals cannot be set
    (not the main thread) or there is no SIGTERM."""
    if not hasattr(signal, "SIGTERM") or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_terminated)


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
