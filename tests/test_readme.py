"""Every `findling` command the README shows is one the CLI accepts, and the first two
commands (install-and-run, install-and-test) are still what .ci/run does."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from findling.cli import main, parse_args
from tests.helpers import write

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
# the README is the front door; the rest of the reference moved to docs/ pages it links
PAGES = {"README.md": README} | {
    f"docs/{p.name}": p.read_text(encoding="utf-8") for p in sorted((ROOT / "docs").glob("*.md"))
}


def _commands(text: str = README) -> list[str]:
    found = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            if line.startswith(("findling ", ".venv/bin/findling ")):
                found.append(line)
    return found


def test_the_readme_shows_commands():
    assert len(_commands()) >= 15


@pytest.mark.parametrize("command", [c for text in PAGES.values() for c in _commands(text)])
def test_every_readme_command_parses(command):
    argv = shlex.split(command)[1:]
    parse_args(argv)  # raises SystemExit(2) on anything the CLI refuses


def test_the_readme_query_example_runs(tmp_path, capsys):
    docs = tmp_path / "docs"
    write(docs / "night.md", "# Nightly job\n\nWhy does the nightly job fail? The disk was full.")
    write(docs / "other.txt", "why does the nightly job fail, in plain text")
    home = str(tmp_path / "home")
    assert main(["--home", home, "add", str(docs)]) == 0
    capsys.readouterr()
    example = next(c for c in _commands() if c.startswith("findling query") and "ext:md" in c)
    argv = shlex.split(example.replace("…", "nightly job fail"))[1:]
    assert main(["--home", home, *argv]) == 0
    out = capsys.readouterr().out
    assert "night.md" in out and "other.txt" not in out


def test_ci_runs_the_readme_test_command():
    test_command = re.search(r"\*\*Install and run the tests:\*\*\s*```bash\n(.*?)\n```", README, re.S).group(1)
    assert test_command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_is_a_front_door_and_every_link_holds():
    assert len(README) <= 15_000, len(README)
    for page, text in PAGES.items():
        base = (ROOT / page).parent
        for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
            assert (base / target).exists(), f"{page} links to {target}, which is not there"
