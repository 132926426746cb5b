"""What a model server sends can neither hang a query, leak the key nor crash a command: a base
address with `/v1` works, a redirect to another origin is refused without the key, a dripped
answer ends by the call's deadline, deeply nested JSON is an error (the red team's 8-11)."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from findling.models.remote import Endpoint, ModelServerError, api_url, post_json

SEEN: list[tuple[int, str, str]] = []  # (port, path, Authorization)


def _server(behaviour: str, target: str = "") -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            SEEN.append((self.server.server_port, self.path, self.headers.get("Authorization", "")))
            if behaviour == "redirect":
                self.send_response(307)
                self.send_header("Location", target + self.path)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if behaviour == "drip":
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", "100000")
                self.end_headers()
                try:
                    for _ in range(200):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(0.1)
                except OSError:
                    pass
                return
            body = (
                ("[" * 100_000 + "]" * 100_000).encode()
                if behaviour == "nested"
                else json.dumps({"data": [{"embedding": [0.6, 0.8]}]}).encode()
            )
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture
def serve():
    started: list[ThreadingHTTPServer] = []

    def start(behaviour: str, target: str = "") -> str:
        server = _server(behaviour, target)
        started.append(server)
        return f"http://127.0.0.1:{server.server_port}"

    yield start
    for server in started:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("base", ["http://h:1234", "http://h:1234/", "http://h:1234/v1", "http://h:1234/v1/"])
def test_a_base_address_with_or_without_v1_asks_one_path(base):
    assert api_url(base, "/v1/embeddings") == "http://h:1234/v1/embeddings"
    assert api_url("http://h:11434/api", "/api/embed") == "http://h:11434/api/embed"


def test_a_base_address_ending_in_v1_is_answered(serve):
    url = serve("ok")
    answer = post_json(Endpoint(url + "/v1", "m"), "/v1/embeddings", {"input": ["a"]}, retries=0)
    assert answer["data"][0]["embedding"] == [0.6, 0.8]
    assert SEEN[-1][1] == "/v1/embeddings"


def test_a_redirect_to_another_origin_is_refused_and_gets_no_key(serve, monkeypatch):
    monkeypatch.setenv("FINDLING_TEST_KEY", "sekrit")
    elsewhere = serve("ok")
    redirecting = serve("redirect", elsewhere)
    before = len(SEEN)
    with pytest.raises(ModelServerError, match="redirected to another server"):
        post_json(
            Endpoint(redirecting, "m", key_env="FINDLING_TEST_KEY"), "/v1/embeddings", {"input": ["a"]}, retries=0
        )
    assert [port for port, _, _ in SEEN[before:]] == [int(redirecting.rsplit(":", 1)[1])]  # never reached elsewhere
    assert SEEN[-1][2] == "Bearer sekrit"


def test_a_dripping_answer_ends_by_the_deadline(serve):
    url = serve("drip")
    started = time.monotonic()
    with pytest.raises(ModelServerError, match="did not finish its answer in time"):
        post_json(Endpoint(url, "m"), "/v1/embeddings", {"input": ["a"]}, timeout=1.0, retries=0)
    assert time.monotonic() - started < 3.0  # the server would drip for 20 s


def test_deeply_nested_json_is_an_error_not_a_crash(serve):
    url = serve("nested")
    with pytest.raises(ModelServerError, match="not JSON"):
        post_json(Endpoint(url, "m"), "/v1/embeddings", {"input": ["a"]}, retries=0)
