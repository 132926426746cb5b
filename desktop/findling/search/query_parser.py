"""Desktop-search query syntax: words, "quoted phrases", -exclusions, OR, and filters
(ext:, path:, folder:, after:, before:). Anything it cannot read is a plain word, so no
query is an error except a filter with an unreadable date."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from findling.dates import parse_date
from findling.records import Filters

_ITEM = re.compile(r'(-?)(?:(\w+):)?(?:"([^"]*)"?|(\S+))')
# The query syntax as every face teaches it (the window's Help, the MCP server's instructions).
SYNTAX_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("borrow checker", "plain words: keyword search needs all of them; hybrid also matches by meaning"),
    ('"lifetime elision"', "a phrase, word for word"),
    ('-async  -"draft notes"', "leave out documents with this word or phrase"),
    ("rust OR go", "either word"),
    ("instal*", "words that begin so: install, installer, installation"),
    ("ext:md  ext:pdf", "only these file types (type: works too)"),
    ("path:notes", "the path contains this text"),
    ("author:lovelace  title:budget  name:draft", "the author, the title, the file name contains this text"),
    ("folder:/home/me/papers", "only under this folder (in: works too)"),
    ("after:2024-01-01  before:7d", "modified on or after / before: a date, or 30d, 2w, 6m, 1y ago; since: until:"),
)

_FILTER_KEYS = {"ext", "type", "path", "folder", "in", "after", "since", "before", "until", "author", "title", "name"}
# field filter -> the Filters field it adds to
_FIELD_FILTERS = {"author": "authors", "title": "titles", "name": "names"}
MAX_QUERY_CHARS = 4000


@dataclass(frozen=True)
class ParsedQuery:
    groups: tuple[tuple[str, ...], ...] = ()  # each group: words that may stand for each other (OR)
    phrases: tuple[tuple[str, ...], ...] = ()
    excluded_words: tuple[str, ...] = ()
    excluded_phrases: tuple[tuple[str, ...], ...] = ()
    filters: Filters = field(default_factory=Filters)
    text: str = ""  # the free text, operators removed: what the vector lane embeds

    @property
    def has_terms(self) -> bool:
        return bool(self.groups or self.phrases)

    @property
    def has_constraints(self) -> bool:
        """Phrases or exclusions: what every lane must obey, not only the keyword lane."""
        return bool(self.phrases or self.excluded_words or self.excluded_phrases)

    def with_filters(self, extra: Filters) -> ParsedQuery:
        return replace(self, filters=self.filters.merged(extra))


def _filter(key: str, value: str, filters: dict[str, list[Any]]) -> None:
    if key in ("ext", "type"):
        for ext in value.split(","):
            ext = ext.strip().lower().lstrip("*").lstrip(".")
            if ext:
                filters["extensions"].append(ext)
    elif key == "path":
        if value:
            filters["path_contains"].append(value.lower())
    elif key in _FIELD_FILTERS:
        if value:
            filters[_FIELD_FILTERS[key]].append(value.lower())
    elif key in ("folder", "in"):
        if value:
            filters["folders"].append(value)
    elif key in ("after", "since"):
        filters["after"].append(parse_date(value))
    elif key in ("before", "until"):
        filters["before"].append(parse_date(value))


PLAIN_TEXT_WORDS = 40  # a query longer than this reads as plain text (query by example)


def parse_query(query: str) -> ParsedQuery:  # noqa: C901 - one branch per piece of query syntax
    query = query[:MAX_QUERY_CHARS]
    groups: list[list[str]] = []
    phrases: list[tuple[str, ...]] = []
    excluded_words: list[str] = []
    excluded_phrases: list[tuple[str, ...]] = []
    filters: dict[str, list[Any]] = {
        k: [] for k in ("extensions", "path_contains", "folders", "after", "before", *_FIELD_FILTERS.values())
    }
    text_parts: list[str] = []
    join_next = False
    for match in _ITEM.finditer(query):
        negated, key, quoted, bare = match.group(1), match.group(2), match.group(3), match.group(4)
        key_l = key.lower() if key else None
        if key_l in _FILTER_KEYS:
            _filter(key_l, quoted if quoted is not None else (bare or ""), filters)
            continue
        if key:  # "word:" that is no filter (a URL, "note:"): plain text
            bare, quoted = f"{key}:{quoted if quoted is not None else bare or ''}", None
        if quoted is not None:
            words = tuple(quoted.split())
            if not words:
                continue
            if negated:
                excluded_phrases.append(words)
            elif len(words) == 1:
                groups.append([words[0]])
                text_parts.append(words[0])
            else:
                phrases.append(words)
                text_parts.append(quoted)
            join_next = False
            continue
        word = bare or ""
        if word in ("OR", "|") and groups:
            join_next = True
            continue
        if negated and len(word) > 0 and any(c.isalnum() for c in word):
            excluded_words.append(word)
            continue
        if not any(c.isalnum() for c in word):
            continue
        if join_next and groups:
            groups[-1].append(word)
        else:
            groups.append([word])
        text_parts.append(word.rstrip("*"))  # the vector lane embeds the word, not the syntax
        join_next = False
    if len(groups) + sum(len(p) for p in phrases) > PLAIN_TEXT_WORDS:
        # A pasted paragraph is text, not syntax: its quotes, dashes and ORs are prose.
        groups += [[w] for p in phrases for w in p] + [[w] for w in excluded_words]
        groups += [[w] for p in excluded_phrases for w in p]
        phrases, excluded_words, excluded_phrases = [], [], []
    return ParsedQuery(
        groups=tuple(tuple(g) for g in groups),
        phrases=tuple(phrases),
        excluded_words=tuple(excluded_words),
        excluded_phrases=tuple(excluded_phrases),
        filters=Filters(
            extensions=tuple(filters["extensions"]),
            path_contains=tuple(filters["path_contains"]),
            folders=tuple(filters["folders"]),
            after=max(filters["after"]) if filters["after"] else None,
            before=min(filters["before"]) if filters["before"] else None,
            authors=tuple(filters["authors"]),
            titles=tuple(filters["titles"]),
            names=tuple(filters["names"]),
        ),
        text=" ".join(text_parts),
    )
