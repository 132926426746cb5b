"""Keyword search orders its first results again by how near the query's words stand in
each document's text: the page that uses them together before the one that holds each
somewhere."""

from __future__ import annotations

import os

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.search.keyword.proximity import _most_in_window, boosted, nearness
from findling.tuning import NEARNESS_POOL, NEARNESS_WIDTH
from tests.helpers import record_statements, write

FILLER = "Some other words about unrelated matters fill this part of the page. " * 8


def _chunks(*texts: str) -> list[tuple[int, int, str]]:
    return [(0, len(t), t) for t in texts]


def test_nearness_is_the_share_of_words_one_stretch_holds():
    groups = [frozenset({"shell"}), frozenset({"command"}), frozenset({"output"})]
    together = "Run a shell command and read its output."
    apart = f"The shell is here. {FILLER} A command there. {FILLER} Output elsewhere."
    assert nearness(_chunks(together), groups, "en") == 1.0
    assert nearness(_chunks(apart), groups, "en") == 1 / 3
    assert nearness(_chunks(apart, together), groups, "en") == 1.0  # the best chunk counts
    assert nearness(_chunks("nothing here"), groups, "en") == 0.0
    assert nearness(_chunks("Commands, shells and outputs."), groups, "en") == 1.0  # as indexed: stems


def test_most_in_window_counts_distinct_groups_within_the_width():
    assert _most_in_window([(0, 0), (10, 1), (20, 0)], NEARNESS_WIDTH) == 2
    assert _most_in_window([(0, 0), (NEARNESS_WIDTH + 1, 1)], NEARNESS_WIDTH) == 1
    assert _most_in_window([(0, 0), (NEARNESS_WIDTH - 5, 1), (NEARNESS_WIDTH, 2)], NEARNESS_WIDTH) == 3
    assert _most_in_window([], NEARNESS_WIDTH) == 0
    # a window stays in one paragraph: (paragraph starts after the first)
    assert _most_in_window([(0, 0), (10, 1), (20, 2)], NEARNESS_WIDTH, [15]) == 2
    assert _most_in_window([(0, 0), (10, 1), (20, 2), (30, 0)], NEARNESS_WIDTH, [5, 15]) == 2
    assert _most_in_window([(0, 0), (10, 1), (20, 2)], NEARNESS_WIDTH, [25]) == 3


def test_the_entries_of_a_list_are_apart_however_short():
    """An index or a glossary holds a question's words one entry at a time: entries are
    paragraphs of the extracted text, and nearness does not count across them."""
    groups = [frozenset({"random"}), frozenset({"element"}), frozenset({"list"})]
    glossary = "random\n\nA module of chance.\n\nelement\n\nA part of a whole.\n\nlist\n\nA sequence."
    answer = "Choose random elements from a list with sample()."
    assert nearness(_chunks(glossary), groups, "en") == 1 / 3
    assert nearness(_chunks(answer), groups, "en") == 1.0
    assert boosted(1.0, 0.0, 2.0) == 1.0 and boosted(1.0, 1.0, 2.0) > boosted(1.0, 0.5, 2.0) > 1.0
    assert boosted(1.0, 1.0, 0.0) == 1.0  # weight 0: among abstracts, nearness counts nothing


def _names(engine: Engine, query: str, limit: int = 10) -> list[str]:
    hits = engine.find(SearchRequest(query, SearchMode.KEYWORD, limit=limit)).hits
    return [os.path.basename(h.path) for h in hits]


def _glossary_and_answer(docs):
    # the glossary holds every word, once each, far apart, in a shorter page: BM25 alone
    # puts it first
    write(
        docs / "glossary.md",
        "# Glossary\n\nshell: a program. " + FILLER + " capture: to keep. " + FILLER + " output: what comes out.",
    )
    write(
        docs / "subprocess.md",
        "# subprocess\n\n"
        + FILLER * 3
        + " To capture the output of a shell command, pass capture_output. "
        + FILLER * 3,
    )
    for i in range(8):
        write(docs / f"page{i}.md", f"# Page {i}\n\n" + FILLER)


def test_the_page_using_the_words_together_comes_first(tmp_path, settings, docs, long_pages):
    _glossary_and_answer(docs)
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        assert _names(engine, "capture shell output")[:2] == ["subprocess.md", "glossary.md"]
        engine.warm()
        assert _names(engine, "capture shell output")[:2] == ["subprocess.md", "glossary.md"]


def test_among_short_pages_nearness_hardly_counts(tmp_path, settings, docs):
    """In a folder of short pages (abstracts, notes) every word is near every other: BM25's
    order stands (SciFact and NFCorpus rank best so)."""
    _glossary_and_answer(docs)
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        assert _names(engine, "capture shell output")[:2] == ["glossary.md", "subprocess.md"]


def test_the_first_results_are_the_same_whatever_the_number_asked(tmp_path, settings, docs):
    for i in range(NEARNESS_POOL + 6):
        near = " alpha beta " if i % 3 == 0 else " alpha " + FILLER + " beta "
        write(docs / f"d{i:02d}.md", f"# Doc {i}\n\n{FILLER[: 20 * i]}{near}{FILLER}")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        longest = _names(engine, "alpha beta", limit=NEARNESS_POOL + 6)
        for limit in (1, 3, NEARNESS_POOL - 1, NEARNESS_POOL, NEARNESS_POOL + 2):
            assert _names(engine, "alpha beta", limit=limit) == longest[:limit]


def test_before_warming_a_search_reads_its_documents_text_once(tmp_path, settings, docs):
    for i in range(5):
        write(docs / f"d{i}.md", f"# Doc {i}\n\nalpha and beta, {FILLER}")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        asked = record_statements(engine)
        assert len(engine.find(SearchRequest("alpha beta", SearchMode.KEYWORD)).hits) == 5
        assert len([sql for sql in asked if "FROM chunks" in sql]) == 1


def test_a_deep_list_reads_only_the_documents_it_orders(tmp_path, settings, docs):
    """why-not ranks 100,000 documents deep: reading every one's text ran out of memory."""
    from findling.search.keyword.lane import Bm25Lane
    from findling.search.query_parser import parse_query

    for i in range(NEARNESS_POOL + 30):
        write(docs / f"d{i:02d}.md", f"# Doc {i}\n\nalpha {FILLER} beta")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        asked: list[list[int]] = []

        def passages(ids):
            asked.append(list(ids))
            return engine.searcher.passages(ids)

        lane = Bm25Lane(engine._db.cursor, passages=passages)
        assert len(lane.search(parse_query("alpha beta"), 100_000, "most").hits) == NEARNESS_POOL + 30
        assert [len(ids) for ids in asked] == [NEARNESS_POOL]
        asked.clear()
        lane.search(parse_query("alpha beta"), 25, "most")
        assert [len(ids) for ids in asked] == [25]  # the shown results, read once for their snippets
