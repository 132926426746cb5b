"""Walk a source folder: the files Findling should index, and nothing else.

Skips hidden files and folders (`.git` among them), whatever `.gitignore` files and the
user's exclude patterns match, and binary types; follows symlinks but never twice into
the same real folder, so a link loop ends."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from findling.ingest.formats import kind_of

_WINDOWS_HIDDEN = getattr(stat, "FILE_ATTRIBUTE_HIDDEN", 0)


@dataclass(frozen=True)
class FileEntry:
    path: str
    size: int
    mtime: float


@dataclass
class ScanResult:
    files: list[FileEntry] = field(default_factory=list)
    too_large: list[FileEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _hidden(entry: os.DirEntry[str], st: os.stat_result) -> bool:
    if entry.name.startswith("."):
        return True
    attributes = getattr(st, "st_file_attributes", 0)
    return bool(_WINDOWS_HIDDEN and attributes & _WINDOWS_HIDDEN)


class _Rules:
    """gitignore files found on the way down, plus the source's and user's patterns."""

    def __init__(self, root: Path, include: Sequence[str], exclude: Sequence[str]) -> None:
        self.root = root
        self.include = pathspec.GitIgnoreSpec.from_lines(include) if include else None
        self.exclude = pathspec.GitIgnoreSpec.from_lines(exclude) if exclude else None

    def ignored(self, rel: str, is_dir: bool, gitignores: list[tuple[str, pathspec.GitIgnoreSpec]]) -> bool:
        probe = rel + "/" if is_dir else rel
        verdict: bool | None = None
        for base, spec in gitignores:  # deeper files override shallower ones, as in git
            sub = probe[len(base) + 1:] if base else probe
            result = spec.check_file(sub).include
            if result is not None:
                verdict = result
        if verdict:
            return True
        if self.exclude is not None and self.exclude.match_file(probe):
            return True
        if not is_dir and self.include is not None and not self.include.match_file(rel):
            return True
        return False


def _load_gitignore(folder: Path, warnings: list[str]) -> pathspec.GitIgnoreSpec | None:
    path = folder / ".gitignore"
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return pathspec.GitIgnoreSpec.from_lines(handle.read().splitlines())
    except FileNotFoundError:
        return None
    except OSError as exc:
        warnings.append(f"cannot read {path}: {exc.strerror or exc}")
        return None


def scan(
    root: str | os.PathLike[str],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    max_bytes: int = 50 * 1024 * 1024,
    should_stop: Callable[[], bool] = lambda: False,
) -> ScanResult:
    result = ScanResult()
    root_path = Path(root)
    try:
        root_stat = root_path.stat()
    except OSError as exc:
        result.warnings.append(f"cannot read {root_path}: {exc.strerror or exc}")
        return result
    if not stat.S_ISDIR(root_stat.st_mode):
        _add_file(result, str(root_path), root_stat, max_bytes)
        return result
    rules = _Rules(root_path, include, exclude)
    seen_dirs = {(root_stat.st_dev, root_stat.st_ino)}
    for entry, st in _walk(root_path, rules, seen_dirs, result.warnings, should_stop):
        _add_file(result, entry, st, max_bytes)
    return result


def _add_file(result: ScanResult, path: str, st: os.stat_result, max_bytes: int) -> None:
    if kind_of(path) is None:
        return
    entry = FileEntry(path, st.st_size, st.st_mtime)
    (result.too_large if st.st_size > max_bytes else result.files).append(entry)


def _walk(
    root: Path, rules: _Rules, seen_dirs: set[tuple[int, int]], warnings: list[str], should_stop: Callable[[], bool]
) -> Iterator[tuple[str, os.stat_result]]:
    stack: list[tuple[Path, str, list[tuple[str, pathspec.GitIgnoreSpec]]]] = [(root, "", [])]
    while stack:
        if should_stop():
            return
        folder, rel_folder, gitignores = stack.pop()
        spec = _load_gitignore(folder, warnings)
        if spec is not None:
            gitignores = [*gitignores, (rel_folder, spec)]
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except FileNotFoundError:
            warnings.append(f"folder vanished while scanning: {folder}")
            continue
        except OSError as exc:
            warnings.append(f"cannot read folder {folder}: {exc.strerror or exc}")
            continue
        subfolders = []
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=True)
            except OSError:
                continue  # dangling symlink, or the file vanished
            if _hidden(entry, st):
                continue
            rel = f"{rel_folder}/{entry.name}" if rel_folder else entry.name
            if stat.S_ISDIR(st.st_mode):
                if rules.ignored(rel, True, gitignores):
                    continue
                key = (st.st_dev, st.st_ino)
                if key in seen_dirs:
                    continue  # a symlink loop, or a second link to a folder already walked
                seen_dirs.add(key)
                subfolders.append((Path(entry.path), rel, gitignores))
            elif stat.S_ISREG(st.st_mode):
                if not rules.ignored(rel, False, gitignores):
                    yield entry.path, st
        stack.extend(reversed(subfolders))


def is_indexable(
    root: str | os.PathLike[str], path: str, include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> bool:
    """Would a full scan of `root` pick up `path`? For live updates of single files."""
    root_path, file_path = Path(root), Path(path)
    if root_path == file_path:
        return kind_of(path) is not None
    try:
        rel_parts = file_path.relative_to(root_path).parts
    except ValueError:
        return False
    if any(part.startswith(".") for part in rel_parts) or kind_of(path) is None:
        return False
    rules = _Rules(root_path, include, exclude)
    warnings: list[str] = []
    gitignores: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    folder, rel = root_path, ""
    for depth, part in enumerate(rel_parts):
        spec = _load_gitignore(folder, warnings)
        if spec is not None:
            gitignores.append((rel, spec))
        rel = f"{rel}/{part}" if rel else part
        is_dir = depth < len(rel_parts) - 1
        if rules.ignored(rel, is_dir, gitignores):
            return False
        folder = folder / part
    return True
