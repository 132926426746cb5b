"""Build a held-out set of natural-language questions against code without docstrings, in the
manner of CodeSearchNet and CoSQA: each function of a Python source tree that has a docstring
becomes a file of its code with the docstring and comments taken out (`ast.unparse`), and the
docstring's first sentence becomes a question whose one answer is that file.

    python -m findling.devtools.code_set /usr/lib/python3.11 /tmp/codefn [--functions 6000] [--questions 500]

Writes OUT/functions/<module path>/<qualified name>.py, and the questions as `findling eval
--known-items` reads them: OUT/questions-dev.tsv (every third, for tuning) and
OUT/questions-test.tsv (the rest, for checking). Deterministic: functions are chosen by a hash of their qualified
name, so a rebuild from the same tree gives the same set. A summary that more than one function
shares ("Return a copy of the list.") is never a question: no one file answers it. Test suites
and generated modules are left out."""

from __future__ import annotations

import argparse
import ast
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from findling.devtools.eval import split_of

SKIPPED_PARTS = {"test", "tests", "idle_test", "lib2to3", "__pycache__", "pydoc_data", "lib-dynload", "site-packages"}
_FIRST_SENTENCE = re.compile(r"^(.+?[.!?])(?:\s|$)", re.DOTALL)


@dataclass(frozen=True)
class Function:
    target: str  # path under functions/, without .py
    summary: str  # the docstring's first sentence: the question
    code: str  # the function without its docstring and comments


def summary_of(docstring: str) -> str:
    """The docstring's first sentence, on one line; "" when it is not a sentence of words (a
    signature, a one-word note, a reference elsewhere)."""
    head = docstring.strip().split("\n\n", 1)[0]
    found = _FIRST_SENTENCE.match(head)
    text = " ".join((found.group(1) if found else head).split())
    words = re.findall(r"[A-Za-z]{2,}", text)
    if len(words) < 4 or "(" in text[:40] and ")" in text[:60] and text.index("(") < 20:
        return ""  # "f(x, y) -> z" and the like name the signature, not what it does
    if text.lower().startswith(("see ", "same as", "deprecated", "alias", "internal", "helper")):
        return ""
    return text


def _without_docstring(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    body = node.body[1:] or [ast.Pass()]
    bare = type(node)(**{**{f: getattr(node, f) for f in node._fields}, "body": body})
    return ast.unparse(ast.fix_missing_locations(bare)) + "\n"


def functions_of(source: str, module: str) -> list[Function]:
    """Every function and method with a docstring of one module, docstring taken out."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found: list[Function] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                docstring = ast.get_docstring(child)
                summary = summary_of(docstring) if docstring else ""
                code = _without_docstring(child)
                if summary and code.count("\n") >= 3:
                    found.append(Function(f"{module}/{prefix}{child.name}", summary, code))

    visit(tree, "")
    return found


def _order(target: str) -> str:
    return hashlib.sha256(target.encode()).hexdigest()


def build(source: Path, out: Path, functions: int = 6000, questions: int = 500) -> dict:
    everything: list[Function] = []
    for path in sorted(source.rglob("*.py")):
        rel = path.relative_to(source)
        if SKIPPED_PARTS & set(rel.parts) or rel.name.startswith("test_"):
            continue
        module = str(rel.with_suffix(""))
        everything.extend(functions_of(path.read_text(encoding="utf-8", errors="replace"), module))
    seen: dict[str, int] = {}
    for f in everything:
        seen[f.summary.lower()] = seen.get(f.summary.lower(), 0) + 1
    chosen = sorted(everything, key=lambda f: _order(f.target))[:functions]
    asked = [f for f in chosen if seen[f.summary.lower()] == 1][:questions]
    root = out / "functions"
    for f in chosen:
        path = root / f"{f.target}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f.code, encoding="utf-8")
    ordered = sorted(asked, key=lambda f: f.target)
    for split in ("dev", "test"):
        with open(out / f"questions-{split}.tsv", "w", encoding="utf-8") as handle:
            handle.write("# query\ttarget (path under functions/, without .py)\tkind\n")
            for f in (f for i, f in enumerate(ordered) if split_of(i) == split):
                handle.write(f"{f.summary}\t{f.target}\tquestion\n")
    return {"functions": len(chosen), "questions": len(asked), "candidates": len(everything)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--functions", type=int, default=6000)
    parser.add_argument("--questions", type=int, default=500)
    args = parser.parse_args(argv)
    print(json.dumps(build(args.source, args.out, args.functions, args.questions)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
