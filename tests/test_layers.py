"""The layers hold: lower layers never import higher ones, and only gui/ (and the GUI's
measurement tools) import Qt. Read from the source, so a new import that breaks the rule
fails here, not in a user's bundle."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "desktop" / "findling"

# What each part may not import (prefixes of module names).
FORBIDDEN = {
    "text": ("findling.store", "findling.ingest", "findling.search", "findling.models", "findling.engine",
             "findling.cli", "findling.gui", "findling.devtools", "findling.server", "PySide6", "duckdb"),
    "store": ("findling.search", "findling.ingest", "findling.models", "findling.engine", "findling.cli",
              "findling.gui", "findling.devtools", "PySide6"),
    "models": ("findling.store", "findling.search", "findling.ingest", "findling.engine", "findling.cli",
               "findling.gui", "findling.devtools", "PySide6", "duckdb"),
    "ingest": ("findling.search", "findling.engine", "findling.cli", "findling.gui", "findling.devtools", "PySide6"),
    "search": ("findling.ingest", "findling.engine", "findling.cli", "findling.gui", "findling.devtools", "PySide6"),
    "records.py": ("findling.store", "findling.search", "findling.ingest", "findling.models", "findling.engine",
                   "findling.gui", "findling.cli", "PySide6", "duckdb"),
    "settings.py": ("findling.store", "findling.search", "findling.ingest", "findling.models", "findling.engine",
                    "findling.gui", "findling.cli", "PySide6", "duckdb"),
    "errors.py": ("findling.", "PySide6", "duckdb"),
    "pathnames.py": ("findling.", "PySide6", "duckdb"),
    "scratch.py": ("findling.", "PySide6", "duckdb"),
    # docids sits on errors alone: a bad reference is Findling's own error, on every face
    "docids.py": ("findling.store", "findling.search", "findling.ingest", "findling.models", "findling.engine",
                  "findling.gui", "findling.cli", "findling.server", "findling.records", "findling.settings",
                  "findling.text", "findling.paths", "findling.pathnames", "PySide6", "duckdb"),
    "executables.py": ("findling.store", "findling.search", "findling.ingest", "findling.models", "findling.engine",
                       "findling.gui", "findling.cli", "findling.server", "PySide6", "duckdb"),
    "engine.py": ("findling.cli", "findling.gui", "findling.devtools", "findling.server", "PySide6"),
    "server": ("findling.cli", "findling.gui", "findling.devtools", "PySide6"),
}
QT_ALLOWED = ("gui", "devtools/gui")


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def _part(path: Path) -> str:
    rel = path.relative_to(PACKAGE)
    return rel.parts[0] if len(rel.parts) > 1 else rel.name


def test_lower_layers_never_import_higher_ones():
    broken = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rules = FORBIDDEN.get(_part(path), ())
        for name in _imports(path):
            if any(name == rule.rstrip(".") or name.startswith(rule if rule.endswith(".") else rule + ".")
                   or name == rule for rule in rules):
                broken.append(f"{path.relative_to(PACKAGE)} imports {name}")
    assert broken == []


def test_only_the_gui_imports_qt():
    broken = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(QT_ALLOWED):
            continue
        broken += [f"{rel} imports {n}" for n in _imports(path) if n.split(".")[0] in ("PySide6", "shiboken6")]
    assert broken == []


def test_the_rule_catches_a_breach(tmp_path):
    """The checker itself can fail: a store module importing search is reported."""
    bad = tmp_path / "bad.py"
    bad.write_text("from findling.search.bm25 import Bm25Lane\nimport PySide6.QtCore\n")
    names = _imports(bad)
    assert any(n.startswith(r + ".") for n in names for r in FORBIDDEN["store"])
    assert any(n.split(".")[0] == "PySide6" for n in names)
