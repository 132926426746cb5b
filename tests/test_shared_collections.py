"""Shared collections (ingest/sharing.py, store/published.py): a folder published by one Findling
at a path or on S3-compatible storage (moto's server on 127.0.0.1), attached read-only by
another, ranks there as at home in every mode; a republication is seen whole; an unreachable
collection is said and costs searches nothing; a reader writes nothing to the collection."""

from __future__ import annotations

import os
import random
from dataclasses import replace
from importlib.util import find_spec
from pathlib import Path

import pytest

from findling.engine import Engine
from findling.errors import SharedError, SourceError
from findling.records import SearchMode, SearchRequest
from findling.store import published
from tests.helpers import published_collection

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(find_spec("lance") is None, reason="the findling[shared] extra is not installed"),
]

_TOPICS = {
    "garden": "soil compost seedlings watering pruning tomatoes mulch harvest greenhouse",
    "sailing": "mainsail jib tacking harbour mooring knots anchor tide regatta",
    "baking": "dough yeast oven flour proofing crust butter sugar sourdough",
    "astronomy": "telescope nebula orbit comet galaxy planets eclipse stars observatory",
    "cycling": "pedals gears chain saddle helmet sprint climb peloton puncture",
}
_QUERIES = (
    "compost for tomatoes",
    "anchor at high tide",
    "sourdough proofing time",
    "comet seen through a telescope",
    "fixing a puncture on a climb",
    "how do plants grow in a greenhouse",
    "what makes bread rise",
    "racing boats in a regatta",
)
_MODES = ("keyword", "semantic", "hybrid")


def _notes(folder: Path, files: int, seed: int) -> Path:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    topics = list(_TOPICS.items())
    for i in range(files):
        topic, words = topics[i % len(topics)]
        vocabulary = words.split()
        sentences = [
            "The " + " and ".join(rng.sample(vocabulary, 3)) + f" in note {i} matter when {topic} goes well."
            for _ in range(rng.randint(4, 30))
        ]
        (folder / f"{topic}_{i:03d}.md").write_text(f"# {topic} note {i}\n\n" + " ".join(sentences) + "\n")
    return folder


def _top(engine: Engine, query: str, mode: str) -> list[str]:
    result = engine.find(SearchRequest(query, mode=SearchMode(mode), limit=10))
    paths = engine.document_paths()
    return [paths[hit.doc_id] for hit in result.hits]


def _overlap(a: Engine, b: Engine) -> dict[str, float]:
    out = {}
    for mode in _MODES:
        shares = []
        for query in _QUERIES:
            home, there = _top(a, query, mode), _top(b, query, mode)
            shares.append(len(set(home) & set(there)) / len(home) if home else float(not there))
        out[mode] = sum(shares) / len(shares)
    return out


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    """Every file of a collection on a path: its size and modification time."""
    return {
        str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()
    }


def _publisher(tmp_path: Path, settings) -> tuple[Engine, Path]:
    folder = _notes(tmp_path / "team" / "notes", 60, seed=11)
    engine = Engine(tmp_path / "publisher", settings=settings)
    engine.add_source(folder)
    engine.index()
    return engine, folder


def test_an_attached_collection_ranks_as_at_home_and_is_never_written(tmp_path, settings, embedder_installed):
    publisher, folder = _publisher(tmp_path, settings)
    collection = tmp_path / "share" / "notes-collection"
    reader = Engine(tmp_path / "reader", settings=settings)
    try:
        report = publisher.publish(str(folder), str(collection))
        assert (report.documents, report.changed, report.removed, report.embedded) == (60, 60, 0, 60)
        before = _files(collection)

        source = reader.attach(str(collection))
        assert source.shared == str(collection) and source.path == str(folder)
        run = reader.index()
        assert run.added == 60 and run.shared and "60 added" in run.shared[0]
        # the vectors came with the documents: the reader ran no window through the model
        assert run.embedding is not None and run.embedding.vectors > 0 and run.embedding.computed == 0
        status = reader.status()
        held = next(s for s in status.sources if s.source.shared)
        assert held.indexed == 60 and held.attached is not None and held.attached.vectors_used
        # the publisher's self-test of the same documents and vectors came with them: not made again
        home = next(s for s in publisher.status().sources)
        assert home.weights is not None and held.weights == home.weights and run.embedding.weighed == ()
        assert status.embedded == 60

        overlap = _overlap(publisher, reader)
        assert all(share >= 0.9 for share in overlap.values()), overlap

        again = reader.index()  # nothing published since: nothing copied
        assert (again.added, again.updated, again.removed) == (0, 0, 0)
        assert _files(collection) == before  # reading wrote nothing there

        with pytest.raises(SourceError, match="shared collection"):
            reader.add_source(folder)
        assert reader.remove_source("notes") == 60  # detached by its name
        assert reader.status().documents == 0 and _files(collection) == before
    finally:
        publisher.close()
        reader.close()


def test_a_republication_is_seen_whole(tmp_path, settings, embedder_installed, monkeypatch):
    publisher, folder = _publisher(tmp_path, settings)
    collection = tmp_path / "notes-collection"
    reader = Engine(tmp_path / "reader", settings=settings)
    try:
        publisher.publish(str(folder), str(collection))
        reader.attach(str(collection))
        reader.index()

        edited = folder / "garden_000.md"
        edited.write_text(edited.read_text() + "\nThe zucchini glut of August.\n")
        (folder / "sailing_001.md").unlink()
        (folder / "cycling_new.md").write_text("# cycling\n\nA tandem velodrome event.\n")
        publisher.index()

        # a publication that fails half way is never seen: its documents' rows are written,
        # but not the version that names them
        real = published._table
        calls = []

        def failing(part, dim):
            calls.append(len(part))
            if len(calls) > 1:
                raise OSError("the link went down")
            return real(part, dim)

        monkeypatch.setattr(published, "_table", failing)
        monkeypatch.setattr("findling.ingest.sharing._PART", 1)
        with pytest.raises(SharedError, match="link went down"):
            publisher.publish(str(folder), str(collection))
        monkeypatch.undo()
        run = reader.index()
        assert (run.added, run.updated, run.removed) == (0, 0, 0)
        assert _top(reader, "zucchini", "keyword") == []

        report = publisher.publish(str(folder), str(collection))
        assert (report.changed, report.removed, report.documents) == (2, 1, 60)
        run = reader.index()
        assert (run.added, run.updated, run.removed) == (1, 1, 1)
        assert _top(reader, "zucchini", "keyword") == [str(edited)]
        assert _top(reader, "tandem velodrome", "keyword") == [str(folder / "cycling_new.md")]
        assert str(folder / "sailing_001.md") not in reader.document_paths().values()
        assert all(share >= 0.9 for share in _overlap(publisher, reader).values())
    finally:
        publisher.close()
        reader.close()


@pytest.fixture
def s3(monkeypatch):
    """An S3-compatible server on 127.0.0.1 (moto), a bucket on it, and the AWS environment
    naming it, as a user's would."""
    boto3 = pytest.importorskip("boto3")
    server_module = pytest.importorskip("moto.server")
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": endpoint,
    }.items():
        monkeypatch.setenv(key, value)
    client = boto3.client("s3", endpoint_url=endpoint)
    client.create_bucket(Bucket="team")
    yield server, client
    server.stop()


def _objects(client) -> dict[str, str]:
    listed = client.list_objects_v2(Bucket="team").get("Contents", [])
    return {o["Key"]: o["ETag"] for o in listed}


def test_a_collection_on_s3_is_attached_and_an_unreachable_one_costs_searches_nothing(
    tmp_path, settings, embedder_installed, s3, monkeypatch
):
    server, client = s3
    publisher, folder = _publisher(tmp_path, settings)
    reader = Engine(tmp_path / "reader", settings=settings)
    try:
        report = publisher.publish(str(folder), "s3://team/collections/notes", name="team notes")
        assert report.uri == "s3://team/collections/notes" and report.documents == 60
        before = _objects(client)
        assert any(key.startswith("collections/notes/documents.lance/") for key in before)

        reader.attach("s3://team/collections/notes")
        run = reader.index()
        assert run.added == 60 and run.embedding is not None and run.embedding.computed == 0
        assert all(share >= 0.9 for share in _overlap(publisher, reader).values())
        assert _objects(client) == before  # the reader wrote nothing to the bucket

        server.stop()  # the link goes down
        run = reader.index()
        assert run.shared and "team notes: cannot be reached" in run.shared[0]
        assert "its copy of 60 documents stays searchable" in run.shared[0]
        held = next(s for s in reader.status().sources if s.source.shared).attached
        assert held is not None and held.error and held.version > 0
        from findling.faces.presentation import shared_line

        assert "not reachable at the last try" in shared_line(held, held.checked)

        def no_remote_call(*args, **kwargs):
            raise AssertionError("a search reached the shared collection")

        monkeypatch.setattr(published, "_open", no_remote_call)
        monkeypatch.setattr(published, "latest", no_remote_call)
        for mode in _MODES:
            assert _top(reader, "compost for tomatoes", mode)
    finally:
        publisher.close()
        reader.close()


def test_a_collection_made_by_another_embedder_is_searched_by_its_words(tmp_path, settings, embedder_installed):
    publisher, folder = _publisher(tmp_path, settings)
    collection = tmp_path / "notes-collection"
    publisher.publish(str(folder), str(collection))
    publisher.close()
    settings.models.embedder = "another-model"  # not installed here: no vectors are taken
    reader = Engine(tmp_path / "reader", settings=settings)
    try:
        reader.attach(str(collection))
        run = reader.index()
        assert run.added == 60 and "searched by its words here" in run.shared[0]
        held = next(s for s in reader.status().sources if s.source.shared).attached
        assert held is not None and not held.vectors_used and held.embedder.startswith("minilm")
        assert _top(reader, "compost tomatoes", "keyword")
    finally:
        reader.close()


def test_attaching_what_is_not_a_collection_or_overlaps_a_folder_is_refused(tmp_path, settings):
    reader = Engine(tmp_path / "reader", settings=settings)
    try:
        with pytest.raises(SharedError, match="no published collection"):
            reader.attach(str(tmp_path / "nothing-here"))
        folder = _notes(tmp_path / "notes", 3, seed=1)
        published_collection(settings, tmp_path / "publisher", folder, tmp_path / "coll")
        reader.add_source(folder)
        with pytest.raises(SourceError, match="overlaps a folder of this index"):
            reader.attach(str(tmp_path / "coll"))
    finally:
        reader.close()


def test_the_command_line_publishes_attaches_says_and_detaches(tmp_path, embedder_installed):
    import json
    import subprocess
    import sys

    folder = _notes(tmp_path / "notes", 12, seed=5)
    collection = tmp_path / "collection"

    def run(home: str, *args: str) -> str:
        env = {**os.environ, "FINDLING_HOME": str(tmp_path / home), "NO_COLOR": "1"}
        proc = subprocess.run(
            [sys.executable, "-m", "findling", *args], capture_output=True, text=True, env=env, timeout=300
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout

    run("publisher", "add", str(folder), "--wait")
    said = run("publisher", "publish", str(folder), "--to", str(collection), "--name", "field notes")
    assert "published field notes at" in said and "12 documents, 12 with vectors by minilm" in said
    said = run("reader", "attach", str(collection), "--wait")
    assert f"attached {collection} (published from {folder})" in said
    assert "shared: field notes: publication" in said and "(12 added, 0 updated, 0 removed)" in said
    status = run("reader", "status")
    assert "shared: field notes from" in status and "12 documents), reached just now" in status
    payload = json.loads(run("reader", "status", "--json"))
    assert payload["sources"][0]["source"]["shared"] == str(collection)
    assert payload["sources"][0]["attached"]["vectors_used"] is True and payload["embedded"] == 12
    hits = json.loads(run("reader", "query", "compost for tomatoes", "--json"))["results"]
    assert hits and all(h["path"].startswith(str(folder)) and h["collection"] == "field notes" for h in hits)
    assert "(shared: field notes)" in run("reader", "search", "compost")
    assert "detached field notes (12 documents)" in run("reader", "detach", "field notes")


def test_damaged_vectors_and_paths_outside_the_folder_are_not_taken(tmp_path, settings, embedder_installed):
    """A collection written by something else than Findling (damaged, or hostile): vectors that
    are not one sound vector per window are left out and embedded here; a document whose path
    lies outside the folder it claims to come from is refused, never taken for a file here."""
    import numpy as np

    publisher, folder = _publisher(tmp_path, settings)
    collection = tmp_path / "collection"
    publisher.publish(str(folder), str(collection))
    publisher.close()
    last = published.latest(str(collection))
    paths = sorted(published.published_keys(str(collection), last.version))
    docs = [d for part in published.read_documents(str(collection), last.version, paths[:3]) for d in part]
    nan, short, zero = docs
    hostile = [
        replace(nan, vectors=np.where(np.arange(nan.vectors.shape[1]) == 0, np.nan, nan.vectors).astype(np.float32)),
        replace(short, window_hashes=(*short.window_hashes, 12345)),  # one hash more than vectors
        replace(zero, vectors=np.zeros_like(zero.vectors)),
        replace(zero, path="/etc/findling-test-elsewhere.md", text="the elsewhere marker"),
    ]
    published.publish(str(collection), last, iter([hostile]), set(paths) | {"/etc/findling-test-elsewhere.md"})

    reader = Engine(tmp_path / "reader", settings=settings)
    try:
        reader.attach(str(collection))
        run = reader.index()
        assert run.added == 60 and "1 documents refused: their paths lie outside" in run.shared[0]
        assert "/etc/findling-test-elsewhere.md" not in reader.document_paths().values()
        # the three damaged documents were embedded here, every other copied
        assert run.embedding is not None and run.embedding.computed > 0
        assert reader.status().embedded == 60
        overlap = _overlap(publisher_like := Engine(tmp_path / "publisher", settings=settings), reader)
        publisher_like.close()
        assert all(share >= 0.9 for share in overlap.values()), overlap
    finally:
        reader.close()


def test_lances_errors_are_said_without_its_source_locations_and_counters():
    said = published._said(
        ValueError(
            "LanceError(IO): Generic S3 error: Error performing list request: Error performing GET "
            "http://127.0.0.1:5078/team?list-type=2&prefix=pg%2Fversions.lance%2F_versions%2F in 102.047552ms, "
            "after 1 retries, max_retries: 1, retry_timeout: 20s  - HTTP error: error sending request, "
            "/home/runner/work/lance/lance/rust/lance-io/src/object_store.rs:1576:42"
        )
    )
    request = "Error performing GET http://127.0.0.1:5078/team: error sending request"
    assert said == f"Generic S3 error: Error performing list request: {request}"


def test_a_document_that_cannot_be_analysed_fails_alone(tmp_path, settings, monkeypatch):
    folder = _notes(tmp_path / "notes", 6, seed=2)
    published_collection(settings, tmp_path / "publisher", folder, tmp_path / "collection")
    import findling.ingest.sharing as sharing

    real = sharing.analyse
    bad = str(folder / "garden_000.md")

    def analyse(task, *args, **kwargs):
        if task.path == bad:
            raise ValueError("a damaged row")
        return real(task, *args, **kwargs)

    monkeypatch.setattr(sharing, "analyse", analyse)
    reader = Engine(tmp_path / "reader", settings=settings)
    try:
        reader.attach(str(tmp_path / "collection"))
        run = reader.index(embed=False)
        assert run.added == 6
        status = reader.status()
        assert (status.indexed, status.failed) == (5, 1)
        assert any(p.path == bad and "a damaged row" in p.error for p in status.problems)
        assert reader.index(embed=False).added == 0  # not read again until it is published again
    finally:
        reader.close()


def test_a_collection_findling_cannot_read_is_said_not_a_crash(tmp_path, settings, monkeypatch):
    folder = _notes(tmp_path / "notes", 3, seed=3)
    published_collection(settings, tmp_path / "publisher", folder, tmp_path / "collection")

    def foreign(table):
        raise KeyError("chunks")  # a dataset written by something else, its columns not these

    monkeypatch.setattr(published, "_documents", foreign)
    reader = Engine(tmp_path / "reader", settings=settings)
    try:
        reader.attach(str(tmp_path / "collection"))
        run = reader.index(embed=False)
        assert run.added == 0 and "is not a collection this Findling can read (KeyError" in run.shared[0]
        assert "not copied whole" in run.shared[0]
    finally:
        reader.close()
