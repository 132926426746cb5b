"""The command line, run as a user would: subprocesses against a real index."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from findling.cli import main
from findling.engine import Engine
from tests.helpers import write


def _run(*args, home, check=True):
    env = {**os.environ, "FINDLING_HOME": str(home), "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "findling", *args], capture_output=True, text=True, env=env, timeout=120
    )
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def test_add_search_json_status(tmp_path, docs):
    home = tmp_path / "clihome"
    write(docs / "guide.md", "# Install Guide\n\nRun the installer, then restart.\n")
    write(docs / "other.txt", "unrelated words")
    out = _run("add", str(docs), home=home).stdout
    assert "added" in out and "2 added" in out
    payload = json.loads(_run("search", "installer", "--json", home=home).stdout)
    assert payload["query"] == "installer"
    (result,) = payload["results"]
    assert result["path"] == str(docs / "guide.md")
    assert result["title"] == "Install Guide"
    assert 0.0 <= result["score"] <= 1.0
    assert "installer" in result["snippet"]
    text = _run("search", "installer", home=home).stdout
    assert "Install Guide" in text and str(docs / "guide.md") in text
    assert "2 indexed" in _run("status", home=home).stdout
    assert json.loads(_run("search", "installer", "--ext", "txt", "--json", home=home).stdout)["results"] == []


def test_search_filters_as_options(tmp_path, docs, capsys, monkeypatch):
    write(docs / "a.md", "melon")
    write(docs / "b.txt", "melon")
    assert main(["add", str(docs)]) == 0
    capsys.readouterr()
    assert main(["search", "melon", "--ext", "md", "--json"]) == 0
    paths = [r["path"] for r in json.loads(capsys.readouterr().out)["results"]]
    assert paths == [str(docs / "a.md")]
    assert main(["search", "melon", "--after", "not-a-date"]) == 2
    assert "cannot read the date" in capsys.readouterr().err


def test_second_process_gets_clear_lock_message(tmp_path):
    home = tmp_path / "locked"
    home.mkdir()
    (home / "settings.toml").write_text("[index]\nbusy_wait_s = 0.5\n")  # not the 10 s a person is given
    with Engine(home):
        proc = _run("status", home=home, check=False)
    assert proc.returncode == 2
    assert "in use by another Findling" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_read_only_data_dir_is_a_clear_error(tmp_path):
    if os.geteuid() == 0:
        import pytest

        pytest.skip("root writes anywhere")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    proc = _run("status", home=folder / "sub", check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_corrupt_database_is_reported_and_kept(tmp_path):
    home = tmp_path / "corrupt"
    home.mkdir()
    db = home / "findling.duckdb"
    db.write_bytes(b"this is not a database" * 100)
    proc = _run("status", home=home, check=False)
    assert proc.returncode == 2
    assert "left untouched" in proc.stderr and "Traceback" not in proc.stderr
    assert db.read_bytes() == b"this is not a database" * 100


def test_doctor_reports_extensions(tmp_path):
    out = _run("doctor", home=tmp_path / "doc", check=False).stdout
    assert "duckdb extension fts" in out and "loaded offline" in out
    assert "duckdb extension vss" in out


def test_doctor_does_not_fail_without_the_extensions(monkeypatch):
    """The installed app leaves fts and vss out: the index never loads them."""
    from findling import doctor
    from findling.errors import ExtensionError

    def missing(name):
        raise ExtensionError(f"the DuckDB '{name}' extension is not installed")

    monkeypatch.setattr(doctor, "extension_file", missing)
    check = doctor.extension_check("fts")
    assert check.ok and "not needed" in check.detail


def test_doctor_beside_a_running_owner_reports_through_it_and_missing_models_are_information(tmp_path):
    from findling.server.handle import IndexHandle

    home = tmp_path / "doc"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("hello")
    with IndexHandle.open(home) as owner:  # this process holds the index, as the window would
        owner.add_source(str(docs))
        owner.index()
        proc = _run("doctor", home=home, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    index_line = next(line for line in proc.stdout.splitlines() if " index " in line)
    assert index_line.startswith("ok ") and "1 documents indexed" in index_line and "running Findling" in index_line
    embedder = next(line for line in proc.stdout.splitlines() if "model embedder" in line)
    assert embedder.startswith("-- ") and "not installed (optional" in embedder
    assert "!!" not in proc.stdout
