"""Ways to slice a result list, for every face: the type groups and date ranges the filters
offer, the counts of each among the results (facets), and orders other than relevance."""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Sequence

from findling.file_kinds import CATEGORIES, category_of, extensions_in
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
COMPRESSED = ("gz", "bz2", "xz")
_INNER = r"\.([a-z][a-z0-9]*)\.(?:gz|bz2|xz)$"  # a letter: `v1.2.gz` is no `2` file
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


def date_range(mtime: float, now: float) -> str:
    """The narrowest of the filter's ranges the date falls in; 'Older' past a year."""
    age = now - mtime
    for name, days in DATE_RANGES.items():
        if days is not None and age <= days * _DAY:
            return name
    return "Older"


def facet_counts(hits: Sequence[Hit], folders: Sequence[str], now: float) -> dict[str, list[tuple[str, int]]]:
    """How many of the results fall in each type group, date range and added folder, most
    first (date ranges in their own order). A result counts in the narrowest date range."""
    types = Counter(type_group(type_extension(h.path, h.ext or os.path.splitext(h.path)[1])) for h in hits)
    dates = Counter(date_range(h.mtime, now) for h in hits)

    def folder_of(path: str) -> str | None:
        inside = [f for f in folders if under(path, f)]
        return max(inside, key=len) if inside else None

    places = Counter(f for f in (folder_of(h.path) for h in hits) if f is not None)
    order = [*DATE_RANGES, "Older"]
    return {
        "type": types.most_common(),
        "modified": sorted(dates.items(), key=lambda kv: order.index(kv[0])),
        "folder": places.most_common(),
    }
