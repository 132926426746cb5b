"""Absolute relevance from evidence: the score a result shows, comparable across queries.

A rank says nothing about whether a result is any good (the first of ten poor matches is
still first); what each lane measured does. For every candidate the pipeline gathers

- coverage:   the share of the query's idf mass the document matched (BM25 lane),
- saturation: its BM25 score over the most any document could score for the query,
- cosine:     its best chunk's cosine similarity to the query (vector lane),
- saturation share and cosine gap: the same two against the query's best document,
- top saturation and top coverage: the query's best keyword match, how much to trust the
  keywords at all (a question whose words every page holds has a weak best match),

and a logistic model turns them into P(relevant). The absolute features say whether a
document is any good (a nonsense query's best match has a low cosine and matches no
word); the relative ones say how it compares with the best this query found. The
coefficients were fitted on tuning sets only (`python -m findling.devtools.fit_scores`):
SciFact train, NFCorpus dev, its paragraph-query dev set and our Python-docs questions
(docs/eval); `findling eval --held-out` checks the hybrid model's ranking with each
collection left out of fitting, on those and four collections never fitted on (pgdocs, the
code set, docstrings to code, kernel headings to sections); `findling eval --calibration`
checks the buckets on the held-out sets. Each
single-lane model's features are monotone in its lane's own score within a query, so keyword
and semantic search keep their lane's order.

Pure functions: the pipeline, the keyword search and the semantic search all score here."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from findling.records import Evidence
from findling.tuning import AGREEMENT_TOP, GIANT_FLOOR, GIANT_FROM, GIANT_TO, HUB_FLOOR, HUB_FROM, HUB_TO, NAMED

T = TypeVar("T")


@dataclass(frozen=True)
class ScoreModel:
    """logit = intercept + Σ coefficient · feature."""

    intercept: float
    coverage: float = 0.0
    saturation: float = 0.0
    cosine: float = 0.0
    saturation_share: float = 0.0
    cosine_gap: float = 0.0
    top_saturation: float = 0.0
    top_coverage: float = 0.0
    cosine_gap_agreement: float = 0.0  # the cosine gap times the lanes' agreement

    def logit(self, evidence: Evidence, meaning_share: float = 0.5) -> float:
        """`meaning_share`: the meaning lane's share of the weight on the document's own evidence
        (a folder's self-test, search/lane_balance.py); at 0.5 the fitted model as it is. The
        query-level terms are the same for every candidate of a query and keep their weight."""
        words = (
            self.coverage * (evidence.coverage or 0.0)
            + self.saturation * (evidence.saturation or 0.0)
            + self.saturation_share * (evidence.saturation_share or 0.0)
        )
        meaning = (
            self.cosine * (evidence.cosine or 0.0)
            + self.cosine_gap * (evidence.cosine_gap or 0.0)
            + self.cosine_gap_agreement * (evidence.cosine_gap or 0.0) * (evidence.agreement or 0.0)
        )
        return (
            self.intercept
            + 2.0 * (1.0 - meaning_share) * words
            + 2.0 * meaning_share * meaning
            + self.top_saturation * (evidence.top_saturation or 0.0)
            + self.top_coverage * (evidence.top_coverage or 0.0)
        )


# Fitted by findling.devtools.fit_scores on tuning splits only (how, and the figures before
# and after: docs/eval/relevance-models.md).
KEYWORD = ScoreModel(intercept=-5.502, saturation=5.066, saturation_share=1.819)
SEMANTIC = ScoreModel(intercept=-4.201, cosine=4.617, cosine_gap=6.327)
# HYBRID's weights of a candidate's own evidence (coverage to cosine_gap_agreement) are the joint
# fit on the four tuning sets, each checked with its collection held out (`findling eval
# --held-out`); its query-level terms, which order nothing (top_saturation, top_coverage), are
# the previous fit's, and the intercept is set so that each query's first three are
# calibrated on the tuning sets (.316 predicted, .316 relevant; fit_scores prints it "as
# shipped"): the joint fit's own
# query-level terms predicted .13 for pgdocs' first three, where .31 are relevant.
HYBRID = ScoreModel(
    intercept=-5.971,
    coverage=0.634,
    saturation=-0.820,
    cosine=3.286,
    saturation_share=2.695,
    cosine_gap=7.229,
    top_saturation=4.870,
    top_coverage=-2.054,
    # where the lanes' best ten disagree, closeness in meaning counts for more within the
    # query (10.5 per unit of cosine, against 5.8 where they agree): a keyword lane finding
    # other documents than the question's meaning is not to drag the meaning lane down
    cosine_gap_agreement=-4.685,
)


def model_for(evidence: Evidence) -> ScoreModel:
    """The model for the evidence at hand: keywords alone with no embedder (or no candidate of
    the query embedded yet: with_meaning_assumed), meaning alone in semantic search."""
    has_keywords = evidence.coverage is not None
    has_vector = evidence.cosine is not None
    if has_keywords and has_vector:
        return HYBRID
    return SEMANTIC if has_vector else KEYWORD


def with_meaning_assumed(evidence: list[Evidence]) -> list[Evidence]:
    """The candidates of one query, those not embedded yet (no cosine, while others have one)
    judged as if the vector lane had not run for them rather than as if they had lost there:
    a waiting document is taken to be as close in meaning as the embedded candidates whose
    keyword evidence is nearest its own (the median of those as near as the nearest), so every
    candidate is scored by the hybrid model, on one scale. Judged by keywords alone, a page
    waiting to be embedded scored .72 while an embedded one matching as well and close in
    meaning (.60) scored .52. The query's best cosine is never an assumed one, so the embedded
    candidates score as they would with no candidate waiting."""
    if all(e.cosine is not None for e in evidence):
        return evidence
    known = [e for e in evidence if e.cosine is not None]
    if not known:  # nothing embedded among them: keyword evidence alone, as with no embedder
        return evidence

    def apart(a: Evidence, b: Evidence) -> float:
        return abs((a.coverage or 0.0) - (b.coverage or 0.0)) + abs((a.saturation or 0.0) - (b.saturation or 0.0))

    out = []
    for e in evidence:
        if e.cosine is not None:
            out.append(e)
            continue
        nearest = min(apart(e, k) for k in known)
        typical = statistics.median(k.cosine for k in known if apart(e, k) <= nearest + 1e-9 and k.cosine is not None)
        out.append(replace(e, cosine=typical, cosine_assumed=True))
    return out


def _lane_orders(saturations: Sequence[float], cosines: Sequence[float]) -> tuple[list[int], list[int]]:
    """The candidates' indexes best first by each lane: by words (saturation), by meaning
    (cosine), ties broken by the other lane's score, so the order they come in does not matter
    (documents matching none of the words tie at 0)."""
    n = min(len(saturations), len(cosines))
    by_words = sorted(range(n), key=lambda i: (-saturations[i], -cosines[i]))
    by_meaning = sorted(range(n), key=lambda i: (-cosines[i], -saturations[i]))
    return by_words, by_meaning


def _shared(by_words: Sequence[int], by_meaning: Sequence[int], top: int, n: int) -> float:
    return len(set(by_words[:top]) & set(by_meaning[:top])) / min(top, n) if n else 0.0


def lane_agreement(saturations: Sequence[float], cosines: Sequence[float], top: int = AGREEMENT_TOP) -> float:
    """The share of the keyword lane's best `top` candidates (by saturation) that are among the
    meaning lane's best `top` (by cosine), of one query's candidates: near 1 where both lanes
    point at the same documents, near 0 where the query's words are found in other documents
    than its meaning (_lane_orders breaks the ties)."""
    by_words, by_meaning = _lane_orders(saturations, cosines)
    return _shared(by_words, by_meaning, top, len(by_words))


def lane_agreements(saturations: Sequence[float], cosines: Sequence[float], top: int = AGREEMENT_TOP) -> list[float]:
    """Each candidate's lane agreement on the *other* candidates (lane_agreement of the list
    without it), so that no candidate's own closeness in meaning moves the weight its
    closeness is given: counted with itself, a candidate rising into the meaning lane's best ten
    (and not the keyword lane's) lowered the agreement and with it its own score, a calibration
    that was not monotone (a hypothesis case in tests/search/test_relevance.py). Only the
    candidates among either lane's best ten differ from the query's agreement."""
    by_words, by_meaning = _lane_orders(saturations, cosines)
    n = len(by_words)
    by_words, by_meaning = by_words[: top + 1], by_meaning[: top + 1]  # one more: the next in
    whole = _shared(by_words, by_meaning, top, n - 1)  # the query's, a candidate outside both left out
    leading = set(by_words[:top]) | set(by_meaning[:top])
    return [
        whole
        if i not in leading and n - 1 >= top
        else _shared([j for j in by_words if j != i], [j for j in by_meaning if j != i], top, n - 1)
        for i in range(n)
    ]


def relative(evidence: list[Evidence]) -> list[Evidence]:
    """The same evidence with each document's saturation share and cosine gap against the
    best of the list (the candidates of one query), and the lanes' agreement on the others."""
    best_saturation = max((e.saturation or 0.0 for e in evidence), default=0.0)
    best_coverage = max((e.coverage or 0.0 for e in evidence), default=0.0)
    cosines = [e.cosine for e in evidence if e.cosine is not None]
    best_cosine = max(cosines) if cosines else None
    both = [i for i, e in enumerate(evidence) if e.saturation is not None and e.cosine is not None]
    agreements = dict(
        zip(
            both,
            lane_agreements([evidence[i].saturation or 0.0 for i in both], [evidence[i].cosine or 0.0 for i in both]),
            strict=True,
        )
    )
    return [
        replace(
            e,
            agreement=agreements.get(i),
            saturation_share=None
            if e.saturation is None
            else (e.saturation / best_saturation if best_saturation else 0.0),
            cosine_gap=None if e.cosine is None or best_cosine is None else e.cosine - best_cosine,
            top_saturation=None if e.saturation is None else best_saturation,
            top_coverage=None if e.coverage is None else best_coverage,
        )
        for i, e in enumerate(evidence)
    ]


def hub_prior(link_share: float, named: float = 0.0) -> float:
    """The factor a page's score is taken by for the share of its text in links; 1 where the
    query names the page (`named`: the share of the query's weight its title field holds)."""
    if named >= NAMED:
        return 1.0
    return 1.0 - (1.0 - HUB_FLOOR) * max(0.0, min(1.0, (link_share - HUB_FROM) / (HUB_TO - HUB_FROM)))


def giant_prior(length_ratio: float, named: float = 0.0) -> float:
    """The factor a document's score is taken by for its length over the index's average; 1
    where the query names it."""
    if named >= NAMED or length_ratio <= GIANT_FROM:
        return 1.0
    fall = math.log(length_ratio / GIANT_FROM) / math.log(GIANT_TO / GIANT_FROM)
    return 1.0 - (1.0 - GIANT_FLOOR) * min(1.0, fall)


def length_prior(evidence: Evidence) -> float:
    """The prior against giant documents for this evidence: 1 where the length is not known."""
    return 1.0 if evidence.length_ratio is None else giant_prior(evidence.length_ratio, evidence.named or 0.0)


def link_prior(evidence: Evidence) -> float:
    """The prior against pages of links for this evidence: 1 where the share is not known."""
    return 1.0 if evidence.link_share is None else hub_prior(evidence.link_share, evidence.named or 0.0)


def relevance(evidence: Evidence) -> float:
    """P(relevant) in [0, 1] (hybrid evidence weighed by its folder's self-test where it has
    one: `meaning_share`), times the priors against pages of links and giant documents where
    their share and length are known."""
    if evidence.coverage is None and evidence.cosine is None:
        return 0.0
    model = model_for(evidence)
    share = evidence.meaning_share if model is HYBRID and evidence.meaning_share is not None else 0.5
    return _sigmoid(model.logit(evidence, share)) * link_prior(evidence) * length_prior(evidence)


def as_shown(score: float) -> float:
    """A score at the precision a result shows: where two pages' evidence is saturated their
    scores differ by float noise, and the list's own order is to decide between them, in
    every mode and in eval alike."""
    return round(score, 6)


def with_recency(score: float, age_days: float, weight: float, half_life_days: float = 30.0) -> float:
    """The sort key: the score, plus at most `weight` for a file modified now (half of it
    after `half_life_days`), so that among near-equal scores newer files come first and
    a clearly better older file still wins."""
    if weight <= 0:
        return score
    return score + weight * math.pow(0.5, max(0.0, age_days) / half_life_days)


def newer_first_among_equals(
    items: Sequence[T],
    score: Callable[[T], float],
    mtime: Callable[[T], float | None],
    weight: float,
    half_life_days: float,
    now: float,
) -> list[T]:
    """`items` best first by `with_recency`; an item with no known mtime counts as very old."""

    def key(item: T) -> float:
        modified = mtime(item)
        age = (now - modified) / 86400 if modified is not None else 1e9
        return -with_recency(score(item), age, weight, half_life_days)

    return sorted(items, key=key)


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return float(z / (1.0 + z))
