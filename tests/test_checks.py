"""The static checks run with the tests, so the README's one test command covers them:
ruff (lint and format) over the code and tests, mypy over the package (strict for store/, search/, text/
and models/, as configured in pyproject.toml)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each

ROOT = Path(__file__).resolve().parents[1]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    if found is None:
        pytest.fail(f"{name} is not installed: pip install -e '.[dev]'")
    return found


def test_ruff():
    proc = subprocess.run([_tool("ruff"), "check", "desktop", "tests"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format():
    """One layout for all the code, the formatter's: a change is formatted before it lands."""
    proc = subprocess.run(
        [_tool("ruff"), "format", "--check", "desktop", "tests"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy():
    proc = subprocess.run([_tool("mypy")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
