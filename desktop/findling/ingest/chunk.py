"""Split a document into overlapping chunks that break at headings, then paragraphs,
then sentences, keeping each chunk's character span and heading path."""

from __future__ import annotations

import re
from collections.abc import Sequence

from findling.records import ChunkSpan, CodeSymbol

CHARS_PER_TOKEN = 4  # English prose averages about four characters a token
# Linear: the heading's trailing "#"s and spaces are stripped in Python, not by a lazy
# group followed by an optional run (quadratic on a line of spaces).
_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+([^\n]*)", re.MULTILINE)
_RST_HEADING = re.compile(r"^([^\n]+)\n([=\-~^\"'`#*+<>:.])\2{2,}[ \t]*$", re.MULTILINE)
_CODE_DEF = re.compile(r"\n\n(?=\S)")
_PARAGRAPH = re.compile(r"\n[ \t]*\n")
_SENTENCE = re.compile(r"[.!?\u3002\uff01\uff1f][\"')\]]?\s")
_NEWLINE = re.compile(r"\n")
_SPACE = re.compile(r"\s")


def headings(text: str, kind: str) -> list[tuple[int, int, str]]:
    """(position, level, title) of each heading, in order."""
    found: list[tuple[int, int, str]] = []
    if kind in (
        "markdown",
        "html",
        "docx",
        "epub",
        "xlsx",
        "pptx",
        "odt",
        "ods",
        "odp",
        "notebook",
        "eml",
        "mbox",
        "zip",
        "tar",
    ):
        for m in _MD_HEADING.finditer(text):
            title = m.group(2).rstrip("# \t").strip()
            if title:
                found.append((m.start(), len(m.group(1)), title))
    elif kind == "rst":
        levels: dict[str, int] = {}
        for m in _RST_HEADING.finditer(text):
            title = m.group(1).strip()
            if not title or len(m.group(0).split("\n")[1].strip()) < len(title):
                continue
            level = levels.setdefault(m.group(2), len(levels) + 1)
            found.append((m.start(), level, title))
    return found


def _best_break(text: str, start: int, hi: int, kind: str, heading_starts: list[int]) -> int:
    """The strongest boundary before `hi`; ties go to the latest, so chunks stay full.
    A heading anywhere past the first eighth wins; weaker boundaries only in the second half."""
    for pos in reversed(heading_starts):
        if start + (hi - start) // 8 < pos <= hi:
            return pos
    lo = start + (hi - start) // 2
    window = text[lo:hi]
    patterns = (_CODE_DEF, _PARAGRAPH) if kind == "code" else (_PARAGRAPH,)
    for pattern in (*patterns, _SENTENCE, _NEWLINE, _SPACE):
        last = None
        for last in pattern.finditer(window):  # noqa: B007 - the loop exists to keep the last match
            pass
        if last is not None:
            return lo + last.end()
    return hi


def _heading_path(stack: list[tuple[int, str]]) -> str:
    return " > ".join(title for _, title in stack)


def chunk_text(text: str, kind: str = "text", chunk_tokens: int = 800, overlap: float = 0.15) -> list[ChunkSpan]:
    if not text.strip():
        return []
    target = max(200, chunk_tokens * CHARS_PER_TOKEN)
    overlap_chars = int(target * overlap)
    marks = headings(text, kind)
    heading_starts = [pos for pos, _, _ in marks]
    spans: list[ChunkSpan] = []
    stack: list[tuple[int, str]] = []
    mark_index = 0
    start = 0
    n = len(text)
    while start < n:
        while mark_index < len(marks) and marks[mark_index][0] <= start:
            _, level, title = marks[mark_index]
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, title))
            mark_index += 1
        if n - start <= target:
            end = n
        else:
            end = _best_break(text, start, start + target, kind, heading_starts)
        spans.append(ChunkSpan(start, end, _heading_path(stack)))
        if end >= n:
            break
        # A chunk that starts at a heading needs no overlap: the heading is the context.
        if end in heading_starts:
            nxt = end
        else:
            nxt = max(start + 1, end - overlap_chars)
            boundary = _SENTENCE.search(text, nxt, end) or _SPACE.search(text, nxt, end)
            if boundary is not None:
                nxt = boundary.end()
        while nxt < n and text[nxt].isspace():
            nxt += 1
        start = nxt
    return spans


_SMALL_GAP = 200  # characters of code between definitions (imports, a closing brace) kept with a neighbour


def code_spans(
    text: str, symbols: Sequence[CodeSymbol], chunk_tokens: int = 800, overlap: float = 0.15
) -> list[ChunkSpan]:
    """Chunks of a source file that follow its definitions: each function, method or class that
    fits is one chunk headed by its qualified name; a class too large is cut at its methods (its
    head and the code between them chunks of their own), a function too large into windows
    that keep its name. Code outside every definition (imports, module-level statements) is
    windowed as before. The chunks cover all of the text, in order, without overlap."""
    target = max(200, chunk_tokens * CHARS_PER_TOKEN)
    children: dict[int, list[int]] = {}
    tops: list[int] = []
    open_: list[int] = []  # the definitions that contain the current one, innermost last
    for i, sym in enumerate(symbols):
        while open_ and symbols[open_[-1]].end < sym.end:
            open_.pop()
        (children.setdefault(open_[-1], []) if open_ else tops).append(i)
        open_.append(i)
    pieces: list[tuple[int, int, str, bool]] = []  # (start, end, heading, is a definition)

    def add_range(lo: int, hi: int, heading: str, members: list[int]) -> None:
        pos = lo
        for i in members:
            sym = symbols[i]
            start, end = max(sym.start, pos), min(sym.end, hi)
            if end <= start:
                continue
            if start > pos:
                pieces.append((pos, start, heading, False))
            if end - start <= target or not children.get(i):
                pieces.append((start, end, sym.qualname, True))
            else:
                add_range(start, end, sym.qualname, children[i])
            pos = end
        if pos < hi:
            pieces.append((pos, hi, heading, False))

    add_range(0, len(text), "", tops)
    merged = _merge_small_gaps(text, pieces)
    spans: list[ChunkSpan] = []
    for start, end, heading, _definition in merged:
        if end - start <= target:
            spans.append(ChunkSpan(start, end, heading))
            continue
        for part in chunk_text(text[start:end], "code", chunk_tokens, overlap):
            spans.append(ChunkSpan(start + part.start, start + part.end, heading))
    return spans


def _merge_small_gaps(text: str, pieces: list[tuple[int, int, str, bool]]) -> list[tuple[int, int, str, bool]]:
    """Short stretches of code between definitions (blank lines, a closing brace, one import)
    join the piece after them, or the one before at the end: no chunk of a lone `}`."""
    out: list[tuple[int, int, str, bool]] = []
    carry: int | None = None  # start of a small gap waiting for the next piece
    for start, end, heading, definition in pieces:
        if not definition and (end - start <= _SMALL_GAP or not text[start:end].strip()):
            if carry is None:
                carry = start
            continue
        if carry is not None:
            start, carry = carry, None
        out.append((start, end, heading, definition))
    if carry is not None:
        end = pieces[-1][1]
        if out:
            first, _, heading, definition = out[-1]
            out[-1] = (first, end, heading, definition)
        elif text[carry:end].strip():
            out.append((carry, end, "", False))
    return out
