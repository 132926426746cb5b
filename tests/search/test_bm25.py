from __future__ import annotations

import math
import os
import random
import time

import duckdb
import pytest

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.search.keyword.lane import Bm25Lane
from findling.search.query_parser import parse_query
from findling.settings import Settings
from findling.store.extensions import load_extension
from tests.helpers import write

WORDS = (
    "apple river stone garden light music paper window orange forest silver engine market winter "
    "planet rocket bridge castle doctor letter island summer camera pencil mirror thunder valley"
).split()


def _plain_engine(tmp_path) -> Engine:
    settings = Settings()
    settings.index.title_weight = 0.0  # body only, to compare with an index of the body alone
    settings.index.workers = 1
    return Engine(tmp_path / "home", settings=settings)


def _random_corpus(folder, n=40, seed=7):
    rng = random.Random(seed)
    texts = {}
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(3, 60))]
        texts[f"d{i}.txt"] = " ".join(words)
        write(folder / f"d{i}.txt", texts[f"d{i}.txt"])
    return texts


def test_scores_equal_duckdb_fts_match_bm25(tmp_path, docs):
    texts = _random_corpus(docs)
    engine = _plain_engine(tmp_path)
    engine.add_source(docs)
    engine.index()
    con = duckdb.connect()
    load_extension(con, "fts")
    con.execute("CREATE TABLE corpus (name VARCHAR, body VARCHAR)")
    con.executemany("INSERT INTO corpus VALUES (?, ?)", [[k, v] for k, v in texts.items()])
    con.execute(
        "PRAGMA create_fts_index('corpus', 'name', 'body', stemmer='english', stopwords='none', "
        "ignore='(\\.|[^a-z])+', strip_accents=1, lower=1)"
    )
    for query in ["apple", "river stone", "garden light music", "thunder valley winter rocket", "planets"]:
        expected = {
            name: score
            for name, score in con.execute(
                "SELECT name, fts_main_corpus.match_bm25(name, ?, k:=1.2, b:=0.75) AS s "
                "FROM corpus WHERE s IS NOT NULL",
                [query],
            ).fetchall()
        }
        result = engine.find(SearchRequest(query, mode=SearchMode.KEYWORD, limit=100, match="any"))
        got = {os.path.basename(h.path): h.raw_score for h in result.hits}
        assert set(got) == set(expected), query
        for name, score in expected.items():
            assert got[name] == pytest.approx(score, rel=1e-5), (query, name)
    engine.close()


def test_hand_computed_bm25(tmp_path, docs):
    write(docs / "a.txt", "cat cat dog")
    write(docs / "b.txt", "dog bird")
    write(docs / "c.txt", "fish")
    engine = _plain_engine(tmp_path)
    engine.add_source(docs)
    engine.index()
    n, avgdl, k1, b = 3, (3 + 2 + 1) / 3, 1.2, 0.75

    def part(tf, df, dl):
        idf = math.log10(1 + (n - df + 0.5) / (df + 0.5))
        return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))

    got = {
        os.path.basename(h.path): h.raw_score
        for h in engine.find(SearchRequest("cat dog", mode=SearchMode.KEYWORD, match="any")).hits
    }
    assert got["a.txt"] == pytest.approx(part(2, 1, 3) + part(1, 2, 3), rel=1e-6)
    assert got["b.txt"] == pytest.approx(part(1, 2, 2), rel=1e-6)
    engine.close()


@pytest.fixture
def searchable(engine, docs):
    write(docs / "rust.md", "# Rust Ownership\n\nThe borrow checker enforces ownership rules in Rust programs.\n")
    write(docs / "python.md", "# Python Notes\n\nPython uses reference counting; the garbage collector helps.\n")
    write(docs / "kernel.txt", "The kernel scheduler picks tasks. Error 404 and x86_64 and snake_case_name.\n")
    write(docs / "notes" / "todo.txt", "buy milk; fix the borrow checker bug in rust\n")
    write(docs / "mixed.html", "<title>Garbage Day</title><p>Collector trucks come on Monday.</p>")
    engine.add_source(docs)
    engine.index()
    return engine


def _names(result):
    return [os.path.basename(h.path) for h in result.hits]


def test_all_terms_required_then_relaxed(searchable):
    assert _names(searchable.find(SearchRequest("borrow rust", mode=SearchMode.KEYWORD)))[0] in ("rust.md", "todo.txt")
    assert set(_names(searchable.find(SearchRequest("borrow rust", mode=SearchMode.KEYWORD)))) == {
        "rust.md",
        "todo.txt",
    }
    relaxed = searchable.find(SearchRequest("borrow kernel", mode=SearchMode.KEYWORD))
    assert relaxed.relaxed and {"rust.md", "todo.txt", "kernel.txt"} == set(_names(relaxed))


def test_title_boost(searchable):
    names = _names(searchable.find(SearchRequest("garbage", mode=SearchMode.KEYWORD)))
    assert names[0] == "mixed.html"  # title match outranks the body match in python.md
    assert "python.md" in names


def test_phrases_and_exclusions(searchable):
    assert set(_names(searchable.find(SearchRequest('"borrow checker"', mode=SearchMode.KEYWORD)))) == {
        "rust.md",
        "todo.txt",
    }
    assert _names(searchable.find(SearchRequest('"checker borrow"', mode=SearchMode.KEYWORD))) == []
    assert _names(searchable.find(SearchRequest("borrow -milk", mode=SearchMode.KEYWORD))) == ["rust.md"]
    assert _names(searchable.find(SearchRequest('borrow -"buy milk"', mode=SearchMode.KEYWORD))) == ["rust.md"]


def test_identifiers_and_digits(searchable):
    for query in ["404", "x86_64", "snake_case_name", "snake"]:
        assert _names(searchable.find(SearchRequest(query, mode=SearchMode.KEYWORD))) == ["kernel.txt"], query


def test_stopwords_never_empty_a_query(searchable):
    assert _names(searchable.find(SearchRequest("the scheduler", mode=SearchMode.KEYWORD))) == ["kernel.txt"]
    assert len(searchable.find(SearchRequest("the", mode=SearchMode.KEYWORD)).hits) >= 3
    assert _names(searchable.find(SearchRequest(" , the   scheduler?!", mode=SearchMode.KEYWORD))) == ["kernel.txt"]


def test_or_operator(searchable):
    assert set(_names(searchable.find(SearchRequest("milk OR scheduler", mode=SearchMode.KEYWORD)))) == {
        "todo.txt",
        "kernel.txt",
    }


def test_filters(searchable, docs):
    assert _names(searchable.find(SearchRequest("borrow ext:md", mode=SearchMode.KEYWORD))) == ["rust.md"]
    assert _names(searchable.find(SearchRequest("borrow path:notes/", mode=SearchMode.KEYWORD))) == ["todo.txt"]
    old = docs / "kernel.txt"
    os.utime(old, (time.time(), time.mktime((2020, 5, 1, 0, 0, 0, 0, 0, -1))))
    searchable.index()
    assert _names(searchable.find(SearchRequest("kernel before:2021-01-01", mode=SearchMode.KEYWORD))) == ["kernel.txt"]
    assert _names(searchable.find(SearchRequest("kernel after:2021-01-01", mode=SearchMode.KEYWORD))) == []
    assert set(_names(searchable.find(SearchRequest("ext:md", mode=SearchMode.KEYWORD)))) == {"rust.md", "python.md"}


@pytest.mark.parametrize(
    "query", ["", "   ", "(((", '"', "'; DROP TABLE documents; --", "x" * 10000, "-the", "OR OR", "ext:"]
)
def test_odd_queries_are_safe(searchable, query):
    from findling.errors import MAX_QUERY_CHARS, QuerySyntaxError

    if len(query) > MAX_QUERY_CHARS:  # refused, with the cap said, before anything runs
        with pytest.raises(QuerySyntaxError, match="at most"):
            searchable.find(SearchRequest(query, mode=SearchMode.KEYWORD))
    else:
        searchable.find(SearchRequest(query, mode=SearchMode.KEYWORD))
    assert searchable.status().indexed == 5


def test_snippet_highlights_point_at_matches(searchable):
    hit = searchable.find(SearchRequest("scheduler tasks", mode=SearchMode.KEYWORD)).hits[0]
    marked = [hit.snippet[h.start : h.end].lower() for h in hit.highlights]
    assert "scheduler" in marked and "tasks" in marked


def test_lane_ranks_are_one_based(searchable):
    lane = Bm25Lane(searchable.database.cursor)
    result = lane.search(parse_query("borrow"), limit=5, match="any")
    assert [h.rank for h in result.hits] == list(range(1, len(result.hits) + 1))
    assert result.hits[0].score >= result.hits[-1].score


def test_a_pasted_paragraph_searches_by_its_most_telling_words(engine, docs):
    write(docs / "surgery.txt", "Zygomatic osteotomy planning with patient specific guides.")
    write(docs / "general.txt", "The study of health and food in the general population over many years.")
    write(docs / "other.txt", "Notes about gardening and the weather in spring.")
    for i in range(20):  # the paragraph's common words are common in the folder too
        write(docs / f"filler{i}.txt", f"Health, food, population, years and study: a general survey, part {i}.")
    engine.add_source(docs)
    engine.index()
    paragraph = (
        'We report a "randomized trial that nobody wrote" about health, food, population and years of study, '
        "with general remarks on health and food; the zygomatic osteotomy was planned, and the zygomatic "
        "guides were printed. Health and food matter for the population over many years of general study, "
        "as every study of health and food in a general population over years will tell, again and again -"
        "and yet the population, the health, the food and the years are only context here."
    )
    assert len(paragraph.split()) > 40
    result = engine.find(SearchRequest(paragraph, mode=SearchMode.KEYWORD))
    names = [os.path.basename(h.path) for h in result.hits]
    assert names[0] == "surgery.txt"  # its rare words outweigh the common ones repeated
    assert "other.txt" not in names
    assert len(result.terms) <= engine.settings.search.max_query_terms
    assert "zygomat" in result.terms and "osteotomi" in result.terms
    # the quotes and the dash are prose here, not a required phrase or an exclusion
    assert not result.relaxed


def test_query_terms_are_kept_by_idf_times_count(engine, docs):
    for i in range(6):
        write(docs / f"c{i}.txt", f"common words everywhere {i}")
    write(docs / "rare.txt", "common rarity")
    engine.add_source(docs)
    engine.index()
    engine.settings.search.max_query_terms = 2
    engine._bm25.max_terms = 2
    # "common" is in every document: twice in the query it still loses to the rare words
    result = engine.find(SearchRequest("common common rarity everywhere words", mode=SearchMode.KEYWORD))
    assert set(result.terms) == {"rariti", "everywher"} or set(result.terms) == {"rariti", "word"}


def _labels(query, languages=("en",)):
    from findling.search.keyword.words import word_groups

    return [(g.label, g.phrase) for g in word_groups(parse_query(query), list(languages))]


def test_word_groups_follow_the_lanes_rules():
    assert _labels("how do I report a bug") == [("report", False), ("bug", False)]
    assert _labels("to be or not to be") == [(w, False) for w in ("to", "be", "or", "not", "to", "be")]
    assert _labels("cats OR dogs food") == [("cats or dogs", False), ("food", False)]
    assert _labels("foo-bar") == [("foo-bar", False), ("foo-bar", False)]  # each part must match
    assert _labels("foo-bar", ("en", "de")) == [("foo-bar", False), ("foo-bar", False)]  # in any language


def test_a_split_word_in_an_index_of_several_languages_is_a_group_per_part():
    """Each part gathers its stems across the index's languages; "beta" alone does not
    stand for "beta-catenin" because the two parts are no longer alternatives."""
    from findling.search.keyword.words import word_groups

    groups = word_groups(parse_query("beta-catenin running"), ["en", "de"])
    assert [g.terms for g in groups] == [("beta",), ("catenin",), ("run", "running")]
    assert [g.terms for g in word_groups(parse_query("北京大学"), ["en", "de"])] == [("北京",), ("京大",), ("大学",)]
    # a phrase keeps its function words: they are matched in order
    assert _labels('"to be" story') == [("story", False), ("to", True), ("be", True)]


@pytest.mark.parametrize(
    "query",
    [
        "how do I report a bug",
        '"borrow checker" the',
        "milk OR the scheduler",
        '"to be or not"',
        "x86_64 borrowing",
        "rust -milk",
    ],
)
def test_highlighting_and_why_not_use_the_terms_the_lane_matched(searchable, query):
    lane = searchable._bm25
    parsed = parse_query(query)
    matched = set(lane.search(parsed).terms)
    assert {t for _, terms in lane.query_words(parsed) for t in terms} == matched


def test_a_prefix_finds_the_words_it_begins(engine, docs):
    write(docs / "guide.md", "Run the installer first.")
    write(docs / "notes.md", "The installation took an hour.")
    write(docs / "old.md", "We install it by hand.")
    write(docs / "money.md", "A monthly instalment is due.")
    write(docs / "other.md", "Nothing of the kind here.")
    write(docs / "objects.md", "Each instance keeps its state.")
    engine.add_source(docs)
    engine.index()

    def names(query, match=None):
        result = engine.find(SearchRequest(query, SearchMode.KEYWORD, match=match))
        return sorted(os.path.basename(h.path) for h in result.hits), result

    found, result = names("instal*")
    assert found == ["guide.md", "money.md", "notes.md", "old.md"]
    hit = next(h for h in result.hits if h.path.endswith("guide.md"))
    assert hit.snippet[hit.highlights[0].start : hit.highlights[0].end] == "installer"  # highlighted as matched
    # the index holds stems ("installation" is "instal", as is "instalment"): a prefix longer than the
    # stem takes the stem
    assert {"guide.md", "notes.md", "old.md"} <= set(names("installat*")[0])
    assert names("inst*")[0] == ["guide.md", "money.md", "notes.md", "objects.md", "old.md"]
    assert names("instal* hour", "all")[0] == ["notes.md"]  # with other words: all required
    by_most = engine.find(SearchRequest("instal* hour", SearchMode.KEYWORD)).hits  # or the most of them first
    assert os.path.basename(by_most[0].path) == "notes.md" and len(by_most) == 4
    assert names("zq*")[0] == []  # nothing begins so
    assert "objects.md" not in names("instal")[0]  # no star: the word (and its stem) only
    hybrid = engine.find(SearchRequest("instal*", rerank="off"))
    assert {os.path.basename(h.path) for h in hybrid.hits} >= {"guide.md", "notes.md"}


def test_title_and_nearness_count_among_long_pages_and_hardly_among_short_ones():
    from findling.search.keyword.lane import long_page_weight

    lengths = [50, 250, 1000, 4000, 100_000]
    weights = [long_page_weight(n) for n in lengths]
    assert weights == sorted(weights) and len(set(weights)) == len(weights)
    assert weights[1] < 0.1 and weights[2] == 0.5 and weights[3] > 0.9 and weights[-1] < 1
