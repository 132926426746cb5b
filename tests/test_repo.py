"""Guards for promises the repository makes: README's commands are what CI runs."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    head = text[: text.index("## ")]
    return re.findall(r"```bash\n(.+?)\n```", head)


def test_readme_starts_with_run_and_test_commands():
    commands = _readme_commands()
    assert len(commands) == 2
    assert "findling" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert _readme_commands()[1] in ci.splitlines()
