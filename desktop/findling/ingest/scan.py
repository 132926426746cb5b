"""Walk a source folder: the files Findling should index, and nothing else.

Skips hidden files and folders (`.git` among them), whatever `.gitignore` files and the
user's exclude patterns match, and binary types; follows symlinks but never twice into
the same real folder, so a link loop ends."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pathspec

from findling.ingest.formats import kind_of
from findling.pathnames import display_path
from findling.store.sources import inside

_WINDOWS_HIDDEN = getattr(stat, "FILE_ATTRIBUTE_HIDDEN", 0)


def _spec_backend() -> str:
    """RE2 matches in linear time. A cloned repository writes its own .gitignore, and with
    Python's backtracking engine a line like `*a*a*a*a*a*a*a*a*a*a*a*a*b` stalls every scan
    for minutes on a 40-character name."""
    try:
        import re2  # noqa: F401  (google-re2, which pathspec's "re2" backend uses)
    except ImportError:
        return "simple"
    return "re2"


_BACKEND = _spec_backend()


def gitignore_spec(lines: Sequence[str]) -> pathspec.GitIgnoreSpec:
    return pathspec.GitIgnoreSpec.from_lines(lines, backend=_BACKEND)


@dataclass(frozen=True)
class FileEntry:
    path: str
    size: int
    mtime: float
    # The real file when `path` is a symbolic link: files are typed by what they are.
    target: str = ""


@dataclass
class ScanResult:
    files: list[FileEntry] = field(default_factory=list)
    # Files seen but not to be read, each with the reason recorded in status.
    skipped: list[tuple[FileEntry, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # (the .gitignore file, its pattern) -> the files and folders it left out (a folder counts
    # once: what is inside it is never walked)
    left_out: dict[tuple[str, str], int] = field(default_factory=dict)


def special_kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "a special file"


def leaves(target: str, roots: Sequence[str]) -> bool:
    """Does a link's real target lie outside every added folder?"""
    return not any(inside(target, root) for root in roots)


def _hidden(entry: os.DirEntry[str], st: os.stat_result) -> bool:
    if entry.name.startswith("."):
        return True
    attributes = getattr(st, "st_file_attributes", 0)
    return bool(_WINDOWS_HIDDEN and attributes & _WINDOWS_HIDDEN)


class _Rules:
    """gitignore files found on the way down, plus the source's and user's patterns."""

    def __init__(self, root: Path, include: Sequence[str], exclude: Sequence[str], gitignore: bool = True) -> None:
        self.root = root
        self.include = gitignore_spec(include) if include else None
        self.exclude = gitignore_spec(exclude) if exclude else None
        self.gitignore = gitignore  # whether the folder's .gitignore files leave files out

    def gitignore_of(self, folder: Path, warnings: list[str]) -> pathspec.GitIgnoreSpec | None:
        return _load_gitignore(folder, warnings) if self.gitignore else None

    def ignored(self, rel: str, is_dir: bool, gitignores: list[tuple[str, pathspec.GitIgnoreSpec]]) -> bool:
        return self.why(rel, is_dir, gitignores) is not None

    def why(self, rel: str, is_dir: bool, gitignores: list[tuple[str, pathspec.GitIgnoreSpec]]) -> Ignored | None:
        """The rule that leaves `rel` out, or None."""
        # RE2 takes only valid Unicode: a name that is not UTF-8 is matched in its `\xNN` form.
        rel = display_path(rel)
        probe = rel + "/" if is_dir else rel
        verdict: Ignored | None = None
        for base, spec in gitignores:  # deeper files override shallower ones, as in git
            sub = probe[len(base) + 1 :] if base else probe
            result = spec.check_file(sub)
            if result.include is not None:
                pattern = spec.patterns[result.index].pattern if result.index is not None else ""
                verdict = Ignored("gitignore", str(pattern), base) if result.include else None
        if verdict is not None:
            return verdict
        if self.exclude is not None:
            result = self.exclude.check_file(probe)
            if result.include:
                pattern = self.exclude.patterns[result.index].pattern if result.index is not None else ""
                return Ignored("exclude", str(pattern))
        if not is_dir and self.include is not None and not self.include.match_file(rel):
            return Ignored("include")
        return None


# A Sphinx HTML build (marked by its searchindex.js) carries a copy of every page's source
# (_sources/*.rst.txt), its theme's scripts and styles (_static) and its own search index:
# indexed, each page would be found twice and jQuery would answer "search". The pages
# themselves are kept.
SPHINX_MARK = "searchindex.js"
SPHINX_COPIES = ("_sources", "_static")


def _build_copy(name: str, is_dir: bool) -> bool:
    """Is this one of a Sphinx build's copies, when the folder holding it is a build?"""
    return name in SPHINX_COPIES if is_dir else name == SPHINX_MARK


@dataclass(frozen=True)
class Ignored:
    rule: str  # "gitignore", "exclude", "include", "hidden", "generated", "outside"
    pattern: str = ""
    folder: str = ""  # "gitignore": the folder (relative to the root) whose .gitignore has it; "generated": the build

    def sentence(self, root: str, include: Sequence[str], settings_exclude: Sequence[str]) -> str:
        """For a person: which rule leaves the file out, and where that rule is written."""
        if self.rule == "hidden":
            return f"It is hidden (“{self.pattern}” starts with a dot), and Findling skips hidden files and folders."
        if self.rule == "gitignore":
            where = (
                os.path.join(root, *self.folder.split("/"), ".gitignore")
                if self.folder
                else os.path.join(root, ".gitignore")
            )
            return f"It is excluded by the pattern `{self.pattern}` in {where}."
        if self.rule == "exclude":
            origin = (
                "the settings' exclude patterns"
                if self.pattern in settings_exclude
                else "this folder's exclude patterns"
            )
            return f"It is excluded by `{self.pattern}` in {origin}."
        if self.rule == "include":
            return f"It does not match this folder's include patterns ({', '.join(include)})."
        if self.rule == "generated" and self.pattern == SPHINX_MARK:
            return (
                f"It is the search index of the Sphinx build in {self.folder}: generated, and left out with the "
                "build's other copies; the pages themselves are indexed."
            )
        if self.rule == "generated":
            return (
                f"It is in a Sphinx build's {self.pattern} folder ({self.folder} holds the built pages and "
                f"{SPHINX_MARK}): copies of the pages' sources and the theme's files, left out so that each page "
                "is found once, as its HTML."
            )
        return "It is not inside this folder."


GITIGNORE_MAX_BYTES = 1024 * 1024  # git's own files are kilobytes; a bigger one is followed this far


def _load_gitignore(folder: Path, warnings: list[str]) -> pathspec.GitIgnoreSpec | None:
    """The folder's .gitignore patterns: a regular file only (a pipe by that name would hold the
    scan forever), read up to GITIGNORE_MAX_BYTES."""
    path = folder / ".gitignore"
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            warnings.append(f"{path} is not a regular file; its folder is read as if it had none")
            return None
        with open(path, "rb") as handle:
            data = handle.read(GITIGNORE_MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        warnings.append(f"cannot read {path}: {exc.strerror or exc}")
        return None
    if len(data) > GITIGNORE_MAX_BYTES:
        data = data[: data.rfind(b"\n", 0, GITIGNORE_MAX_BYTES) + 1]
        warnings.append(f"{path} is over 1 MB: only the patterns in its first megabyte are followed")
    return gitignore_spec(data.decode("utf-8", errors="replace").splitlines())


def scan(
    root: str | os.PathLike[str],
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    max_bytes: int = 50 * 1024 * 1024,
    should_stop: Callable[[], bool] = lambda: False,
    roots: Sequence[str] = (),
    follow_outside_links: bool = False,
    gitignore: bool = True,
) -> ScanResult:
    """`roots`: every added folder; a link whose target lies outside all of them (and
    outside `root`) is recorded as skipped, not followed, unless `follow_outside_links`.
    `gitignore`: the folder's .gitignore files leave files out (as git would)."""
    result = ScanResult()
    root_path = Path(root)
    allowed = [os.path.realpath(r) for r in (*roots, root)]
    try:
        root_stat = root_path.stat()
    except OSError as exc:
        result.warnings.append(f"cannot read {display_path(str(root_path))}: {exc.strerror or exc}")
        return result
    if stat.S_ISREG(root_stat.st_mode):
        _add_file(result, FileEntry(str(root_path), root_stat.st_size, root_stat.st_mtime), max_bytes)
        return result
    if not stat.S_ISDIR(root_stat.st_mode):
        result.warnings.append(f"not a folder or a regular file, not read: {display_path(str(root_path))}")
        return result
    rules = _Rules(root_path, include, exclude, gitignore)
    seen_dirs = {(root_stat.st_dev, root_stat.st_ino)}
    walk = _Walk(rules, seen_dirs, result, should_stop, None if follow_outside_links else allowed)
    for entry in walk.files(root_path):
        _add_file(result, entry, max_bytes)
    return result


def _add_file(result: ScanResult, entry: FileEntry, max_bytes: int) -> None:
    if kind_of(entry.target or entry.path) is None:
        return
    if entry.size > max_bytes:
        result.skipped.append((entry, f"larger than the {max_bytes / (1024 * 1024):g} MB limit"))
    else:
        result.files.append(entry)


class _Walk:
    def __init__(
        self,
        rules: _Rules,
        seen_dirs: set[tuple[int, int]],
        result: ScanResult,
        should_stop: Callable[[], bool],
        allowed: list[str] | None,
    ) -> None:
        self.rules = rules
        self.seen_dirs = seen_dirs
        self.result = result
        self.should_stop = should_stop
        self.allowed = allowed  # None: follow every link

    def _ignored(self, rel: str, is_dir: bool, gitignores: list[tuple[str, pathspec.GitIgnoreSpec]]) -> bool:
        """Whether a rule leaves `rel` out; what a .gitignore leaves out is counted by its pattern."""
        verdict = self.rules.why(rel, is_dir, gitignores)
        if verdict is not None and verdict.rule == "gitignore":
            where = os.path.join(
                str(self.rules.root), *(verdict.folder.split("/") if verdict.folder else ()), ".gitignore"
            )
            key = (where, verdict.pattern)
            self.result.left_out[key] = self.result.left_out.get(key, 0) + 1
        return verdict is not None

    def files(self, root: Path) -> Iterator[FileEntry]:  # noqa: C901, PLR0915 - the folder walk: each rule that keeps a file out is checked in order, once per entry
        warnings = self.result.warnings
        stack: list[tuple[Path, str, list[tuple[str, pathspec.GitIgnoreSpec]]]] = [(root, "", [])]
        while stack:
            if self.should_stop():
                return
            folder, rel_folder, gitignores = stack.pop()
            spec = self.rules.gitignore_of(folder, warnings)
            if spec is not None:
                gitignores = [*gitignores, (rel_folder, spec)]
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except FileNotFoundError:
                warnings.append(f"folder vanished while scanning: {display_path(str(folder))}")
                continue
            except OSError as exc:
                warnings.append(f"cannot read folder {display_path(str(folder))}: {exc.strerror or exc}")
                continue
            subfolders = []
            sphinx_build = any(e.name == SPHINX_MARK for e in entries)
            for entry in entries:
                try:
                    st = entry.stat(follow_symlinks=True)
                except OSError as exc:
                    if exc.errno == errno.ENAMETOOLONG:
                        self.result.skipped.append(
                            (FileEntry(entry.path, 0, 0.0), "the path is longer than this system allows")
                        )
                    continue  # a dangling symlink, or the file vanished
                if _hidden(entry, st):
                    continue
                rel = f"{rel_folder}/{entry.name}" if rel_folder else entry.name
                target = ""
                if entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if self.allowed is not None and leaves(target, self.allowed):
                        if not stat.S_ISDIR(st.st_mode) and not self._ignored(rel, False, gitignores):
                            self.result.skipped.append(
                                (FileEntry(entry.path, st.st_size, st.st_mtime, target), "link leaves the folder")
                            )
                        elif stat.S_ISDIR(st.st_mode):
                            warnings.append(
                                f"not followed: {display_path(entry.path)} links to {display_path(target)}, "
                                "outside the added folders"
                            )
                        continue
                if stat.S_ISDIR(st.st_mode):
                    if self._ignored(rel, True, gitignores) or (sphinx_build and _build_copy(entry.name, True)):
                        continue
                    key = (st.st_dev, st.st_ino)
                    if key in self.seen_dirs:
                        continue  # a symlink loop, or a second link to a folder already walked
                    self.seen_dirs.add(key)
                    subfolders.append((Path(entry.path), rel, gitignores))
                elif stat.S_ISREG(st.st_mode):
                    if not self._ignored(rel, False, gitignores) and not (
                        sphinx_build and _build_copy(entry.name, False)
                    ):
                        yield FileEntry(entry.path, st.st_size, st.st_mtime, target)
                elif kind_of(entry.name) is not None and not self._ignored(rel, False, gitignores):
                    # A pipe, device or socket: opening one can block or read forever.
                    self.result.skipped.append(
                        (
                            FileEntry(entry.path, 0, st.st_mtime, target),
                            f"not a regular file ({special_kind(st.st_mode)})",
                        )
                    )
            stack.extend(reversed(subfolders))


def is_indexable(
    root: str | os.PathLike[str],
    path: str,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    gitignore: bool = True,
) -> bool:
    """Would a full scan of `root` pick up `path`? For live updates of single files."""
    return kind_of(path) is not None and why_left_out(root, path, include, exclude, gitignore) is None


def why_left_out(
    root: str | os.PathLike[str],
    path: str,
    include: Sequence[str] = (),
    exclude: Sequence[str] = (),
    gitignore: bool = True,
) -> Ignored | None:
    """The rule by which a scan of `root` leaves `path` out (hidden, a .gitignore pattern,
    an exclude pattern, not matching the include patterns, a Sphinx build's copies); None
    when it would read it.
    The file's kind is not judged here."""
    root_path, file_path = Path(root), Path(path)
    if root_path == file_path:
        return None
    try:
        rel_parts = file_path.relative_to(root_path).parts
    except ValueError:
        return Ignored("outside")
    hidden = next((part for part in rel_parts if part.startswith(".")), None)
    if hidden is not None:
        return Ignored("hidden", hidden)
    rules = _Rules(root_path, include, exclude, gitignore)
    warnings: list[str] = []
    gitignores: list[tuple[str, pathspec.GitIgnoreSpec]] = []
    folder, rel = root_path, ""
    for depth, part in enumerate(rel_parts):
        spec = rules.gitignore_of(folder, warnings)
        if spec is not None:
            gitignores.append((rel, spec))
        inner = depth < len(rel_parts) - 1
        if _build_copy(part, inner) and (folder / SPHINX_MARK).is_file():
            return Ignored("generated", part, display_path(str(folder)))
        rel = f"{rel}/{part}" if rel else part
        verdict = rules.why(rel, inner, gitignores)
        if verdict is not None:
            return verdict
        folder = folder / part
    return None
