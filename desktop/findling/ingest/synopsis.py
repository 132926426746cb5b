"""A document's first embedding window: what it is about in one model run, so that a whole
disk is searchable by meaning long before every window of every file is embedded.

Prose: its opening, then the headings of its sections. Source code: what it defines, with the
comment that says what each does, after the file's own opening comment (a licence and
copyright block says nothing of the file and is skipped). Pure functions of the text."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A leading comment block that is only a licence or copyright notice: `// SPDX-…`, `/* Copyright … */`,
# `# Licensed under …`. Such blocks open most files of a large tree and tell nothing apart.
_LEGAL = re.compile(r"spdx-license-identifier|copyright|\(c\)|licen[cs]e|all rights reserved", re.IGNORECASE)
_COMMENT_LINE = re.compile(r"^\s*(//|/\*|\*|#|--|;|\.\.\s|%|\*/)")
_MARKUP_LINE = re.compile(r"^\s*(\.\. [\w-]+:|\.\. _|[=\-~^*#+`]{3,}\s*$|:[\w-]+:\s)")
# A page's byline and history: who wrote it, its licence, when it was reviewed or converted.
_BYLINE = re.compile(
    r"^\s*(:[\w ]+:|[-*]\s*(written|updated|converted|reviewed)\b|(last )?reviewed\b|authors?\b|maintainers?\b)"
    r"|<[^>\s]+@[^>\s]+>",
    re.IGNORECASE,
)


def _without_legal_opening(text: str) -> str:
    """The text after its first comment lines, where those are a licence or copyright notice."""
    lines = text.splitlines(keepends=True)
    end = 0
    while end < len(lines) and (_COMMENT_LINE.match(lines[end]) or not lines[end].strip()):
        end += 1
    head = "".join(lines[:end])
    return "".join(lines[end:]) if end and _LEGAL.search(head) else text


def _plain(text: str) -> str:
    """Prose without markup lines (rst targets and directives, heading underlines), bylines and
    licence lines, and with runs of white space as one space: the model reads words, not layout."""
    kept = [
        line
        for line in text.splitlines()
        if not _MARKUP_LINE.match(line) and not _BYLINE.search(line) and not _LEGAL.search(line)
    ]
    return re.sub(r"\s+", " ", " ".join(kept)).strip()


def _cut(text: str, size: int) -> str:
    """At most `size` characters, cut at a space where one is near the end."""
    if len(text) <= size:
        return text
    space = text.rfind(" ", size * 3 // 4, size)
    return text[: space if space > 0 else size]


def prose_synopsis(opening: str, headings: Sequence[str], size: int) -> str:
    """The opening of the text, then its sections' headings, in at most `size` characters; the
    headings get at least a third of the room when there are several."""
    heads: list[str] = []
    for heading in headings:
        name = heading.strip()
        if name and name not in heads:
            heads.append(name)
    plain = _plain(opening)
    if len(heads) < 2:
        return _cut(plain, size)
    sections = "Sections: " + "; ".join(heads)
    room = max(size - min(len(sections), size // 3) - 1, size // 2)
    first = _cut(plain, room)
    return _cut(f"{first}\n{sections}" if first else sections, size)


def code_synopsis(opening: str, symbols: Sequence[tuple[str, str]], size: int) -> str:
    """What a source file defines, `name: what its comment says` for those with one first, then the
    other names, after the file's own opening (licence notices skipped), in at most `size`
    characters. `symbols`: (name, doc) in the order of the file."""
    body = _without_legal_opening(opening)
    lead = _cut(re.sub(r"\s+", " ", body).strip(), size // 3 if symbols else size)
    if not symbols:
        return lead
    seen: set[str] = set()
    described, named = [], []
    for name, doc in symbols:
        if name in seen:
            continue
        seen.add(name)
        if doc.strip():
            described.append(f"{name}: {_cut(doc.strip(), 120)}")
        else:
            named.append(name)
    defines = "; ".join(described + named)
    return _cut(f"{lead}\nDefines {defines}" if lead else f"Defines {defines}", size)
