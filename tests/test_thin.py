"""`findling search` as a thin client of the process that holds the index: the same output as the
full command line, without the engine's imports, and the full command line whenever it cannot."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from findling.server.handle import IndexHandle
from findling.thin import get_options, search_options, why_not_options
from tests.helpers import write

NOTES = {
    "melon.md": "# Melons\n\nA melon ripens in August; the melon patch needs sun.\n",
    "berry.md": "# Berries\n\nBerries and a melon salad for the summer party.\n",
    "soup.txt": "Soup of the day: tomato. No melon today.\n",
}
pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each

_PROBE = """
import json, sys
from findling.thin import answered
code = answered(sys.argv[1:])
heavy = ("findling.records", "findling.engine", "findling.cli", "duckdb", "numpy",
         "multiprocessing", "pickle", "pathlib")
loaded = [m for m in heavy if m in sys.modules]
print(json.dumps({"code": code, "loaded": loaded}), file=sys.stderr)
"""


@pytest.fixture()
def owned(tmp_path, settings):
    docs = tmp_path / "docs"
    for name, text in NOTES.items():
        write(docs / name, text)
    home = tmp_path / "home"
    with IndexHandle.open(home, settings=settings) as handle:  # this test process holds the index and answers
        handle.add_source(str(docs))
        handle.index(embed=False)
        yield home, docs


def _findling(home, *argv, thin: bool = True) -> subprocess.CompletedProcess:
    env = dict(os.environ, FINDLING_HOME=str(home), FINDLING_THIN="1" if thin else "0", NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "findling", *argv], capture_output=True, text=True, env=env, timeout=60
    )


def _findling_in(folder, home, *argv) -> subprocess.CompletedProcess:
    env = dict(os.environ, FINDLING_HOME=str(home), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "findling", *argv], capture_output=True, text=True, env=env, timeout=60, cwd=folder
    )


def _untimed(out: str) -> str:
    """The output without what differs from run to run: how long the search took."""
    if out.startswith("{"):
        payload = json.loads(out)
        payload.pop("timings_ms")
        return json.dumps(payload)
    return re.sub(r"\(\d+ ms\)", "(ms)", out)


def _probe(home, *argv) -> dict:
    env = dict(os.environ, FINDLING_HOME=str(home))
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], capture_output=True, text=True, env=env, timeout=60)
    return json.loads(proc.stderr.strip().splitlines()[-1])


def test_the_owner_answers_with_the_same_output(owned):
    home, docs = owned
    for argv in (
        ("search", "melon"),
        ("search", "melon", "-n", "1"),
        ("search", "melon", "--json"),
        ("search", "--ext", "md", "melon", "summer"),
        ("search", "melon", "--match", "all", "--folder", str(docs), "--after", "2000-01-01"),
        ("search", "nothing-like-it"),
    ):
        thin, full = _findling(home, *argv), _findling(home, *argv, thin=False)
        assert thin.returncode == full.returncode == 0, (argv, thin.stderr, full.stderr)
        assert _untimed(thin.stdout) == _untimed(full.stdout), argv
    assert "melon.md" in _findling(home, "search", "melon").stdout
    for argv in (
        ("get", str(docs / "melon.md")),
        ("get", str(docs / "melon.md") + ":3:1", "-l"),
        ("get", str(docs / "melon.md"), "--from-line", "2", "--lines", "2", "--json"),
    ):
        thin, full = _findling(home, *argv), _findling(home, *argv, thin=False)
        assert thin.returncode == full.returncode == 0, (argv, thin.stderr, full.stderr)
        assert thin.stdout == full.stdout and thin.stdout, argv
    for argv in (("status",), ("status", "--json")):
        thin, full = _findling(home, *argv), _findling(home, *argv, thin=False)
        assert thin.returncode == full.returncode == 0 and thin.stdout == full.stdout, argv
    for argv in (
        ("why-not", "melon", str(docs / "soup.txt")),
        ("why-not", "melon", str(docs / "soup.txt"), "--mode", "keyword", "--json"),
        ("why-not", "melon summer", str(docs / "melon.md"), "--mode=keyword", "--match", "all", "-n", "1"),
        ("why-not", "melon", str(docs / "berry.md"), "--ext", "txt", "--mode", "keyword"),
        ("why-not", "melon", str(docs / "nowhere.md")),
    ):
        thin, full = _findling(home, *argv), _findling(home, *argv, thin=False)
        assert thin.returncode == full.returncode == 0 and thin.stdout == full.stdout and thin.stdout, argv
    # where `query melon` lists it (the command line once filtered the search to the file itself: #1)
    ranked = [line.split()[1] for line in _findling(home, "query", "melon").stdout.splitlines() if ". " in line[:4]]
    soup = _findling(home, "why-not", "melon", str(docs / "soup.txt")).stdout
    assert f"at #{ranked.index('soup.txt') + 1}." in soup.splitlines()[0]
    assert "3 indexed" in _findling(home, "status").stdout
    relative = _findling_in(docs, home, "get", "melon.md:3:1")
    assert relative.stdout == "A melon ripens in August; the melon patch needs sun.\n"  # read where it was typed


def test_the_thin_path_imports_no_engine(owned):
    home, _ = owned
    report = _probe(home, "search", "melon")
    assert report == {"code": 0, "loaded": []}
    assert _probe(home, "get", str(owned[1] / "melon.md")) == {"code": 0, "loaded": []}
    assert _probe(home, "status") == {"code": 0, "loaded": []}
    assert _probe(home, "why-not", "melon", str(owned[1] / "soup.txt")) == {"code": 0, "loaded": []}


def test_without_an_owner_or_with_what_it_does_not_read_the_full_command_line_runs(owned, tmp_path):
    home, _ = owned
    assert _probe(tmp_path / "nobody-home", "search", "melon")["code"] is None  # no owner
    assert _probe(home, "query", "melon")["code"] is None  # another command
    assert _probe(home, "search", "melon", "--after", "someday")["code"] is None  # the owner's error
    bad = _findling(home, "search", "melon", "--after", "someday")
    assert bad.returncode == 2 and "someday" in bad.stderr  # said as the command line says it


def test_search_options_read_exactly_what_the_command_line_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    home, options = search_options(["--home", "/h", "search", "a", "-n", "5", "b", "--ext=md", "--folder", "notes"])
    assert home == "/h" and options["query"] == "a b" and options["limit"] == 5 and options["ext"] == ["md"]
    assert options["folder"] == [str(tmp_path / "notes")]  # made absolute here, where it was typed
    for refused in (
        ["search"],  # no words
        ["search", "a", "-n", "0"],  # out of range: the command line says so
        ["search", "a", "-n", "²"],  # a digit to str.isdigit, not a number
        ["search", "a", "--explain"],  # an option this path does not know
        ["search", "a", "-async"],  # a word the command line refuses
        ["search", "a", "--match", "some"],
        ["search", "a", "-h"],
        ["get", "x"],
    ):
        assert search_options(refused) is None, refused
    home, options = get_options(["get", "notes.md:12:3", "-l"])
    assert home is None and options["ref"] == str(tmp_path / "notes.md") + ":12:3" and options["numbers"]
    assert get_options(["get", "#3fa9c2", "--json"])[1]["ref"] == "#3fa9c2"
    for refused in (
        ["get"],
        ["get", "a", "b"],
        ["get", "a", "--lines", "x"],
        ["get", "a", "--lines", "²"],
        ["get", "a", "--other"],
    ):
        assert get_options(refused) is None, refused


def test_why_not_options_read_exactly_what_the_command_line_does(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    home, options = why_not_options(["why-not", "melon pie", "notes/a.md", "--mode", "keyword", "--min-score=0.2"])
    assert home is None and options["query"] == "melon pie" and options["target"] == str(tmp_path / "notes/a.md")
    assert options["mode"] == "keyword" and options["min_score"] == 0.2 and options["limit"] is None
    for refused in (
        ["why-not", "melon"],  # no path
        ["why-not", "melon", "pie", "a.md"],  # three positionals: the command line refuses them
        ["why-not", "melon", "a.md", "--mode", "fuzzy"],
        ["why-not", "melon", "a.md", "--min-score", "high"],
        ["why-not", "melon", "a.md", "--expand"],
        ["search", "melon"],
    ):
        assert why_not_options(refused) is None, refused


@pytest.mark.skipif(sys.platform != "linux", reason="the fast answer is Linux's; elsewhere platformdirs answers")
@pytest.mark.parametrize(
    "env",
    [
        {"HOME": "/home/ada"},
        {"HOME": "/home/ada/", "XDG_DATA_HOME": ""},
        {"HOME": "/home/ada", "XDG_DATA_HOME": "/data/ada"},
        {"HOME": "/home/ada", "XDG_DATA_HOME": "relative/ignored"},
        {"HOME": "/", "XDG_DATA_HOME": "/x/"},
        {"HOME": "relative"},
    ],
)
def test_the_default_home_is_platformdirs_answer_without_importing_it(env, monkeypatch):
    import platformdirs

    from findling.paths import APP, data_home

    for name in ("HOME", "XDG_DATA_HOME", "FINDLING_HOME"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert data_home() == Path(platformdirs.user_data_dir(APP, appauthor=False))
    env = {k: v for k, v in os.environ.items() if k not in ("FINDLING_HOME",)}
    probe = "import sys; from findling.paths import data_home; data_home(); print('platformdirs' in sys.modules)"
    if os.environ["HOME"].startswith("/"):
        loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
        assert loaded.stdout.strip() == "False"


def test_plain_values_ask_for_payloads_only_never_an_engine_call(owned):
    from findling.server.wire import connect_thin

    home, _docs = owned
    with connect_thin(str(home)) as conn:
        conn.send(["call", "remove_source", [], {"path": "/"}])
        kind, message = conn.recv()
    assert kind == "error" and "plain values" in message
    with connect_thin(str(home)) as conn:
        conn.send(["payload", "status", {"json": True}])
        kind, payload = conn.recv()
    assert kind == "ok" and payload["documents"] == 3
