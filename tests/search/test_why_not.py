"""`findling why-not QUERY PATH`: every reason a file can be missing from the results, each
checked on a real index (and the search half's verdicts on their own, from facts)."""

from __future__ import annotations

import json
import os

import pytest

from findling.cli import main
from findling.engine import Engine
from findling.faces.presentation import why_not_summary
from findling.records import Note, SearchMode, SearchRequest
from findling.search.why_not import KeywordStanding, SearchFacts, SemanticStanding, judge
from tests.helpers import index_files, write


@pytest.fixture
def indexed(tmp_path, settings):
    docs = tmp_path / "docs"
    write(docs / "zebra.md", "# Zebras\n\nThe zebra crossing has stripes.\n")
    write(docs / "horse.md", "# Horses\n\nA horse has a mane and hooves.\n")
    for i in range(5):
        write(docs / f"stripes{i}.txt", "stripes " * (5 - i) + f"note {i} about stripes and patterns")
    write(docs / ".gitignore", "build/\n*.log\n")
    write(docs / "build" / "out.md", "zebra build output")
    write(docs / "run.log", "zebra log line")
    write(docs / "node_modules" / "pkg.md", "zebra in a package")
    write(docs / "drafts" / "zebra-draft.md", "zebra draft")
    write(docs / ".hidden" / "zebra.md", "hidden zebra")
    write(docs / "picture.png", "not really a picture")
    write(docs / "html" / "searchindex.js", "Search.setIndex({})")
    write(docs / "html" / "_sources" / "zebra.rst.txt", "Zebras\n======\n\nzebra source")
    write(docs / "broken.pdf", "%PDF-1.4 this is not a valid pdf at all")
    engine = Engine(tmp_path / "home", settings=settings)
    engine.add_source(docs, exclude=["drafts/"])
    engine.index()
    yield engine, docs
    engine.close()


def _why(engine, query, path, mode="hybrid", **kw):
    return engine.why_not(SearchRequest(query, SearchMode(mode), **kw), str(path))


def test_shown(indexed):
    engine, docs = indexed
    answer = _why(engine, "zebra", docs / "zebra.md", mode="keyword")
    assert answer.reason == "shown" and answer.rank == 1


def test_missing_file(indexed):
    engine, docs = indexed
    answer = _why(engine, "zebra", docs / "nope.md")
    assert answer.reason == "missing" and "no file" in answer.summary


def test_outside_every_added_folder(indexed, tmp_path):
    engine, docs = indexed
    elsewhere = write(tmp_path / "elsewhere" / "zebra.md", "zebra")
    answer = _why(engine, "zebra", elsewhere)
    assert answer.reason == "outside" and str(docs) in answer.summary


@pytest.mark.parametrize(
    ("rel", "expected"),
    [
        ("build/out.md", "`build/` in " + os.path.join("{docs}", ".gitignore")),
        ("run.log", "`*.log` in " + os.path.join("{docs}", ".gitignore")),
        ("node_modules/pkg.md", "`node_modules/` in the settings' exclude patterns"),
        ("drafts/zebra-draft.md", "`drafts/` in this folder's exclude patterns"),
        (".hidden/zebra.md", "hidden"),
        ("html/_sources/zebra.rst.txt", "in a Sphinx build's _sources folder ({docs}/html holds the built pages"),
        ("html/searchindex.js", "the search index of the Sphinx build in {docs}/html"),
    ],
)
def test_excluded_says_by_what(indexed, rel, expected):
    engine, docs = indexed
    answer = _why(engine, "zebra", docs / rel)
    assert answer.reason == "excluded"
    assert expected.format(docs=docs) in answer.summary


def test_not_matched_by_the_folders_include_patterns(tmp_path, settings):
    docs = tmp_path / "docs"
    write(docs / "a.md", "zebra")
    write(docs / "b.txt", "zebra")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs, include=["*.md"])
        engine.index()
        answer = _why(engine, "zebra", docs / "b.txt")
    assert answer.reason == "excluded" and "include patterns (*.md)" in answer.summary


def test_a_kind_findling_does_not_read(indexed):
    engine, docs = indexed
    answer = _why(engine, "zebra", docs / "picture.png")  # a picture with no words in its metadata
    assert answer.reason == "unsupported" and ".png" in answer.summary and "metadata" in answer.summary
    write(docs / "movie.mp4", "not really a film")
    answer = _why(engine, "zebra", docs / "movie.mp4")
    assert answer.reason == "unsupported" and ".mp4" in answer.summary


def test_failed_with_its_error(indexed):
    engine, docs = indexed
    answer = _why(engine, "zebra", docs / "broken.pdf")
    assert answer.reason == "failed" and "PDF" in answer.summary


def test_skipped_with_its_reason(tmp_path, settings):
    docs = tmp_path / "docs"
    write(docs / "big.txt", "zebra " * 2000)
    settings.index.max_file_mb = 0.001
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index()
        answer = _why(engine, "zebra", docs / "big.txt")
    assert answer.reason == "skipped" and "larger than" in answer.summary


def test_not_indexed_yet(indexed):
    engine, docs = indexed
    new = write(docs / "new.md", "zebra arrives late")
    answer = _why(engine, "zebra", new)
    assert answer.reason == "not_indexed" and "findling index" in why_not_summary(answer, "terminal")
    assert "File → Update index" in why_not_summary(answer, "window")  # the window names its menu


def test_removed_by_a_filter(indexed):
    engine, docs = indexed
    answer = _why(engine, "stripes ext:md", docs / "stripes0.txt", mode="keyword")
    assert answer.reason == "filtered" and "ext:md" in answer.summary


def test_no_match_names_the_missing_words(indexed):
    engine, docs = indexed
    answer = _why(engine, "zebra crossing", docs / "horse.md", mode="keyword")
    assert answer.reason == "no_match"
    assert "“zebra” and “crossing”" in answer.details[0]
    partly = _why(engine, "zebra stripes", docs / "stripes1.txt", mode="keyword", match="all")
    assert partly.reason == "no_match" and "lacks “zebra”" in partly.details[0]
    # the default ranks documents that lack a word after those that have them all
    ranked = _why(engine, "zebra stripes", docs / "stripes1.txt", mode="keyword")
    assert ranked.reason == "shown" and ranked.rank is not None


def test_cut_by_the_result_limit(indexed):
    engine, docs = indexed
    ranked = [
        os.path.basename(h.path) for h in engine.find(SearchRequest("stripes", mode=SearchMode.KEYWORD, limit=10)).hits
    ]
    fourth = ranked[3]
    answer = _why(engine, "stripes", docs / fourth, mode="keyword", limit=2)
    assert answer.reason == "cut_by_limit" and answer.rank == 4
    assert "-n 4" in why_not_summary(answer, "terminal") and "keyword: #4 of" in answer.details[0]
    assert why_not_summary(answer, "window") == answer.summary  # no -n in the window: it scrolls


def test_below_the_score_floor(indexed):
    engine, docs = indexed
    answer = _why(engine, "stripes patterns", docs / "stripes4.txt", mode="hybrid", min_score=0.999)
    assert answer.reason == "below_floor" and "score floor 1.00" in answer.summary


def test_semantic_standing_with_real_vectors(tmp_path, settings, embedder_installed):
    with Engine(tmp_path / "home", settings=settings) as engine:
        docs = index_files(
            engine,
            tmp_path / "docs",
            {
                "garden.md": "# Tomatoes\n\nWater tomato plants deeply twice a week in summer.\n",
                "rust.md": "# Ownership\n\nThe borrow checker rejects two mutable references.\n",
            },
        )
        answer = _why(engine, "growing vegetables", docs / "rust.md", mode="semantic", limit=1)
    # unrelated to the query: the list leaves it out as too weak, and why-not says just that
    assert answer.reason == "too_weak" and answer.semantic_rank == 2 and answer.rank == 2
    line = next(d for d in answer.details if d.startswith("semantic"))
    assert "#2 by meaning" in line and "borrow checker" in line


def test_cli_prints_the_answer_and_json(indexed, capsys):
    engine, docs = indexed
    home = str(engine.home)
    engine.close()
    assert main(["--home", home, "why-not", "zebra crossing", str(docs / "horse.md"), "--mode", "keyword"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("horse.md: Nothing in it matches") and "keyword: no match" in out
    assert main(["--home", home, "why-not", "zebra", str(docs / "run.log"), "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["reason"] == "excluded" and payload["path"].endswith("run.log")


def _facts(**kw):
    base = dict(mode="hybrid", limit=10, min_score=0.0, shown_rank=None, wider_rank=None, wider_score=None)
    return SearchFacts(**{**base, **kw})


def test_judge_weak_cut_and_ranked_low():
    keyword = KeywordStanding(rank=40, matched=300, missing=(), words=("tax",), relaxed=False)
    reason, summary, *_ = judge(_facts(wider_rank=7, wider_score=0.02, weak_cut=True, keyword=keyword))
    assert reason == "weak_cut" and "#7" in summary
    far = SemanticStanding(rank=None, cosine=0.12)
    assert judge(_facts(keyword=keyword, semantic=far))[0] == "ranked_low"
    none = KeywordStanding(rank=None, matched=0, missing=("tax",), words=("tax",), relaxed=False)
    reason, _, details, *_ = judge(_facts(keyword=none, semantic=far))
    assert reason == "no_match" and details[1].startswith("semantic: below #1000")
    assert (
        judge(_facts(keyword=none, semantic_off=Note("no embedder installed")))[2][1]
        == "semantic: off (no embedder installed)"
    )
    # a score just under its floor is not shown as equal to it
    close = judge(_facts(wider_rank=4, wider_score=0.0496, too_weak=True, weak_floor=0.05, keyword=keyword))[1]
    assert "its score 0.0496 is below 0.05," in close
    assert (
        "its score 0.03 is below 0.05,"
        in judge(_facts(wider_rank=4, wider_score=0.03, too_weak=True, weak_floor=0.05, keyword=keyword))[1]
    )
    # in semantic mode with semantic search off, the sentence says so rather than "nothing matches"
    reason, summary, *_ = judge(_facts(mode="semantic", semantic_off=Note("no embedder installed")))
    assert (
        reason == "no_match" and summary == "Semantic search is off, so this mode finds nothing: no embedder installed."
    )
    assert (
        "Nothing in it matches"
        in judge(_facts(mode="hybrid", keyword=none, semantic_off=Note("no embedder installed")))[1]
    )


def test_judge_tells_a_hybrid_cut_as_one_story():
    keyword = KeywordStanding(rank=40, matched=300, missing=(), words=("tax",), relaxed=False)
    near = SemanticStanding(rank=8, cosine=0.55)
    reason, summary, *_ = judge(_facts(wider_rank=32, wider_score=0.3, keyword=keyword, semantic=near))
    assert reason == "cut_by_limit"
    assert "ranked #32 in the combined list (#40 by keywords, #8 by meaning)" in summary
    _, keyword_only, *_ = judge(_facts(mode="keyword", wider_rank=32, wider_score=0.3, keyword=keyword))
    assert "combined" not in keyword_only
