"""How results and explanations read, for every face alike: the CLI paints the pieces with
terminal colours, the GUI with HTML. Pure functions; no face-specific markup here."""

from __future__ import annotations

from collections.abc import Sequence

from findling.records import Evidence, Highlight, QueryExplain


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


def evidence_sentence(evidence: Evidence, relevance: float) -> str:
    """Why a result scores what it does, in words: `Matched 80 % of the query's weight
    (best keyword match); close in meaning (cosine 0.62, best 0.65) → relevance 0.71`."""
    parts = []
    if evidence.coverage is not None:
        if evidence.coverage <= 0:
            parts.append("matched none of the query's words")
        else:
            best = " (the best keyword match)" if (evidence.saturation_share or 0) >= 0.999 else ""
            parts.append(f"matched {evidence.coverage:.0%} of the query's weight in words{best}")
    if evidence.cosine is not None:
        closeness = "close in meaning" if evidence.cosine >= 0.5 else "somewhat related" \
            if evidence.cosine >= 0.3 else "not close in meaning"
        best_cosine = evidence.cosine - (evidence.cosine_gap or 0.0)
        best = ", the closest passage" if (evidence.cosine_gap or 0.0) >= -1e-6 else f", best {best_cosine:.2f}"
        parts.append(f"{closeness} (cosine {evidence.cosine:.2f}{best})")
    if not parts:
        return f"relevance {relevance:.2f}"
    text = "; ".join(parts)
    return f"{text[0].upper()}{text[1:]} → relevance {relevance:.2f}"
