"""The hybrid pipeline through the engine: explain record, stages, graceful degradation."""

from __future__ import annotations

import os

import pytest

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.search.relevance import relevance
from tests.helpers import indexed_engine, write


def _corpus(docs):
    write(docs / "db.md", "# Outage report\n\nERROR: connection refused on port 5432 while the nightly job ran.")
    write(docs / "cat.txt", "The cat slept on the warm windowsill all afternoon.")
    write(docs / "paris.md", "# Travel\n\nParis is the capital and largest city of France.")
    write(docs / "postgres.md", "# Database notes\n\nPostgreSQL listens on port 5432 by default.")
    write(docs / "code.py", "def add(a, b):\n    return a + b\n")


def _names(result):
    return [os.path.basename(h.path) for h in result.hits]


def test_all_models_missing_is_a_bm25_app(tmp_path, settings, docs, monkeypatch):
    monkeypatch.setenv("FINDLING_MODELS_MANIFEST", str(tmp_path / "none.toml"))
    (tmp_path / "none.toml").write_text(
        '[roles]\nembedder = { default = "e" }\nreranker = { default = "r" }\ngenerator = { default = "g" }\n'
        + "".join(
            f'[models.{n}]\nrole = "{r}"\nrepo = "x/{n}"\nfiles = [{{ path = "m.onnx", kind = "model" }}]\n'
            for n, r in (("e", "embedder"), ("r", "reranker"), ("g", "generator"))
        )
    )
    _corpus(docs)
    with Engine(tmp_path / "h", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
        result = engine.find(SearchRequest("port 5432", expand=True))
        assert set(_names(result)) == {"db.md", "postgres.md"}
        ex = result.explain
        assert [s.name for s in ex.stages] == ["strong_signal", "expansion", "lanes", "fusion", "rerank", "blend"]
        assert ex.stage("rerank").status == "skipped" and "no reranker model installed" in ex.stage("rerank").reason
        assert any("semantic search is off" in n.text for n in result.notes)
        assert all(len(r.lists) == 1 and r.lists[0].lane == "bm25" for r in ex.results)
        # an absolute score from the keyword evidence alone, not 1.0 for being first
        assert 0.0 < result.hits[0].score < 1.0
        assert result.hits[0].score == pytest.approx(relevance(ex.results[0].evidence), abs=1e-6)
        assert ex.results[0].evidence.cosine is None and ex.results[0].evidence.coverage == 1.0


def test_hybrid_without_models_ranks_as_keyword_search(tmp_path, settings, docs, long_pages):
    """With no embedder, hybrid is keyword search: the same list in the same order (its match
    mode, title field and nearness), not the fusion's any-word lane judged alone. Here the
    page using the words together and the page naming them in its title come before the page
    that holds each word more often, apart."""
    apart = "\n\n".join(["vacuum vacuum and more about cleaning", "x " * 300, "storage storage and disks"])
    write(docs / "apart.md", f"# Maintenance\n\n{apart}\n")
    write(docs / "together.md", "# Maintenance\n\nvacuum storage is reclaimed nightly, " + "y " * 290 + "\n")
    write(docs / "titled.md", "# Vacuum storage\n\nvacuum and then storage, " + "z " * 300 + "\n")
    write(docs / "vacuum.md", "# Cleaning\n\nvacuum vacuum vacuum the floor\n")
    with Engine(tmp_path / "h", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
        for query in ("vacuum storage", "vacuum storage disks", "vacuum"):
            keyword = engine.find(SearchRequest(query, SearchMode.KEYWORD))
            hybrid = engine.find(SearchRequest(query, SearchMode.HYBRID))
            assert any("semantic search is off" in n.text for n in hybrid.notes)
            assert _names(hybrid) == _names(keyword), query
            assert [h.score for h in hybrid.hits] == [h.score for h in keyword.hits], query
        first_two = _names(engine.find(SearchRequest("vacuum storage", SearchMode.HYBRID)))[:2]
        assert set(first_two) == {"together.md", "titled.md"}


def test_hybrid_without_models_counts_the_matching_documents_as_keyword_search(tmp_path, settings, docs):
    """'3 of 50 matching documents' in both modes: the documents holding the words, not the
    candidates the fusion read (twice the reranker's depth)."""
    for i in range(50):
        write(docs / f"note{i:02d}.md", f"# Note {i}\n\nvacuum the hall, then note {i} of the chores.\n")
    with Engine(tmp_path / "h", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
        keyword = engine.find(SearchRequest("vacuum", SearchMode.KEYWORD, limit=3))
        hybrid = engine.find(SearchRequest("vacuum", SearchMode.HYBRID, limit=3))
        assert len(hybrid.hits) == 3 and keyword.total_matched == 50
        assert hybrid.total_matched == keyword.total_matched


@pytest.fixture
def hybrid(tmp_path, settings, docs, embedder_installed):
    settings.models.threads = 2
    _corpus(docs)
    engine = indexed_engine(tmp_path / "home", settings, docs)
    yield engine
    engine.close()


def test_hybrid_fuses_both_lanes_with_a_complete_explain(hybrid):
    result = hybrid.find(SearchRequest("database port 5432", rerank="off", expand=False))
    names = _names(result)
    assert names[:2] in (["postgres.md", "db.md"], ["db.md", "postgres.md"])
    ex = result.explain
    top = ex.results[0]
    assert {x.lane for x in top.lists} == {"bm25", "vector"}
    for x in top.lists:
        assert x.rank >= 1 and x.rrf == pytest.approx(x.weight / (60 + x.rank))
    assert top.fused == pytest.approx(top.rrf + top.bonus)
    assert top.final == top.relevance == pytest.approx(relevance(top.evidence), abs=1e-6)
    assert all(0 <= r.final <= 1 for r in ex.results)
    assert [r.final for r in ex.results] == sorted((r.final for r in ex.results), reverse=True)
    assert ex.stage("fusion").detail["candidates"] == ex.candidates
    # each candidate weighs the lanes' agreement on the others; the fusion tells the query's
    assert all(r.evidence.agreement is not None and 0 <= r.evidence.agreement <= 1 for r in ex.results)
    assert ex.stage("fusion").detail["lanes agree"].endswith("%")
    assert set(ex.timings_ms) >= {"lanes", "fusion", "total"}
    assert ex.stage("rerank").reason == "reranking is off"


def test_vector_only_finds_meaning(hybrid):
    result = hybrid.find(SearchRequest("kitten napping", mode=SearchMode.SEMANTIC, rerank="off"))
    assert _names(result)[0] == "cat.txt"


def test_min_score_and_filters(hybrid):
    every = hybrid.find(SearchRequest("database port 5432", rerank="off"))
    scores = {os.path.basename(h.path): h.score for h in every.hits}
    assert min(scores.values()) < 0.3 <= max(scores.values())  # the floor below has something to cut
    floored = hybrid.find(SearchRequest("database port 5432", rerank="off", min_score=0.3))
    assert _names(floored) == [name for name in _names(every) if scores[name] >= 0.3]
    assert all(r.final >= 0.3 for r in floored.explain.results)
    only_md = hybrid.find(SearchRequest("port 5432 ext:md", rerank="off"))
    assert set(_names(only_md)) == {"db.md", "postgres.md"}
    only_py = hybrid.find(SearchRequest("port 5432 ext:py", rerank="off"))
    assert all(name.endswith(".py") for name in _names(only_py))


@pytest.mark.slow
def test_rerank_blend_and_expansion_with_real_models(tmp_path, settings, docs, all_models_installed):
    settings.models.threads = 2
    _corpus(docs)
    with Engine(tmp_path / "home3", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
        # the cross-encoder here is untrained: only the plumbing is checked, never its order
        result = engine.find(SearchRequest("database port", rerank="cross-encoder", expand=False))
        ex = result.explain
        assert ex.stage("rerank").status == "ran" and ex.stage("blend").status == "ran"
        for r in ex.results:
            assert 0.0 <= r.rerank <= 1.0
            assert r.fusion_weight in (0.75, 0.60, 0.40)
            assert r.blended == pytest.approx(r.fusion_weight * _fnorm(ex, r) + (1 - r.fusion_weight) * r.rerank)
        judged = engine.find(SearchRequest("capital of France", rerank="llm", expand=False, limit=3))
        assert judged.explain.stage("rerank").reason.startswith("llm judge")
        expanded = engine.find(SearchRequest("where do cats sleep", expand=True, rerank="off"))
        stage = expanded.explain.stage("expansion")
        assert stage.status in ("ran", "skipped")
        if stage.status == "ran":
            again = engine.find(SearchRequest("where do cats sleep", expand=True, rerank="off"))
            assert again.explain.stage("expansion").reason == "cached"


def _fnorm(ex, r):
    return r.relevance  # absolute: never rescaled by the list


def test_missing_reranker_keeps_fusion_order(hybrid):
    result = hybrid.find(SearchRequest("database port 5432", expand=False))  # reranker "auto", none installed
    ex = result.explain
    assert ex.stage("rerank").status == "skipped" and "no reranker model installed" in ex.stage("rerank").reason
    assert ex.stage("blend").status == "skipped"
    assert [r.fused_rank for r in ex.results] == sorted(r.fused_rank for r in ex.results)
    assert all(r.rerank is None and r.blended is None for r in ex.results)


def test_missing_generator_means_no_expansion(hybrid):
    hybrid.settings.pipeline.strong_top = 2.0  # never a strong signal: expansion is wanted
    result = hybrid.find(SearchRequest("database port 5432", expand=True, rerank="off"))
    stage = result.explain.stage("expansion")
    assert stage.status == "skipped" and "no generator model installed" in stage.reason
    assert result.explain.expansion is None
    assert {x.list_name for r in result.explain.results for x in r.lists} <= {"bm25 original", "vector original"}


def test_strong_signal_skips_expansion(hybrid):
    hybrid.settings.pipeline.strong_top = 0.0
    hybrid.settings.pipeline.strong_gap = 0.0
    result = hybrid.find(SearchRequest("PostgreSQL port", expand=True, rerank="off"))
    assert result.explain.stage("strong_signal").status == "ran"
    assert result.explain.stage("expansion").reason == "skipped_strong"
