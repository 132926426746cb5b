"""The layers hold: lower layers never import higher ones, and only gui/ (and the GUI's
measurement tools) import Qt. Read from the source, so a new import that breaks the rule
fails here, not in a user's bundle."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "desktop" / "findling"

# The layers, bottom up. A part of the package may import its own layer's parts and those of the
# layers below, and nothing else: an allow-list, so a new module or package has no place (and
# fails here) until it is given one.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "foundation",
        frozenset(
            {
                "findling",
                "errors",
                "paths",
                "datahome",
                "pathnames",
                "scratch",
                "allocator",
                "dates",
                "docids",
                "executables",
                "file_kinds",
                "filter_options",
                "priority",
                "vocabulary",
            }
        ),
    ),
    ("records", frozenset({"records", "settings", "tuning", "text"})),  # the vocabulary, and text analysis on it
    ("storage and models", frozenset({"store", "models"})),
    ("ingest and search", frozenset({"ingest", "search"})),
    ("answers", frozenset({"answer"})),  # written from search results and checked against them
    ("engine", frozenset({"index_api", "engine", "why_not_file", "shared_collections"})),
    ("what faces say", frozenset({"faces"})),  # wording, the terminal's painting, JSON payloads
    ("server", frozenset({"server"})),
    ("faces", frozenset({"gui", "doctor", "selftest"})),
    ("tools", frozenset({"devtools"})),  # measurement, apart from the product
    (
        "command line",
        frozenset({"launch", "thin", "cli", "cli_commands", "cli_indexing", "cli_models", "cli_devtools", "__main__"}),
    ),
)
# Within a layer, parts that must not see each other: the store holds no model code and the
# models no SQL; ingest and search share only the layers below them.
APART = {
    ("store", "models"),
    ("models", "store"),
    ("ingest", "search"),
    ("search", "ingest"),
    ("text", "records"),
    ("text", "settings"),
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


def _part(path: Path, package: Path = PACKAGE) -> str:
    """The package under findling/ that holds the file, or the top-level module's name."""
    rel = path.relative_to(package)
    if len(rel.parts) > 1:
        return rel.parts[0]
    return "findling" if rel.stem == "__init__" else rel.stem


def _layer_of(part: str) -> int | None:
    return next((i for i, (_name, parts) in enumerate(LAYERS) if part in parts), None)


def _allowed(part: str, imported: str) -> bool:
    mine, theirs = _layer_of(part), _layer_of(imported)
    return mine is not None and theirs is not None and theirs <= mine and (part, imported) not in APART


def _breaches(path: Path, package: Path = PACKAGE) -> list[str]:
    part = _part(path, package)
    if _layer_of(part) is None:
        return [f"{path.relative_to(package).as_posix()} is in no layer: give `{part}` a place in LAYERS"]
    found = []
    for name in _imports(path):
        if name == "findling" or name.startswith("findling."):
            imported = name.split(".")[1] if "." in name else "findling"
            if imported != part and not _allowed(part, imported):
                found.append(f"{path.relative_to(package).as_posix()} imports {name}")
    return found


def test_each_part_imports_only_its_layer_and_those_below():
    broken = [breach for path in sorted(PACKAGE.rglob("*.py")) for breach in _breaches(path)]
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
    """The checker itself can fail: a store module importing search, a model importing the store,
    a package no layer names and Qt outside the GUI are each reported. The breaches are written
    into a copy of the package, never the package itself (a test run beside another would read
    them)."""
    copy = tmp_path / "findling"
    for part in ("store", "models", "search"):
        (copy / part).mkdir(parents=True)
    (copy / "plugins").mkdir()
    store = copy / "store" / "breach.py"
    models = copy / "models" / "breach.py"
    stray = copy / "plugins" / "breach.py"
    search = copy / "search" / "breach.py"
    sources = {
        store: "from findling.search.keyword.lane import Bm25Lane\nimport PySide6.QtCore\n",
        models: "from findling.store.db import Database\n",
        stray: "import os\n",
        search: "from findling.engine import Engine\nfrom findling.ingest.scan import scan\n",
    }
    for path, text in sources.items():
        path.write_text(text)
    assert _breaches(store, copy) == ["store/breach.py imports findling.search.keyword.lane"]
    assert _breaches(models, copy) == ["models/breach.py imports findling.store.db"]
    assert "plugins/breach.py is in no layer" in _breaches(stray, copy)[0]
    assert _breaches(search, copy) == [
        "search/breach.py imports findling.engine",
        "search/breach.py imports findling.ingest.scan",
    ]
    assert any(n.split(".")[0] == "PySide6" for n in _imports(store))


def test_the_store_has_no_import_circle():
    """store/ was a six-file circle held together by imports inside functions: each module's
    imports of its neighbours are at its top (or for type checking only) and form no circle."""
    store = PACKAGE / "store"
    graph: dict[str, set[str]] = {}
    for path in store.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(node) for node in tree.body}
        needs = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("findling.store."):
                typing_only = any(
                    isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test) and node in ast.walk(block)
                    for block in tree.body
                )
                assert id(node) in top or typing_only, f"{path.name} imports {node.module} inside a function"
                if not typing_only:
                    needs.add(node.module.rsplit(".", 1)[1])
        graph[path.stem] = needs
    done: set[str] = set()

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"import circle: {' -> '.join((*path, name))}"
        if name in done:
            return
        for after in graph.get(name, ()):
            visit(after, (*path, name))
        done.add(name)

    for name in graph:
        visit(name, ())


# Messages below the faces say facts and a Remedy; the face words what to do (faces/presentation).
# The model importer's own errors are the `findling models import` command's answers (the window
# imports the selected row's model and never shows them), and an unreachable hub is worded by
# the window itself from ModelDownloadError.unreachable.
_COMMAND = re.compile(r"\bfindling (index|add|remove|models|get|status|search|query)\b")
_COMMAND_ALLOWED = {"models/importing.py", "models/download.py"}
_FACE_PARTS = {
    "faces",
    "gui",
    "server",
    "cli",
    "cli_commands",
    "cli_indexing",
    "cli_models",
    "cli_devtools",
    "thin",
    "launch",
    "doctor",
    "selftest",
    "devtools",
}


def _messages(tree: ast.AST) -> list[str]:
    """String constants that are not docstrings."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_no_message_below_the_faces_names_a_command():
    found = []
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE).as_posix()
        if _part(path) in _FACE_PARTS or rel in _COMMAND_ALLOWED:
            continue
        found += [f"{rel}: {text!r}" for text in _messages(ast.parse(path.read_text("utf-8"))) if _COMMAND.search(text)]
    assert found == []


def _all_imports(path: Path) -> list[str]:
    """Every import of the module, a function's too, but not those only for the type checker:
    `findling.x.y` and, for `from findling.x import y`, `findling.x.y` as well."""
    names = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    checked = {
        id(n)
        for top in ast.walk(tree)
        if isinstance(top, ast.If) and isinstance(top.test, ast.Name) and top.test.id == "TYPE_CHECKING"
        for stmt in top.body
        for n in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in checked:
            continue
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names += [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
    return names


def test_no_import_circle():
    """Issue 64: no module imports, however late, one that imports it back (cli ↔ launch and
    server/endpoint ↔ wire did)."""
    modules: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {m: {n for n in _all_imports(p) if n in modules and n != m} for m, p in modules.items()}
    circles = []
    for start in graph:
        stack = [(start, [start])]
        seen = set()
        while stack:
            node, trail = stack.pop()
            for nxt in graph[node]:
                if nxt == start:
                    circles.append(" -> ".join([*trail, start]))
                elif nxt not in seen:
                    seen.add(nxt)
                    stack.append((nxt, [*trail, nxt]))
    assert circles == []


def test_the_architecture_drawing_is_the_layer_table():
    """docs/architecture.md draws the layers top down as LAYERS holds them bottom up, each row
    naming every part of its layer (it once drew answer/ below the work and models above storage)."""
    text = (PACKAGE.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    drawing = text.split("## Layers", 1)[1].split("```", 2)[1]
    rows: list[tuple[str, str]] = []
    for line in drawing.splitlines():
        if line.startswith(" ") and not line.startswith("  ") and line.strip():
            label, rest = line[1:21].strip(), line[21:]
            rows.append((label, rest))
        elif rows and line.strip() and line.strip() != "│":
            rows[-1] = (rows[-1][0], rows[-1][1] + " " + line.strip())
    assert [label for label, _ in rows] == [name for name, _ in reversed(LAYERS)]
    for (label, said), (_, parts) in zip(rows, reversed(LAYERS), strict=True):
        for part in parts:
            named = "__init__.py" if part == "findling" else f"{part}/" if (PACKAGE / part).is_dir() else f"{part}.py"
            assert named in said, f"the {label!r} row does not name {named}"
