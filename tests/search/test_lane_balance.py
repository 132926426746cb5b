"""A folder's self-test maths (search/lane_balance.py, search/self_queries.py): pure functions of
the cases and of the documents, on synthetic collections where one lane is made useless."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from findling.records import Evidence
from findling.search.lane_balance import (
    SHIPPED,
    SelfTestCase,
    chosen_share,
    failing_lane,
    lane_alone,
    lane_weights,
    query_kind,
    reciprocal_rank,
)
from findling.search.relevance import relative
from findling.search.self_queries import SelfTestDocument, self_queries
from findling.tuning import SELF_TEST_SHARES


def _collection(useless: str, queries: int = 120, seed: int = 3) -> list[SelfTestCase]:
    """Self-test cases of a synthetic collection: twenty candidates a query, the source among
    them; the useful lane measures the source above the others, the useless one at random, and
    best of all one other candidate (it misleads)."""
    rng = random.Random(seed)
    cases = []
    for q in range(queries):
        source = rng.randrange(20)
        decoy = (source + 1 + rng.randrange(19)) % 20
        found = []
        for i in range(20):
            signal = 0.55 if i == source else rng.uniform(0.1, 0.5)
            noise = 1.0 if i == decoy else rng.uniform(0.1, 0.5)
            words, meaning = (noise, signal) if useless == "bm25" else (signal, noise)
            found.append(Evidence(coverage=words, saturation=words, cosine=meaning))
        kind = ("words", "sentence", "paragraph")[q % 3]
        cases.append(SelfTestCase(kind, tuple(relative(found)), source))
    return cases


def test_weights_move_away_from_a_useless_meaning_lane():
    cases = _collection(useless="vector")
    assert failing_lane(cases) == "vector"
    weights = lane_weights(cases)
    assert weights.meaning < SHIPPED and weights.queries == 120
    assert all(share < SHIPPED for _, share, _ in weights.by_kind)
    assert {kind for kind, _, _ in weights.by_kind} == {"words", "sentence", "paragraph"}


def test_weights_move_away_from_useless_keywords():
    cases = _collection(useless="bm25")
    assert failing_lane(cases) == "bm25"
    assert lane_weights(cases).meaning > SHIPPED


def test_where_both_lanes_work_the_shipped_weights_stay():
    rng = random.Random(5)
    cases = []
    for q in range(120):
        found = [Evidence(coverage=0.9, saturation=0.8, cosine=0.7)]  # the source, first by both
        found += [Evidence(coverage=rng.uniform(0, 0.5), saturation=rng.uniform(0, 0.5), cosine=rng.uniform(0, 0.5))]
        cases.append(SelfTestCase(("words", "sentence")[q % 2], tuple(relative(found)), 0))
    assert failing_lane(cases) is None
    weights = lane_weights(cases)
    assert weights.meaning == SHIPPED and weights.by_kind == ()


def test_too_few_queries_keep_the_shipped_weights():
    cases = _collection(useless="vector", queries=30)
    assert lane_weights(cases).meaning == SHIPPED


def test_a_source_not_found_counts_nothing_and_ranks_are_read_in_order():
    found = tuple(relative([Evidence(coverage=1, saturation=1, cosine=0.5)] * 3))
    assert reciprocal_rank(SelfTestCase("words", found, None), 0.5) == 0.0
    assert reciprocal_rank(SelfTestCase("words", found, 2), 0.5) == 1 / 3  # equal scores: their order
    assert lane_alone([SelfTestCase("words", found, 1)], "bm25") == 0.5


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=2, max_size=12), st.data())
def test_the_chosen_share_is_never_worse_than_one_standard_error_from_the_best(pairs, data):
    found = tuple(relative([Evidence(coverage=w, saturation=w, cosine=m) for w, m in pairs]))
    cases = [SelfTestCase("words", found, data.draw(st.integers(0, len(pairs) - 1))) for _ in range(3)]
    share = chosen_share(cases)
    assert 0.0 < share < 1.0
    by_share = {s: [reciprocal_rank(c, s) for c in cases] for s in SELF_TEST_SHARES}
    if len({tuple(ranks) for ranks in by_share.values()}) == 1:
        assert share == SHIPPED  # nothing to choose by, at any share the self-test tries: nothing moves


def test_query_kinds_read_as_a_user_types():
    assert query_kind("parse_known_args") == "identifier"
    assert query_kind("parseKnownArgs") == "identifier"
    assert query_kind("os.path.join") == "identifier"
    assert query_kind("page fault handler") == "words"
    assert query_kind("how do I stop a query that runs too long") == "sentence"
    assert query_kind(" ".join(["word"] * 40)) == "paragraph"


def _documents() -> list[SelfTestDocument]:
    prose = (
        "Vacuum reclaims storage occupied by dead tuples. In normal operation, tuples that are deleted "
        "or obsoleted by an update are not physically removed from their table. They remain present "
        "until a vacuum is done. Therefore it is necessary to do vacuum periodically, especially on "
        "frequently updated tables, and the autovacuum daemon does it for most installations today."
    )
    code = "def parse_header(line):\n    name, _, value = line.partition(':')\n    return name.strip(), value\n"
    return [SelfTestDocument(1, "/f/vacuum.md", prose, False), SelfTestDocument(2, "/f/http.py", code, True)]


def test_self_queries_are_a_function_of_the_documents():
    first, again = self_queries(_documents()), self_queries(list(reversed(_documents())))
    assert sorted(first, key=lambda q: (q.doc_id, q.kind)) == sorted(again, key=lambda q: (q.doc_id, q.kind))
    by_doc = {(q.doc_id, q.kind): q.text for q in first}
    assert by_doc[(2, "identifier")] == "parse_header"  # a code file's defined name
    words = by_doc[(1, "words")].split()
    assert 2 <= len(words) <= 4 and all(w in _documents()[0].text.lower() for w in words)
    long = [q for q in first if q.doc_id == 1 and q.kind in ("sentence", "paragraph")]
    assert long and all(not q.text.startswith("-") and " OR " not in q.text for q in long)
