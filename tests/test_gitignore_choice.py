"""A `.gitignore` can leave out everything (Debian's kernel tree has `/*` at its root): `add`
says so and names the pattern, `status` counts what .gitignore files left out, and a folder can
be told to follow none (issue 62, 1)."""

from __future__ import annotations

from findling.cli import main
from findling.ingest.scan import scan, why_left_out
from tests.helpers import write


def _tree(root):
    write(root / ".gitignore", "/*\n!.gitignore\n")
    for i in range(3):
        write(root / "Documentation" / f"page{i}.rst", f"page {i} about the quokka scheduler")
    write(root / "arch" / "x86" / "mm.c", "int quokka_fault(void);")
    write(root / "README", "quokka kernel")


def test_add_names_the_pattern_and_no_gitignore_reads_the_tree(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    tree = tmp_path / "linux"
    _tree(tree)
    assert main(["add", str(tree)]) == 0
    said = capsys.readouterr()
    assert "0 added" in said.out
    assert f"the pattern `/*` in {tree / '.gitignore'} leaves out 3 of its files and folders" in said.err
    assert main(["status"]) == 0
    assert "3 files and folders left out by .gitignore" in capsys.readouterr().out
    assert main(["add", "--no-gitignore", str(tree)]) == 0
    said = capsys.readouterr()
    assert "(its .gitignore files not followed)" in said.out and "5 added" in said.out
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "5 indexed" in out and "(.gitignore not followed)" in out and "left out" not in out
    assert main(["add", "--gitignore", str(tree)]) == 0  # and back: what it leaves out leaves
    assert "5 removed" in capsys.readouterr().out


def test_scan_and_why_not_agree_on_a_folder_that_follows_none(tmp_path):
    tree = tmp_path / "linux"
    _tree(tree)
    assert scan(tree).files == []
    assert sorted(e.path.rsplit("/", 1)[-1] for e in scan(tree, gitignore=False).files) == [
        "README",
        "mm.c",
        "page0.rst",
        "page1.rst",
        "page2.rst",
    ]
    page = str(tree / "Documentation" / "page0.rst")
    assert why_left_out(tree, page).rule == "gitignore"
    assert why_left_out(tree, page, gitignore=False) is None


def test_a_gitignore_is_read_within_bounds(tmp_path):
    """Every read is bounded (issue 62's trial read .gitignore files whole): a pipe named
    .gitignore would hold the scan forever, and a giant one is followed for its first megabyte."""
    import os
    import subprocess
    import sys

    piped = tmp_path / "piped"
    write(piped / "page.md", "quokka page")
    os.mkfifo(piped / ".gitignore")
    big = tmp_path / "big"
    write(big / "early.md", "quokka early")
    write(big / "late.md", "quokka late")
    write(big / ".gitignore", "early.md\n" + "# padding\n" * 110_000 + "late.md\n")  # 1.1 MB
    env = dict(os.environ, FINDLING_HOME=str(tmp_path / "home"), NO_COLOR="1")
    run = subprocess.run(
        [sys.executable, "-m", "findling", "add", str(piped), str(big)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.returncode == 0, run.stderr
    assert f"{piped / '.gitignore'} is not a regular file" in run.stderr
    assert f"{big / '.gitignore'} is over 1 MB" in run.stderr
    found = subprocess.run(
        [sys.executable, "-m", "findling", "search", "quokka", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    ).stdout
    assert "page.md" in found and "late.md" in found and "early.md" not in found
