"""Scores that mean something, stopwords that never decide a rank, unspaced scripts and
recency: the pure functions, then the same cases through the engine API."""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import replace

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from findling.paths import resources_dir
from findling.records import Evidence, SearchMode, SearchRequest
from findling.search.relevance import (
    giant_prior,
    hub_prior,
    lane_agreement,
    lane_agreements,
    relative,
    relevance,
    with_recency,
)
from findling.tuning import GIANT_FLOOR, GIANT_FROM, GIANT_TO, HUB_FLOOR, HUB_FROM
from tests.helpers import indexed_engine, write


def _judged(*evidence: Evidence) -> list[float]:
    """Relevance as the pipeline gives it: the candidates of one query judged together."""
    return [relevance(e) for e in relative(list(evidence))]


def test_relevance_rises_with_every_kind_of_evidence():
    base = Evidence(coverage=0.5, saturation=0.3, cosine=0.4)
    strongest = Evidence(coverage=1.0, saturation=0.8, cosine=0.8)  # the query's best candidate, fixed
    for better in (
        Evidence(coverage=0.9, saturation=0.3, cosine=0.4),
        Evidence(coverage=0.5, saturation=0.6, cosine=0.4),
        Evidence(coverage=0.5, saturation=0.3, cosine=0.7),
    ):
        _, up, down = _judged(strongest, better, base)
        assert up > down
    assert relevance(Evidence()) == 0.0
    for ev in (base, Evidence(coverage=1.0, saturation=1.0), Evidence(cosine=1.0), Evidence(cosine=-1.0)):
        assert 0.0 <= relevance(ev) <= 1.0


def test_the_lanes_agreement_counts_their_best_ten_in_common_whatever_the_order():
    assert lane_agreement([0.9, 0.8, 0.1], [0.7, 0.6, 0.2], top=2) == 1.0
    assert lane_agreement([0.9, 0.8, 0.1, 0.0], [0.1, 0.2, 0.7, 0.6], top=2) == 0.0
    assert lane_agreement([0.9, 0.0, 0.0], [0.1, 0.2, 0.7], top=2) == 0.5  # a word-less tie breaks by meaning
    assert lane_agreement([], []) == 0.0


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(-1, 1)), min_size=1, max_size=30), st.randoms())
def test_the_lanes_agreement_does_not_depend_on_the_candidates_order(pairs, rnd):
    shuffled = pairs[:]
    rnd.shuffle(shuffled)
    first = lane_agreement([p[0] for p in pairs], [p[1] for p in pairs])
    assert 0.0 <= first <= 1.0
    if len(set(pairs)) == len(pairs):  # exact twins may swap places at the cut
        assert first == lane_agreement([p[0] for p in shuffled], [p[1] for p in shuffled])


@given(st.lists(st.tuples(st.floats(0, 1), st.floats(-1, 1)), min_size=1, max_size=30))
def test_each_candidate_weighs_the_lanes_agreement_on_the_others(pairs):
    saturations, cosines = [p[0] for p in pairs], [p[1] for p in pairs]
    each = lane_agreements(saturations, cosines)
    for i in range(len(pairs)):
        others = [p for j, p in enumerate(pairs) if j != i]
        assert each[i] == lane_agreement([p[0] for p in others], [p[1] for p in others])


@given(
    st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1), st.floats(0, 0.9)), min_size=2, max_size=12),
    st.floats(0.001, 0.1),
)
@example(  # rising into the meaning lane's best ten lowered the agreement counted with itself
    candidates=[(0.0, 0.0, 0.0), *[(0.0, 0.0, 0.5)] * 9, (0.0, 1.0, 0.0)], step=0.03125
)
def test_closer_in_meaning_never_scores_lower_whatever_the_lanes_agree(candidates, step):
    """The calibration stays monotone: within one query, a candidate closer in meaning (the
    others and its keyword evidence held) scores at least as high, however much the lanes agree."""
    evidence = [Evidence(coverage=c, saturation=s, cosine=v) for c, s, v in candidates]
    raised = [replace(evidence[0], cosine=min(1.0, (evidence[0].cosine or 0.0) + step)), *evidence[1:]]
    assert _judged(*raised)[0] >= _judged(*evidence)[0] - 1e-12


def test_nothing_matched_scores_low_whatever_its_rank():
    # a document that matched no query word and is not close in meaning is not relevant,
    # even when it is the best there is
    assert _judged(Evidence(coverage=0.0, saturation=0.0, cosine=0.12))[0] < 0.1
    assert _judged(Evidence(coverage=0.0, saturation=0.0))[0] < 0.1
    best, middling, nothing = _judged(
        Evidence(coverage=1.0, saturation=0.6, cosine=0.7),
        Evidence(coverage=0.5, saturation=0.3, cosine=0.6),
        Evidence(coverage=0.0, saturation=0.0, cosine=0.12),
    )
    assert best > 0.4 and 0.05 < middling < best and nothing < 0.01


def test_a_page_of_links_is_taken_down_by_its_share_of_links():
    assert hub_prior(0.0) == hub_prior(HUB_FROM) == 1.0
    assert hub_prior(1.0) == pytest.approx(HUB_FLOOR)
    assert 1.0 > hub_prior(0.5) > hub_prior(0.8) > hub_prior(0.9) == hub_prior(1.0)
    # a short page of content with a few links keeps its score (getpass.html, .30); a chapter's
    # list of pages (File Formats, .78) keeps a third of it at most
    assert hub_prior(0.30) == 1.0 and hub_prior(0.78) < 1 / 3
    # a query naming the page (all its weight in the title field) asks for it: no prior
    assert hub_prior(1.0, named=1.0) == 1.0
    assert hub_prior(1.0, named=0.9) == hub_prior(1.0)  # a query sharing some words with its title
    plain = Evidence(coverage=0.6, saturation=0.4, cosine=0.6)
    assert relevance(replace(plain, link_share=1.0)) == pytest.approx(relevance(plain) * HUB_FLOOR)
    assert relevance(replace(plain, link_share=0.1)) == relevance(plain)
    assert relevance(replace(plain, link_share=1.0, named=1.0)) == relevance(plain)


def test_the_explain_table_says_when_a_page_of_links_was_taken_down():
    from findling.faces.explaining import explain_rows
    from findling.records import ResultExplain

    def rows(share):
        result = ResultExplain(
            1, (), 0.0, 0.0, 0.0, 1, None, None, None, 0.3, evidence=Evidence(cosine=0.5, link_share=share)
        )
        return {row[0]: row for row in explain_rows(result)}

    assert rows(0.9)["share of the page in links and index entries"][2:] == (
        "0.9000",
        "",
        "",
        f"× {hub_prior(0.9):.2f}",
    )
    label = "share of the page in links and index entries"

    def named(share):
        evidence = Evidence(cosine=0.5, link_share=0.9, named=share)
        return explain_rows(ResultExplain(1, (), 0.0, 0.0, 0.0, 1, None, None, None, 0.3, evidence=evidence))

    lifted = "the query names the page (every word in its title)"
    assert [r[5] for r in named(0.5) if r[0] == label] == [f"× {hub_prior(0.9):.2f}"]
    assert lifted not in [r[0] for r in named(0.5)]
    assert [r[5] for r in named(1.0) if r[0] in (label, lifted)] == ["× 1.00", "× 1.00"]
    assert label not in rows(0.1) and label not in rows(None)


def test_the_keyword_lane_s_priors_are_the_same_in_sql():
    import duckdb

    from findling.search.keyword.sql import prior_sql

    con = duckdb.connect()
    for share in (None, 0.0, 0.25, 0.4, 0.77, 1.0):
        for ratio in (54.0, 169.0, 490.0):
            giants = {7: ratio, 9: 1000.0}
            for named in (0.0, 0.3, 1.0):
                for doc_id in (7, 8):  # a giant, and a document of any length below GIANT_FROM times the average
                    sql = (
                        f"SELECT {prior_sql('n', giants)} "
                        "FROM (SELECT ?::DOUBLE AS share, ?::DOUBLE AS n) h, (SELECT ?::INTEGER AS doc_id) m"
                    )
                    (value,) = con.execute(sql, [share, named, doc_id]).fetchone()
                    expected = hub_prior(share or 0.0, named) * giant_prior(ratio if doc_id == 7 else 1.0, named)
                    assert value == pytest.approx(expected), (share, ratio, named, doc_id)
    assert "CASE m.doc_id" not in prior_sql("0", {})  # no giants, nothing to look up


def test_the_prior_against_giant_documents():
    """A changelog of every release holds every word somewhere: from GIANT_FROM times the
    average length its score falls with the log of its length, to GIANT_FLOOR; a long page of
    reference (10-20 times) is untouched, a query naming the document lifts it."""
    assert giant_prior(1.0) == giant_prior(20.0) == giant_prior(GIANT_FROM) == 1.0
    assert 0.85 < giant_prior(54.0) < 0.9 and 0.6 < giant_prior(169.0) < 0.65
    assert giant_prior(GIANT_TO) == pytest.approx(GIANT_FLOOR) and giant_prior(5000.0) == GIANT_FLOOR
    assert giant_prior(490.0, named=1.0) == 1.0
    values = [giant_prior(r) for r in range(1, 2000, 7)]
    assert values == sorted(values, reverse=True)
    plain = Evidence(coverage=1.0, saturation=0.9, cosine=0.6)
    assert relevance(replace(plain, length_ratio=169.0)) == pytest.approx(relevance(plain) * giant_prior(169.0))
    assert relevance(replace(plain, length_ratio=169.0, named=1.0)) == relevance(plain)
    # the explain panel says so
    from findling.faces.explaining import explain_rows
    from findling.records import ResultExplain

    def row(ratio):
        evidence = replace(plain, length_ratio=ratio)
        table = explain_rows(ResultExplain(1, (), 0.0, 0.0, 0.0, 1, None, None, None, 0.3, evidence=evidence))
        return next((r for r in table if r[0] == "length, times the index's average"), None)

    assert row(169.0)[2:] == ("169.0", "", "", f"× {giant_prior(169.0):.2f}") and row(12.0) is None


def _folder_with_a_changelog(folder):
    """A hundred short notes, a page on renaming branches, and a changelog of a thousand
    entries that each name a branch renamed: 90 times the average length."""
    for i in range(100):
        write(folder / f"note{i:03d}.txt", " ".join(f"topic{(i * 7 + k) % 500}" for k in range(20)))
    write(
        folder / "branches.txt",
        "Renaming a branch: to rename a branch run git branch -m with the old and new names. "
        "The branch keeps its reflog after the rename.",
    )
    lines = (f"* Fix rename of branch {i} when fetching topic{i % 500} with topic{(i * 3) % 500}." for i in range(1000))
    write(folder / "changelog.txt", "\n".join(lines))


@pytest.mark.slow
def test_a_giant_changelog_ranks_below_the_page_about_it(tmp_path, settings, embedder_installed):
    folder = tmp_path / "docs"
    _folder_with_a_changelog(folder)
    engine = indexed_engine(tmp_path / "home", settings, folder)
    try:
        for mode in (SearchMode.KEYWORD, SearchMode.HYBRID, SearchMode.SEMANTIC):
            result = engine.find(SearchRequest("rename a branch", mode, rerank="off", expand=False))
            assert _names(result)[:2] == ["branches.txt", "changelog.txt"], mode
        hybrid = engine.find(SearchRequest("rename a branch", SearchMode.HYBRID, rerank="off", expand=False))
        giant = next(r for r in hybrid.explain.results if r.doc_id == hybrid.hits[1].doc_id)
        assert giant.evidence.length_ratio is not None and giant.evidence.length_ratio > 60
        # a query naming it asks for it
        named = engine.find(SearchRequest("changelog", SearchMode.KEYWORD))
        assert _names(named)[0] == "changelog.txt"
    finally:
        engine.close()


def test_a_table_of_contents_close_in_meaning_ranks_below_a_page_about_it(tmp_path, settings, embedder_installed):
    """By meaning, a table of contents is close to many questions: its titles name them. The
    pipeline takes a page's relevance down by its share of text in links, as keyword search
    takes down its BM25 score."""
    folder = tmp_path / "docs"
    titles = ["Dates and times", "Time zones", "Calendars", "Date formatting", "Durations", "Clocks and timers"]
    titles += ["Leap seconds and leap years", "Parsing dates", "Time arithmetic", "Timestamps", "Week numbers"]
    entries = "".join(
        f"<li><a href='p{i}.html'>{t}</a></li><li><a href='q{i}.html'>More on {t.lower()}</a></li>"
        for i, t in enumerate(titles)
    )
    write(folder / "contents.html", f"<title>Contents</title><ul>{entries}</ul>")
    write(
        folder / "datetime.html",
        "<title>datetime</title><p>The datetime module supplies classes for manipulating dates and times: "
        "naive and aware objects, arithmetic and formatting with strftime.</p>",
    )
    write(folder / "other.html", "<title>Gardening</title><p>Tomatoes need sun and water every day.</p>")
    engine = indexed_engine(tmp_path / "home", settings, folder)
    try:
        result = engine.find(SearchRequest("time zones and calendars", SearchMode.SEMANTIC, rerank="off", expand=False))
        paths = engine.document_paths()
        by_name = {os.path.basename(paths[r.doc_id]): r for r in result.explain.results}
        # the contents page is the closer in meaning, and still ranks second
        assert by_name["contents.html"].evidence.cosine > by_name["datetime.html"].evidence.cosine
        assert _names(result)[0] == "datetime.html"
        assert (
            by_name["contents.html"].evidence.link_share > 0.9 and by_name["datetime.html"].evidence.link_share is None
        )
    finally:
        engine.close()


def test_recency_breaks_near_ties_but_never_beats_a_clearly_better_file():
    assert with_recency(0.50, 1, 0.01) > with_recency(0.50, 400, 0.01)
    assert with_recency(0.505, 400, 0.01) < with_recency(0.50, 0, 0.01)
    assert with_recency(0.60, 400, 0.01) > with_recency(0.55, 0, 0.01)
    assert with_recency(0.5, 0, 0.0) == 0.5


def _names(result):
    return [os.path.basename(h.path) for h in result.hits]


@pytest.fixture
def demo(tmp_path, settings, embedder_installed):
    folder = tmp_path / "demo"
    shutil.copytree(resources_dir() / "demo", folder)
    engine = indexed_engine(tmp_path / "home", settings, folder)
    yield engine
    engine.close()


def test_stopwords_neither_match_nor_highlight(demo):
    result = demo.find(SearchRequest("how do I report a bug", rerank="off", expand=False))
    assert set(result.terms) == {"report", "bug"}
    for r in result.explain.results:
        assert r.evidence.coverage == 0.0 or "postgres-outage.txt" in demo.document_paths()[r.doc_id]
    keyword = demo.find(SearchRequest("why did the nightly import fail", mode=SearchMode.KEYWORD))
    assert _names(keyword) == ["postgres-outage.txt"]
    assert "the" not in keyword.terms and set(keyword.terms) == {"night", "import", "fail"}
    asked = demo.find(SearchRequest("what was the nightly import failing on, and why?", mode=SearchMode.KEYWORD))
    assert set(asked.terms) == {"night", "import", "fail"}  # "on," and "why?" are function words too


def test_a_question_in_plain_words_finds_its_document(demo):
    result = demo.find(SearchRequest("what to eat in Portugal", rerank="off", expand=False))
    assert _names(result)[0] == "travel-notes.md"
    assert "rust-ownership.md" not in _names(result)[:1]


def test_nonsense_gets_no_good_matches(demo):
    result = demo.find(SearchRequest("xylophone quantum", rerank="off", expand=False))
    assert all(h.weak for h in result.hits) and len(result.hits) <= 3
    assert any("no good matches" in n.text for n in result.notes)
    assert demo.find(SearchRequest("xylophone quantum", rerank="off", expand=False, min_score=0.3)).hits == ()
    assert demo.find(SearchRequest("xylophone quantum", mode=SearchMode.KEYWORD)).hits == ()
    good = demo.find(SearchRequest("nightly import failed on port 5432", rerank="off", expand=False))
    assert not good.hits[0].weak and good.hits[0].score >= 0.3 and good.notes == ()


def test_scores_are_comparable_across_queries(demo):
    # a weaker match for another query scores lower, though both are first in their lists
    strong = demo.find(SearchRequest("nightly import failed connection refused port 5432", rerank="off", expand=False))
    loose = demo.find(SearchRequest("database trouble", rerank="off", expand=False))
    assert strong.hits[0].score > loose.hits[0].score


def test_beijing_matches_as_a_unit_and_quotes_make_a_phrase(engine, docs):
    write(docs / "kyoto.txt", "京都と北海道を旅行しました。京都は美しい。北海道は寒い。")
    write(docs / "beijing.txt", "北京は中国の首都です。")
    write(docs / "campus.txt", "我在北京大学学习。")
    write(docs / "apart.txt", "北京的大学很多。")
    engine.add_source(docs)
    engine.index()
    result = engine.find(SearchRequest("北京", mode=SearchMode.KEYWORD))
    assert set(_names(result)) == {"beijing.txt", "campus.txt", "apart.txt"}  # never 京都 + 北海道
    hit = result.hits[0]
    assert [hit.snippet[h.start : h.end] for h in hit.highlights] == ["北京"]
    phrase = engine.find(SearchRequest('"北京大学"', mode=SearchMode.KEYWORD))
    assert _names(phrase) == ["campus.txt"]
    assert [phrase.hits[0].snippet[h.start : h.end] for h in phrase.hits[0].highlights] == ["北京大学"]
    assert set(_names(engine.find(SearchRequest("京", mode=SearchMode.KEYWORD)))) == {
        "kyoto.txt",
        "beijing.txt",
        "campus.txt",
        "apart.txt",
    }


def test_a_thai_word_inside_an_unspaced_run_is_found(engine, docs):
    write(docs / "thai.txt", "ภาษาไทยเป็นภาษาที่สวยงาม")
    write(docs / "mixed.md", "# Notes\n\nSawasdee: สวัสดีครับ and English words.")
    engine.add_source(docs)
    engine.index()
    result = engine.find(SearchRequest("ไทย", mode=SearchMode.KEYWORD))
    assert _names(result) == ["thai.txt"]
    assert [result.hits[0].snippet[h.start : h.end] for h in result.hits[0].highlights] == ["ไทย"]
    assert _names(engine.find(SearchRequest("สวัสดี English", mode=SearchMode.KEYWORD))) == ["mixed.md"]


def test_newer_file_first_among_equal_scores(engine, docs):
    for name, word in (("old.txt", "alpha"), ("new.txt", "gamma"), ("middle.txt", "delta")):
        write(docs / name, f"quarterly budget review notes {word}")  # not copies: the same words but one
    now = time.time()
    os.utime(docs / "old.txt", (now - 400 * 86400, now - 400 * 86400))
    os.utime(docs / "middle.txt", (now - 20 * 86400, now - 20 * 86400))
    engine.add_source(docs)
    engine.index()
    assert _names(engine.find(SearchRequest("budget review", mode=SearchMode.KEYWORD))) == [
        "new.txt",
        "middle.txt",
        "old.txt",
    ]
    assert _names(engine.find(SearchRequest("budget review", rerank="off"))) == ["new.txt", "middle.txt", "old.txt"]
    engine.settings.search.recency_weight = 0.0
    scores = {h.score for h in engine.find(SearchRequest("budget review", mode=SearchMode.KEYWORD)).hits}
    assert len(scores) == 1  # equal evidence, equal score: only recency told them apart


def test_a_result_reads_as_a_sentence():
    from findling.faces.explaining import result_sentence
    from findling.records import ListScore, ResultExplain

    def result(evidence, lists=(), rerank=None):
        return ResultExplain(
            doc_id=1,
            lists=tuple(lists),
            rrf=0.0,
            bonus=0.0,
            fused=0.0,
            fused_rank=1,
            rerank=rerank,
            fusion_weight=None,
            blended=None,
            final=0.83,
            evidence=evidence,
            relevance=0.71,
        )

    both = [
        ListScore("bm25 original", "bm25", 1, 7.2, 1.0, 2.0, 0.03),
        ListScore("vector original", "vector", 3, 0.62, 0.8, 2.0, 0.03),
        ListScore("vector sem 1", "vector", 5, 0.6, 0.8, 1.0, 0.01),
    ]
    assert result_sentence(result(Evidence(0.8, 0.5, 0.62, 1.0, -0.03), both), 1) == (
        "Matched 80% of the query's words (keyword #1); close in meaning (semantic #3, similarity 0.62) "
        "→ #1, strong match (0.83)"
    )
    assert result_sentence(result(Evidence(0.0, 0.0, 0.2, 0.0, 0.0), both[1:], rerank=0.9), 4) == (
        "Matched none of the query's words; not close in meaning (semantic #3, similarity 0.20); "
        "the reranker rated it 0.90 → #4, strong match (0.83)"
    )
    assert result_sentence(result(Evidence()), 2) == "Found → #2, strong match (0.83)"
    # a word the keyword lane left out is named, so "100%" tells no lie
    assert result_sentence(result(Evidence(1.0, 0.5, None, 1.0, 0.0), both[:1]), 1, ["the", "of"]).startswith(
        "Matched 100% of the query's words (keyword #1; “the”, “of” left out as too common)"
    )


def test_the_stages_read_as_a_timeline():
    from findling.faces.explaining import stage_timeline
    from findling.records import QueryExplain, Stage

    def explain(mode: str) -> QueryExplain:
        stages = (Stage("lanes", "ran", ms=17.5), Stage("rerank", "skipped", "no reranker"))
        return QueryExplain("q", mode, stages, None, 3, (), {})

    assert stage_timeline(explain("bm25+vector")) == [
        ("keyword and meaning search", 17.5, ""),
        ("reranking", 0.0, "no reranker"),
    ]
    # a lane that was off (no embedder; semantic search) is not named as searched
    assert stage_timeline(explain("bm25"))[0] == ("keyword search", 17.5, "")
    assert stage_timeline(explain("bm25+expand"))[0] == ("keyword search", 17.5, "")
    assert stage_timeline(explain("vector"))[0] == ("meaning search", 17.5, "")


@pytest.mark.slow
def test_a_query_whose_words_no_document_holds_is_judged_by_meaning_alone(demo):
    hybrid = demo.find(SearchRequest("what to eat in Portugal", rerank="off", expand=False))
    semantic = demo.find(SearchRequest("what to eat in Portugal", mode=SearchMode.SEMANTIC))
    assert hybrid.explain.results[0].evidence.coverage is None  # not "matched nothing": nothing could match
    assert hybrid.hits[0].doc_id == semantic.hits[0].doc_id
    assert hybrid.hits[0].score == pytest.approx(semantic.hits[0].score, abs=1e-6)


def test_list_names_read_plainly():
    from findling.faces.explaining import list_label

    assert [list_label(n) for n in ("bm25 original", "bm25 lex 2", "vector sem 1", "vector hyde")] == [
        "keywords: your query",
        "keywords: variant 2",
        "meaning: variant 1",
        "meaning: an imagined answer",
    ]
