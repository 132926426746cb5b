"""The passage of a result an answer is written from: the sentences of its best chunk that speak
most of the question, with their neighbours, within a budget of characters (a small model reads
a few hundred tokens of each result, not its whole chunk)."""

from __future__ import annotations

from findling.answer.sentences import sentence_spans
from findling.answer.support import overlap
from findling.text.analyzer import DEFAULT_LANGUAGE


def passage_span(
    text: str, start: int, end: int, question: str, budget: int, language: str = DEFAULT_LANGUAGE
) -> tuple[int, int]:
    """Where in `text` the passage lies: around [start, end) (the part of the result that
    matched: a window of its best chunk), within two budgets either side, the sentence holding
    most of the question's words (of equals, the nearest), then its neighbours, the following
    one first, while the passage stays within `budget` characters. A sentence longer than the
    budget is cut at a space."""
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    lo, hi = max(0, start - 2 * budget), min(len(text), end + 2 * budget)
    if lo > 0:  # from a paragraph's start, where one is near: no sentence cut in two
        para = text.rfind("\n\n", max(0, lo - budget), lo)
        lo = para + 2 if para >= 0 else lo
    if hi < len(text):
        para = text.find("\n\n", hi, hi + budget)
        hi = para if para >= 0 else hi
    spans = [(lo + a, lo + b) for a, b in sentence_spans(text[lo:hi])]
    if not spans:
        return start, min(len(text), start + budget)
    scores = [overlap(question, text[a:b], language) for a, b in spans]

    def distance(i: int) -> int:
        a, b = spans[i]
        return 0 if a < end and b > start else min(abs(a - end), abs(b - start))

    best = max(range(len(spans)), key=lambda i: (scores[i], -distance(i)))
    first = last = best
    if spans[best][1] - spans[best][0] > budget:
        a = spans[best][0]
        cut = text.rfind(" ", a + budget // 2, a + budget)
        return a, cut if cut > a else a + budget
    while True:
        grown = False
        for candidate in (last + 1, first - 1):  # after the best sentence first: it tends to go on
            if 0 <= candidate < len(spans) and not first <= candidate <= last:
                lo, hi = min(first, candidate), max(last, candidate)
                if spans[hi][1] - spans[lo][0] <= budget:
                    first, last, grown = lo, hi, True
        if not grown:
            break
    return spans[first][0], spans[last][1]


def line_of(text: str, at: int) -> int:
    """The 1-based line of a character of `text`."""
    return text.count("\n", 0, max(0, at)) + 1
