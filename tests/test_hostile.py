"""A folder of everything that broke the indexer (tests/hostile.py), indexed through the
real command line: the run completes, every control file is searchable, every bad file is
indexed or listed with its reason, nothing outside the added folder becomes searchable,
and nothing printed carries a terminal escape."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from findling.engine import Engine
from findling.pathnames import container_file, display_path
from findling.records import SearchMode, SearchRequest
from tests.helpers import wait_until, write
from tests.hostile import build, docx_slow

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each

ESCAPE_BYTES = ("\x1b", "\x9b", "\x07")


def _cli(*args, home: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "FINDLING_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "findling", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
        errors="surrogateescape",
    )


def _assert_printable(proc: subprocess.CompletedProcess) -> None:
    for stream in (proc.stdout, proc.stderr):
        for byte in ESCAPE_BYTES:
            assert byte not in stream, f"{byte!r} printed: {stream[:300]!r}"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    base = tmp_path_factory.mktemp("hostile")
    root, home = base / "folder", base / "home"
    cases = build(root, base / "outside")
    home.mkdir()
    (home / "settings.toml").write_text("[index]\nmax_text_mb = 1.0\n", encoding="utf-8")
    proc = _cli("add", str(root), home=home)
    return root, home, cases, proc


def test_run_completes_and_prints_nothing_unsafe(hostile):
    _root, _home, _cases, proc = hostile
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    _assert_printable(proc)


def test_every_control_file_is_searchable(hostile):
    root, home, cases, _ = hostile
    with Engine(home, read_only=True) as engine:
        for case in cases:
            hits = engine.find(SearchRequest(case.control, mode=SearchMode.KEYWORD)).hits
            assert [h.path for h in hits] == [str(root / case.name / "control.txt")], case.name


def test_every_bad_file_is_indexed_or_listed(hostile):
    root, home, cases, _ = hostile
    with Engine(home, read_only=True) as engine:
        problems = {p.path: p for p in engine.status().problems}
        for case in cases:
            bad = str(root / case.name / case.bad)
            if case.expect == "ok":
                if case.find:
                    hits = engine.find(SearchRequest(case.find, mode=SearchMode.KEYWORD)).hits
                    # an archive's member is found under the archive's own address
                    assert hits and container_file(hits[0].path) == bad, (case.name, [h.path for h in hits])
            elif case.expect == "listed":
                under = display_path(str(root / case.name)) + "/"
                listed = (
                    problems.get(display_path(bad))
                    if case.bad
                    else next((p for path, p in problems.items() if path.startswith(under)), None)
                )
                assert listed is not None, f"{case.name}: {bad!r} neither indexed nor listed"
                assert listed.error, case.name
        reasons = {Path(p).relative_to(root).parts[0]: problem.error for p, problem in problems.items()}
        assert "zip bomb" in reasons["docx-bomb"] and "zip bomb" in reasons["epub-spaces-bomb"]
        assert "decompression bomb" in reasons["pdf-content-bomb"]
        assert "pipe" in reasons["fifo"]
        assert "leaves the folder" in reasons["link-dev-zero"] and "leaves the folder" in reasons["link-outside-file"]
        assert "longer than this system allows" in reasons["path-too-long"]
        assert "truncated at 1 MB" in reasons["text-over-cap"]
        assert "without headings" in reasons["html-deep-div"]
        assert "zip bomb" in reasons["xlsx-bomb"] and "cannot read XLSX" in reasons["xlsx-malformed"]
        assert "damaged JSON" in reasons["notebook-not-json"]
        assert "over 64 MB were not read" in reasons["zip-member-bomb"]
        assert "decompression bomb" in reasons["gz-bomb"]
        # archive members keep their archive's address whatever their names say, and are never written out
        escape = str(root / "zip-escaping-names" / "escape.zip")
        for word, member in (("escapingmemberword", "../../outside.md"), ("absolutememberword", "etc/absolute.md")):
            assert [h.path for h in engine.find(SearchRequest(word, mode=SearchMode.KEYWORD)).hits] == [
                f"{escape} › {member}"
            ]
        assert not (root / "outside.md").exists() and not (root.parent / "outside.md").exists()
        locked = str(root / "zip-encrypted" / "locked.zip")
        assert engine.get(locked).text.splitlines() == ["open.txt", "secret.txt (encrypted: not read)"]
        assert engine.find(SearchRequest("secretmemberword", mode=SearchMode.KEYWORD)).hits == ()
        # messages attached to messages 40 deep: documents to the nesting limit, the rest named
        deep = str(root / "eml-nested-deep" / "deep.eml")
        assert engine.find(SearchRequest("outermostbodyword", mode=SearchMode.KEYWORD)).hits[0].path == deep
        level = [h.path for h in engine.find(SearchRequest("level 37", mode=SearchMode.KEYWORD, limit=3)).hits]
        assert level and level[0] == f"{deep} › level 38.eml › level 37.eml"
        innermost = f"{deep} › level 38.eml › level 37.eml › level 36.eml"
        assert engine.get(innermost).text.endswith("Attachment: level 35.eml (nested too deeply: not read)")


def test_nothing_outside_the_folder_is_searchable(hostile):
    root, home, _cases, _ = hostile
    linked = root / "link-outside-file" / "notes.txt"
    assert "outsidesecret credentials" in linked.read_text()  # the words are there, behind the link
    with Engine(home, read_only=True) as engine:
        inside = engine.find(SearchRequest("htmlname", mode=SearchMode.KEYWORD)).hits
        assert [os.path.basename(h.path) for h in inside] == ["<b>x<i>.txt"]  # the same search finds what is in
        assert engine.find(SearchRequest("outsidesecret", mode=SearchMode.KEYWORD)).hits == ()
        assert engine.find(SearchRequest("credentials", mode=SearchMode.KEYWORD)).hits == ()
        for hit in engine.find(
            SearchRequest("root OR localhost OR passwd OR hosts", mode=SearchMode.KEYWORD, limit=50)
        ).hits:
            assert hit.path.startswith(str(root)), hit.path
        assert all(p.path.startswith(str(root)) for p in engine.status().problems)


def test_undecodable_name_round_trips_and_reads_well(hostile):
    root, home, _cases, _ = hostile
    with Engine(home, read_only=True) as engine:
        hit = engine.find(SearchRequest("mémoire", mode=SearchMode.KEYWORD)).hits[
            0
        ]  # found by name, read as Windows-1252
        assert hit.title == "mémoire.txt"
        assert os.fsencode(hit.path) == os.fsencode(str(root / "latin1-name")) + b"/m\xe9moire.txt"
        assert Path(hit.path).read_text() == "souvenirword of an old archive"


def test_printed_results_carry_no_escapes(hostile):
    _root, home, _cases, _ = hostile
    for args in (
        ("search", "escapebody"),
        ("search", "escapename"),
        ("search", "escapebody", "--json"),
        ("search", "souvenirword", "--json"),
        ("status",),
        ("status", "--json"),
        ("query", "escapebody", "--explain"),
    ):
        proc = _cli(*args, home=home)
        assert proc.returncode == 0, (args, proc.stderr)
        _assert_printable(proc)
    import json

    payload = json.loads(_cli("search", "souvenirword", "--json", home=home).stdout)
    assert os.fsencode(payload["results"][0]["path"]).endswith(b"m\xe9moire.txt")  # exact bytes in JSON


def test_a_file_over_its_time_budget_is_stopped_and_recorded(tmp_path, docs, settings):
    settings.index.file_timeout_s = 0.3  # set in code: below what settings.toml allows
    docx_slow(docs / "slow.docx", 190_000)  # streamed paragraph by paragraph: about 2 s
    write(docs / "beside.txt", "besideword still indexed")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        report = engine.index()
        assert report.failed == 1
        problem = {Path(p.path).name: p.error for p in engine.status().problems}["slow.docx"]
        assert problem == "timed out after 0.3 s"
        assert engine.find(SearchRequest("besideword", mode=SearchMode.KEYWORD)).hits


def test_add_refuses_pipes_and_devices(engine, docs):
    from findling.errors import SourceError

    os.mkfifo(docs / "pipe.txt")
    with pytest.raises(SourceError, match="not a folder or a regular file"):
        engine.add_source(docs / "pipe.txt")
    os.symlink("/dev/zero", docs / "zero.txt")
    with pytest.raises(SourceError, match="not a folder or a regular file"):
        engine.add_source(docs / "zero.txt")


def test_links_may_be_followed_when_the_setting_says_so(tmp_path, docs, settings):
    outside = tmp_path / "outside"
    write(outside / "shared.txt", "sharedword from elsewhere")
    os.symlink(outside / "shared.txt", docs / "shared.txt")
    settings.index.follow_outside_links = True
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
        assert engine.find(SearchRequest("sharedword", mode=SearchMode.KEYWORD)).hits


def test_link_is_typed_by_its_target(engine, docs, tmp_path):
    target = docs / "real.md"
    write(target, "# Linked Title\n\nlinkbody")
    os.symlink(target, docs / "alias")  # no extension: typed by the target, a Markdown file
    engine.add_source(docs)
    engine.index()
    assert {h.title for h in engine.find(SearchRequest("linkbody", mode=SearchMode.KEYWORD)).hits} == {"Linked Title"}


def test_one_bad_row_never_costs_its_batch(engine, docs, monkeypatch):
    import findling.ingest.indexer as indexer

    for i in range(30):
        write(docs / f"f{i:02d}.txt", f"batchword number{i}")
    real = indexer.write_documents

    def picky(cur, source_id, rows):
        if any(row.path.endswith("f13.txt") and row.status == "ok" for row in rows):
            raise ValueError("refused for the test")
        return real(cur, source_id, rows)

    monkeypatch.setattr(indexer, "write_documents", picky)
    engine.add_source(docs)
    report = engine.index()
    assert report.added == 29 and report.failed == 1
    assert len(engine.find(SearchRequest("batchword", mode=SearchMode.KEYWORD, limit=50)).hits) == 29
    problem = engine.status().problems[0]
    assert problem.path.endswith("f13.txt") and "refused for the test" in problem.error


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_signal_ends_indexing_cleanly(tmp_path, docs, signum):
    for i in range(12):
        docx_slow(docs / f"slow{i}.docx", 120_000)
    for i in range(400):
        write(docs / f"n{i}.txt", f"note {i}")
    env = {**os.environ, "FINDLING_HOME": str(tmp_path / "home")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "findling", "add", str(docs)],
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    workers: list[int] = []
    while time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        if len(workers) >= 1 and any((tmp_path / "home").glob("*.duckdb")):
            break
        time.sleep(0.1)
    wal = tmp_path / "home" / "findling.duckdb.wal"
    wait_until(lambda: proc.poll() is not None or wal.exists() and wal.stat().st_size > 0, 60, "a first batch")
    assert proc.poll() is None, "the run ended before it could be stopped"
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err
    assert proc.returncode == 130
    # besides the progress lines a pipe gets (`findling: 0 of 412 files read`), the one stop line
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("findling: ")]
    assert len(lines) == 1 and lines[0].startswith("stopped; ") and "`findling index` continues" in lines[0], err

    def left_behind() -> list[int]:
        return [
            pid
            for pid in workers
            if Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
        ]

    wait_until(lambda: not left_behind(), 10, "the worker processes to end")
    resumed = subprocess.run(
        [sys.executable, "-m", "findling", "index"], env=env, text=True, capture_output=True, timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    with Engine(tmp_path / "home", read_only=True) as engine:
        assert engine.status().indexed == 412


def test_search_into_a_closed_pipe_is_quiet(tmp_path, docs):
    for i in range(60):
        write(docs / f"p{i}.txt", f"pipeword {i} " * 50)
    env = {**os.environ, "FINDLING_HOME": str(tmp_path / "home")}
    subprocess.run([sys.executable, "-m", "findling", "add", str(docs)], env=env, check=True, capture_output=True)
    proc = subprocess.run(
        f"{sys.executable} -m findling search pipeword -n 60 | head -1",
        shell=True,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
