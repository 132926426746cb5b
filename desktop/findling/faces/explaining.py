"""How a search ranked, in words: the explain record as every face tells it (the terminal's
table and lines, the window's Explain tab, its bars and sentences), and how a folder's
self-test weighs words and meaning (search/lane_balance.py). Pure functions; no markup here."""

from __future__ import annotations

from collections.abc import Sequence

from findling.faces.presentation import Face, match_word, said
from findling.faces.timings import loading_text
from findling.pathnames import display_path
from findling.records import Evidence, LaneWeights, QueryExplain, ResultExplain, Weighting
from findling.search.relevance import giant_prior, hub_prior, length_prior, link_prior
from findling.vocabulary import Lane


def weighting_sentence(weighting: Weighting) -> str:
    """How the best result's folder weighs words and meaning, in a sentence: its self-test's
    share, the favoured lane's first."""
    name = display_path(weighting.folder)
    meaning, words = round(weighting.meaning, 2), round(1.0 - weighting.meaning, 2)
    queries = f"from {weighting.queries} self-test queries"
    if meaning > words:
        return f"in {name}, meaning finds more than words: weighted {meaning:.1f} / {words:.1f}, {queries}"
    if words > meaning:
        return f"in {name}, words find more than meaning: weighted {words:.1f} / {meaning:.1f}, {queries}"
    return f"in {name}, neither words nor meaning failed its {weighting.queries} self-test queries: weighted as shipped"


def self_test_line(folder: str, meaning: float, queries: int, seconds: float) -> str:
    """A folder's self-test, as `findling index` reports it when one was made."""
    return f"self-test: {weighting_sentence(Weighting(folder, 'words', meaning, queries))} ({seconds:.0f} s)"


def self_test_status(weights: LaneWeights) -> str:
    """A folder's self-test in `status` and the Folders panel."""
    meaning, words = round(weights.meaning, 2), round(1.0 - weights.meaning, 2)
    kinds = "; ".join(f"{kind} {1 - share:.1f} / {share:.1f}" for kind, share, _ in weights.by_kind)
    if meaning == words:
        return f"self-test: words and meaning weighted as shipped ({weights.queries} queries)"
    favoured = "meaning finds more than words" if meaning > words else "words find more than meaning"
    by_kind = f"; by kind, words / meaning: {kinds}" if kinds else ""
    return f"self-test: {favoured}, words {words:.1f} / meaning {meaning:.1f} ({weights.queries} queries{by_kind})"


def explain_lines(explain: QueryExplain) -> list[str]:
    """The query's story in lines: candidates and time, each stage, what expansion added, how the
    lanes were weighed."""
    lines = [f"{explain.candidates} candidates · total {explain.timings_ms.get('total', 0):.0f} ms"]
    if explain.weighting is not None:
        lines.append(weighting_sentence(explain.weighting))
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
    "strong_signal": "quick keyword check",
    "expansion": "query expansion",
    "lanes": "keyword and meaning search",
    "fusion": "combining the lists",
    "rerank": "reranking",
    "blend": "blending",
}


_SKIP_REASONS = {
    "expansion off": "query expansion is off",
    "no terms": "the query has no words",
    "skipped_strong": "not needed: a keyword match stood out",
    "reranking is off": "reranking is off",
    "no rerank scores": "nothing was reranked",
}


def _lanes_label(mode: str) -> str:
    """The lanes stage as it ran: a lane that was off is not named (explain.mode: 'bm25+vector+...')."""
    ran = set(mode.split("+"))
    if "vector" not in ran:
        return "keyword search"
    return STAGE_LABELS["lanes"] if "bm25" in ran else "meaning search"


def stage_timeline(explain: QueryExplain, face: Face = "window") -> list[tuple[str, float, str]]:
    """Each stage as (plain name, milliseconds, why it was skipped or ""), in order."""
    return [
        (
            _lanes_label(explain.mode) if s.name == "lanes" else STAGE_LABELS.get(s.name, s.name),
            s.ms if s.status == "ran" else 0.0,
            ""
            if s.status == "ran"
            else said(_SKIP_REASONS.get(s.reason, s.reason or "skipped"), s.remedy, s.subject, face),
        )
        for s in explain.stages
    ]


def _closeness(cosine: float) -> str:
    return "close in meaning" if cosine >= 0.5 else "somewhat related" if cosine >= 0.3 else "not close in meaning"


# Below this agreement of the lanes' best ten, the hybrid model weighs closeness in meaning
# clearly more than where they agree (relevance.HYBRID's cosine_gap_agreement): said so.
AGREE_WELL = 0.5


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
    if ev.cosine_assumed and ev.cosine is not None:
        parts.append(f"not embedded yet: its meaning counted as typical of the keyword matches ({ev.cosine:.2f})")
    elif ev.cosine is not None:
        where = f"semantic #{semantic}, " if semantic else ""
        parts.append(f"{_closeness(ev.cosine)} ({where}similarity {ev.cosine:.2f})")
    if ev.agreement is not None and ev.agreement < AGREE_WELL:
        parts.append(
            f"meaning weighed more: {ev.agreement:.0%} of the keyword lane's best (this one aside) are among"
            " the meaning lane's"
        )
    text = "; ".join(parts) or "found"
    tail = f" → #{rank}, {match_word(result.final)} ({result.final:.2f})"
    if result.rerank is not None:
        tail = f"; the reranker rated it {result.rerank:.2f} → #{rank}, {match_word(result.final)} ({result.final:.2f})"
    return f"{text[0].upper()}{text[1:]}{tail}"


def meaning_label(ev: Evidence) -> str:
    """What the evidence's cosine is, in the explain panel's words."""
    return "closeness in meaning (assumed: not embedded yet)" if ev.cosine_assumed else "closeness in meaning"


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


def evidence_measures(ev: Evidence) -> list[tuple[str, float, Lane]]:
    """The measures a result's relevance is made of, as every face labels them: (label, value, the
    lane it comes from), those the result has. The explain table and the window's bars read these."""
    measures: list[tuple[str, float | None, Lane]] = [
        ("words matched (share of the query's weight)", ev.coverage, "bm25"),
        ("keyword strength", ev.saturation, "bm25"),
        (meaning_label(ev), ev.cosine, "vector"),
    ]
    return [(label, value, lane) for label, value, lane in measures if value is not None]


def explain_rows(result: ResultExplain) -> list[tuple[str, str, str, str, str, str]]:
    """(what, rank, raw, normalized, weight, contribution) rows for one result."""
    rows = []
    for x in result.lists:
        rows.append(
            (
                list_label(x.list_name),
                str(x.rank),
                f"{x.raw:.4f}",
                f"{x.normalized:.3f}",
                f"{x.weight:.2f}",
                f"{x.rrf:.4f}",
            )
        )
    rows.append(("bonus for a top rank", "", "", "", "", f"{result.bonus:.4f}"))
    rows.append(("lists combined (rank fusion)", "", "", "", "", f"{result.fused:.4f}"))
    ev = result.evidence
    for name, value, _lane in evidence_measures(ev):
        rows.append((name, "", f"{value:.4f}", "", "", ""))
    if ev.agreement is not None:
        agree = "lanes agree, this one aside (share of their best ten in common)"
        rows.append((agree, "", f"{ev.agreement:.4f}", "", "", ""))
    if ev.link_share is not None and hub_prior(ev.link_share) < 1.0:
        rows.append(
            (
                "share of the page in links and index entries",
                "",
                f"{ev.link_share:.4f}",
                "",
                "",
                f"× {link_prior(ev):.2f}",
            )
        )
        if link_prior(ev) == 1.0:
            # why a page of links is not taken down: the query asks for it by name
            rows.append(("the query names the page (every word in its title)", "", "", "", "", "× 1.00"))
    if ev.length_ratio is not None and giant_prior(ev.length_ratio) < 1.0:
        rows.append(
            ("length, times the index's average", "", f"{ev.length_ratio:.1f}", "", "", f"× {length_prior(ev):.2f}")
        )
    rows.append(("relevance from evidence", str(result.fused_rank), "", "", "", f"{result.relevance:.3f}"))
    if result.rerank is not None:
        rows.append(("reranker", "", f"{result.rerank:.4f}", "", f"{1 - (result.fusion_weight or 0):.2f}", ""))
        rows.append(("blended", "", "", "", f"{result.fusion_weight or 0:.2f} fusion", f"{result.blended or 0:.4f}"))
    rows.append(("final score", "", "", "", "", f"{result.final:.3f}"))
    return rows


def query_summary(explain: QueryExplain) -> str:
    """The query in a line or two: how many candidates, how long, and what expansion added."""
    lines = [
        f"{explain.candidates} candidate"
        + ("" if explain.candidates == 1 else "s")
        + f" in {explain.timings_ms.get('total', 0):.0f} ms"
        + loading_text(explain.timings_ms, of_total=False)
    ]
    if explain.expansion:
        also = [*explain.expansion.lexical, *explain.expansion.semantic]
        if also:
            lines.append("also searched for: " + "; ".join(also))
    if explain.weighting is not None:
        lines.append(weighting_sentence(explain.weighting))
    return "\n".join(lines)


def one_list_summary(count: int, took_ms: float) -> str:
    """The explain panel for a list ranked by one measure with no explain record (More like
    this: closeness in meaning to one document): nothing to tell stage by stage."""
    found = f"{count} result" + ("" if count == 1 else "s")
    return f"{found} in {took_ms:.0f} ms, ranked by how close each is in meaning to the chosen document."


def explain_columns() -> str:
    """The header of the terminal's explain table: one line per result (explain_row)."""
    return (
        f"{'#':>2} {'cover':>5} {'sat':>5} {'cos':>5} {'relev':>5} {'rerank':>6} {'w':>4} {'final':>5}  "
        "lists (rank raw rrf)  title"
    )


def explain_row(rank: int, r: ResultExplain, title: str) -> str:
    """One result's evidence and scores on a line, under explain_columns()."""

    def num(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    ev = r.evidence
    lists = "; ".join(f"{x.list_name} #{x.rank} {x.raw:.3f} {x.rrf:.4f}" for x in r.lists)
    rerank = f"{r.rerank:.3f}" if r.rerank is not None else "-"
    weight = f"{r.fusion_weight:.2f}" if r.fusion_weight is not None else "-"
    return (
        f"{rank:>2} {num(ev.coverage):>5} {num(ev.saturation):>5} "
        f"{('~' if ev.cosine_assumed else '') + num(ev.cosine):>5} {r.relevance:5.2f} "
        f"{rerank:>6} {weight:>4} {r.final:5.2f}  {lists}  {title[:40]}"
    )
