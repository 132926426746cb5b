"""How results and explanations read, for every face alike: the CLI paints the pieces with
terminal colours, the GUI with HTML. Pure functions; no face-specific markup here."""

from __future__ import annotations

from collections.abc import Sequence

from findling.records import Highlight, QueryExplain


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
