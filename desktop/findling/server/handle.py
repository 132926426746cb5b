"""The index as one process reaches it: its own Engine when it is the owner, the owner's endpoint
when another Findling holds the index. The same calls, results, errors and progress either way,
so every face (CLI, MCP, HTTP, the window) works while the others run."""

from __future__ import annotations

import inspect
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from findling.docids import absolute_reference
from findling.errors import FindlingError, StoreLockedError
from findling.faces.payloads import result_json, slice_json, status_json, why_not_json
from findling.index_api import STREAMED, VERBS, WRITE_VERBS, IndexAPI
from findling.pathnames import absolute_address
from findling.paths import data_home
from findling.records import IndexReport, SearchMode
from findling.search.request_options import request_from_options
from findling.server.endpoint import HANDSHAKE_S, EndpointServer, Peer, connect
from findling.server.wire import RECORDS

if TYPE_CHECKING:
    from findling.engine import Engine
    from findling.settings import Settings

log = logging.getLogger(__name__)

# "app": the window. "headless": a command, `serve` or `mcp`. "background": the detached run
# that embeds after `findling add` (server/background.py holds its rule): it hands the index to
# any process that means to work on it and exits, instead of going on as its client.
Kind = Literal["app", "headless", "background"]

_OWNER_GONE = (
    "the Findling process that had the index stopped while answering; run the command again "
    "(the index keeps everything committed)"
)


_RELEASE_WAIT_S = 120.0  # how long a window waits for an owner that said it lets the index go


class OwnerBusyError(FindlingError):
    """The owner did not let go of the index in time (a long `findling index` in another process)."""


def _path(given: str) -> str:
    return absolute_address(given)


# Arguments made absolute in the caller's process: the owner runs in another folder.
_HERE: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "add_source": lambda a: dict(
        a, path=_path(a["path"]), include=tuple(a.get("include", ())), exclude=tuple(a.get("exclude", ()))
    ),
    "remove_source": lambda a: dict(a, path=_path(a["path"])),
    "why_not": lambda a: dict(a, path=_path(a["path"])),
    "get": lambda a: dict(a, ref=absolute_reference(a["ref"])),
    "symbols": lambda a: dict(a, ref=absolute_reference(a["ref"])),
    "multi_get": lambda a: dict(a, refs=list(a["refs"])),
}


def _forwarder(verb: str) -> Callable[..., Any]:
    """The IndexAPI method `verb`, run on this process's engine or sent to the owner's."""
    signature = inspect.signature(getattr(IndexAPI, verb))
    prepare = _HERE.get(verb)

    def forward(self: IndexHandle, *args: Any, **kwargs: Any) -> Any:
        arguments = signature.bind(self, *args, **kwargs).arguments
        del arguments["self"]
        return self._call(verb, (), prepare(arguments) if prepare else arguments)

    forward.__name__ = forward.__qualname__ = verb
    forward.__doc__ = getattr(IndexAPI, verb).__doc__
    forward.__signature__ = signature  # type: ignore[attr-defined]
    return forward


if TYPE_CHECKING:
    _Verbs = IndexAPI  # the methods below are exactly the API's (made from it at run time)
else:
    _Verbs = type("_Verbs", (), {verb: _forwarder(verb) for verb in VERBS})


class IndexHandle(_Verbs):
    """Open with `IndexHandle.open(home)`: owns the index when nobody does (and then serves others
    through the endpoint), else becomes a client of the owner. Every IndexAPI method works the
    same either way."""

    @classmethod
    def open(
        cls,
        home: str | os.PathLike[str] | None = None,
        settings: Settings | None = None,
        kind: Kind = "headless",
        serve: bool = True,
        wait_s: float | None = None,
        on_activate: Callable[[], None] | None = None,
        on_change: Callable[[str], None] | None = None,
        take_from_background: bool = False,
    ) -> IndexHandle:
        return cls(home, settings, kind, serve, wait_s, on_activate, on_change, take_from_background)

    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        settings: Settings | None = None,
        kind: Kind = "headless",
        serve: bool = True,
        wait_s: float | None = None,
        on_activate: Callable[[], None] | None = None,
        on_change: Callable[[str], None] | None = None,
        take_from_background: bool = False,
    ) -> None:
        """`on_change(verb)`: another process changed the index through this owner (added or
        removed a folder, indexed): a window follows every change, whoever made it.
        `take_from_background`: a command about to index takes the index from a background
        embedding run (which exits) instead of becoming its client."""
        self.home_arg = home
        self.home = Path(data_home(home))
        self.settings = settings
        self.kind = kind
        self._serve = serve
        self._wait_arg = wait_s
        self._on_activate = on_activate
        self._on_change = on_change
        self.engine: Engine | None = None
        self._server: EndpointServer | None = None
        self._stopped_server: EndpointServer | None = None  # closed, its peers' replies still going out
        self._cond = threading.Condition()
        self._in_flight = 0
        self._switching = False
        self._closed = False
        self._letting_go = threading.Event()
        self.owner_kind: str = ""  # as a client: the owner's kind, as it said when asked
        if kind == "app":
            self._take_over()
        else:
            self._acquire(client_only_for=0.0, take_from_background=take_from_background)

    @property
    def _wait_s(self) -> float:
        """How long to wait for a holder that does not answer: the settings' index.busy_wait_s (read
        only when it matters: a client that finds the owner at once never loads the settings)."""
        if self._wait_arg is None:
            from findling.settings import load_settings

            self._wait_arg = (self.settings or load_settings(self.home_arg)).index.busy_wait_s
        return self._wait_arg

    # -- who holds the index ----------------------------------------------------------------

    @property
    def role(self) -> Literal["owner", "client"]:
        return "owner" if self.engine is not None else "client"

    def _own(self) -> None:
        """Open the index ourselves (StoreLockedError when another process holds it)."""
        from findling.engine import Engine  # clients never pay for the engine's imports

        engine = Engine(self.home_arg, settings=self.settings)
        with self._cond:
            self.engine = engine
            self._letting_go = threading.Event()
        if self._serve:
            try:
                self._server = EndpointServer(self.home, self._answer)
            except OSError as exc:  # no private folder for the socket: this process still works alone
                log.warning("cannot listen for other Findling processes: %s", exc)

    def _acquire(self, client_only_for: float, take_from_background: bool = False) -> None:
        """Become a client of the owner, or the owner when there is none. For `client_only_for`
        seconds only an owner is looked for (after a handover, the new owner is opening)."""
        started = time.monotonic()
        last_error: Exception | None = None
        while True:
            owner = _ping(self.home)
            if owner == "background" and (take_from_background or self.kind == "background"):
                self._ask_handover()  # it stops at its next batch and exits; the index is ours next
            elif owner:
                self.owner_kind = owner
                return
            waited = time.monotonic() - started
            if waited >= client_only_for:
                try:
                    self._own()
                    return
                except StoreLockedError as exc:
                    last_error = exc
            if waited > client_only_for + self._wait_s:
                # Locked by a process that does not answer: an older Findling, or a stuck one.
                raise last_error or StoreLockedError(
                    f"the index at {self.home} is in use by another Findling "
                    "that does not answer; close it and try again"
                )
            time.sleep(0.05)

    def _ask_handover(self) -> str:
        """Ask the owner to hand the index over: its answer ("app": a window, which stays;
        "released"; "released" too when it left without one), or "" when no owner answers."""
        conn = connect(self.home)
        if conn is None:
            return ""
        with conn:
            try:
                conn.send(("handover",))
                if not conn.poll(_RELEASE_WAIT_S):
                    raise OwnerBusyError(
                        "the Findling process holding the index is busy; try again when its work is done"
                    )
                return str(conn.recv()[0])
            except (OSError, EOFError):
                return "released"

    def _take_over(self) -> None:
        """For the window: own the index. A headless owner (CLI, MCP or HTTP server) is asked to
        hand it over; another window is brought forward instead (ActivatedElsewhere)."""
        deadline = time.monotonic() + self._wait_s
        while True:
            answer = self._ask_handover()  # a command whose run stopped for it may exit without a word
            if answer == "app":
                raise ActivatedElsewhere()
            if answer:
                # It lets go once its calls in flight are done: an indexing run's batch (sixteen
                # documents' embeddings) can outlast the usual wait on a busy machine.
                deadline = max(deadline, time.monotonic() + _RELEASE_WAIT_S)
            try:
                self._own()
                return
            except StoreLockedError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.05)

    # -- the owner's side: answering other processes ------------------------------------------

    def _answer(self, conn: Peer) -> None:
        message = conn.recv()
        what = message[0]
        if conn.codec != RECORDS and what not in ("ping", "payload"):
            conn.send(("error", f"{what!r} is not asked in plain values"))  # engine calls carry records
        elif what == "ping":
            conn.send(("pong", self.kind, os.getpid()))
        elif what == "handover":
            if self.kind == "app":
                if self._on_activate is not None:
                    self._on_activate()
                conn.send(("app",))
            elif self.kind == "background":
                # its work goes on in the process that asked; this one has nothing left to do
                with self._cond:
                    self._closed = True
                self._let_go()
                conn.send(("released",))
            else:
                self._release()
                conn.send(("released",))
                threading.Thread(target=self._rejoin, name="findling-rejoin", daemon=True).start()
        elif what == "call":
            self._answer_call(conn, message[1], message[2], message[3])
        elif what == "payload":
            self._answer_payload(conn, message[1], message[2])
        else:
            conn.send(("error", FindlingError(f"unknown request {what!r}")))

    def _enter(self) -> tuple[Engine, threading.Event] | None:
        """Our engine for one call, counted in flight; None while this process lets the index go."""
        with self._cond:
            if self.engine is None or self._letting_go.is_set():
                return None
            self._in_flight += 1
            return self.engine, self._letting_go

    def _leave(self) -> None:
        with self._cond:
            self._in_flight -= 1
            self._cond.notify_all()

    def _answer_call(self, conn: Peer, verb: str, args: tuple, kwargs: dict) -> None:
        if verb not in VERBS:
            conn.send(("error", FindlingError(f"unknown verb {verb!r}")))
            return
        entered = self._enter()
        if entered is None:  # not run: the caller asks whoever holds the index next
            conn.send(("moved", None))
            return
        engine, letting_go = entered
        sending = threading.Lock()
        asked = threading.Event()  # the caller's own cancel (Ctrl-C), as opposed to our letting go
        if verb in STREAMED:

            def progress(p: Any) -> None:
                with sending:
                    try:
                        if conn.poll() and conn.recv() == ("cancel",):
                            asked.set()
                        conn.send(("progress", p))
                    except (OSError, EOFError):
                        asked.set()  # the client left: stop at the next file, as Ctrl-C would

            kwargs = dict(kwargs, **{STREAMED[verb]: progress, "cancel": _Either(asked, letting_go)})
        try:
            result = getattr(engine, verb)(*args, **kwargs)
        except FindlingError as exc:
            reply: tuple = ("error", exc)
        except Exception as exc:
            log.exception("%s failed", verb)
            reply = (
                "error",
                FindlingError(f"{verb} failed in the Findling that holds the index: {type(exc).__name__}: {exc}"),
            )
        else:
            reply = ("moved", result) if verb == "index" and _handed_over(result, letting_go, asked) else ("ok", result)
        finally:
            self._leave()
        with sending:
            conn.send(reply)
        if verb in WRITE_VERBS and self._on_change is not None:
            self._on_change(verb)

    def _answer_payload(self, conn: Peer, verb: str, options: dict[str, Any]) -> None:
        """A keyword search, a `get` or `status` asked by a thin client (findling/thin.py) in plain values,
        answered as its JSON payload: the client imports no records to read it. Any failure is
        sent back as such, and the client runs the command the long way, which says it as usual."""
        entered = self._enter()
        if entered is None:
            conn.send(("moved", None))
            return
        engine = entered[0]
        try:
            reply: tuple = ("ok", _payload(engine, verb, options))
        except Exception as exc:  # the long way reports it, with the CLI's own wording
            reply = ("error", f"{type(exc).__name__}: {exc}")
        finally:
            self._leave()
        conn.send(reply)

    def stop_serving(self) -> None:
        """The first step of letting go, for a process that is quitting: stop listening (a new
        window or command finds no owner and opens the index once it is free) and stop the
        indexing runs served to others at their next batch. The engine stays open for this
        process's own work until `close`."""
        with self._cond:
            self._letting_go.set()
            server, self._server = self._server, None
            self._stopped_server = server or self._stopped_server
        if server is not None:
            server.close()

    def _let_go(self) -> None:
        """Stop listening, stop indexing runs (they go on with the next owner), let the calls in
        flight finish and their answers reach their callers, then close the engine."""
        self.stop_serving()
        with self._cond:
            while self._in_flight:
                self._cond.wait()
            engine, self.engine = self.engine, None
            server, self._stopped_server = self._stopped_server, None
        if server is not None:
            server.wait_for_peers(2 * HANDSHAKE_S)
        if engine is not None:
            engine.close()

    def _release(self) -> None:
        """Hand the index over to a window: new local calls wait until this process has found it."""
        with self._cond:
            self._switching = True
        self._let_go()

    def _rejoin(self) -> None:
        try:
            self._acquire(client_only_for=30.0)
        except FindlingError as exc:
            log.warning("after handing the index over: %s", exc)
        finally:
            with self._cond:
                self._switching = False
                self._cond.notify_all()

    # -- calls ----------------------------------------------------------------------------------

    def _call(self, verb: str, args: tuple, kwargs: dict) -> Any:
        """Run a verb on our engine, or forward it to the owner. An indexing run stopped because
        this process let the index go (to a window) goes on wherever the index is now."""
        with self._cond:
            while self._switching:
                self._cond.wait()
            if self._closed:
                raise FindlingError("the index is closed")
        entered = self._enter()
        if entered is None:
            return self._forward(verb, args, kwargs)
        engine, letting_go = entered
        try:
            if verb != "index":
                return getattr(engine, verb)(*args, **kwargs)
            asked = kwargs.get("cancel") or threading.Event()
            report = engine.index(
                progress=kwargs.get("progress"), cancel=_Either(asked, letting_go), embed=kwargs.get("embed", True)
            )
        finally:
            self._leave()
        if _handed_over(report, letting_go, asked) and not self._closed:
            return report.followed_by(self._call(verb, args, kwargs))
        return report

    def _forward(self, verb: str, args: tuple, kwargs: dict) -> Any:
        """Send a call to the owner. An owner that is letting the index go answers "moved" without
        running it (or, for an indexing run, with what it did so far): ask the next one. A
        connection that breaks mid-call means the owner died; only reads are asked again."""
        progress = kwargs.pop(STREAMED.get(verb, "progress"), None)
        cancel: threading.Event | None = kwargs.pop("cancel", None)
        done: IndexReport | None = None
        broken = 0
        while True:
            conn = connect(self.home)
            if conn is None:
                self._acquire(client_only_for=0.0)  # the owner is gone: take the index or find the next owner
                if self.engine is None:
                    continue
                callbacks = {STREAMED[verb]: progress, "cancel": cancel} if verb in STREAMED else {}
                return _after(done, self._call(verb, args, dict(kwargs, **callbacks)))
            try:
                with conn:
                    conn.send(("call", verb, args, kwargs))
                    kind, value = _receive(conn, progress, cancel)
            except (OSError, EOFError):
                broken += 1
                if verb in WRITE_VERBS or broken > 2:
                    raise FindlingError(_OWNER_GONE) from None
                continue
            if kind == "ok":
                return _after(done, value)
            if value is not None:
                done = _after(done, value)
            time.sleep(0.01)  # the owner is closing: its successor is a moment away

    def close(self) -> None:
        """Let the index go; calls in flight, ours or other processes', finish first."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
        self._let_go()

    def __enter__(self) -> IndexHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ActivatedElsewhere(FindlingError):
    """Another window already shows this index; it was asked to come forward."""


def _payload(engine: Engine, verb: str, options: dict[str, Any]) -> dict:
    """What a thin client asked, as the JSON payload the full command prints from."""
    if verb == "search":
        return result_json(engine.find(request_from_options(SearchMode.KEYWORD, options)))
    if verb == "get":
        return slice_json(engine.get(options["ref"], options["first"], options["count"]))
    if verb == "status":
        return status_json(engine.status())
    if verb == "why_not":  # the request `findling why-not` builds from the same options (cli._request)
        request = request_from_options(SearchMode(options["mode"]), options)
        return why_not_json(engine.why_not(request, options["target"]))
    raise FindlingError(f"unknown payload {verb!r}")


def _ping(home: Path) -> str:
    """The kind of the process that holds the index ("app", "headless", "background"), or ""
    when none answers."""
    conn = connect(home)
    if conn is None:
        return ""
    try:
        with conn:
            conn.send(("ping",))
            if not conn.poll(5.0):
                return ""
            answer = conn.recv()
            return str(answer[1]) if answer[0] == "pong" else ""
    except (OSError, EOFError):
        return ""


def _receive(conn: Peer, progress: Callable[[Any], None] | None, cancel: threading.Event | None) -> tuple[str, Any]:
    """("ok", result) or ("moved", what was done before the owner let go); an error is raised."""
    cancel_sent = False
    while True:
        if cancel is not None and cancel.is_set() and not cancel_sent:
            conn.send(("cancel",))
            cancel_sent = True
        if not conn.poll(0.1):
            continue
        message = conn.recv()
        if message[0] == "progress":
            if progress is not None:
                progress(message[1])
        elif message[0] in ("ok", "moved"):
            return message[0], message[1]
        else:
            raise message[1]


def _handed_over(report: IndexReport, letting_go: threading.Event, asked: threading.Event) -> bool:
    """An indexing run stopped (its text or its embedding) because its process let the index go,
    not because its caller asked: it goes on wherever the index is now."""
    stopped = report.cancelled or (report.embedding is not None and report.embedding.cancelled)
    return stopped and letting_go.is_set() and not asked.is_set()


def _after(done: IndexReport | None, result: Any) -> Any:
    return done.followed_by(result) if done is not None else result


class _Either(threading.Event):
    """Set when either event is: the caller's cancel, or this process letting the index go."""

    def __init__(self, *events: threading.Event) -> None:
        super().__init__()
        self._events = events

    def is_set(self) -> bool:
        return super().is_set() or any(e.is_set() for e in self._events)

    isSet = is_set  # noqa: N815 - threading.Event's old alias
