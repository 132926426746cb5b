"""Sentences of generated or indexed text, and the [n] citations a sentence carries."""

from __future__ import annotations

import re
from collections.abc import Callable

# a citation as models write it: [1], [1, 3], [1][2], [1; 2], [Passage 2]
_CITATION = re.compile(r"\s*\[(?:passages?\s*)?(\d{1,2}(?:\s*[,;]\s*(?:passages?\s*)?\d{1,2})*)\]", re.IGNORECASE)
# a sentence ends at . ! ? (and the citations after it), before a space (a line break too: text
# is hard-wrapped) and what starts a sentence
_END = re.compile(r"(?<=[.!?])((?:[ \t]*\[[^\]\n]{1,24}\])*)\s+(?=[\"'(\[]?[A-Z0-9\u00C0-\u024F])")
# a block ends at a blank line, and before a list item or a heading: what ends it ends a sentence
_BREAK = re.compile(r"\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-*\u2022#]+|\d{1,2}[.)])[ \t])")
# a word ending in a period that does not end a sentence
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|Mr|Mrs|Ms|Dr|St|No|Fig|approx|incl|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)"
    r"|\b[A-Z])\.$",
    re.IGNORECASE,
)
_MARKER = re.compile(r"[ \t]*(?:[-*\u2022#]+|\d{1,2}[.)])[ \t]+")


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Where each sentence of `text` lies: (start, end), in order, without the spaces around it
    or a list item's bullet or a heading's marks. A sentence ends at . ! ? before what starts
    one (not after an abbreviation or an initial: Dr., e.g.), and at a blank line, a list item
    or a heading; a single line break inside a paragraph does not end one."""
    spans: list[tuple[int, int]] = []
    blocks: list[tuple[int, int]] = []
    at = 0
    for brk in _BREAK.finditer(text):
        blocks.append((at, brk.start()))
        at = brk.end()
    blocks.append((at, len(text)))
    for block_start, block_end in blocks:
        start = block_start
        for found in _END.finditer(text, block_start, block_end):
            cut = found.start() + len(found.group(1))
            if _ABBREVIATION.search(text[start:cut].rstrip()):
                continue
            _add(text, start, cut, spans)
            start = found.end()
        _add(text, start, block_end, spans)
    return spans


def _add(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> None:
    marker = _MARKER.match(text, start, end)
    if marker:
        start = marker.end()
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if start < end:
        spans.append((start, end))


def split_sentences(text: str) -> list[str]:
    """The sentences of `text` (sentence_spans), each on one line, with the citations written
    after its end."""
    return [" ".join(text[a:b].split()) for a, b in sentence_spans(text)]


def citations(sentence: str) -> tuple[str, tuple[int, ...]]:
    """The sentence without its [n] markers, and the numbers it cites, in order, once each."""
    numbers: list[int] = []
    for match in _CITATION.finditer(sentence):
        for n in re.findall(r"\d+", match.group(1)):
            if int(n) not in numbers:
                numbers.append(int(n))
    clean = _CITATION.sub("", sentence).strip()
    clean = re.sub(r"\s+([.,;:!?])", r"\1", clean)
    return clean, tuple(numbers)


def with_citations(text: str, cites: tuple[int, ...], mark: Callable[[int], str] = str) -> str:
    """A sentence with its citations before its final stop: "… 320 euros a month [1]."; `mark`
    writes each number (the window makes it a link)."""
    if not cites:
        return text
    marks = "[" + ", ".join(mark(n) for n in cites) + "]"
    body = text.rstrip()
    if body[-1:] in ".!?":
        return f"{body[:-1]} {marks}{body[-1]}"
    return f"{body} {marks}"
