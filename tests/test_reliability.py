"""Bad input, faults and concurrent use: every case is indexed or recorded as failed with a
reason, the run completes, and nothing already indexed is lost."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import duckdb
import pytest

from findling.engine import Engine
from findling.errors import StoreWriteError
from findling.records import SearchMode, SearchRequest
from tests.conftest import MINILM, needs_models, write_test_manifest
from tests.helpers import assert_index_consistent, make_docx, make_epub, make_pdf, write

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each


def _encrypted_pdf(path):
    """A PDF whose trailer names the standard security handler with a user password."""
    make_pdf(path, ["secret text"])
    data = path.read_bytes()
    encrypt = b"<< /Filter /Standard /V 1 /R 2 /O <" + b"11" * 32 + b"> /U <" + b"22" * 32 + b"> /P -4 >>"
    path.write_bytes(
        data.replace(
            b"/Root 1 0 R", b"/Root 1 0 R /Encrypt " + encrypt + b" /ID [<" + b"33" * 16 + b"> <" + b"33" * 16 + b">]"
        )
    )


def build_bad_corpus(root):  # noqa: PLR0915 - the bad-input corpus, one case a line
    """Returns {file name: expected outcome} for every case made."""
    expected = {}

    def case(name, outcome):
        expected[name] = outcome

    make_pdf(root / "good.pdf", ["a good pdf about zebras"])
    case("good.pdf", "ok")
    full = make_pdf(root / "truncated.pdf", ["this pdf is cut in half"] * 20).read_bytes()
    (root / "truncated.pdf").write_bytes(full[: len(full) // 2])
    case("truncated.pdf", "failed")
    write(root / "corrupt.pdf", "%PDF-1.7\n%%garbage\n1 0 obj << /Type /Catalog")
    case("corrupt.pdf", "failed")
    _encrypted_pdf(root / "encrypted.pdf")
    case("encrypted.pdf", "failed")
    docx = make_docx(root / "truncated.docx", "T", "H", ["words"] * 50).read_bytes()
    (root / "truncated.docx").write_bytes(docx[: len(docx) // 3])
    case("truncated.docx", "failed")
    write(root / "notzip.docx", "plain text pretending")
    case("notzip.docx", "failed")
    epub = make_epub(root / "truncated.epub", "B", [("C", "text " * 200)]).read_bytes()
    (root / "truncated.epub").write_bytes(epub[: len(epub) // 2])
    case("truncated.epub", "failed")
    make_epub(root / "good.epub", "Good Book", [("One", "zebras in a book")])
    case("good.epub", "ok")
    write(root / "empty.txt", "")
    case("empty.txt", "ok")
    with open(root / "huge.txt", "wb") as handle:  # 200 MB, sparse: over the size limit
        handle.truncate(200 * 1024 * 1024)
    case("huge.txt", "skipped")
    (root / "binary.txt").write_bytes(os.urandom(4096))
    case("binary.txt", "failed")
    (root / "binary.md").write_bytes(b"\x00\x01\x02\x03" * 1000)
    case("binary.md", "failed")
    write(root / "latin1.txt", "Crème brûlée à la façon de ma grand-mère. " * 20, "latin-1")
    case("latin1.txt", "ok")
    write(root / "utf16.txt", "\ufeffUTF sixteen zebras here. " * 20, "utf-16-le")
    case("utf16.txt", "ok")
    write(root / "sjis.txt", "日本語のテキストです。検索できます。" * 20, "shift_jis")
    case("sjis.txt", "ok")
    write(root / "longline.txt", "zebra " + "x" * 3_000_000 + " tail")
    case("longline.txt", "ok")
    write(root / "naïve café 🎉.md", "unicode name zebras")
    case("naïve café 🎉.md", "ok")
    write(root / "שלום-עולם.txt", "right to left name")
    case("שלום-עולם.txt", "ok")
    write(root / "e\u0301t\u0301e\u0301.txt", "combining accents name")
    case("e\u0301t\u0301e\u0301.txt", "ok")
    write(root / "line\nbreak.txt", "a newline in the file name")
    case("line\nbreak.txt", "ok")
    (root / "loop").mkdir()
    os.symlink(root, root / "loop" / "back")
    os.symlink(root / "nowhere", root / "dangling.txt")
    return expected


def test_bad_input_corpus(engine, docs):
    expected = build_bad_corpus(docs)
    engine.add_source(docs)
    report = engine.index()
    assert not report.cancelled
    rows = {
        os.path.basename(path): (status, error)
        for path, status, error in engine.database.cursor()
        .execute("SELECT path, status, error FROM documents")
        .fetchall()
    }
    for name, outcome in expected.items():
        assert name in rows, f"{name!r} neither indexed nor recorded"
        status, error = rows[name]
        assert status == outcome, (name, status, error)
        if status != "ok":
            assert error, f"{name!r} has no reason"
    assert "encrypted PDF" in rows["encrypted.pdf"][1]
    assert "larger than" in rows["huge.txt"][1]
    names = {
        os.path.basename(h.path) for h in engine.find(SearchRequest("zebras", mode=SearchMode.KEYWORD, limit=50)).hits
    }
    assert {"good.pdf", "good.epub", "naïve café 🎉.md", "utf16.txt", "longline.txt"} <= names
    assert (
        engine.find(SearchRequest("façon", mode=SearchMode.KEYWORD)).hits
        and engine.find(SearchRequest("検索", mode=SearchMode.KEYWORD)).hits
    )
    assert_index_consistent(engine)
    assert engine.index().failed == 0  # a second run retries nothing unchanged


def test_file_deleted_or_rewritten_while_indexing(engine, docs, monkeypatch):
    import findling.ingest.prepare as prepare

    for i in range(6):
        write(docs / f"f{i}.txt", f"original {i}")
    real = prepare.read_file

    def meddle(path, *rest):
        if path.endswith("f1.txt"):
            os.unlink(path)  # gone between the scan and the read
        if path.endswith("f2.txt"):
            write(docs / "f2.txt", "rewritten during indexing")
        return real(path, *rest)

    monkeypatch.setattr(prepare, "read_file", meddle)
    engine.add_source(docs)
    report = engine.index()
    assert report.added == 5 and report.failed == 0
    assert engine.find(SearchRequest("rewritten", mode=SearchMode.KEYWORD)).hits[0].path.endswith("f2.txt")
    monkeypatch.setattr(prepare, "read_file", real)
    again = engine.index()
    assert again.updated == 0 and again.added == 0  # the stat stored is the one of the bytes read
    assert_index_consistent(engine)


def test_folder_removed_mid_run(engine, docs, monkeypatch):
    import shutil

    import findling.ingest.prepare as prepare

    for i in range(5):
        write(docs / "doomed" / f"d{i}.txt", f"doomed {i}")
        write(docs / "kept" / f"k{i}.txt", f"kept {i}")
    real = prepare.read_file

    def remove_folder(path, *rest):
        shutil.rmtree(docs / "doomed", ignore_errors=True)
        return real(path, *rest)

    monkeypatch.setattr(prepare, "read_file", remove_folder)
    engine.add_source(docs)
    report = engine.index()
    assert report.added == 5 and not report.cancelled
    assert (
        len(engine.find(SearchRequest("kept", mode=SearchMode.KEYWORD)).hits) == 5
        and engine.find(SearchRequest("doomed", mode=SearchMode.KEYWORD)).hits == ()
    )


def test_disk_full_is_clear_and_loses_nothing(engine, docs, settings, monkeypatch):
    import findling.ingest.indexer as indexer

    settings.index.batch_files = 10
    for i in range(40):
        write(docs / f"n{i:02d}.txt", f"note {i} walnut")
    engine.add_source(docs)
    real = indexer.write_documents
    calls = {"n": 0}

    def full_disk(cur, source_id, rows):
        calls["n"] += 1
        if calls["n"] == 3:
            raise duckdb.IOException("Could not write file: No space left on device")
        return real(cur, source_id, rows)

    monkeypatch.setattr(indexer, "write_documents", full_disk)
    with pytest.raises(StoreWriteError, match="disk full"):
        engine.index()
    assert_index_consistent(engine)
    assert (
        engine.find(SearchRequest("walnut", mode=SearchMode.KEYWORD, limit=100)).total_matched == 20
    )  # two batches committed, the third undone
    monkeypatch.setattr(indexer, "write_documents", real)
    engine.index()
    assert engine.find(SearchRequest("walnut", mode=SearchMode.KEYWORD, limit=100)).total_matched == 40


def test_queries_while_indexing_stay_consistent(tmp_path, settings, docs):
    for i in range(1200):
        write(docs / f"c{i:04d}.txt", f"concurrent document {i} shared")
    engine = Engine(tmp_path / "home", settings=settings)
    engine.add_source(docs)
    errors: list[BaseException] = []
    seen: list[int] = []
    done = threading.Event()

    def search_loop():
        while not done.is_set():
            try:
                result = engine.find(SearchRequest("shared", mode=SearchMode.KEYWORD, limit=5))
                seen.append(result.total_matched)
                for hit in result.hits:
                    assert hit.path.startswith(str(docs)) and hit.title
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
                return

    thread = threading.Thread(target=search_loop)
    thread.start()
    try:
        engine.index()
    finally:
        done.set()
        thread.join()
    assert not errors, errors
    assert seen and seen == sorted(seen), "a query never sees the index shrink while it grows"
    assert engine.find(SearchRequest("shared", mode=SearchMode.KEYWORD)).total_matched == 1200
    engine.close()


@pytest.mark.parametrize(
    "query",
    [
        "'; DROP TABLE documents; --",
        'path:"\'; DELETE FROM documents; --"',
        "ext:md'); DROP TABLE terms; --",
        "\\x00\\x01",
        "%_%",
        "*",
        "a" * 10000,
        "((((",
        ")))",
        '"""',
        "-",
        "OR OR OR",
        "\u202e\u200b",
    ],
)
def test_hostile_queries(engine, docs, query):
    from findling.errors import MAX_QUERY_CHARS, QuerySyntaxError

    write(docs / "a.txt", "safe content")
    engine.add_source(docs)
    engine.index()
    for request in (SearchRequest(query, mode=SearchMode.KEYWORD), SearchRequest(query)):
        if len(query) > MAX_QUERY_CHARS:  # refused, with the cap said, before anything runs
            with pytest.raises(QuerySyntaxError, match="at most"):
                engine.find(request)
        else:
            engine.find(request)
    assert engine.status().indexed == 1
    assert engine.find(SearchRequest("safe", mode=SearchMode.KEYWORD)).hits


@needs_models
@pytest.mark.slow
def test_kill_during_model_download_resumes(tmp_path, monkeypatch):
    from findling.models.download import ModelStore
    from findling.models.manifest import load_manifest
    from tests.models.hub_mirror import HubMirror, MirrorRepo, MirrorState

    manifest_file = write_test_manifest(tmp_path / "models.toml")
    state = MirrorState(repos={"findling-test/all-MiniLM-L6-v2-int8": MirrorRepo(MINILM)}, seconds_per_mb=0.4)
    home = tmp_path / "home"
    home.mkdir()
    with HubMirror(state) as hub:
        (home / "settings.toml").write_text(f'[models]\nhub_endpoint = "{hub.endpoint}"\n')
        env = {**os.environ, "FINDLING_HOME": str(home), "FINDLING_MODELS_MANIFEST": str(manifest_file)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "findling", "models", "pull", "minilm-test"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        part = tmp_path / "cache" / "models" / "minilm-test" / "model.onnx.part"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (part.exists() and part.stat().st_size > 3_000_000):
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        have = part.stat().st_size
        assert 0 < have < (MINILM / "model.onnx").stat().st_size
        spec = load_manifest(manifest_file).get("minilm-test")
        store = ModelStore(tmp_path / "cache" / "models", endpoint=hub.endpoint)
        assert store.status(spec).state == "partial"
        state.seconds_per_mb = 0.0
        state.requests.clear()
        assert store.pull(spec).state == "installed"
        ranges = [r for m, p, r in state.requests if m == "GET" and p.endswith("model.onnx")]
        assert ranges == [f"bytes={have}-"]
        assert (
            store.verified_path(spec, spec.file_of_kind("model")).read_bytes() == (MINILM / "model.onnx").read_bytes()
        )


@pytest.fixture
def small_disk(tmp_path):
    """A real 6 MB file system (tmpfs), where the machine lets the tests mount one."""
    mount_point = tmp_path / "small-disk"
    mount_point.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", str(mount_point)], capture_output=True)
    if made.returncode != 0:
        pytest.skip("cannot mount a small file system here (needs root)")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


@pytest.mark.slow
def test_real_disk_full(small_disk, tmp_path, settings, docs):
    settings.index.batch_files = 20
    settings.index.memory_limit_mb = 64
    for i in range(600):
        write(docs / f"big{i:03d}.txt", f"filler{i} " + " ".join(f"w{i}x{j}" for j in range(600)))
    engine = Engine(small_disk / "home", settings=settings)
    engine.add_source(docs)
    with pytest.raises(StoreWriteError, match="disk full"):
        engine.index()
    engine.close()
    # the index opens again and what was committed before the disk filled is intact
    with Engine(small_disk / "home", settings=settings) as again:
        committed = assert_index_consistent(again)
        assert 0 < committed < 600
        assert again.find(SearchRequest("filler3", mode=SearchMode.KEYWORD)).hits


def test_read_only_data_folder(small_disk, tmp_path):
    home = small_disk / "home"
    with Engine(home) as engine:
        engine.add_source(tmp_path)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    env = {**os.environ, "FINDLING_HOME": str(home)}
    proc = subprocess.run([sys.executable, "-m", "findling", "status"], env=env, capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "read-only" in proc.stderr or "cannot write" in proc.stderr, proc.stderr
    proc = subprocess.run(
        [sys.executable, "-m", "findling", "--home", str(small_disk / "new"), "status"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.slow
def test_a_full_disk_during_the_first_add_is_said_once_and_leaves_nothing(small_disk, tmp_path, docs):
    """The red team's 14: the clear error, then a FatalException traceback from setting DuckDB's
    memory limit on the invalidated database; no owner record half written."""
    for i in range(600):
        write(docs / f"big{i:03d}.txt", f"filler{i} " + " ".join(f"w{i}x{j}" for j in range(600)))
    env = {**os.environ, "FINDLING_HOME": str(small_disk / "home")}
    proc = subprocess.run([sys.executable, "-m", "findling", "add", str(docs)], env=env, capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    assert "Is the disk full?" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert not [p.name for p in (small_disk / "home").iterdir() if p.name.startswith("owner.endpoint")]
