"""While embedding runs, a document not embedded yet is fused as if the vector lane had not run
for it, not as if it had lost there (nor won): it is scored on the same scale as the embedded
ones, the Explain tab says its meaning was assumed, and why-not tells the ranks Explain shows."""

from __future__ import annotations

import pytest

from findling.records import Evidence, SearchMode, SearchRequest
from findling.search.relevance import relative, relevance, with_meaning_assumed
from tests.helpers import write


def test_a_waiting_candidate_is_as_close_in_meaning_as_the_embedded_ones_matching_as_well():
    found = [
        Evidence(coverage=1.0, saturation=0.8, cosine=0.62),
        Evidence(coverage=1.0, saturation=0.8, cosine=0.50),
        Evidence(coverage=0.5, saturation=0.4, cosine=0.40),
        Evidence(coverage=0.0, saturation=0.0, cosine=0.71),  # found by meaning only
        Evidence(coverage=1.0, saturation=0.7),  # waiting to be embedded
        Evidence(coverage=0.5, saturation=0.3),  # waiting too
    ]
    assumed = with_meaning_assumed(found)
    assert assumed[4].cosine == pytest.approx(0.56) and assumed[4].cosine_assumed
    assert assumed[5].cosine == pytest.approx(0.40) and assumed[5].cosine_assumed
    assert assumed[:4] == found[:4]
    # the embedded candidates score exactly as they would with no candidate waiting
    alone = relative(found[:4])
    assert [relevance(e) for e in relative(assumed)[:4]] == [relevance(e) for e in alone]


def test_nothing_is_assumed_where_nothing_is_embedded_or_everything_is():
    keywords_only = [Evidence(coverage=1.0, saturation=0.5), Evidence(coverage=0.5, saturation=0.2)]
    assert with_meaning_assumed(keywords_only) == keywords_only
    embedded = [Evidence(coverage=1.0, saturation=0.5, cosine=0.3)]
    assert with_meaning_assumed(embedded) == embedded


GARDEN = [
    ("tomatoes", "deep water twice a week and a cane to climb"),
    ("beans", "poles, sun and a mulch of straw"),
    ("potatoes", "earthing up when the shoots show"),
    ("leeks", "a trench and blanching with collars"),
    ("tomatoes under glass", "shade on the hottest days and a feed of comfrey"),
    ("courgettes", "room to sprawl and picking while small"),
    ("the kindergarten's tomatoes", "a sunny wall and small hands to pick them"),
]
BUDGET = "Kindergarten fees for the spring term: tuition, lunches and excursions, paid by the month."
OTHER = "Kindergarten fees for the autumn term: tuition, lunches and excursions, paid by the week."


@pytest.fixture
def half_embedded(engine, embedder_installed, tmp_path):
    """One page embedded, a second as like it as can be indexed after, waiting to be embedded."""
    docs = tmp_path / "docs"
    write(docs / "spring.txt", BUDGET)
    for i, (crop, care) in enumerate(GARDEN):
        write(docs / f"note{i}.txt", f"Garden note: {crop} want {care}.")
    engine.add_source(docs)
    engine.index()
    write(docs / "autumn.txt", OTHER)
    engine.index(embed=False)
    return engine, docs


def test_a_page_waiting_to_be_embedded_is_scored_on_the_embedded_pages_scale(half_embedded):
    engine, docs = half_embedded
    result = engine.find(SearchRequest("kindergarten fees tuition", SearchMode.HYBRID, limit=5))
    scores = {hit.path.rsplit("/", 1)[-1]: hit.score for hit in result.hits}
    # judged by keywords alone the waiting page scored far above its embedded twin (.7 and .5)
    assert abs(scores["autumn.txt"] - scores["spring.txt"]) < 0.05, scores
    explained = {r.doc_id: r for r in result.explain.results}
    waiting = next(h for h in result.hits if h.path.endswith("autumn.txt"))
    assert explained[waiting.doc_id].evidence.cosine_assumed
    from findling.faces.explaining import explain_rows, result_sentence

    assert "not embedded yet" in result_sentence(explained[waiting.doc_id], 1)
    assert any("assumed: not embedded yet" in row[0] for row in explain_rows(explained[waiting.doc_id]))
    engine.embed()
    after = engine.find(SearchRequest("kindergarten fees tuition", SearchMode.HYBRID, limit=5))
    assert not any(r.evidence.cosine_assumed for r in after.explain.results)  # each by its own meaning now


def test_why_not_tells_the_keyword_rank_the_explain_tab_shows(half_embedded):
    """why-not said "keyword #1" (its own search, every word) where Explain said "bm25 original #6"."""
    engine, docs = half_embedded
    # keyword search set to need every word: beside the vector lane the keyword lane ranks any
    # word's matches, and why-not told the rank of the search for every word
    request = SearchRequest("kindergarten tomatoes", SearchMode.HYBRID, limit=10, match="all")
    result = engine.find(request)
    ranks = {
        r.doc_id: next(x.rank for x in r.lists if x.list_name == "bm25 original")
        for r in result.explain.results
        if any(x.list_name == "bm25 original" for x in r.lists)
    }
    assert len(ranks) >= 3
    for doc_id, rank in ranks.items():  # shown, or cut as weak: the ranks the Explain tab lists
        answer = engine.why_not(request, engine.document_text(doc_id).path)
        assert f"keyword: #{rank} of " in answer.details[0], (answer.details, rank)
    answer = engine.why_not(request, docs / "autumn.txt")
    assert "not embedded yet" in " ".join(answer.details) + answer.summary
