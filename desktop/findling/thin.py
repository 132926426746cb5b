"""`findling search`, `get`, `status` and `why-not` as a thin client: when another Findling holds the index
(the window, `mcp`, `serve`), the words and options go to it in plain values and its answer comes
back as the JSON payload, printed by the one printer (findling/faces/terminal.py). Nothing of the engine, the records,
DuckDB or numpy is imported, so a call costs the interpreter's start, a connection and the search.

Anything this does not read exactly as the command line would (another command, an option it does
not know, a value it cannot check) is left to the full command line, as is every failure: no
owner, an owner that lets the index go or does not know the request, an error. The full command
then says what it always says. FINDLING_THIN=0 turns this path off."""

from __future__ import annotations

import os
import sys

from findling.filter_options import OPTIONS
from findling.vocabulary import MATCH_MODES, RESULT_LIMIT

# typing is not imported at run time: this path counts every millisecond (annotations are strings)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

_MATCHES = MATCH_MODES
_LISTS = {f"--{o.name}": o.name for o in OPTIONS if o.repeated}
_SINGLE = {
    **{f"--{o.name}": o.name for o in OPTIONS if not o.repeated},
    "--match": "match",
    "-n": "limit",
    "--limit": "limit",
}


def _search_flags(
    rest: Iterator[str], options: dict[str, Any], more: dict[str, str] | None = None, signed: tuple[str, ...] = ()
) -> list[str] | None:
    """The words of a search command (`search`'s query, `why-not`'s query and path), its options
    read into `options` (`more`: this command's own single-valued ones, `signed`: those whose
    value may start with "-"); None for anything the command line would read otherwise."""
    single = {**_SINGLE, **(more or {})}
    words: list[str] = []
    for token in rest:
        name, value = token.split("=", 1) if token.startswith("--") and "=" in token else (token, None)
        if name == "--json" and value is None:
            options["json"] = True
        elif name in _LISTS or name in single:
            value = value if value is not None else next(rest, None)
            if value is None or (value.startswith("-") and name not in signed):
                return None
            if name in _LISTS:
                options[_LISTS[name]].append(value)
            else:
                options[single[name]] = value
        elif token.startswith("-"):
            return None  # help, another option, or a word the command line refuses
        else:
            words.append(token)
    if options["match"] not in (None, *_MATCHES) or not _limit_read(options):
        return None
    # folders are read in this process's working directory, as the command line reads them
    from findling.pathnames import folder_filter

    options["folder"] = [folder_filter(f) for f in options["folder"]]
    return words


def _search_defaults(**more: Any) -> dict[str, Any]:
    filters: dict[str, Any] = {o.name: [] if o.repeated else None for o in OPTIONS}
    return {**filters, "match": None, "limit": None, "json": False, **more}


def search_options(argv: list[str]) -> tuple[str | None, dict[str, Any]] | None:
    """(--home, the search's options) when argv is a `search` this path reads exactly; else None."""
    home, args = _home(argv)
    if args[:1] != ["search"]:
        return None
    options = _search_defaults()
    words = _search_flags(iter(args[1:]), options)
    if not words:
        return None
    options["query"] = " ".join(words)
    return home, options


def get_options(argv: list[str]) -> tuple[str | None, dict[str, Any]] | None:
    """(--home, the options) when argv is a `get` this path reads exactly; else None."""
    home, args = _home(argv)
    if args[:1] != ["get"]:
        return None
    options: dict[str, Any] = {"ref": None, "first": None, "count": None, "numbers": False, "json": False}
    rest = iter(args[1:])
    for token in rest:
        if token in ("-l", "--line-numbers"):
            options["numbers"] = True
        elif token == "--json":
            options["json"] = True
        elif token in ("--from-line", "--lines"):
            value = next(rest, None)
            if value is None or not _number(value):
                return None
            options["first" if token == "--from-line" else "count"] = int(value)
        elif token.startswith("-") or options["ref"] is not None:
            return None
        else:
            options["ref"] = token
    if options["ref"] is None:
        return None
    from findling.docids import absolute_reference
    from findling.errors import FindlingError

    try:
        options["ref"] = absolute_reference(options["ref"])  # in this process's folder, as typed
    except FindlingError:  # an unreadable line suffix: the command line says so
        return None
    return home, options


_MODES = ("hybrid", "keyword", "semantic")


def why_not_options(argv: list[str]) -> tuple[str | None, dict[str, Any]] | None:
    """(--home, the options) when argv is a `why-not QUERY PATH` this path reads exactly; else None."""
    home, args = _home(argv)
    if args[:1] != ["why-not"]:
        return None
    options = _search_defaults(mode="hybrid", min_score="0")
    more = {"--mode": "mode", "--min-score": "min_score"}
    positional = _search_flags(iter(args[1:]), options, more, signed=("--min-score",))
    if positional is None or len(positional) != 2 or options["mode"] not in _MODES:
        return None
    try:
        options["min_score"] = float(options["min_score"])
    except ValueError:
        return None
    options["query"], options["target"] = positional[0], os.path.abspath(positional[1])
    return home, options


def _limit_read(options: dict[str, Any]) -> bool:
    """-n as the command line reads it (1–10000), made a number; False when it would refuse it."""
    limit = options["limit"]
    if limit is None:
        return True
    if not _number(limit) or not RESULT_LIMIT[0] <= int(limit) <= RESULT_LIMIT[1]:
        return False
    options["limit"] = int(limit)
    return True


def status_options(argv: list[str]) -> tuple[str | None, dict[str, Any]] | None:
    """(--home, the options) for `status` and `status --json`; else None."""
    home, args = _home(argv)
    if args not in (["status"], ["status", "--json"]):
        return None
    return home, {"json": args[1:] == ["--json"]}


def _number(text: str) -> bool:
    return text.isascii() and text.isdigit()  # "²" is a digit to isdigit, not to int


def _home(argv: list[str]) -> tuple[str | None, list[str]]:
    if argv[:1] == ["--home"] and len(argv) > 1:
        return argv[1], list(argv[2:])
    return None, list(argv)


def answered(argv: list[str]) -> int | None:
    """The exit code, once the holder of the index answered and the result is printed; None
    when the full command line must run the command."""
    if os.environ.get("FINDLING_THIN") == "0":
        return None
    readers = (
        ("search", search_options),
        ("get", get_options),
        ("status", status_options),
        ("why_not", why_not_options),
    )
    parsed, verb = next(((found, verb) for verb, read in readers if (found := read(argv)) is not None), (None, ""))
    if parsed is None:
        return None
    home, options = parsed
    from findling.datahome import data_home_text

    if sys.platform == "win32":  # a named pipe: the endpoint's own channel, the same records
        from pathlib import Path

        from findling.server.endpoint import connect

        conn: Any = connect(Path(data_home_text(home)))
    else:
        from findling.server.wire import connect_thin

        conn = connect_thin(data_home_text(home))
    if conn is None:
        return None
    try:
        conn.send(("payload", verb, options))
        kind, payload = conn.recv()
    except (OSError, EOFError, ValueError, TypeError, AttributeError, ImportError):
        return None
    finally:
        conn.close()
    if kind != "ok":
        return None
    from findling.faces.terminal import color, dump_json, print_payload, print_slice, print_status, print_why_not

    if options["json"]:
        print(dump_json(payload))
    elif verb == "get":
        print_slice(payload, options["numbers"])
    elif verb == "status":
        print_status(payload)
    elif verb == "why_not":
        print_why_not(payload)
    else:
        print_payload(payload, color())
    sys.stdout.flush()
    return 0
