"""Synonyms a person keeps beside settings.toml, in `synonyms.txt`: one set of words that stand
for each other per line, separated by commas or spaces, `#` for comments:

    postgres, postgresql, pg
    colour color

A query word then matches any word of its set, in keyword search and in the keyword lane of
hybrid search, highlighted as matched. The file is read again when it changes, so an open
window or a running server follows an edit at its next query."""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path

from findling.text.analyzer import fold

SYNONYMS_FILENAME = "synonyms.txt"
_SEPARATORS = re.compile(r"[,\s]+")


def parse_synonyms(text: str) -> dict[str, tuple[str, ...]]:
    """word (folded, lower case) -> the other words of every set it is in, in file order."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        words = [w for w in _SEPARATORS.split(line.split("#", 1)[0]) if w]
        keys = list(dict.fromkeys(fold(w) for w in words))
        for key in keys:
            known = found.setdefault(key, [])
            known.extend(w for w in keys if w != key and w not in known)
    return {key: tuple(others) for key, others in found.items() if others}


class SynonymFile:
    """The sets of one synonyms file, read again when its size or time changes; a missing or
    unreadable file is no synonyms."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._seen: tuple[int, int] | None = None
        self._sets: dict[str, tuple[str, ...]] = {}

    def get(self) -> Mapping[str, tuple[str, ...]]:
        try:
            st = os.stat(self.path)
            version: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
        except OSError:
            version = None
        with self._lock:
            if version != self._seen:
                self._sets = self._read() if version is not None else {}
                self._seen = version
            return self._sets

    def _read(self) -> dict[str, tuple[str, ...]]:
        try:
            return parse_synonyms(self.path.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            return {}


def with_synonyms(words: tuple[str, ...], synonyms: Mapping[str, tuple[str, ...]]) -> tuple[str, ...]:
    """A query's alternatives for one word group, its synonyms added after its own words."""
    if not synonyms:
        return words
    extra = [s for w in words for s in synonyms.get(fold(w), ())]
    return tuple(dict.fromkeys((*words, *extra)))
