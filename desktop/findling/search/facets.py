"""Ways to slice a result list, for every face: the type groups and date ranges the filters
offer, the counts of each among the results (facets), and orders other than relevance."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence

from findling.file_kinds import CATEGORIES, category_of, extensions_in, extensions_read_by
from findling.pathnames import under
from findling.records import Hit

# the Type filter's groups (file_kinds.py: each extension's category), "Any type" first
TYPE_GROUPS: dict[str, tuple[str, ...]] = {"Any type": (), **{c: extensions_in(c) for c in CATEGORIES}}
DATE_RANGES: dict[str, int | None] = {"Any time": None, "Today": 1, "Past week": 7, "Past month": 31, "Past year": 366}
SORTS = ("Relevance", "Newest first", "Name")
_DAY = 86400.0


def sort_hits(hits: Sequence[Hit], order: str) -> list[Hit]:
    """Relevance keeps the engine's order; the others are stable, so equal dates or names
    stay in relevance order."""
    if order == "Newest first":
        return sorted(hits, key=lambda h: -h.mtime)
    if order == "Name":
        return sorted(hits, key=lambda h: os.path.basename(h.path).lower())
    return list(hits)


# A file compressed on its own (`cgroup-v2.rst.gz`, Debian's `changelog.gz` beside it) is a
# document of its inner type: the Linux kernel's 3,183 .rst.gz sources counted as archives, and
# the Text filter left them out. A compressed tar stays an archive.
COMPRESSED = tuple(sorted(extensions_read_by("compressed")))  # gz, bz2, xz: file_kinds.py's rows
_INNER = rf"\.([a-z][a-z0-9]*)\.(?:{'|'.join(COMPRESSED)})$"  # a letter: `v1.2.gz` is no `2` file
_INNER_RE = re.compile(_INNER)


def type_extension(path: str, ext: str) -> str:
    """The extension a document's type goes by: the inner one of a file compressed on its own."""
    if ext.lower() in COMPRESSED and (inner := _INNER_RE.search(path.lower())) and inner.group(1) != "tar":
        return inner.group(1)
    return ext.lower()


def type_extension_sql(alias: str = "d") -> str:
    """type_extension in SQL, over `{alias}.path` and `{alias}.ext`."""
    compressed = ", ".join(f"'{e}'" for e in COMPRESSED)
    inner = f"nullif(nullif(regexp_extract(lower({alias}.path), '{_INNER}', 1), ''), 'tar')"
    ext = f"lower({alias}.ext)"
    return f"(CASE WHEN {ext} IN ({compressed}) THEN coalesce({inner}, {ext}) ELSE {ext} END)"


def type_group(ext: str) -> str:
    ext = ext.lower().lstrip(".")
    return category_of(ext)


def subfolder_of(path: str, folder: str) -> str | None:
    """The folder one level below `folder` that holds `path`; None for a file directly in it, or
    one not under it."""
    if not under(path, folder):
        return None
    base = folder.rstrip("/\\") or folder
    rest = path[len(base) :].lstrip("/\\")
    for separator in ("/", "\\"):
        if separator in rest:
            return os.path.join(base, rest.split(separator, 1)[0])
    return None


def folder_label(folder: str, added: Sequence[str]) -> str:
    """A subfolder as the In list names it: from the added folder holding it (`linux/arch/x86`)."""
    holding = max((f for f in added if under(folder, f)), key=len, default="")
    if not holding or holding == folder:
        return folder
    return os.path.join(os.path.basename(holding.rstrip("/\\")) or holding, os.path.relpath(folder, holding))


def date_range(mtime: float, now: float) -> str:
    """The narrowest of the filter's ranges the date falls in; 'Older' past a year."""
    age = now - mtime
    for name, days in DATE_RANGES.items():
        if days is not None and age <= days * _DAY:
            return name
    return "Older"


def facet_counts(
    hits: Sequence[Hit], folders: Sequence[str], now: float, within: str = ""
) -> dict[str, list[tuple[str, int]]]:
    """How many of the results fall in each type group, date range and folder, most first (date
    ranges in their own order). A result counts in the narrowest date range. Folders: the added
    ones; where every result lies in one of them, or `within` the folder the search is narrowed
    to, its subfolders one level down (and itself for the files directly in it), so a big tree
    is narrowed a step at a time (`linux` -> `arch` -> `arch/x86`) without typing `folder:`."""
    types = Counter(type_group(type_extension(h.path, h.ext or os.path.splitext(h.path)[1])) for h in hits)
    dates = Counter(date_range(h.mtime, now) for h in hits)

    def folder_of(path: str) -> str | None:
        inside = [f for f in folders if under(path, f)]
        return max(inside, key=len) if inside else None

    places = Counter(f for f in (folder_of(h.path) for h in hits) if f is not None)
    base = within or (next(iter(places)) if len(places) == 1 else "")
    if base:  # a file directly in it counts as its own
        places = Counter(subfolder_of(h.path, base) or base for h in hits if under(h.path, base))
    order = [*DATE_RANGES, "Older"]
    return {
        "type": types.most_common(),
        "modified": sorted(dates.items(), key=lambda kv: order.index(kv[0])),
        "folder": places.most_common(),
    }
