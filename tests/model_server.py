"""A model server for the tests: serves an ONNX sentence embedder from ../shared/models over
OpenAI's `POST /v1/embeddings` and Ollama's `POST /api/embed`, as llama.cpp's server or Ollama
would. It runs the model with onnxruntime and tokenizers alone (mean pooling, L2), as the
models' README says, not with Findling's code: what Findling gets back is a real server's.
With --chat it also serves a generator over `POST /v1/chat/completions` and `POST /api/chat`
(greedy, with `top_logprobs` for the first token), and with --rerank a cross-encoder over
`POST /v1/rerank`; those two run on Findling's model classes over the folders' files.

    python tests/model_server.py MODEL_DIR NAME [--port P] [--fail-first N] [--die-after N]
                                 [--other-model] [--dims N] [--max-batch N] [--delay S] [--alone]
                                 [--chat DIR NAME] [--rerank DIR NAME]

prints `PORT <n>` once it listens. --fail-first answers the first N embedding requests 429 (a
storm a client must ride out); --die-after ends the process, mid-conversation, after N answered;
--max-batch refuses a request of more texts with 413 and TEI's words; --delay holds each
embedding request S seconds (so requests in flight together can be counted: GET /stats).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer


class Model:
    def __init__(self, folder: Path, other: bool = False, dims: int = 0, alone: bool = False) -> None:
        self.alone = alone  # each text run by itself, as llama.cpp's server runs each sequence
        self.other = other  # another model behind the same name: every other dimension negated
        self.dims = dims  # another dimension: the first `dims` only (as Matryoshka models cut)
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        self.session = ort.InferenceSession(str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"])
        self.inputs = {i.name for i in self.session.get_inputs()}
        self.lock = threading.Lock()

    def embed(self, texts: list[str]) -> np.ndarray:
        if self.alone and len(texts) > 1:
            return np.concatenate([self.embed([text]) for text in texts])
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
        if self.other:
            vectors[:, ::2] *= -1
        if self.dims:
            vectors = vectors[:, : self.dims]
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


class _Files:
    """A model folder's files as they are, where Findling's classes ask a store for verified ones."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def verified_path(self, spec, file) -> Path:
        return self.folder / file.path


def _spec(folder: Path, name: str, role: str):
    from findling.models.manifest import ModelFile, ModelSpec

    files = [ModelFile("model.onnx", "model"), ModelFile("tokenizer.json", "tokenizer")]
    files += [ModelFile(f, "config") for f in ("config.json", "generation_config.json") if (folder / f).exists()]
    return ModelSpec(name, role, "", "", tuple(files), max_length=512)


def chat_model(folder: Path, name: str):
    from findling.models.generator import Generator

    return Generator(_spec(folder, name, "generator"), _Files(folder), "cpu", 1)


def rerank_model(folder: Path, name: str):
    from findling.models.reranker import CrossEncoder

    return CrossEncoder(_spec(folder, name, "reranker"), _Files(folder), "cpu", 1)


def _chat_answer(generator, body: dict, ollama: bool) -> dict:
    import math

    from findling.models.generator import chatml

    messages = [(m["role"], m["content"]) for m in body["messages"]]
    prompt = chatml(messages)
    options = body.get("options", {}) if ollama else body
    limit = int(options.get("num_predict" if ollama else "max_tokens", 160))
    text = generator.generate(prompt, max_new_tokens=limit)
    top = []
    if body.get("logprobs"):
        yes, no = generator.next_token_probabilities(prompt, ["yes", "no"])
        top = [{"token": t, "logprob": math.log(max(p, 1e-12))} for t, p in (("yes", yes), ("no", no))]
    if ollama:
        answer = {"model": body["model"], "message": {"role": "assistant", "content": text}, "done": True}
        if top:
            answer["logprobs"] = [{"token": top[0]["token"], "logprob": top[0]["logprob"], "top_logprobs": top}]
        return answer
    choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
    if top:
        choice["logprobs"] = {
            "content": [{"token": top[0]["token"], "logprob": top[0]["logprob"], "top_logprobs": top}]
        }
    return {"object": "chat.completion", "model": body["model"], "choices": [choice]}


def _chat_or_rerank(path: str, body: dict, chat, rerank) -> tuple[int, dict] | None:
    """The answer of the chat and rerank routes; None for the embedding ones."""
    if path in ("/v1/chat/completions", "/api/chat"):
        generator, chat_name = chat
        if body.get("model") != chat_name:
            return 404, {"error": f"model {body.get('model')!r} not found"}
        return 200, _chat_answer(generator, body, path == "/api/chat")
    if path == "/v1/rerank":
        scorer, rerank_name = rerank
        if body.get("model") != rerank_name:
            return 404, {"error": f"model {body.get('model')!r} not found"}
        logits = scorer.logits(body["query"], body["documents"]).tolist()
        results = [{"index": i, "relevance_score": v} for i, v in enumerate(logits)]
        return 200, {"results": sorted(results, key=lambda r: -r["relevance_score"])}
    return None


def _routes(chat, rerank) -> set[str]:
    routes = {"/v1/embeddings", "/api/embed"}
    if chat:
        routes |= {"/v1/chat/completions", "/api/chat"}
    if rerank:
        routes.add("/v1/rerank")
    return routes


def serve(  # noqa: C901 - the handler, its routes one after another
    model: Model,
    name: str,
    port: int,
    fail_first: int,
    die_after: int,
    chat=None,
    rerank=None,
    max_batch: int = 0,
    delay: float = 0.0,
) -> None:
    state = {"requests": 0, "answered": 0, "in_flight": 0, "most_in_flight": 0, "too_large": 0, "largest": 0}
    lock = threading.Lock()
    routes = _routes(chat, rerank)

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
            if self.path not in routes:
                self._send(404, {"error": f"no route {self.path}"})
                return
            with lock:
                state["requests"] += 1
                storm = state["requests"] <= fail_first
            if storm:
                self._send(429, {"error": "too many requests"}, {"Retry-After": "0.05"})
                return
            other = _chat_or_rerank(self.path, body, chat, rerank)
            if other is not None:
                self._send(*other)
                return
            if body.get("model") != name:
                self._send(404, {"error": f"model {body.get('model')!r} not found"})
                return
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            if max_batch and len(texts) > max_batch:
                with lock:
                    state["too_large"] += 1
                self._send(413, {"error": f"batch size {len(texts)} > maximum allowed batch size {max_batch}"})
                return
            with lock:
                state["in_flight"] += 1
                state["most_in_flight"] = max(state["most_in_flight"], state["in_flight"])
                state["largest"] = max(state["largest"], len(texts))
            try:
                time.sleep(delay)
                vectors = model.embed(texts).tolist()
            finally:
                with lock:
                    state["in_flight"] -= 1
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
    parser.add_argument("--other-model", action="store_true", help="answer as another model would")
    parser.add_argument("--dims", type=int, default=0, help="answer vectors of this many dimensions")
    parser.add_argument("--max-batch", type=int, default=0, help="refuse larger requests (413)")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds each embedding request takes at least")
    parser.add_argument("--alone", action="store_true", help="run each text by itself, never batched with others")
    parser.add_argument("--chat", nargs=2, metavar=("DIR", "NAME"))
    parser.add_argument("--rerank", nargs=2, metavar=("DIR", "NAME"))
    args = parser.parse_args()
    chat = (chat_model(Path(args.chat[0]), args.chat[1]), args.chat[1]) if args.chat else None
    rerank = (rerank_model(Path(args.rerank[0]), args.rerank[1]), args.rerank[1]) if args.rerank else None
    serve(
        Model(args.model_dir, args.other_model, args.dims, args.alone),
        args.name,
        args.port,
        args.fail_first,
        args.die_after,
        chat,
        rerank,
        args.max_batch,
        args.delay,
    )


if __name__ == "__main__":
    sys.exit(main())
