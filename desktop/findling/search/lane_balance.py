"""How much a folder's own documents say each lane is worth: the self-test's maths.

A fitted fusion model cannot know which lane a collection favours: on code searched by what
it does the keyword lane is weak, on arguments searched by paragraphs the meaning lane is. The
collection can tell: queries made from its own documents (search/self_queries.py), each with
the document it came from, are run through both lanes, and the meaning lane's share of the
hybrid model's weight (relevance.ScoreModel.logit) is the one under which they find their
sources best, by MRR@10, overall and by kind of query. A share is moved only as far as the
evidence holds it: the share nearest 0.5 whose MRR is within one standard error (of its
difference from the shipped share's) of the best one's.

What a self-test can tell, measured: queries made of a document's own words favour the
keyword lane in every folder, and where both lanes work its best share did not say which lane
real questions need. It does tell when one lane fails a folder (an embedder that does not know
the folder's language or notation, text the keyword analyzer cannot split): then, and only
then, the folder's weights move (failing_lane).

Pure functions of the self-test's cases: tests/search/test_lane_balance.py."""

from __future__ import annotations

import math
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, replace

from findling.records import Evidence, LaneWeights
from findling.search.relevance import relevance
from findling.tuning import (
    PASSAGE_WORDS,
    SELF_TEST_FAILING,
    SELF_TEST_FEWEST,
    SELF_TEST_KIND_QUERIES,
    SELF_TEST_SHARES,
)
from findling.vocabulary import QUERY_KINDS, Lane, QueryKind

SHIPPED = 0.5
MRR_DEPTH = 10  # MRR@10, the measure eval reads for known-item questions

_CAMEL = re.compile(r"[a-z][A-Z]")


@dataclass(frozen=True)
class SelfTestCase:
    """One self-test query: its kind, its candidates' evidence (as the pipeline judged them,
    best by rank fusion first) and which of them is the document it was made from (None: not
    among them)."""

    kind: QueryKind
    evidence: tuple[Evidence, ...]
    source: int | None


def query_kind(text: str) -> QueryKind:
    """What a query looks like: a name from code (one token with `_`, camelCase, `.`, `::` or
    `()`), a few words, a pasted paragraph (as long as a passage is taken by meaning and more
    than twice that), or a sentence."""
    words = text.split()
    if len(words) == 1 and ("_" in text or "::" in text or "()" in text or _CAMEL.search(text) or "." in text[1:-1]):
        return "identifier"
    if len(words) < PASSAGE_WORDS // 2:
        return "words"
    if len(words) > 2 * PASSAGE_WORDS:
        return "paragraph"
    return "sentence"


def reciprocal_rank(case: SelfTestCase, share: float) -> float:
    """1 / the source's rank among the case's candidates scored with the meaning lane's `share`
    (0 below MRR_DEPTH or not found); equal scores keep the candidates' order, as the pipeline's
    stable sort does."""
    if case.source is None:
        return 0.0
    return _reciprocal([relevance(replace(e, meaning_share=share)) for e in case.evidence], case.source)


def _reciprocal(scores: Sequence[float], source: int) -> float:
    """1 / the rank of `scores[source]`, equal scores in their order; 0 below MRR_DEPTH."""
    mine = scores[source]
    rank = 1 + sum(1 for i, s in enumerate(scores) if s > mine or (s == mine and i < source))
    return 1.0 / rank if rank <= MRR_DEPTH else 0.0


def chosen_share(cases: Sequence[SelfTestCase]) -> float:
    """The meaning share the cases hold: the best by MRR, moved back towards the shipped share
    as far as one standard error allows."""
    if not cases:
        return SHIPPED
    by_share = {share: [reciprocal_rank(c, share) for c in cases] for share in SELF_TEST_SHARES}
    mean = {share: statistics.fmean(values) for share, values in by_share.items()}
    best = max(SELF_TEST_SHARES, key=lambda s: (mean[s], -abs(s - SHIPPED)))
    differences = [b - s for b, s in zip(by_share[best], by_share[SHIPPED], strict=True)]
    error = statistics.stdev(differences) / math.sqrt(len(cases)) if len(cases) > 1 else math.inf
    near_enough = [s for s in SELF_TEST_SHARES if mean[s] >= mean[best] - error]
    return min(near_enough, key=lambda s: (abs(s - SHIPPED), -mean[s]))


def lane_alone(cases: Sequence[SelfTestCase], lane: Lane) -> float:
    """The cases' MRR@10 with their candidates ranked by one lane's own score (BM25 saturation,
    or cosine), ties in the candidates' order."""
    if not cases:
        return 0.0

    def score(e: Evidence) -> float:
        return (e.saturation if lane == "bm25" else e.cosine) or 0.0

    return statistics.fmean(
        0.0 if case.source is None else _reciprocal([score(e) for e in case.evidence], case.source) for case in cases
    )


def failing_lane(cases: Sequence[SelfTestCase]) -> Lane | None:
    """The lane that fails the folder, if one does: it finds the sources of the self-test's
    sentences, passages and names less than SELF_TEST_FAILING as often as the other lane (a
    few words drawn from a document are no test: the meaning lane finds a bag of rare words
    .24 of the time in abstracts where it finds their sentences .77)."""
    passages = [c for c in cases if c.kind != "words"]
    if len(passages) < SELF_TEST_KIND_QUERIES:
        return None
    words, meaning = lane_alone(passages, "bm25"), lane_alone(passages, "vector")
    if meaning < SELF_TEST_FAILING * words:
        return "vector"
    if words < SELF_TEST_FAILING * meaning:
        return "bm25"
    return None


def lane_weights(cases: Sequence[SelfTestCase]) -> LaneWeights:
    """A folder's weights from its self-test. Where both lanes work, the shipped share: the
    self-test's own best share did not tell which lane real questions need (tuning.py,
    SELF_TEST_FAILING). Where one lane fails the folder, the share its cases hold, overall and
    for each kind of query that had enough of them."""
    failing = failing_lane(cases) if len(cases) >= SELF_TEST_FEWEST else None
    if failing is None:
        return LaneWeights(SHIPPED, len(cases))

    def away_from_failing(share: float) -> float:  # never more weight on the lane that fails
        return min(share, SHIPPED) if failing == "vector" else max(share, SHIPPED)

    by_kind = []
    for kind in QUERY_KINDS:
        theirs = [c for c in cases if c.kind == kind]
        if len(theirs) >= SELF_TEST_KIND_QUERIES:
            by_kind.append((kind, away_from_failing(chosen_share(theirs)), len(theirs)))
    return LaneWeights(away_from_failing(chosen_share(cases)), len(cases), tuple(by_kind))


def mrr(cases: Sequence[SelfTestCase], share: float) -> float:
    """The cases' MRR@10 with the meaning lane's `share` (what `status` and the notes report)."""
    return statistics.fmean(reciprocal_rank(c, share) for c in cases) if cases else 0.0
