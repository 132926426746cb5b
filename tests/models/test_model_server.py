"""The embedder run by a model server the user already runs (OpenAI's API, Ollama's), through a real
HTTP server process serving the shipped MiniLM (tests/model_server.py): its vectors are the local
model's, a 429 storm is ridden out, a server that dies mid-run leaves the rest pending for the next
run, a server that is down leaves search to keywords with a sentence, and a host on another
machine is refused unless allowed. Requests go a few at a time, and a batch the server finds too
large is halved."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from findling.engine import Engine
from findling.models import remote
from findling.models.embedder import EmbeddingStopped
from findling.models.remote import Endpoint, ModelServerError, RemoteEmbedder, like_manifest
from findling.records import SearchMode, SearchRequest
from findling.settings import load_settings, settings_path
from tests.conftest import MINILM, needs_models
from tests.helpers import write
from tests.test_cli import _run

pytestmark = [pytest.mark.slow, needs_models]
SERVER = Path(__file__).resolve().parents[1] / "model_server.py"
NAME = "all-MiniLM-L6-v2-int8"  # as the server names its model: the manifest's repository's name
TEXTS = [
    "The borrow checker rejects two mutable references.",
    "Water tomato plants deeply twice a week in summer.",
    "ERROR connection refused on port 5432",
    "def simmer(self, minutes): return self.heat(low=True)",
    "Ok",
    "Die Kindergartengebühren steigen im September.",
    "database server not reachable " * 40,  # past the model's 256 tokens: truncated alike
]


class Server:
    def __init__(self, tmp_path: Path, *extra: str, port: int = 0) -> None:
        self.log = (tmp_path / f"server-{time.monotonic_ns()}.log").open("w")
        self.proc = subprocess.Popen(
            [sys.executable, str(SERVER), str(MINILM), NAME, "--port", str(port), *extra],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        line = self.proc.stdout.readline() if self.proc.stdout else ""  # it prints its port once listening
        assert line.startswith("PORT "), f"the test server did not start: {line!r}"
        self.port = int(line.split()[1])
        self.url = f"http://127.0.0.1:{self.port}"

    def stats(self) -> dict:
        with urllib.request.urlopen(self.url + "/stats", timeout=5) as answer:
            return json.loads(answer.read())

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)
        if self.proc.stdout:
            self.proc.stdout.close()
        self.log.close()


@pytest.fixture
def servers(tmp_path):
    started: list[Server] = []

    def start(*extra: str, port: int = 0) -> Server:
        server = Server(tmp_path, *extra, port=port)
        started.append(server)
        return server

    def stop_all() -> None:
        for server in started:
            server.stop()

    start.stop_all = stop_all  # type: ignore[attr-defined]
    yield start
    stop_all()


@pytest.fixture
def quick_retries(monkeypatch):
    """Retries as a server's client makes them, with the waits of a test."""
    monkeypatch.setattr(remote, "RETRIES", 2)
    monkeypatch.setattr(remote, "MAX_WAIT_S", 0.05)


def _local(spec):
    from findling.models.download import ModelStore
    from findling.models.embedder import Embedder

    return Embedder(spec, ModelStore())


@pytest.mark.parametrize("api", ["openai", "ollama"])
def test_the_servers_vectors_are_the_local_models(servers, embedder_installed, api):
    server = servers()
    from findling.models.manifest import load_manifest

    like = like_manifest(NAME, load_manifest())
    assert like is not None and like.name == "minilm-test"  # read as the model Findling ships
    far = RemoteEmbedder(Endpoint(server.url, NAME, api), like).embed(TEXTS)
    near = _local(embedder_installed).embed(TEXTS)
    cosines = (far * near).sum(axis=1)
    assert far.shape == near.shape == (len(TEXTS), 384) and cosines.min() >= 0.999, cosines


def test_a_folder_embedded_through_the_server_searches_as_the_local_one(tmp_path, servers, embedder_installed):
    docs = tmp_path / "docs"
    notes = {
        "rust.md": "# Ownership\n\nThe borrow checker rejects two mutable references at once.\n",
        "garden.md": "# Tomatoes\n\nWater tomato plants deeply twice a week in summer.\n",
        "soup.md": "# Soup\n\nSimmer the tomatoes with garlic and basil for an hour.\n",
        "db.md": "# Database\n\nPostgreSQL listens on port 5432; a refused connection means it is down.\n",
    }
    for name, text in notes.items():
        write(docs / name, text)
    local_home, far_home = tmp_path / "local", tmp_path / "far"
    server = servers()
    used = _run("models", "use", "embedder", "--url", server.url, "--model", NAME, home=far_home)
    assert f"OpenAI-compatible server at 127.0.0.1:{server.port}, {NAME}" in used.stdout
    assert "384-dimension vectors" in used.stdout
    for home in (local_home, far_home):
        _run("add", str(docs), home=home)
        _run("index", home=home)
    status = _run("status", home=far_home).stdout
    assert (
        "4 of 4 documents embedded" in status
        and f"embeddings: OpenAI-compatible server at 127.0.0.1:{server.port}" in status
    )
    assert "is sent to" not in status  # this machine: nothing leaves it
    for query in ("vegetables in the garden", "why can I not connect to the database"):
        near = json.loads(_run("vsearch", query, "--json", home=local_home).stdout)["results"]
        far = json.loads(_run("vsearch", query, "--json", home=far_home).stdout)["results"]
        assert [h["path"] for h in far] == [h["path"] for h in near], query
        assert all(abs(a["score"] - b["score"]) < 0.01 for a, b in zip(far, near)), query
    # MCP's status says it too
    import anyio
    from mcp import Client

    from findling.server.handle import IndexHandle
    from findling.server.mcp_server import build_server

    async def status() -> dict:
        with IndexHandle.open(far_home) as handle:
            async with Client(build_server(handle)) as client:
                return (await client.call_tool("status", {})).structured_content

    embedded = anyio.run(status)["embedded"]
    assert embedded["runs"] == f"OpenAI-compatible server at 127.0.0.1:{server.port}, {NAME}"
    assert embedded["documents"] == 4 and embedded["text_sent_to"] is None
    # and back to the local model, by its name
    assert "minilm-test, on this computer" in _run("models", "use", "embedder", "minilm-test", home=far_home).stdout
    assert load_settings(far_home).models.embedder_url == ""


def test_a_storm_of_429_is_ridden_out(servers, embedder_installed, quick_retries):
    server = servers("--fail-first", "2")
    vectors = RemoteEmbedder(Endpoint(server.url, NAME, "ollama")).embed(TEXTS[:3])
    assert vectors.shape == (3, 384)
    stats = server.stats()
    assert (stats["requests"], stats["answered"]) == (3, 1)  # two refused, the third answered
    storm = servers("--fail-first", "50")
    with pytest.raises(ModelServerError, match="answered 429 3 times"):
        RemoteEmbedder(Endpoint(storm.url, NAME)).embed(TEXTS[:1])


def test_requests_go_a_few_at_a_time_never_more(servers, embedder_installed):
    server = servers("--delay", "0.3")
    texts = [f"{text} ({i})" for i in range(4) for text in TEXTS]  # 28 texts: 7 batches of 4
    embedder = RemoteEmbedder(Endpoint(server.url, NAME), batch_size=4, concurrency=3)
    started = time.perf_counter()
    together = embedder.embed(texts)
    took = time.perf_counter() - started
    stats = server.stats()
    assert stats["most_in_flight"] == 3 and stats["answered"] == 7, stats
    assert took < 7 * 0.3, f"{took:.2f} s: the requests were not sent together"
    one_by_one = RemoteEmbedder(Endpoint(server.url, NAME), batch_size=4, concurrency=1).embed(texts)
    assert np.allclose(together, one_by_one, atol=1e-6)  # each text's own vector, in input order


def test_a_stop_sends_no_more_requests_and_waits_for_those_in_flight(servers, embedder_installed):
    server = servers("--delay", "0.3")
    cancel = threading.Event()
    embedder = RemoteEmbedder(Endpoint(server.url, NAME), batch_size=2, concurrency=2)
    threading.Timer(0.1, cancel.set).start()
    with pytest.raises(EmbeddingStopped):
        embedder.embed(TEXTS * 4, cancel=cancel)  # 14 batches; the stop comes while the first two run
    stats = server.stats()
    assert stats["answered"] == 2 and stats["in_flight"] == 0, stats


def test_a_batch_the_server_finds_too_large_is_halved_and_the_size_kept(servers, embedder_installed):
    server = servers("--max-batch", "5")
    topics = "apple river engine violin glacier tax soup poetry rocket garden chess bread fever harbor".split()
    texts = [f"{topic} {kind}" for kind in ("notes", "invoice", "recipe") for topic in topics]  # 42 texts
    embedder = RemoteEmbedder(Endpoint(server.url, NAME), batch_size=32, concurrency=1)
    vectors = embedder.embed(texts)
    stats = server.stats()
    assert stats["largest"] <= 5 and embedder.batch_size == 4, stats  # 32 -> 16 -> 8 -> 4, then kept
    assert stats["too_large"] == 3, stats  # the first batch paid for the size; the others were cut first
    near = _local(embedder_installed).embed(texts)
    # each text's own vector, in its place (int8 activations are scaled per batch: batches of
    # other texts move a vector a little, never to another text's)
    assert ((vectors @ near.T).argmax(axis=1) == np.arange(len(texts))).all()
    together = RemoteEmbedder(Endpoint(server.url, NAME), batch_size=32, concurrency=3)
    again = together.embed(texts)  # batches in flight together, each halved on its own
    assert ((again @ near.T).argmax(axis=1) == np.arange(len(texts))).all() and together.batch_size <= 5


def test_a_server_that_dies_mid_run_leaves_the_rest_for_the_next(tmp_path, servers, embedder_installed, quick_retries):
    docs = tmp_path / "docs"
    for i in range(12):  # twelve documents of ~40 windows: `models use`, the probe, every first window, the
        # openings' next windows (ingest/embedding.py), a few documents whole, then the server dies
        write(
            docs / f"n{i:02}.md",
            f"# Note {i}\n\n" + " ".join(f"Line {i}.{j} about gardens and soups." for j in range(400)),
        )
    home = tmp_path / "home"
    server = servers("--die-after", "9")
    _run("models", "use", "embedder", "--url", server.url, "--model", NAME, home=home)
    with Engine(home) as engine:
        engine.add_source(str(docs))
        report = engine.index()
        assert report.embedding is not None and "cannot be reached" in report.embedding.stopped
        first = engine.status()
        # what was answered is kept: every note's first vector (one request), its opening, some notes whole
        assert first.embedded == first.embeddable == 12 and 0 < first.embedded - first.first_only < 12
        hybrid = engine.find(SearchRequest("gardens soups"))
        assert hybrid.hits  # keywords answer while the server is down...
        assert any("the model server at" in n.text and "cannot be reached" in n.text for n in hybrid.notes)
        semantic = engine.find(SearchRequest("gardens soups", SearchMode.SEMANTIC))
        assert semantic.hits == () and "cannot be reached" in semantic.notes[0].text
    said = _run("index", home=home).stdout  # the command line says it too (its own retries, then)
    assert "semantic search is off" in said and "cannot be reached" in said
    servers(port=server.port)  # the server is back, on its address
    with Engine(home) as engine:
        engine.index()
        assert engine.status().embedded == 12 and engine.status().first_only == 0
        assert engine.find(SearchRequest("gardens soups", SearchMode.SEMANTIC)).hits


def test_a_host_on_another_machine_is_refused_unless_allowed(tmp_path):
    home = tmp_path / "home"
    refused = _run(
        "models", "use", "embedder", "--url", "https://api.example.com", "--model", "text-embedding-3-small",
        home=home, check=False,
    )  # fmt: skip
    assert refused.returncode == 2 and "document text would leave the machine" in refused.stderr
    assert "--allow-remote" in refused.stderr or "allow_remote" in refused.stderr
    assert load_settings(home).models.embedder_url == ""  # nothing saved
    allowed = _run(
        "models", "use", "embedder", "--url", "http://findling-test.invalid:9", "--model", "m", "--allow-remote",
        home=home, check=False,
    )  # fmt: skip
    assert allowed.returncode == 1 and "saved, but the server does not answer now" in allowed.stderr
    settings = load_settings(home).models
    assert settings.embedder_url == "http://findling-test.invalid:9" and settings.allow_remote
    assert "document text is sent to findling-test.invalid:9" in _run("status", home=home).stdout


def test_the_key_comes_from_the_environment_and_is_never_saved(tmp_path, servers, monkeypatch):
    home = tmp_path / "home"
    server = servers()
    monkeypatch.setenv("FINDLING_TEST_KEY", "sk-secret-value")
    _run("models", "use", "embedder", "--url", server.url, "--model", NAME, "--key-env", "FINDLING_TEST_KEY", home=home)
    saved = settings_path(home).read_text()
    assert "FINDLING_TEST_KEY" in saved and "sk-secret-value" not in saved
    monkeypatch.delenv("FINDLING_TEST_KEY")
    with pytest.raises(ModelServerError, match=r"\$FINDLING_TEST_KEY, which is not set"):
        RemoteEmbedder(Endpoint(server.url, NAME, key_env="FINDLING_TEST_KEY")).embed(["x"])


def test_expansion_judging_and_reranking_run_through_the_server(servers, embedder_installed):
    """The generator through /v1/chat/completions and /api/chat (greedy: the local model's very
    words), the LLM judge by the first token's log-probabilities, and a cross-encoder through the
    rerank shape (/v1/rerank), each against the same model run here."""
    from findling.models.download import ModelStore
    from findling.models.expander import expand
    from findling.models.generator import Generator
    from findling.models.judge import LlmJudge
    from findling.models.manifest import load_manifest
    from findling.models.remote import RemoteChat, RemoteReranker
    from findling.models.reranker import CrossEncoder
    from tests.conftest import CROSS_ENCODER, SMOLLM

    server = servers("--chat", str(SMOLLM), "smollm2", "--rerank", str(CROSS_ENCODER), "ce")
    manifest = load_manifest()
    store = ModelStore()
    for name, folder in (("smollm-test", SMOLLM), ("ce-test", CROSS_ENCODER)):
        store.import_dir(manifest.get(name), folder)
    local_chat = Generator(manifest.get("smollm-test"), store)
    query = "how do I undo the last git commit"
    near = expand(local_chat, query)
    for api in ("openai", "ollama"):
        far = expand(RemoteChat(Endpoint(server.url, "smollm2", api)), query)
        assert far.raw == near.raw, api  # the same words, decoded the same way
    passages = ["Use git reset --soft HEAD~1 to undo the last commit.", "Tomatoes need water twice a week."]
    judged_near = LlmJudge(local_chat).scores(query, passages)
    for api in ("openai", "ollama"):
        judged_far = LlmJudge(RemoteChat(Endpoint(server.url, "smollm2", api))).scores(query, passages)
        assert np.allclose(judged_far, judged_near, atol=1e-4), api
    ce = CrossEncoder(manifest.get("ce-test"), store)
    logits = ce.logits(query, passages)
    far_scores = RemoteReranker(Endpoint(server.url, "ce")).scores(query, passages)
    assert np.allclose(far_scores, 1 / (1 + np.exp(-logits)), atol=1e-4)  # logits, read as the local ones


def test_a_query_uses_the_servers_reranker_and_goes_on_without_it_when_it_is_down(
    tmp_path, servers, embedder_installed
):
    from tests.conftest import CROSS_ENCODER

    docs = tmp_path / "docs"
    write(docs / "db.md", "# Database\n\nPostgreSQL listens on port 5432 by default.\n")
    write(docs / "garden.md", "# Garden\n\nWater the tomatoes twice a week, the port side of the beds first.\n")
    home = tmp_path / "home"
    server = servers("--rerank", str(CROSS_ENCODER), "ce")
    _run("models", "use", "reranker", "--url", server.url, "--model", "ce", home=home)
    with Engine(home) as engine:
        engine.add_source(str(docs))
        engine.index()
        explain = engine.find(SearchRequest("port 5432", rerank="cross-encoder")).explain
        stage = explain.stage("rerank")
        assert stage.status == "ran" and f"127.0.0.1:{server.port}" in stage.reason
    server.stop()
    with Engine(home) as engine:
        result = engine.find(SearchRequest("port 5432", rerank="cross-encoder"))
        assert result.hits and result.hits[0].path.endswith("db.md")  # the list stands, fused
        stage = result.explain.stage("rerank")
        assert stage.status == "skipped" and "cannot be reached" in stage.reason


def test_another_model_behind_the_same_name_is_embedded_again_never_mixed(tmp_path, servers, embedder_installed):
    """The vectors record the model that made them (a probe text's vector): a server whose model
    changed under the same name (same dimension, or another) gets the folders embedded again."""
    from findling.doctor import run_checks
    from findling.store.vectors import fingerprint

    docs = tmp_path / "docs"
    for name, text in (("a.md", "Tomatoes need water."), ("b.md", "Ports and databases."), ("c.md", "Soup.")):
        write(docs / name, text)
    home = tmp_path / "home"
    first = servers()
    _run("models", "use", "embedder", "--url", first.url, "--model", NAME, home=home)
    with Engine(home) as engine:
        engine.add_source(str(docs))
        engine.index()
        key = engine.models.spec("embedder").vector_key
        before = fingerprint(engine.database.cursor(), key)
        assert engine.status().embedded == 3 and before is not None and len(before) == 384
    first.stop()
    servers("--other-model", port=first.port)  # same name, same dimension, another model
    with Engine(home) as engine:
        engine.index()
        after = fingerprint(engine.database.cursor(), key)
        assert engine.status().embedded == 3 and float(np.dot(before, after)) < 0.9  # all embedded again
        assert engine.find(SearchRequest("tomato water", SearchMode.SEMANTIC)).hits[0].path.endswith("a.md")
    servers.stop_all()
    servers("--dims", "256", port=first.port)  # and another dimension
    doctor = {c.name: c for c in run_checks(str(home))}["model embedder"]
    assert not doctor.ok and "answers 256-dimension vectors, the index holds 384" in doctor.detail
    with Engine(home) as engine:
        engine.index()
        assert engine.status().embedded == 3 and engine.status().embedder_dimension == 256
