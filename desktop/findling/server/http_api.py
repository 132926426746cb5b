"""`findling serve`: the MCP tools over Streamable HTTP at /mcp, plus `POST /query`, `POST /ask` and
`GET /health` as plain JSON. Bound to 127.0.0.1 only. Every request must carry the bearer token from the user's
config folder, and a Host and Origin naming this machine: a web page the user visits can neither
reach the API from the browser (Origin) nor through a rebound DNS name (Host)."""

from __future__ import annotations

import asyncio
import hmac
import os
import secrets
from pathlib import Path
from typing import TypeVar

import anyio.to_thread
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

from findling import __version__
from findling.errors import MAX_QUERY_CHARS, FindlingError
from findling.faces.payloads import answer_json, result_json
from findling.faces.presentation import error_text
from findling.filter_options import OPTION, OPTIONS
from findling.paths import config_dir
from findling.records import Answer, SearchMode, SearchResult
from findling.search.filter_table import filters_from_options
from findling.search.request_options import request_from_options
from findling.server.handle import IndexHandle
from findling.server.mcp_server import build_server
from findling.vocabulary import AGENT_RESULT_LIMIT

TOKEN_FILENAME = "server-token"
DEFAULT_PORT = 8765
_LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")
MAX_BODY_BYTES = 64 * 1024
HEADERS_S = 10.0  # a request's headers, from the connection or the previous answer
BODY_S = 10.0  # each piece of a body


def token_path(home: str | os.PathLike[str] | None = None) -> Path:
    return config_dir(home) / TOKEN_FILENAME


def load_token(home: str | os.PathLike[str] | None = None) -> str:
    """The bearer token, made on first use (0600, in the user's config folder)."""
    path = token_path(home)
    try:
        token = path.read_text(encoding="ascii").strip()
        if token:
            return token
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, token.encode("ascii"))
    finally:
        os.close(fd)
    return token


def _allowed_hosts(port: int) -> list[str]:
    return [f"{name}:{port}" for name in _LOCAL_NAMES]


def _allowed_origins(port: int) -> list[str]:
    return [f"http://{name}:{port}" for name in _LOCAL_NAMES]


def _bounded(receive: Receive) -> Receive:
    """Each piece of a request's body must come within BODY_S: a body sent a byte a minute is
    treated as the client leaving."""

    async def bounded() -> Message:
        with anyio.move_on_after(BODY_S):
            return await receive()
        return {"type": "http.disconnect"}

    return bounded


class Guard:
    """Host, Origin and bearer token, checked before any route runs."""

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app = app
        self._token = token.encode("ascii")
        self._hosts = set(_allowed_hosts(port))
        self._origins = set(_allowed_origins(port))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refusal: Response | None = None
        if headers.get("host") not in self._hosts:
            refusal = JSONResponse({"error": "this server answers only to 127.0.0.1 and localhost"}, 421)
        elif "origin" in headers and headers["origin"] not in self._origins:
            refusal = JSONResponse({"error": "requests from web pages are refused"}, 403)
        else:
            given = headers.get("authorization", "")
            scheme, _, value = given.partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode("latin-1"), self._token):
                refusal = JSONResponse(
                    {"error": "a bearer token is required: Authorization: Bearer TOKEN (findling serve --print-token)"},
                    401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, _bounded(receive), send)


class _Filtered(BaseModel):
    """The filter options of a body, as filter_options.OPTIONS declares them (a test holds the
    bodies to them). Unknown fields are refused, so a misspelt option is not silently ignored."""

    model_config = ConfigDict(extra="forbid")

    ext: list[str] | str | None = Field(default=None, description=OPTION["ext"].help)
    path: list[str] | str | None = Field(default=None, description=OPTION["path"].help)
    folder: list[str] | str | None = Field(default=None, description=OPTION["folder"].help)
    lang: list[str] | str | None = Field(default=None, description=OPTION["lang"].help)
    after: str | None = Field(default=None, description=OPTION["after"].help)
    before: str | None = Field(default=None, description=OPTION["before"].help)


class QueryBody(_Filtered):
    """`POST /query`'s body."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    mode: SearchMode = SearchMode.HYBRID
    limit: int | None = Field(default=None, ge=1, le=AGENT_RESULT_LIMIT)
    min_score: float = Field(default=0.0, ge=0.0, le=1.0)


class AskBody(_Filtered):
    """`POST /ask`'s body: the question and the filters of `POST /query`."""

    question: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)


def _invalid(exc: ValidationError) -> str:
    problems = [f"{'.'.join(str(p) for p in e['loc']) or 'body'}: {e['msg']}" for e in exc.errors()[:5]]
    return "; ".join(problems)


B = TypeVar("B", bound=BaseModel)


async def _body(request: Request, model: type[B], hint: str) -> B | Response:
    """The request's JSON body as `model`, or the response refusing it: late, too large, or not
    what `model` takes (`hint` says what is)."""
    try:
        raw = await _read_body(request)
    except ClientDisconnect:
        return JSONResponse({"error": f"the body did not arrive within {BODY_S:.0f} s"}, 408)
    if raw is None:
        return JSONResponse({"error": f"the body is over {MAX_BODY_BYTES} bytes"}, 413)
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        return JSONResponse({"error": f"{_invalid(exc)}. {hint}"}, 400)


async def _read_body(request: Request) -> bytes | None:
    """The body, or None past MAX_BODY_BYTES (read no further)."""
    body = bytearray()
    async for chunk in request.stream():  # ClientDisconnect when a piece is late (_bounded)
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            return None
    return bytes(body)


class _BoundedH11(H11Protocol):
    """uvicorn's HTTP/1.1 connection, with a deadline for a request's headers: a client that
    opens connections and sends half a request would otherwise hold each one open forever."""

    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline = self.loop.call_later(HEADERS_S, self._headers_late)

    def _headers_late(self) -> None:
        if self.cycle is None or self.cycle.response_complete:  # no request began since the deadline was set
            self.transport.close()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)


def build_app(handle: IndexHandle, token: str, port: int, allow_write: bool = False) -> ASGIApp:
    mcp = build_server(handle, allow_write)

    @mcp.custom_route("/health", methods=["GET"])
    async def health(_request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": __version__, "role": handle.role, "pid": os.getpid()})

    @mcp.custom_route("/query", methods=["POST"])
    async def query(request: Request) -> Response:
        body = await _body(
            request,
            QueryBody,
            'Give {"query": "…"} and optionally limit, mode (hybrid, keyword, semantic), min_score, ext, folder, '
            "after, before",
        )
        if isinstance(body, Response):
            return body

        def run() -> SearchResult:
            return handle.find(request_from_options(body.mode, body.model_dump()))

        try:
            result = await anyio.to_thread.run_sync(run)
        except FindlingError as exc:
            return JSONResponse({"error": error_text(exc, "terminal")}, 400)
        return JSONResponse(result_json(result))

    @mcp.custom_route("/ask", methods=["POST"])
    async def ask(request: Request) -> Response:
        asked = await _body(
            request, AskBody, 'Give {"question": "…"} and optionally ext, path, folder, lang, after, before'
        )
        if isinstance(asked, Response):
            return asked

        def run() -> Answer:
            filters = filters_from_options(**{option.name: getattr(asked, option.name) for option in OPTIONS})
            return handle.ask(asked.question, filters)

        try:
            answer = await anyio.to_thread.run_sync(run)
        except FindlingError as exc:
            return JSONResponse({"error": error_text(exc, "terminal")}, 400)
        return JSONResponse(answer_json(answer))

    app = mcp.streamable_http_app(
        host="127.0.0.1",
        transport_security=TransportSecuritySettings(
            allowed_hosts=_allowed_hosts(port), allowed_origins=_allowed_origins(port)
        ),
    )
    return Guard(app, token, port)


def serve(
    handle: IndexHandle, port: int = DEFAULT_PORT, allow_write: bool = False, home: str | os.PathLike[str] | None = None
) -> None:
    import uvicorn

    app = build_app(handle, load_token(home), port, allow_write)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", http=_BoundedH11)
