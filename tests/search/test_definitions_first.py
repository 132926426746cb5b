"""An identifier goes to its definition (README): `rotate_backups` lists the module defining it
first, though its README names it far more often; the same words apart rank as words."""

from __future__ import annotations

import json
import os

import pytest

from tests.helpers import write
from tests.test_cli import _run

README = """rotate-backups: Simple command line interface for backup rotation
=================================================================

Backups are good for you. The rotate_backups program makes it easy to rotate_backups: call
rotate_backups with a directory and the rotate_backups function keeps what the rotation scheme
says. Use rotate_backups daily; rotate_backups is safe, and rotate_backups never deletes the
newest backup.
"""

MODULE = '''"""Simple to use Python API for rotation of backups."""
import os


def rotate_backups(directory, rotation_scheme, dry_run=False):
    """Rotate the backups in a directory according to a flexible rotation scheme."""
    for name in sorted(os.listdir(directory)):
        if not dry_run:
            pass
    return rotation_scheme
'''


def _names(home, command, query):
    out = json.loads(_run(command, query, "--json", home=home).stdout)
    return [r["path"].rsplit("/", 2)[-2] + "/" + r["path"].rsplit("/", 1)[-1] for r in out["results"]]


@pytest.mark.slow
def test_an_identifier_goes_to_its_definition(tmp_path, docs):
    write(docs / "README.rst", README)
    write(docs / "rotate_backups" / "__init__.py", MODULE)
    write(docs / "notes.md", "remember to call rotate_backups before the weekend")
    home = tmp_path / "clihome"
    _run("add", str(docs), home=home)
    for command in ("search", "query"):
        assert _names(home, command, "rotate_backups")[0] == "rotate_backups/__init__.py", command
    assert _names(home, "search", "rotate backups")[0] == "docs/README.rst"  # words, not the identifier


def test_the_definition_scores_above_a_newer_file_calling_it(tmp_path, docs):
    """The red team's 7: the module defining `rotate_backups` and a newer file calling it showed
    one relevance (.71), the caller first as the newer; a definition must read as the better match."""
    write(docs / "README.rst", README)
    write(docs / "rotate_backups" / "__init__.py", MODULE)
    write(
        docs / "rotate_backups" / "cli.py",
        'from rotate_backups import rotate_backups\n\n\ndef main():\n    rotate_backups(".", {"daily": 7})\n',
    )
    os.utime(docs / "rotate_backups" / "__init__.py", (1_600_000_000, 1_600_000_000))  # the definition is old
    home = tmp_path / "clihome"
    _run("add", str(docs), home=home)
    out = json.loads(_run("search", "rotate_backups", "--json", home=home).stdout)["results"]
    assert out[0]["path"].endswith("rotate_backups/__init__.py"), [r["path"] for r in out]
    assert round(out[0]["score"], 2) > round(out[1]["score"], 2), [(r["path"], r["score"]) for r in out]
