from __future__ import annotations

import os

from findling.ingest.scan import is_indexable, scan
from tests.helpers import write


def _rel(result, root):
    return sorted(os.path.relpath(f.path, root) for f in result.files)


def test_skips_hidden_gitignored_excluded_and_binary(docs):
    write(docs / "a.md", "a")
    write(docs / ".hidden.md", "h")
    write(docs / ".git" / "config", "x")
    write(docs / "build" / "out.txt", "b")
    write(docs / "notes" / "keep.log", "k")
    write(docs / "notes" / "drop.log", "d")
    write(docs / "node_modules" / "pkg" / "index.js", "n")
    write(docs / "clip.mp4", "p")
    write(docs / "private" / "secret.txt", "s")
    write(docs / ".gitignore", "build/\n*.log\n")
    write(docs / "notes" / ".gitignore", "!keep.log\n")
    result = scan(docs, exclude=["node_modules/", "private/"])
    assert _rel(result, docs) == ["a.md", "notes/keep.log"]


def test_a_sphinx_builds_copies_are_left_out_its_pages_kept(docs):
    write(docs / "html" / "searchindex.js", "Search.setIndex({})")
    write(docs / "html" / "library" / "asyncio.html", "<p>asyncio</p>")
    write(docs / "html" / "_sources" / "library" / "asyncio.rst.txt", "asyncio\n=======")
    write(docs / "html" / "_static" / "jquery.js", "jQuery")
    write(docs / "notes" / "_sources" / "todo.md", "not a Sphinx build: kept")
    assert _rel(scan(docs), docs) == ["html/library/asyncio.html", "notes/_sources/todo.md"]
    assert not is_indexable(docs, str(docs / "html" / "searchindex.js"))
    assert not is_indexable(docs, str(docs / "html" / "_sources" / "library" / "asyncio.rst.txt"))
    assert not is_indexable(docs, str(docs / "html" / "_static" / "jquery.js"))
    assert is_indexable(docs, str(docs / "notes" / "_sources" / "todo.md"))


def test_include_patterns_limit_files(docs):
    write(docs / "a.md", "a")
    write(docs / "b.txt", "b")
    write(docs / "sub" / "c.md", "c")
    assert _rel(scan(docs, include=["*.md"]), docs) == ["a.md", "sub/c.md"]


def test_size_limit(docs):
    write(docs / "small.txt", "x")
    write(docs / "big.txt", "y" * 2000)
    result = scan(docs, max_bytes=1000)
    assert _rel(result, docs) == ["small.txt"]
    assert [os.path.basename(f.path) for f, _ in result.skipped] == ["big.txt"]


def test_symlink_loop_terminates(docs):
    write(docs / "a" / "f.txt", "f")
    os.symlink(docs, docs / "a" / "loop")
    os.symlink(docs / "a", docs / "a" / "self")
    assert _rel(scan(docs), docs) == ["a/f.txt"]


def test_single_file_source(docs):
    path = write(docs / "one.md", "x")
    assert [f.path for f in scan(path).files] == [str(path)]


def test_unreadable_folder_is_a_warning_not_a_crash(docs):
    write(docs / "ok.txt", "x")
    locked = docs / "locked"
    write(locked / "in.txt", "y")
    locked.chmod(0)
    try:
        result = scan(docs)
        if os.geteuid() != 0:  # root reads anything
            assert any("locked" in w for w in result.warnings)
        assert "ok.txt" in _rel(result, docs)
    finally:
        locked.chmod(0o755)


def test_is_indexable_matches_scan_rules(docs):
    write(docs / ".gitignore", "*.log\n")
    assert is_indexable(docs, str(docs / "sub" / "x.md"))
    assert not is_indexable(docs, str(docs / "x.log"))
    assert not is_indexable(docs, str(docs / ".cache" / "x.md"))
    assert not is_indexable(docs, str(docs / "x.mp4"))
    assert not is_indexable(docs, str(docs / "drafts" / "y.md"), exclude=["drafts/"])
