"""Every number measurement chose for ranking and answering is declared once, in tuning.py: 54
module-level constants in search/ and answer/ sat beside a settings.py that said every default
lived there. Read from the source, so a new tuned number in those packages fails here until it
moves (or is named below as a bound, with why)."""

from __future__ import annotations

import ast
from pathlib import Path

from findling import tuning

PACKAGE = Path(__file__).resolve().parents[1] / "desktop" / "findling"
TUNED_IN = ("search", "answer")

# Numbers in search/ and answer/ that no measurement chose: formats, bounds on what is read or
# kept, and unit conversions. Each is named with why it is not tuned.
BOUNDS = {
    "search/vector_snapshot.py": {"FORMAT", "_META_LIMIT", "SAMPLE", "_LEFTOVER_AGE_S"},  # a file format's
    "search/keyword/lane.py": {"MAX_GROUPS", "_STATS_TTL", "_MAX_GIANTS"},  # a BIGINT's bits, a cache's life, a cap
    "search/vector_index.py": {"_LOAD_BATCH", "_BASIS_SAMPLE"},  # rows read at once
    "search/snippets.py": {"_CONTEXT_BEFORE"},  # a snippet's layout
    "search/results.py": {"_WORD_BACK"},  # how far a span may move to begin at a word
    "search/facets.py": {"_DAY"},  # seconds
    "search/fetch.py": {"_AMBIGUOUS_SHOWN", "LEFT_OUT_SHOWN"},  # a reply's size
    "search/lane_balance.py": {"SHIPPED", "MRR_DEPTH"},  # the fitted model's own share; eval's measure
}


def _is_number(node: ast.expr) -> bool:
    """A literal number, or one built of them (1 / 200, 64 * 1024, -1, a tuple of them)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp):
        return _is_number(node.operand)
    if isinstance(node, ast.BinOp):
        return _is_number(node.left) and _is_number(node.right)
    if isinstance(node, ast.Tuple):
        return bool(node.elts) and all(_is_number(e) for e in node.elts)
    return False


def _numbers_declared(path: Path) -> set[str]:
    found = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and _is_number(node.value):
            found |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and node.value is not None and _is_number(node.value):
            if isinstance(node.target, ast.Name):
                found.add(node.target.id)
    return found


def test_search_and_answer_declare_no_tuned_number_of_their_own():
    stray = []
    for part in TUNED_IN:
        for path in sorted((PACKAGE / part).rglob("*.py")):
            rel = path.relative_to(PACKAGE).as_posix()
            stray += [f"{rel}: {name}" for name in sorted(_numbers_declared(path) - BOUNDS.get(rel, set()))]
    assert stray == [], "move these to findling/tuning.py (or name them in BOUNDS with why)"


def test_each_tuned_number_is_declared_once_and_read_somewhere():
    names = {n for n in vars(tuning) if n.isupper()}
    assert {"HUB_FROM", "NEARNESS_WIDTH", "ON_TOPIC", "BLEND_BANDS"} <= names
    declared_again, unread = [], set(names)
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "tuning.py" and path.parent == PACKAGE:
            continue
        declared_again += [f"{path.relative_to(PACKAGE)}: {n}" for n in _numbers_declared(path) & names]
        unread -= {n.id for n in ast.walk(ast.parse(path.read_text(encoding="utf-8"))) if isinstance(n, ast.Name)}
    assert declared_again == [] and unread == set()


def test_the_bounds_named_here_are_still_there():
    """A bound that moved or went leaves this list stale: it must shrink with the code."""
    for rel, names in BOUNDS.items():
        assert names <= _numbers_declared(PACKAGE / rel), rel


def test_the_check_sees_a_tuned_number(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("X = 0.35\nY: tuple[int, ...] = (1, 2)\nZ = 1 / 200\nNAME = 'a'\nW = -2\nF = f(3)\n")
    assert _numbers_declared(module) == {"X", "Y", "Z", "W"}
