"""Desktop-search query syntax: words, "quoted phrases", proximity ("a b"~5, a NEAR b),
-exclusions, OR, and filters (ext:, path:, folder:, after:, before:, author:, title:, name:,
sym:). Anything it cannot read is a plain word, so no query is an error except a filter with
an unreadable date."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from findling.errors import MAX_QUERY_CHARS
from findling.records import Filters
from findling.search.filter_table import BY_KEY, FILTERS, filters_of
from findling.tuning import NEAR_WORDS, PLAIN_TEXT_WORDS

_ITEM = re.compile(r'(-?)(?:(\w+):)?(?:"([^"]*)"?(?:~(\d+))?|(\S+))')
_NEAR = re.compile(r"NEAR(?:/(\d+))?")
# The query syntax as every face teaches it (the window's Help, the MCP server's instructions).
SYNTAX_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("borrow checker", "plain words: files holding the most of them first, rare words and titles weigh most"),
    ('"lifetime elision"', "a phrase, word for word"),
    ('"rename table"~3  rename NEAR table', "the words close together, in any order (at most 3 / 10 words apart)"),
    ('-async  -"draft notes"', "leave out documents with this word or phrase"),
    ("rust OR go", "either word"),
    ("pg", "also its synonyms: sets of words, one per line, in synonyms.txt beside settings.toml"),
    ("instal*", "words that begin so: install, installer, installation"),
    ("parseKnownArgs  x86_64", "an identifier is one word; where no file holds it whole, its words (parse_known_args)"),
    ("ext:md  ext:pdf", "only these file types (type: works too)"),
    ("path:notes", "the path contains this text"),
    ("author:lovelace  title:budget  name:draft", "the author, the title, the file name contains this text"),
    ("sym:parse_known  sym:Parser.parse_args", "source files that define a function, class or method so named"),
    ("folder:/home/me/papers", "only under this folder (in: works too)"),
    ("lang:de  lang:fr,it", "documents in this language (as detected: two-letter codes)"),
    ("after:2024-01-01  before:7d", "modified on or after / before: a date, or 30d, 2w, 6m, 1y ago; since: until:"),
)


@dataclass(frozen=True)
class ParsedQuery:
    groups: tuple[tuple[str, ...], ...] = ()  # each group: words that may stand for each other (OR)
    phrases: tuple[tuple[str, ...], ...] = ()
    excluded_words: tuple[str, ...] = ()
    excluded_phrases: tuple[tuple[str, ...], ...] = ()
    # (at most this many other words between them, the words): each set close together, any order
    near: tuple[tuple[int, tuple[str, ...]], ...] = ()
    filters: Filters = field(default_factory=Filters)
    text: str = ""  # the free text, operators removed: what the vector lane embeds
    # a pasted paragraph past PLAIN_TEXT_WORDS whose quotes, NEAR, OR or minus signs were read as
    # words: each face says so (never silently loosened)
    read_as_text: bool = False

    @property
    def has_terms(self) -> bool:
        return bool(self.groups or self.phrases or self.near)

    @property
    def has_constraints(self) -> bool:
        """Phrases, proximity or exclusions: what every lane must obey, not only the keyword lane."""
        return bool(self.phrases or self.near or self.excluded_words or self.excluded_phrases)

    def with_filters(self, extra: Filters) -> ParsedQuery:
        return replace(self, filters=self.filters.merged(extra))


def _joined_near(
    near: list[tuple[int, tuple[str, ...]]], groups: list[list[str]], window: int, word: str, chained: bool
) -> list[tuple[int, tuple[str, ...]]]:
    """`a NEAR b`: the word before NEAR and the word after it become one proximity set;
    `a NEAR b NEAR c` is one set of three (within the widest of its windows)."""
    if chained:
        last_window, words = near[-1]
        return [*near[:-1], (max(last_window, window), (*words, word))]
    return [*near, (window, (groups.pop()[0], word))]


READ_AS_TEXT = (
    f"read as plain text (more than {PLAIN_TEXT_WORDS} words): its quotes, NEAR and minus signs are words here; "
    "quote only the phrase to search for it exactly"
)


def parse_query(query: str) -> ParsedQuery:  # noqa: C901, PLR0915 - one branch per piece of query syntax
    query = query[:MAX_QUERY_CHARS]  # what every face takes (service.py refuses longer with a reason)
    groups: list[list[str]] = []
    phrases: list[tuple[str, ...]] = []
    excluded_words: list[str] = []
    excluded_phrases: list[tuple[str, ...]] = []
    filters: dict[str, list[Any]] = {row.field: [] for row in FILTERS}
    text_parts: list[str] = []
    near: list[tuple[int, tuple[str, ...]]] = []
    join_next = False
    near_next: int | None = None  # the window of a NEAR just read, waiting for its next word
    chained = False  # the last item read was a NEAR set: a NEAR after it adds to that set
    for match in _ITEM.finditer(query):
        negated, key, quoted, slop, bare = (match.group(i) for i in range(1, 6))
        key_l = key.lower() if key else None
        if key_l in BY_KEY:
            row = BY_KEY[key_l]
            filters[row.field] += row.values((quoted if quoted is not None else (bare or "")).strip())
            continue
        if key:  # "word:" that is no filter (a URL, "note:"): plain text
            bare, quoted = f"{key}:{quoted if quoted is not None else bare or ''}", None
        if quoted is not None:
            words = tuple(quoted.split())
            if not words:
                continue
            if negated:
                excluded_phrases.append(words)
            elif slop is not None and len(words) > 1:
                near.append((int(slop), words))
                text_parts.append(quoted)
            elif len(words) == 1:
                groups.append([words[0]])
                text_parts.append(words[0])
            else:
                phrases.append(words)
                text_parts.append(quoted)
            join_next = chained = False
            continue
        word = bare or ""
        if word in ("OR", "|") and groups:
            join_next = True
            continue
        proximity = _NEAR.fullmatch(word)
        if proximity and near_next is None and (chained or (groups and len(groups[-1]) == 1)):
            near_next = int(proximity.group(1) or NEAR_WORDS)
            continue
        if near_next is not None and not negated and any(c.isalnum() for c in word):
            near = _joined_near(near, groups, near_next, word, chained)
            text_parts.append(word)
            near_next, chained = None, True
            continue
        chained = False
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
    if near_next is not None:  # "NEAR" at the end: a plain word after all
        groups.append(["NEAR"])
        text_parts.append("NEAR")
    as_text = len(groups) > PLAIN_TEXT_WORDS
    if as_text:
        # A pasted paragraph is text, not syntax: its quotes, dashes and ORs are prose. Its
        # unquoted words decide it: a quoted phrase of any length stays a phrase.
        as_text = bool(phrases or excluded_words or excluded_phrases or near)
        groups += [[w] for p in phrases for w in p] + [[w] for w in excluded_words]
        groups += [[w] for p in excluded_phrases for w in p]
        groups += [[w] for _, words in near for w in words]
        phrases, excluded_words, excluded_phrases, near = [], [], [], []
    return ParsedQuery(
        groups=tuple(tuple(g) for g in groups),
        phrases=tuple(phrases),
        near=tuple(near),
        excluded_words=tuple(excluded_words),
        excluded_phrases=tuple(excluded_phrases),
        filters=filters_of(filters),
        text=" ".join(text_parts),
        read_as_text=as_text,
    )


def symbol_query(text: str) -> str:
    """The query with its first plain word asking for a definition so named (`sym:`); a query
    that already has a filter of its own is left as it is."""
    words = text.split()
    if not words or "sym:" in text or "symbol:" in text:
        return text
    at = next((i for i, w in enumerate(words) if ":" not in w and not w.startswith(("-", '"'))), None)
    if at is None:
        return text
    words[at] = f"sym:{words[at]}"
    return " ".join(words)
