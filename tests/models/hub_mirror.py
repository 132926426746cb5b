"""A local HTTP server that speaks the Hugging Face hub's file protocol, serving real
model files from ../shared/models. Only ever bound to 127.0.0.1."""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote


@dataclass
class MirrorRepo:
    folder: Path
    commit: str = "0123456789abcdef0123456789abcdef01234567"


@dataclass
class MirrorState:
    repos: dict[str, MirrorRepo] = field(default_factory=dict)
    cut_after: int | None = None  # bytes sent before the connection is dropped (once per GET)
    corrupt: bool = False  # serve flipped bytes (the ETag still names the real hash)
    ignore_range: bool = False
    seconds_per_mb: float = 0.0  # throttle, so a test can kill a download half-way
    requests: list[tuple[str, str, str | None]] = field(default_factory=list)
    _hashes: dict[Path, str] = field(default_factory=dict)

    def sha256(self, path: Path) -> str:
        if path not in self._hashes:
            self._hashes[path] = hashlib.sha256(path.read_bytes()).hexdigest()
        return self._hashes[path]


def _handler(state: MirrorState):  # noqa: C901 - the hub's HTTP surface (HEAD, GET, ranges, errors) in one handler
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # keep test output clean
            pass

        def _resolve(self):
            # /{org}/{name}/resolve/{rev}/{path...}
            parts = unquote(self.path.split("?")[0]).lstrip("/").split("/")
            if len(parts) < 5 or parts[2] != "resolve":
                return None
            repo_id, rev, rel = f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:])
            repo = state.repos.get(repo_id)
            if repo is None or rev not in ("main", repo.commit):
                return None
            path = repo.folder / rel
            return (repo, path) if path.is_file() else None

        def _not_found(self):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_HEAD(self):
            state.requests.append(("HEAD", self.path, None))
            found = self._resolve()
            if found is None:
                return self._not_found()
            repo, path = found
            self.send_response(200)
            self.send_header("X-Repo-Commit", repo.commit)
            self.send_header("ETag", f'"{state.sha256(path)}"')
            self.send_header("Content-Length", str(path.stat().st_size))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()

        def do_GET(self):
            range_header = self.headers.get("Range")
            state.requests.append(("GET", self.path, range_header))
            if self.path.startswith("/api/models/"):
                return self._api()
            found = self._resolve()
            if found is None:
                return self._not_found()
            repo, path = found
            data = path.read_bytes()
            if state.corrupt:
                data = bytes(b ^ 0xFF for b in data[:64]) + data[64:]
            start = 0
            if range_header and not state.ignore_range:
                start = int(range_header.split("=")[1].split("-")[0])
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            else:
                self.send_response(200)
            body = data[start:]
            self.send_header("X-Repo-Commit", repo.commit)
            self.send_header("ETag", f'"{state.sha256(path)}"')
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if state.cut_after is not None:
                cut, state.cut_after = state.cut_after, None
                self.wfile.write(body[:cut])
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if state.seconds_per_mb:
                import time

                for i in range(0, len(body), 65536):
                    self.wfile.write(body[i : i + 65536])
                    time.sleep(state.seconds_per_mb / 16)
                return
            self.wfile.write(body)

        def _api(self):
            parts = self.path.split("?")[0].split("/")
            repo = state.repos.get(f"{parts[3]}/{parts[4]}")
            if repo is None:
                return self._not_found()
            siblings = [{"rfilename": str(p.relative_to(repo.folder))} for p in repo.folder.rglob("*") if p.is_file()]
            body = json.dumps({"id": f"{parts[3]}/{parts[4]}", "sha": repo.commit, "siblings": siblings}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


class HubMirror:
    def __init__(self, state: MirrorState) -> None:
        self.state = state
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> HubMirror:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
