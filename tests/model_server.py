"""A model server for the tests: serves an ONNX sentence embedder from ../shared/models over
OpenAI's `POST /v1/embeddings` and Ollama's `POST /api/embed`, as llama.cpp's server or Ollama
would. It runs the model with onnxruntime and tokenizers alone (mean pooling, L2), as the
models' README says, not with Findling's code: what Findling gets back is a real server's.

    python tests/model_server.py MODEL_DIR NAME [--port P] [--fail-first N] [--die-after N]

prints `PORT <n>` once it listens. --fail-first answers the first N embedding requests 429 (a
storm a client must ride out); --die-after ends the process, mid-conversation, after N answered.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


class Model:
    def __init__(self, folder: Path) -> None:
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self.session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch(texts)
        longest = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), longest), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, e in enumerate(encodings):
            ids[row, : len(e.ids)] = e.ids
            mask[row, : len(e.ids)] = e.attention_mask
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        with self.lock:
            hidden = self.session.run(None, feed)[0]
        vectors = (hidden * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def serve(model: Model, name: str, port: int, fail_first: int, die_after: int) -> None:
    state = {"requests": 0, "answered": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def _send(self, code: int, body: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            if self.path == "/stats":
                self._send(200, dict(state))
            else:
                self._send(404, {"error": "not found"})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path not in ("/v1/embeddings", "/api/embed"):
                self._send(404, {"error": f"no route {self.path}"})
                return
            with lock:
                state["requests"] += 1
                storm = state["requests"] <= fail_first
            if storm:
                self._send(429, {"error": "too many requests"}, {"Retry-After": "0.05"})
                return
            if body.get("model") != name:
                self._send(404, {"error": f"model {body.get('model')!r} not found"})
                return
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            vectors = model.embed(texts).tolist()
            if self.path == "/api/embed":
                self._send(200, {"model": name, "embeddings": vectors})
            else:
                data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)]
                self._send(200, {"object": "list", "model": name, "data": data})
            with lock:
                state["answered"] += 1
                dying = die_after and state["answered"] >= die_after
            if dying:
                self.wfile.flush()
                os._exit(0)  # killed mid-run: no goodbye to anyone

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("model_dir", type=Path)
    parser.add_argument("name")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--fail-first", type=int, default=0)
    parser.add_argument("--die-after", type=int, default=0)
    args = parser.parse_args()
    serve(Model(args.model_dir), args.name, args.port, args.fail_first, args.die_after)


if __name__ == "__main__":
    sys.exit(main())
