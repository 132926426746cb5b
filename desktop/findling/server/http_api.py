"""`findling serve`: the MCP tools over Streamable HTTP at /mcp, plus `POST /query` and `GET /health`
as plain JSON. Bound to 127.0.0.1 only. Every request must carry the bearer token from the user's
config folder, and a Host and Origin naming this machine: a web page the user visits can neither
reach the API from the browser (Origin) nor through a rebound DNS name (Host)."""

from __future__ import annotations

import hmac
import os
import secrets
from pathlib import Path
from typing import Any

import anyio.to_thread
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from findling import __version__
from findling.errors import FindlingError
from findling.paths import config_dir
from findling.records import Filters
from findling.search.query_parser import parse_date
from findling.server.handle import IndexHandle
from findling.server.mcp_server import build_server
from findling.server.payloads import result_json

TOKEN_FILENAME = "server-token"
DEFAULT_PORT = 8765
_LOCAL_NAMES = ("127.0.0.1", "localhost", "[::1]")


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
                refusal = JSONResponse({"error": "a bearer token is required: Authorization: Bearer TOKEN "
                                                 "(findling serve --print-token)"}, 401,
                                       headers={"WWW-Authenticate": "Bearer"})
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _query_filters(body: dict[str, Any]) -> Filters:
    return Filters(
        extensions=tuple(str(e).lower().lstrip(".") for e in body.get("ext") or ()),
        folders=tuple(os.path.abspath(str(f)) for f in body.get("folder") or ()),
        after=parse_date(body["after"]) if body.get("after") else None,
        before=parse_date(body["before"]) if body.get("before") else None,
    )


def build_app(handle: IndexHandle, token: str, port: int, allow_write: bool = False) -> ASGIApp:
    mcp = build_server(handle, allow_write)

    @mcp.custom_route("/health", methods=["GET"])
    async def health(_request: Request) -> Response:
        return JSONResponse({"status": "ok", "version": __version__, "role": handle.role, "pid": os.getpid()})

    @mcp.custom_route("/query", methods=["POST"])
    async def query(request: Request) -> Response:
        try:
            body = await request.json()
        except ValueError:
            return JSONResponse({"error": "the body must be JSON: {\"query\": \"…\"}"}, 400)
        if not isinstance(body, dict) or not isinstance(body.get("query"), str) or not body["query"].strip():
            return JSONResponse({"error": "give {\"query\": \"…\"} and optionally limit, mode (hybrid, keyword, "
                                          "semantic), min_score, ext, folder, after, before"}, 400)
        mode = body.get("mode", "hybrid")
        limit = body.get("limit")
        if mode not in ("hybrid", "keyword", "semantic") or (limit is not None and not isinstance(limit, int)):
            return JSONResponse({"error": "mode is hybrid, keyword or semantic; limit a whole number"}, 400)
        try:
            filters = _query_filters(body)
            text = body["query"]
            if mode == "keyword":
                result = await anyio.to_thread.run_sync(lambda: handle.search(text, limit=limit, filters=filters))
            elif mode == "semantic":
                result = await anyio.to_thread.run_sync(lambda: handle.vsearch(text, limit=limit, filters=filters))
            else:
                min_score = float(body.get("min_score") or 0.0)
                result = await anyio.to_thread.run_sync(
                    lambda: handle.query(text, limit=limit, filters=filters, min_score=min_score))
        except FindlingError as exc:
            return JSONResponse({"error": str(exc)}, 400)
        return JSONResponse(result_json(result))

    app = mcp.streamable_http_app(
        host="127.0.0.1",
        transport_security=TransportSecuritySettings(allowed_hosts=_allowed_hosts(port),
                                                     allowed_origins=_allowed_origins(port)),
    )
    return Guard(app, token, port)


def serve(handle: IndexHandle, port: int = DEFAULT_PORT, allow_write: bool = False,
          home: str | os.PathLike[str] | None = None) -> None:
    import uvicorn

    app = build_app(handle, load_token(home), port, allow_write)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
