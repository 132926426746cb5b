"""How results and explanations read, for every face alike: the CLI paints the pieces with
terminal colours, the GUI with HTML. Pure functions; no face-specific markup here."""

from __future__ import annotations

import re
from collections.abc import Sequence

from findling.records import Highlight, QueryExplain, ResultExplain
from findling.text.analyzer import is_stopword

# The score is a calibrated chance of relevance (`findling eval --calibration`): 0.2 on a
# result that leads both lanes is a good answer, yet reads as "20 %". Words say it as meant.
_MATCH_WORDS = ((0.5, "strong match"), (0.2, "good match"), (0.0, "fair match"))


def match_word(score: float, weak: bool = False) -> str:
    """How well a result matches, in words: strong, good, fair, or weak (shown only because
    nothing scored well)."""
    if weak:
        return "weak match"
    return next(word for floor, word in _MATCH_WORDS if score >= floor)


def dropped_words(query: str) -> list[str]:
    """The query's words the keyword lane does not require: function words, when it has others."""
    words = re.findall(r"\w+", query)
    dropped = [w for w in words if is_stopword(w)]
    return dropped if len(dropped) < len(words) else []


def time_left(done: int, total: int, elapsed_s: float) -> str:
    """"about 3 min left" from the pace so far; "" until the pace is known."""
    if done <= 0 or total <= done or elapsed_s < 2.0:
        return ""
    seconds = elapsed_s / done * (total - done)
    if seconds < 60:
        return "less than a minute left"
    if seconds < 3600:
        return f"about {round(seconds / 60)} min left"
    return f"about {seconds / 3600:.1f} h left"


_CLI_ADVICE = re.compile(r":? ?findling models pull \S+")


def window_advice(text: str) -> str:
    """A message written for the terminal, for the window: its buttons instead of commands."""
    return _CLI_ADVICE.sub(" (File → Models… downloads or imports it)", text)


def highlight_pieces(text: str, highlights: Sequence[Highlight]) -> list[tuple[str, bool]]:
    """`text` cut into (piece, is_match) in order; overlapping highlights are merged away."""
    pieces: list[tuple[str, bool]] = []
    pos = 0
    for h in sorted(highlights, key=lambda h: h.start):
        if h.start < pos:
            continue
        if h.start > pos:
            pieces.append((text[pos:h.start], False))
        pieces.append((text[h.start:h.end], True))
        pos = h.end
    if pos < len(text):
        pieces.append((text[pos:], False))
    return pieces


def explain_lines(explain: QueryExplain) -> list[str]:
    """The query's story in lines: candidates and time, each stage, what expansion added."""
    lines = [f"{explain.candidates} candidates · total {explain.timings_ms.get('total', 0):.0f} ms"]
    for stage in explain.stages:
        text = f"{stage.name}: {stage.status}"
        if stage.reason:
            text += f" ({stage.reason})"
        if stage.ms:
            text += f" {stage.ms:.0f} ms"
        if stage.detail:
            text += "  " + ", ".join(f"{k}={v}" for k, v in stage.detail.items())
        lines.append(text)
    if explain.expansion:
        lines += [f"lexical: {t}" for t in explain.expansion.lexical]
        lines += [f"semantic: {t}" for t in explain.expansion.semantic]
        if explain.expansion.hyde:
            lines.append(f"hyde: {explain.expansion.hyde}")
    return lines


STAGE_LABELS = {
    "strong_signal": "quick keyword check", "expansion": "query expansion", "lanes": "keyword and meaning search",
    "fusion": "combining the lists", "rerank": "reranking", "blend": "blending",
}


_SKIP_REASONS = {
    "expansion off": "query expansion is off",
    "no terms": "the query has no words",
    "skipped_strong": "not needed: a keyword match stood out",
    "reranking is off": "reranking is off",
    "no rerank scores": "nothing was reranked",
}


def stage_timeline(explain: QueryExplain) -> list[tuple[str, float, str]]:
    """Each stage as (plain name, milliseconds, why it was skipped or ""), in order."""
    return [(STAGE_LABELS.get(s.name, s.name), s.ms if s.status == "ran" else 0.0,
             "" if s.status == "ran" else window_advice(_SKIP_REASONS.get(s.reason, s.reason or "skipped")))
            for s in explain.stages]


def _closeness(cosine: float) -> str:
    return "close in meaning" if cosine >= 0.5 else "somewhat related" if cosine >= 0.3 else "not close in meaning"


def result_sentence(result: ResultExplain, rank: int, dropped: Sequence[str] = ()) -> str:
    """One result's story in one sentence: `Matched 100% of the query's words (keyword #1);
    close in meaning (semantic #3, similarity 0.62) → #1, strong match (0.71)`. `dropped`: the
    query's words left out as too common (dropped_words), named so "100 %" tells no lie."""
    def best_rank(lane: str) -> int | None:
        ranks = [s.rank for s in result.lists if s.lane == lane]
        return min(ranks) if ranks else None

    ev = result.evidence
    parts = []
    keyword, semantic = best_rank("bm25"), best_rank("vector")
    if ev.coverage is not None:
        words = "none of the query's words" if ev.coverage <= 0 else f"{ev.coverage:.0%} of the query's words"
        ignored = ", ".join(f"“{w}”" for w in dropped)
        notes = [f"keyword #{keyword}"] if keyword else []
        if ignored:
            notes.append(f"{ignored} left out as too common")
        parts.append(f"matched {words}" + (f" ({'; '.join(notes)})" if notes else ""))
    if ev.cosine is not None:
        where = f"semantic #{semantic}, " if semantic else ""
        parts.append(f"{_closeness(ev.cosine)} ({where}similarity {ev.cosine:.2f})")
    text = "; ".join(parts) or "found"
    tail = f" → #{rank}, {match_word(result.final)} ({result.final:.2f})"
    if result.rerank is not None:
        tail = f"; the reranker rated it {result.rerank:.2f} → #{rank}, {match_word(result.final)} ({result.final:.2f})"
    return f"{text[0].upper()}{text[1:]}{tail}"


def list_label(list_name: str) -> str:
    """A ranked list's name as a person reads it: `bm25 lex 2` → `keywords: variant 2`."""
    lane, _, which = list_name.partition(" ")
    kind = {"bm25": "keywords", "vector": "meaning"}.get(lane, lane)
    if which == "original":
        return f"{kind}: your query"
    if which == "hyde":
        return f"{kind}: an imagined answer"
    number = which.split(" ")[-1]
    return f"{kind}: variant {number}" if number.isdigit() else f"{kind}: {which}"
