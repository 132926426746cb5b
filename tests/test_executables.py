"""The `findling` command of this installation: finding it, linking it onto PATH, and the
verbs that the installed app leaves out."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from findling.cli import main
from findling.errors import FindlingError
from findling.executables import app_executables, command_line, install_command


def test_command_line_runs_this_installation():
    proc = subprocess.run([*command_line(), "--version"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.startswith("findling ")
    assert app_executables() == []  # from source there is no app folder to check


@pytest.mark.skipif(sys.platform == "win32", reason="Windows gets its PATH entry from the installer")
def test_install_cli_links_the_command_and_says_whether_it_is_on_path(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "bin"
    monkeypatch.setenv("PATH", os.defpath)
    assert main(["install-cli", "--dir", str(folder)]) == 0
    out = capsys.readouterr().out
    link = folder / "findling"
    assert link.is_symlink() and link.resolve() == Path(command_line()[0]).resolve()
    assert "is not on PATH" in out
    proc = subprocess.run([str(link), "--version"], capture_output=True, text=True, timeout=120)
    assert proc.stdout.startswith("findling ")

    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.defpath}")
    assert install_command(folder) == (link, True)  # again: the same link, kept

    link.unlink()
    link.write_text("#!/bin/sh\n")  # someone else's file is never replaced
    with pytest.raises(FindlingError, match="not a link"):
        install_command(folder)


def test_bench_and_eval_say_where_they_run_when_left_out(monkeypatch, capsys):
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "findling.devtools" else real(name, *a)
    )
    assert main(["bench"]) == 2
    assert main(["eval", "somewhere"]) == 2
    assert capsys.readouterr().err.count("run from a source checkout") == 2
