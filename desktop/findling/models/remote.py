"""Models served by a model server the user already runs: Ollama, llama.cpp's server, LM Studio,
vLLM, LocalAI, TEI or OpenAI itself. Two APIs cover them: OpenAI's (`POST /v1/embeddings`, what
all but Ollama speak) and Ollama's (`POST /api/embed`).

Every call is bounded: a time limit, an answer of at most MAX_ANSWER bytes, a few retries with
backoff on 429 and 5xx (a server's Retry-After is honoured, up to a limit), then a
ModelServerError, which the embedding run meets by leaving the rest pending for later. Keys come
from an environment variable the settings name, never from the settings themselves.

Document text leaves the process for the server: loopback and private-network hosts are taken as
given; any other host is refused unless the user allowed remote servers."""

from __future__ import annotations

import ipaddress
import json
import math
import os
import random
import re
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import numpy as np

from findling.errors import FindlingError
from findling.models.embedder import CHARS_PER_TOKEN, EmbeddingStopped, normalize
from findling.models.manifest import Manifest, ModelSpec
from findling.vocabulary import SERVER_APIS

APIS = SERVER_APIS
MAX_ANSWER = 64 * 1024 * 1024  # bytes: 2,048 vectors of 4,096 dimensions as JSON fit well within
TIMEOUT_S = 60.0  # one request; a model server loading its model answers the first one late
RETRIES = 5
QUERY_TIMEOUT_S = 10.0  # a query waits this long, retried once, then goes on by keywords
QUERY_RETRIES = 1
_RECENT_QUERIES = 64
MAX_WAIT_S = 30.0  # the longest one backoff (or Retry-After) is waited
_API_NAMES = {"openai": "OpenAI-compatible server", "ollama": "Ollama"}


class ModelServerError(FindlingError):
    """A model server could not be reached, refused, or answered what is not an answer.
    `too_large`: it said the request was more than it takes at once (a batch past its limit)."""

    def __init__(self, *args: object, too_large: bool = False) -> None:
        super().__init__(*args)
        self.too_large = too_large


# How servers say a request holds more than they take at once: TEI "batch size 64 > maximum
# allowed batch size 32" (413), llama.cpp "input is too large to process. increase the physical
# batch size" (500), vLLM and LM Studio on context length (400).
_TOO_LARGE = re.compile(r"too large|too long|too many|exceed|maximum allowed|batch size|context length", re.I)


class RemoteRefusedError(FindlingError):
    """An endpoint on another machine, not allowed: document text would leave this one."""


@dataclass(frozen=True)
class Endpoint:
    """Where a model role runs when a server serves it."""

    url: str  # the server's base address: http://localhost:11434
    model: str  # the model as the server names it
    api: str = "openai"  # openai | ollama
    key_env: str = ""  # the environment variable holding its API key ("" : none)

    @property
    def host(self) -> str:
        return urllib.parse.urlsplit(self.url).netloc

    @property
    def name(self) -> str:
        """The model as Findling names it: its vectors and caches are kept under this."""
        return f"{self.model}@{self.host}/{self.api}"

    def where(self) -> str:
        """ "Ollama at localhost:11434, qwen3-embedding:0.6b": how every face says where a role runs."""
        return f"{_API_NAMES.get(self.api, self.api)} at {self.host}, {self.model}"


def is_local(url: str) -> bool:
    """Whether the URL's host is this machine or the private network: loopback, private and
    link-local addresses, `localhost`, a one-label name (`gpubox`) or a `.local`/`.lan` one. Read
    from the address alone, never by asking DNS: a status line does not wait on a resolver, and
    a name that resolves to a private address today may not tomorrow."""
    host = (urllib.parse.urlsplit(url).hostname or "").lower()
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host.rstrip(".") or host.endswith((".local", ".lan", ".localhost", ".home.arpa", ".internal"))
    return address.is_loopback or address.is_private or address.is_link_local


def checked_endpoint(endpoint: Endpoint, allow_remote: bool) -> Endpoint:
    """The endpoint when it may be used, else a sentence saying why not."""
    parts = urllib.parse.urlsplit(endpoint.url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FindlingError(f"a model server's address is http(s)://HOST[:PORT], not {endpoint.url!r}")
    if endpoint.api not in APIS:
        raise FindlingError(f"a model server speaks {' or '.join(APIS)}, not {endpoint.api!r}")
    if not allow_remote and not is_local(endpoint.url):
        raise RemoteRefusedError(
            f"{parts.hostname} is not on this machine or its network: document text would leave the "
            "machine for it. Allow remote model servers to use it (models.allow_remote)"
        )
    return endpoint


def _key(endpoint: Endpoint) -> str:
    if not endpoint.key_env:
        return ""
    key = os.environ.get(endpoint.key_env, "")
    if not key:
        raise ModelServerError(f"the API key for {endpoint.host} is read from ${endpoint.key_env}, which is not set")
    return key


def post_json(
    endpoint: Endpoint,
    path: str,
    body: dict[str, Any],
    timeout: float = TIMEOUT_S,
    retries: int = RETRIES,
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """POST `body` as JSON to the endpoint's `path` and return the JSON answer, retrying on 429 and
    5xx with exponential backoff and jitter (Retry-After when the server gives one)."""
    url = api_url(endpoint.url, path)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if key := _key(endpoint):
        headers["Authorization"] = f"Bearer {key}"
    data = json.dumps(body).encode("utf-8")
    for attempt in range(retries + 1):
        wait = min(MAX_WAIT_S, 0.5 * 2**attempt) * (0.5 + random.random() / 2)
        try:
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            deadline = time.monotonic() + timeout
            with _OPENER.open(request, timeout=timeout) as answer:
                raw = _read_by(answer, deadline, endpoint.host)
            try:
                return json.loads(raw)
            except (ValueError, RecursionError) as exc:  # nesting past the parser's depth is no answer either
                raise ModelServerError(f"{endpoint.host} answered what is not JSON ({type(exc).__name__})") from exc
        except urllib.error.HTTPError as exc:
            sleep(_retry_wait(endpoint, path, exc, wait if attempt < retries else None, retries))
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            if attempt < retries:
                sleep(wait)
                continue
            reason = getattr(exc, "reason", exc)
            raise ModelServerError(f"the model server at {endpoint.host} cannot be reached ({reason})") from exc
    raise AssertionError("unreachable")


def api_url(base: str, path: str) -> str:
    """The base address and an API path joined, whether the base already names the API's root or
    not: LM Studio, vLLM, llama.cpp and OpenAI's clients show `http://host:1234/v1`, Findling's
    paths begin with `/v1/` (Ollama's with `/api/`)."""
    base = base.rstrip("/")
    root = "/" + path.lstrip("/").split("/", 1)[0]  # "/v1" or "/api"
    if base.endswith(root):
        base = base[: -len(root)]
    return base + path


class _SameOrigin(urllib.request.HTTPRedirectHandler):
    """Redirects are followed within the server's own origin only: a redirect elsewhere would
    take document text (and the Authorization header) to a host the address check never saw."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        old, new = (
            urllib.parse.urlsplit(req.full_url),
            urllib.parse.urlsplit(urllib.parse.urljoin(req.full_url, newurl)),
        )
        if (old.scheme, old.hostname, old.port) != (new.scheme, new.hostname, new.port):
            raise ModelServerError(
                f"{old.netloc} redirected to another server ({new.netloc}); Findling follows a model "
                "server's redirects within its own address only"
            )
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameOrigin())
_READ_PART = 256 * 1024


def _read_by(answer: Any, deadline: float, host: str) -> bytes:
    """The whole answer by the deadline and within MAX_ANSWER bytes: a server that drips its
    answer a byte at a time is cut off at the deadline, not waited on for each read."""
    parts: list[bytes] = []
    size = 0
    sock = getattr(getattr(answer.fp, "raw", None), "_sock", None)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ModelServerError(f"{host} did not finish its answer in time")
        if sock is not None:
            sock.settimeout(max(0.05, left))
        try:
            part = answer.read1(_READ_PART)
        except TimeoutError as exc:
            raise ModelServerError(f"{host} did not finish its answer in time") from exc
        if not part:
            return b"".join(parts)
        size += len(part)
        if size > MAX_ANSWER:
            raise ModelServerError(f"{host} answered more than {MAX_ANSWER // 2**20} MB")
        parts.append(part)


def _retry_wait(endpoint: Endpoint, path: str, exc: urllib.error.HTTPError, wait: float | None, retries: int) -> float:
    """How long to wait before trying again after an HTTP error (`wait` is the backoff, None when
    no try is left), or the ModelServerError saying what the server refused."""
    detail = _detail(exc)
    if exc.code == 413 or (exc.code in (400, 422, 500) and _TOO_LARGE.search(detail)):
        raise ModelServerError(
            f"{endpoint.host} took the request as too large ({exc.code}){detail}", too_large=True
        ) from exc
    if exc.code == 429 or exc.code >= 500:
        if wait is not None:
            after = exc.headers.get("Retry-After", "") if exc.headers else ""
            return min(MAX_WAIT_S, float(after)) if after.replace(".", "", 1).isdigit() else wait
        raise ModelServerError(
            f"{endpoint.host} answered {exc.code} {retries + 1} times{detail}; try again later"
        ) from exc
    if exc.code in (401, 403):
        raise ModelServerError(f"{endpoint.host} refused the key ({exc.code}){detail}") from exc
    if exc.code == 404:
        raise ModelServerError(f"{endpoint.host} has no {path} or no model {endpoint.model!r} (404){detail}") from exc
    raise ModelServerError(f"{endpoint.host} refused the request ({exc.code}){detail}") from exc


def _detail(exc: urllib.error.HTTPError) -> str:
    """The first line of an error's body, bounded: what the server said was wrong."""
    try:
        text = exc.read(2000).decode("utf-8", "replace").strip()
    except OSError:
        return ""
    try:
        said = json.loads(text)
        text = str(said.get("error", said)) if isinstance(said, dict) else text
    except ValueError:
        pass
    first = text.splitlines()[0][:200] if text else ""
    return f": {first}" if first else ""


def _vectors(endpoint: Endpoint, answer: Any, count: int) -> list[list[float]]:
    """The vectors of an embeddings answer, in input order, or a ModelServerError."""
    try:
        if endpoint.api == "ollama":
            rows = list(answer["embeddings"])
        else:
            data = sorted(answer["data"], key=lambda d: int(d.get("index", 0)))
            rows = [d["embedding"] for d in data]
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelServerError(f"{endpoint.host} answered no embeddings ({type(exc).__name__}: {exc})") from exc
    if len(rows) != count:
        raise ModelServerError(f"{endpoint.host} answered {len(rows)} embeddings for {count} texts")
    return rows


def like_manifest(model: str, manifest: Manifest | None) -> ModelSpec | None:
    """The manifest's embedder a server's model is, whose prompts, passage format and window it
    then takes: `all-MiniLM-L6-v2` served by a server is the model Findling ships, read the same
    way, and Ollama's `qwen3-embedding:0.6b` is `qwen3-embedding-0.6b`, whose queries carry its
    instruction. Matched by name or hub repository, the tag read as part of the name (`:latest`
    as none); a bare name matches when one entry alone begins with it (`embeddinggemma`)."""
    if manifest is None:
        return None
    name = model.lower().split("/")[-1].removesuffix(":latest").replace(":", "-")
    embedders = [spec for spec in manifest.models.values() if spec.role == "embedder"]

    def names(spec: ModelSpec) -> tuple[str, str]:
        return spec.name.lower(), spec.repo.lower().split("/")[-1].removesuffix("-onnx")

    exact = [spec for spec in embedders if name in names(spec)]
    if exact:
        return exact[0]
    begun = [spec for spec in embedders if any(n.startswith(name + "-") for n in names(spec))]
    return begun[0] if len(begun) == 1 else None


class RemoteEmbedder:
    """An embedder a model server runs: the same `embed` as the ONNX one, vectors normalised.
    Batches go `concurrency` at a time (a server batches concurrent requests on its side; more
    would only queue there), and a batch the server says is too large is halved, the smaller
    size kept for the batches after it."""

    provider = "model server"

    def __init__(
        self,
        endpoint: Endpoint,
        like: ModelSpec | None = None,
        batch_size: int = 32,
        timeout: float = TIMEOUT_S,
        concurrency: int = 2,
    ) -> None:
        self.endpoint = endpoint
        self.batch_size = batch_size
        self.timeout = timeout
        self.concurrency = max(1, concurrency)
        # vectors are stored under the server, the API and the model: never mixed with another's
        name = endpoint.name
        base = like or ModelSpec(name, "embedder", "", "", (), max_length=512, window_tokens=256)
        self.spec = ModelSpec(
            name,
            "embedder",
            repo="",
            revision="",
            files=(),
            pooling=base.pooling,
            query_prefix=base.query_prefix,
            passage_prefix=base.passage_prefix,
            max_length=base.max_length,
            dimension=0,  # learned from the first answer
            languages=base.languages,
            passage_format=base.passage_format,
            window_tokens=base.window_tokens,
        )
        self.dimension = 0
        self._recent: OrderedDict[str, np.ndarray] = OrderedDict()  # query text -> its vector
        self._recent_lock = threading.Lock()

    @property
    def windows_per_call(self) -> int:
        """Windows an embedding run hands over at once: enough for every request in flight."""
        return max(64, self.batch_size * self.concurrency)

    def release_memory(self) -> None:
        """The server holds the model and its memory: nothing here to give back."""

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """The server's tokenizer is its own: a window's tokens as English prose averages them."""
        return [max(1, round(len(t) / CHARS_PER_TOKEN)) for t in texts]

    def embed(
        self, texts: Sequence[str], kind: str = "passage", batch_size: int | None = None, cancel: Any = None
    ) -> np.ndarray:
        """L2-normalised float32 vectors, one row per text, in input order. `cancel` is looked at
        before each request is sent (EmbeddingStopped); those in flight are answered first."""
        if kind == "query" and len(texts) == 1:
            return self._query(texts[0])
        return self._embed(texts, kind, batch_size, cancel)

    def _embed(self, texts: Sequence[str], kind: str, batch_size: int | None, cancel: Any) -> np.ndarray:
        prefix = self.spec.query_prefix if kind == "query" else self.spec.passage_prefix
        size = max(1, batch_size or self.batch_size)
        # texts of a length side by side, as the local embedder batches them: a server pads a
        # batch to its longest member
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        batches = [[prefix + texts[i] for i in order[start : start + size]] for start in range(0, len(order), size)]
        answered = self._answers(batches, kind == "query", cancel)
        rows: list[list[float]] = [[] for _ in texts]
        for i, vector in zip(order, (v for batch in answered for v in batch)):
            rows[i] = vector
        if not rows:
            return np.zeros((0, self.dimension), dtype=np.float32)
        try:
            out = np.asarray(rows, dtype=np.float32)
        except ValueError as exc:
            raise ModelServerError(f"{self.endpoint.host} answered vectors of different lengths") from exc
        if out.ndim != 2 or not np.isfinite(out).all():
            raise ModelServerError(f"{self.endpoint.host} answered vectors that are not numbers")
        if self.dimension and out.shape[1] != self.dimension:
            raise ModelServerError(
                f"{self.endpoint.host} answered {out.shape[1]}-dimension vectors after {self.dimension}: "
                "has its model changed?"
            )
        self.dimension = out.shape[1]
        return normalize(out)

    def _answers(self, batches: list[list[str]], query: bool, cancel: Any) -> list[list[list[float]]]:
        """Each batch's vectors, in order, at most `concurrency` requests in flight. The first
        failure is raised once the requests in flight have ended (each is bounded by its time
        limit); none is sent after it."""
        if len(batches) <= 1 or self.concurrency == 1:
            out = []
            for batch in batches:
                if cancel is not None and cancel.is_set():
                    raise EmbeddingStopped()
                out.append(self._ask(batch, query))
            return out
        futures: list[Future[list[list[float]]]] = []
        with ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="findling-server") as pool:
            for batch in batches:
                in_flight = [f for f in futures if not f.done()]
                if len(in_flight) >= self.concurrency:
                    wait(in_flight, return_when=FIRST_COMPLETED)
                if any(f.done() and f.exception() is not None for f in futures):
                    break
                if cancel is not None and cancel.is_set():
                    break
                futures.append(pool.submit(self._ask, batch, query))
        for future in futures:
            future.result()  # the first failure, in batch order
        if len(futures) < len(batches):
            raise EmbeddingStopped()
        return [future.result() for future in futures]

    def _ask(self, batch: list[str], query: bool) -> list[list[float]]:
        """One batch's vectors; halved (and the size kept smaller) while the server says it is too
        large, down to one text."""
        if len(batch) > self.batch_size:  # a size the server refused before: not asked again
            return [
                v
                for start in range(0, len(batch), self.batch_size)
                for v in self._ask(batch[start : start + self.batch_size], query)
            ]
        path = "/api/embed" if self.endpoint.api == "ollama" else "/v1/embeddings"
        try:
            answer = post_json(
                self.endpoint,
                path,
                {"model": self.endpoint.model, "input": batch},
                QUERY_TIMEOUT_S if query else self.timeout,
                QUERY_RETRIES if query else RETRIES,
            )
        except ModelServerError as exc:
            if not exc.too_large or len(batch) == 1:
                raise
            half = len(batch) // 2
            self.batch_size = max(1, min(self.batch_size, half))
            return self._ask(batch[:half], query) + self._ask(batch[half:], query)
        return _vectors(self.endpoint, answer, len(batch))

    def _query(self, text: str) -> np.ndarray:
        """A query's vector, remembered: the search that checks the server answers (to go on by
        keywords when it does not) and the lane that then ranks by it pay one request."""
        with self._recent_lock:
            if text in self._recent:
                self._recent.move_to_end(text)
                return self._recent[text]
        vector = self._embed([text], "query", None, None)
        with self._recent_lock:
            self._recent[text] = vector
            while len(self._recent) > _RECENT_QUERIES:
                self._recent.popitem(last=False)
        return vector


def _messages(messages: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    return [{"role": role, "content": text} for role, text in messages]


class RemoteChat:
    """A generator a model server runs: OpenAI's /v1/chat/completions or Ollama's /api/chat,
    greedy (temperature 0), as the local one decodes."""

    provider = "model server"

    def __init__(self, endpoint: Endpoint, timeout: float = TIMEOUT_S) -> None:
        self.endpoint = endpoint
        self.timeout = timeout
        self.spec = ModelSpec(endpoint.name, "generator", "", "", ())

    def _ask(self, messages: Sequence[tuple[str, str]], max_new_tokens: int, logprobs: bool = False) -> Any:
        e = self.endpoint
        if e.api == "ollama":
            body: dict[str, Any] = {
                "model": e.model,
                "messages": _messages(messages),
                "stream": False,
                "options": {"num_predict": max_new_tokens, "temperature": 0},
            }
            if logprobs:
                body |= {"logprobs": True, "top_logprobs": 10}
            return post_json(e, "/api/chat", body, self.timeout, QUERY_RETRIES)
        body = {"model": e.model, "messages": _messages(messages), "max_tokens": max_new_tokens, "temperature": 0}
        if logprobs:
            body |= {"logprobs": True, "top_logprobs": 10}
        return post_json(e, "/v1/chat/completions", body, self.timeout, QUERY_RETRIES)

    def _text(self, answer: Any) -> str:
        try:
            if self.endpoint.api == "ollama":
                return str(answer["message"]["content"])
            return str(answer["choices"][0]["message"]["content"])
        except (KeyError, IndexError, TypeError) as exc:
            raise ModelServerError(f"{self.endpoint.host} answered no message ({type(exc).__name__})") from exc

    def chat(
        self,
        messages: Sequence[tuple[str, str]],
        max_new_tokens: int = 160,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> str:
        """The server's answer, whole (`on_text` is given it once); `cancel` is not looked at
        while the request runs, which its time limit bounds."""
        text = self._text(self._ask(messages, max_new_tokens))
        if on_text is not None and not (cancel is not None and cancel.is_set()):
            on_text(text)
        return text

    def yes_probability(self, messages: Sequence[tuple[str, str]]) -> float:
        """P("yes") against "no" from the first token's log-probabilities when the server gives
        them (OpenAI's `top_logprobs`, Ollama's), else from the word it answered: 1, 0, or ½."""
        answer = self._ask(messages, 1, logprobs=True)
        yes = no = 0.0
        for token, logprob in _first_token_choices(answer):
            word = token.strip().lower()
            if word == "yes":
                yes += math.exp(logprob)
            elif word == "no":
                no += math.exp(logprob)
        if yes + no > 0:
            return yes / (yes + no)
        said = self._text(answer).strip().lower()
        return 1.0 if said.startswith("yes") else 0.0 if said.startswith("no") else 0.5


def _first_token_choices(answer: Any) -> list[tuple[str, float]]:
    """(token, logprob) of the first answered token's alternatives, as OpenAI (choices[0].logprobs
    .content[0].top_logprobs) or Ollama (logprobs[0].top_logprobs) give them; [] when absent."""
    try:
        if "choices" in answer:
            first = answer["choices"][0]["logprobs"]["content"][0]
        else:
            first = answer["logprobs"][0]
        return [(str(t["token"]), float(t["logprob"])) for t in first.get("top_logprobs", [])]
    except (KeyError, IndexError, TypeError, ValueError):
        return []


class RemoteReranker:
    """A reranker a model server runs, in the rerank shape TEI, Jina, Cohere and llama.cpp's server
    share: POST /v1/rerank {"model", "query", "documents"} -> {"results": [{"index",
    "relevance_score"}]}. Scores outside [0, 1] are logits, and go through a sigmoid."""

    def __init__(self, endpoint: Endpoint, timeout: float = QUERY_TIMEOUT_S) -> None:
        if endpoint.api == "ollama":
            raise FindlingError("Ollama has no rerank API: serve the reranker with an OpenAI-style /v1/rerank")
        self.endpoint = endpoint
        self.timeout = timeout
        self.name = f"reranker {endpoint.where()}"

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        if not passages:
            return []
        e = self.endpoint
        body = {"model": e.model, "query": query, "documents": list(passages), "top_n": len(passages)}
        answer = post_json(e, "/v1/rerank", body, self.timeout, QUERY_RETRIES)
        try:
            results = {int(r["index"]): float(r["relevance_score"]) for r in answer["results"]}
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelServerError(f"{e.host} answered no rerank scores ({type(exc).__name__})") from exc
        if set(results) != set(range(len(passages))):
            raise ModelServerError(f"{e.host} scored {len(results)} of {len(passages)} passages")
        values = [results[i] for i in range(len(passages))]
        if any(v < 0 or v > 1 for v in values):
            values = [1 / (1 + math.exp(-min(50.0, max(-50.0, v)))) for v in values]
        return values
