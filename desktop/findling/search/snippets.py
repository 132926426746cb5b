"""Pick the passage of a document that best shows why it matched, with the matched
words' positions for highlighting."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from findling.records import Highlight
from findling.text.analyzer import WORD_CONTINUES, continues_word, is_unspaced, token_at

_CONTEXT_BEFORE = 60


@dataclass(frozen=True)
class Snippet:
    text: str
    highlights: tuple[Highlight, ...]
    chunk_start: int | None  # the chunk's span in the document, for scrolling a preview
    chunk_end: int | None
    at: int = 0  # where in the document the snippet's first match (else its text) begins: its line and page


@lru_cache(maxsize=64)  # one pattern serves a query's every result
def _candidates(terms: frozenset[str]) -> re.Pattern[str]:
    """Where a term may start: a stem is nearly always a prefix of its words once its last
    letter is dropped (happy -> happi). Candidates are then checked by real analysis."""
    prefixes = {t[:-1] if len(t) > 3 else t for t in terms if not is_unspaced(t)}
    alternatives = "|".join(re.escape(p) for p in sorted(prefixes, key=len, reverse=True))
    # Bigrams of unspaced scripts start anywhere in their run: no word-start condition.
    inside_runs = "|".join(re.escape(t) for t in sorted((t for t in terms if is_unspaced(t)), key=len, reverse=True))
    pattern = "|".join(
        p for p in (alternatives and rf"(?<![^\W_])(?:{alternatives})", inside_runs and rf"(?=(?:{inside_runs}))") if p
    )
    return re.compile(pattern or r"(?!)", re.IGNORECASE)


# a letter that folds, or a mark or soft hyphen inside a word (`nai` U+0308 `ve`, `data&shy;base`)
_NON_ASCII_LETTER = re.compile(rf"[^\W\x00-\x7f]|[{WORD_CONTINUES}]")
_WORD_REST = re.compile(rf"(?:\w|[{WORD_CONTINUES}])*")


def _prefixes(terms: frozenset[str]) -> tuple[str, ...] | None:
    """_candidates' prefixes, when every term has one (no unspaced script)."""
    if any(is_unspaced(t) for t in terms):
        return None
    return tuple(sorted({t[:-1] if len(t) > 3 else t for t in terms}))


def _starts(text: str, terms: frozenset[str], pattern: re.Pattern[str]) -> list[int]:
    """Where a query term may start: `pattern`'s matches, found by str.find on the lowered
    text where its length is the text's (a search of 20 documents' text spent 150 ms in
    the pattern), plus the start of every word with a non-ASCII letter (which folds:
    `café` matches `cafe`)."""
    prefixes = _prefixes(terms)
    if prefixes is None or len(lowered := text.lower()) != len(text):  # lowering moved the offsets
        found = {m.start() for m in pattern.finditer(text)}
    else:
        found = set()
        for prefix in prefixes:
            at = lowered.find(prefix)
            while at >= 0:
                if at == 0 or not lowered[at - 1].isalnum():
                    found.add(at)
                at = lowered.find(prefix, at + 1)
    if not text.isascii():
        word_end = -1
        for letter in _NON_ASCII_LETTER.finditer(text):
            at = letter.start()
            if at < word_end:
                continue  # another letter of a word already taken
            while at > 0 and continues_word(text[at - 1]):
                at -= 1
            found.add(at)
            rest = _WORD_REST.match(text, letter.end())
            word_end = rest.end() if rest else letter.end()
    return sorted(found)


TermHit = tuple[int, int, str, bool]  # (start, end, term, whether the word is the term, not an identifier holding it)


def _hits(text: str, terms: frozenset[str], language: str, pattern: re.Pattern[str]) -> list[TermHit]:
    """Each word in `text` that indexes under a query term. Only the places a term can start
    are analysed (_starts), never every word of the chunk."""
    starts = _starts(text, terms, pattern)
    found: list[TermHit] = []
    last_end = -1
    for pos in starts:
        if pos < last_end:
            continue
        token = token_at(text, pos, language)
        if token is None:
            continue
        hit = token.term if token.term in terms else next((p for p in token.parts if p in terms), None)
        if hit is not None and len(hit) < token.end - token.start and is_unspaced(hit):
            token_end = token.start + len(hit)  # one character of a bigram: light that character only
        else:
            token_end = token.end
        # bigrams overlap: the next one starts one character on, so it is read too
        last_end = token.start + 1 if is_unspaced(token.term) else token.end
        if hit is None:
            continue
        if found and token.start < found[-1][1]:
            if is_unspaced(hit):
                found[-1] = (found[-1][0], max(found[-1][1], token_end), found[-1][2], True)  # 北京 + 京大 -> 北京大
            continue
        found.append((token.start, token_end, hit, hit == token.term))
    return found


_FLATTEN = str.maketrans("\n\r\t\f\v", "     ")


def _flat(text: str) -> str:
    """Line breaks and tabs as spaces, one for one, so offsets stay valid."""
    return text.translate(_FLATTEN)


# A Markdown heading's marks at a line's start (`## Description`): markup, not words to read
_HEADING_MARKS = re.compile(r"(?m)^[ \t]*(#{1,6}[ \t]+)")


def heading_marks(text: str) -> list[tuple[int, int]]:
    """Where the Markdown heading marks at lines' starts are (the `## ` of `## Description`): the
    readers of Word, OpenDocument, web pages and e-mail write headings so, for passages to break at."""
    return [m.span(1) for m in _HEADING_MARKS.finditer(text)]


# A Markdown table's rule row (`|---|:--:|`) and the pipes that open and close its rows
_TABLE_RULE = re.compile(r"(?m)^[ \t]*\|?(?:[ \t]*:?-{3,}:?[ \t]*\|)+[ \t]*:?-*:?[ \t]*$\n?")
_TABLE_ROW = re.compile(r"(?m)^[ \t]*\|.*$")
_ROW_OPEN = re.compile(r"(?m)^[ \t]*(\|[ \t]*)(?=\S)")


def table_marks(text: str) -> list[tuple[int, int]]:
    """Where a Markdown table's markup is that a snippet leaves out: its rule rows, and the pipe
    opening each row (`| Rent | 1,150 |` then reads `Rent · 1,150 ·`, rows one after another)."""
    rules = [m.span() for m in _TABLE_RULE.finditer(text)]

    def in_rule(at: int) -> bool:
        return any(a <= at < b for a, b in rules)

    pipes = [m.span(1) for m in _ROW_OPEN.finditer(text) if not in_rule(m.start(1))]
    return sorted(rules + pipes)


def table_pipes(text: str) -> list[int]:
    """Where the pipes between a Markdown table row's cells (and closing it) are: rows begin with
    one; a pipe in a line of prose (`ls | wc`) is left alone."""
    found = []
    for row in _TABLE_ROW.finditer(text):
        first = row.group().index("|")
        found += [row.start() + i for i, c in enumerate(row.group()) if c == "|" and i > first]
    return found


def without_spans(text: str, cuts: Sequence[tuple[int, int]]) -> tuple[str, Callable[[int], int]]:
    """`text` with the spans `cuts` (in order, apart) taken out, and where each of its offsets went."""
    if not cuts:
        return text, lambda at: at
    kept, last = [], 0
    removed = [0]  # removed[i]: characters taken out by the first i cuts
    for a, b in cuts:
        kept.append(text[last:a])
        removed.append(removed[-1] + b - a)
        last = b
    kept.append(text[last:])
    starts = [a for a, _ in cuts]

    def moved(at: int) -> int:
        k = bisect_left(starts, at)  # the cuts that begin before `at`
        if k == 0:
            return at
        a, b = cuts[k - 1]
        return at - removed[k - 1] - (min(b, at) - a)

    return "".join(kept), moved


def _without_marks(
    raw: str, shown_from: int, text: str, highlights: Sequence[Highlight], body_end: int
) -> tuple[str, tuple[Highlight, ...]]:
    """`text` (a snippet showing `raw` one for one from raw's character `shown_from` on, up to
    its own character `body_end`) and its highlights, with the heading marks of raw's lines
    taken out."""
    cuts: list[tuple[int, int]] = []
    for start, end in sorted(heading_marks(raw) + table_marks(raw)):
        a, b = max(start - shown_from, cuts[-1][1] if cuts else 0), min(end - shown_from, body_end)
        if a >= 0 and b > a:
            cuts.append((a, b))
    shown, moved = without_spans(text, cuts)
    # a table's other pipes read as separators (one character for one: the highlights stay)
    letters = list(shown)
    for at in table_pipes(raw):
        place = moved(at - shown_from)
        if 0 <= at - shown_from < body_end and place < len(letters) and letters[place] == "|":
            letters[place] = "·"
    return "".join(letters), tuple(Highlight(moved(h.start), moved(h.end)) for h in highlights)


@lru_cache(maxsize=4096)  # a result's chunks are read for the keyword lane's nearness, then for its snippet
def term_hits(text: str, terms: frozenset[str], language: str = "en") -> tuple[TermHit, ...]:
    """Each word in `text` that indexes under one of `terms`: (start, end, term, whole)."""
    return tuple(_hits(text, terms, language, _candidates(terms))) if terms else ()


def highlight_spans(text: str, terms: Iterable[str], language: str = "en", limit: int = 2_000_000) -> list[Highlight]:
    """Where the query's terms occur in a whole text (the preview), by the same analysis
    as snippets and search: `running` lights up for `run`, `café` for `cafe`."""
    term_set = frozenset(terms)
    if not term_set:
        return []
    return [Highlight(s, e) for s, e, _, _ in _hits(text[:limit], term_set, language, _candidates(term_set))]


def make_snippet(
    chunks: Sequence[tuple[int, int, str]],
    terms: Iterable[str],
    language: str = "en",
    width: int = 240,
    heading_marks: bool = True,
) -> Snippet:
    """`chunks` are (start_char, end_char, text) in document order. `heading_marks`: take out the
    Markdown heading marks at lines' starts (not in source code, where `# ` begins a comment)."""
    if not chunks:
        return Snippet("", (), None, None)
    term_set = frozenset(terms)
    best: tuple[tuple[int, int, int, int], int, list[TermHit]] | None = None
    if term_set:
        for index, (_, _, text) in enumerate(chunks):
            hits = list(term_hits(text, term_set, language))
            if not hits:
                continue
            key = (len({h[2] for h in hits}), _words(hits), len(hits), -index)
            if best is None or key > best[0]:
                best = (key, index, hits)
    if best is None:
        start, end, text = chunks[0]
        cut = _cut(text, 0, width)
        raw = text[cut[0] : cut[1]]
        readable, _ = _without_marks(raw, 0, _flat(raw), (), len(raw)) if heading_marks else (_flat(raw), ())
        return Snippet(readable + ("…" if cut[1] < len(text) else ""), (), start, end, start + cut[0])
    _, index, hits = best
    start, end, text = chunks[index]
    window_start = _best_window(hits, width)
    lo, hi = _cut(text, max(0, window_start - _CONTEXT_BEFORE), width)
    prefix = "…" if lo > 0 else ""
    suffix = "…" if hi < len(text) else ""
    body = _flat(text[lo:hi]).strip()
    lead = len(_flat(text[lo:hi])) - len(_flat(text[lo:hi]).lstrip())
    offset = len(prefix) - lo - lead
    shown = [(h[0], h[1]) for h in hits if h[0] >= lo + lead and h[1] <= lo + lead + len(body)]
    highlights = tuple(Highlight(h_start + offset, h_end + offset) for h_start, h_end in shown)
    clean = prefix + body + suffix
    if heading_marks:
        clean, highlights = _without_marks(text[lo:hi], lead - len(prefix), clean, highlights, len(prefix) + len(body))
    return Snippet(clean, highlights, start, end, start + (shown[0][0] if shown else lo + lead))


def _words(hits: Sequence[TermHit]) -> int:
    """How many hits are the query's words as words: "what is RCU" asks for a passage about
    RCU, not the list of rcu_* functions that names it most (the Linux kernel's whatisRCU)."""
    return sum(h[3] for h in hits)


def _best_window(hits: list[TermHit], width: int) -> int:
    """Start of the hit that opens the window with the most distinct terms, then words."""
    best_start, best_key = hits[0][0], (-1, -1, -1)
    for i, (start, _, _, _) in enumerate(hits):
        inside = [h for h in hits[i:] if h[1] <= start + width - _CONTEXT_BEFORE]
        key = (len({h[2] for h in inside}), _words(inside), len(inside))
        if key > best_key:
            best_start, best_key = start, key
    return best_start


def _cut(text: str, start: int, width: int) -> tuple[int, int]:
    """A window of about `width` characters that starts and ends between words."""
    if start > 0:
        space = text.find(" ", start, start + 30)
        if space != -1:
            start = space + 1
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start + width // 2, end)
        if space != -1:
            end = space
    return start, end
