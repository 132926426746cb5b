"""The keyword lane's shortcuts for match "most" (a one-term query ranked without grouping,
and MaxScore for a query with one term far commoner than the others) rank and count exactly
as grouping every posting does: held against that reference on random queries over a folder
whose words range from nearly everywhere to one document, with title-only matches; and so
with Italian pages beside them, where a plural's Italian stem counts in those pages only."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.search.keyword.lane import Bm25Lane
from findling.search.query_parser import parse_query
from findling.settings import Settings
from findling.store.db import Database
from tests.helpers import RecordingCursor, write

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each

# share of documents whose body holds each word: from nearly all to a single one
SHARES = {
    "harbor": 0.96,
    "lantern": 0.8,
    "meadow": 0.3,
    "copper": 0.12,
    "violet": 0.06,
    "glacier": 0.03,
    "saffron": 0.02,
    "tundra": 0.01,
}
FILLER = ["note", "page", "text", "line", "word", "item", "part", "form"]
N_DOCS = 150
# words English and Italian stem apart: "harbors" is harbor and harbors, "ratio" ratio and rat,
# which English pages index "rats" as
PLURALS = ["harbors", "meadows", "glaciers", "tundra", "ratio"]
ITALIAN = "Il porto è vicino alla città e non ci sono molti che lo vedono, della sera con la luna anche nel mare. "


@pytest.fixture(scope="module", params=["one language", "with Italian pages"])
def engine(tmp_path_factory, request):
    rng = random.Random(7)
    root = tmp_path_factory.mktemp("maxscore")
    docs = root / "docs"
    for i in range(N_DOCS):
        body = [rng.choice(FILLER) for _ in range(rng.randint(5, 120))]
        for word, share in SHARES.items():
            if rng.random() < share:
                body += [word] * rng.randint(1, 6)
        if i % 9 == 0:
            body.append("rats")
        rng.shuffle(body)
        # titles hold common and rare words, some of them absent from the body
        title = " ".join(rng.sample(list(SHARES), rng.randint(0, 2)))
        write(docs / f"doc{i:03d}.html", f"<title>{title or 'untitled'}</title><p>{' '.join(body)}</p>")
    for word in ("copper", "violet", "glacier", "saffron", "tundra"):
        # a rare word once in a very long page scores less than a common word's best page can:
        # where MaxScore must not stop early
        filler = " ".join(rng.choice(FILLER) for _ in range(1_500))
        write(docs / f"long-{word}.html", f"<title>untitled</title><p>{filler} {word} {filler}</p>")
    if request.param == "with Italian pages":
        for i in range(12):
            words = " ".join(rng.sample(PLURALS + list(SHARES), 3))
            write(docs / f"pagina{i:02d}.txt", ITALIAN * 3 + words)
    s = Settings()
    s.index.workers = 1
    with Engine(root / "home", settings=s) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        languages = engine._bm25._corpus_stats(engine._db.cursor())[2]
        assert ("it" in languages) == (request.param == "with Italian pages")
        yield engine


def _lanes(engine: Engine) -> tuple[Bm25Lane, Bm25Lane]:
    s = engine.settings.search
    args = (engine._db.cursor, s.k1, s.b, s.max_query_terms, s.title_boost)
    return Bm25Lane(*args), Bm25Lane(*args, prune=False)


def _ranked(lane: Bm25Lane, query: str, limit: int) -> tuple[list[tuple[int, float]], int, bool]:
    result = lane.search(parse_query(query), limit, "most")
    return [(h.doc_id, round(h.score, 9)) for h in result.hits], result.total, result.relaxed


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    words=st.lists(st.sampled_from([*SHARES, *PLURALS, "unheardof"]), min_size=1, max_size=3),
    limit=st.sampled_from([1, 2, 5, 20]),
)
def test_the_shortcuts_rank_and_count_as_grouping_everything_does(engine, words, limit):
    pruned, reference = _lanes(engine)
    query = " ".join(words)
    assert _ranked(pruned, query, limit) == _ranked(reference, query, limit)


def test_a_common_word_beside_a_rare_one_is_ranked_in_one_statement(engine):
    """The shortcut is taken, not fallen back from: the documents holding the rare word
    outscore any that hold only the common one, so the lane asks once."""
    statements: list[str] = []
    s = engine.settings.search
    lane = Bm25Lane(
        lambda: RecordingCursor(engine._db.cursor(), statements), s.k1, s.b, s.max_query_terms, s.title_boost
    )
    for query in ("harbor copper", "harbor"):
        statements.clear()
        result = lane.search(parse_query(query), 3, "most")
        ranked = [s for s in statements if "ORDER BY score DESC" in s]
        assert len(ranked) == 1, query
        assert len(result.hits) == 3
    # a common word is not the whole question: the rare word's documents lead
    result = engine.find(SearchRequest("harbor tundra", SearchMode.KEYWORD, limit=3))
    assert result.total_matched == engine.find(SearchRequest("harbor", SearchMode.KEYWORD)).total_matched + sum(
        1 for h in engine.find(SearchRequest("tundra -harbor", SearchMode.KEYWORD, limit=50)).hits
    )


# Postings written straight into an index: document lengths from a word to thousands of
# words, so that a rare word's only documents can score below what the common word alone
# reaches (where MaxScore must fall back), titles holding words the body lacks, hub pages.
WORDS = ["alpha", "bravo", "delta", "kilo", "lima", "oscar"]


@pytest.fixture(scope="module")
def database(tmp_path_factory):
    db = Database(tmp_path_factory.mktemp("postings") / "index.duckdb")
    yield db
    db.close()


Doc = tuple[int, dict[str, int], list[str], float | None]  # length, word: tf, title words, hub share


def _write(db: Database, docs: list[Doc]) -> None:
    df = dict.fromkeys(WORDS, 0)
    with db.transaction() as cur:
        for table in ("documents", "terms", "postings", "title_postings", "link_shares"):
            cur.execute(f"DELETE FROM {table}")
        cur.executemany(
            "INSERT INTO documents (id, source_id, path, ext, size, mtime, status, length) "
            "VALUES (?, 1, ?, 'txt', 1, 0, 'ok', ?)",
            [(doc, f"/d/{doc}.txt", float(length)) for doc, (length, _, _, _) in enumerate(docs, start=1)],
        )
        for doc, (length, tfs, titles, hub) in enumerate(docs, start=1):
            for word, tf in tfs.items():
                cur.execute("INSERT INTO postings VALUES (?, ?, ?, ?)", [WORDS.index(word) + 1, doc, tf, length])
                df[word] += 1
            for word in titles:
                cur.execute("INSERT INTO title_postings VALUES (?, ?)", [WORDS.index(word) + 1, doc])
            if hub is not None:
                cur.execute("INSERT INTO link_shares VALUES (?, ?)", [doc, hub])
        cur.executemany("INSERT INTO terms VALUES (?, ?, ?)", [(i, w, df[w]) for i, w in enumerate(WORDS, start=1)])


def _random_docs(seed: int, n_docs: int, shares: list[float]) -> list[Doc]:
    rng = random.Random(seed)
    docs: list[Doc] = []
    for _ in range(n_docs):
        tfs = {w: rng.randint(1, 9) for w, share in zip(WORDS, shares) if rng.random() < share}
        titles = [w for w, share in zip(WORDS, shares) if rng.random() < share / 3]
        hub = rng.random() if rng.random() < 0.3 else None
        docs.append((rng.choice([1, 3, 10, 40, 200, 3000, 30_000]), tfs, titles, hub))
    return docs


def _both(database: Database, query: str, limit: int) -> tuple[list[tuple[int, float]], int, bool]:
    args = (database.cursor, 1.2, 0.75, 16, 2.0)
    pruned = _ranked(Bm25Lane(*args), query, limit)
    assert pruned == _ranked(Bm25Lane(*args, prune=False), query, limit)
    return pruned


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    seed=st.integers(0, 2**32),
    n_docs=st.integers(1, 80),
    shares=st.lists(st.sampled_from([0.01, 0.05, 0.1, 0.3, 0.5, 0.8, 1.0]), min_size=len(WORDS), max_size=len(WORDS)),
    words=st.lists(st.sampled_from([*WORDS, "unheardof"]), min_size=1, max_size=3),
    limit=st.sampled_from([1, 2, 3, 5, 20]),
)
def test_on_any_postings_the_shortcuts_equal_the_reference(database, seed, n_docs, shares, words, limit):
    _write(database, _random_docs(seed, n_docs, shares))
    _both(database, " ".join(words), limit)


COMMON = (1, {"alpha": 9}, [], None)  # the common word, often, in a one-word document
NEITHER = (1, {}, [], None)
WEAK = (30_000, {"bravo": 1}, [], 1.0)  # the rare word once in a long page of links


@pytest.mark.usefixtures("long_pages")
def test_maxscore_falls_back_when_the_common_word_alone_outranks_the_rare_words_pages(database):
    titled = (1, {"alpha": 9}, ["alpha"], None)
    _write(database, [titled, *[COMMON] * 39, *[NEITHER] * 9, WEAK])
    hits, total, _ = _both(database, "alpha bravo", 1)
    assert [doc for doc, _ in hits] == [1] and total == 41


@pytest.mark.usefixtures("long_pages")
def test_maxscore_scores_a_document_whose_title_alone_holds_the_rare_word(database):
    titled = (1, {"alpha": 9}, ["bravo"], None)
    _write(database, [COMMON, titled, *[COMMON] * 38, *[NEITHER] * 8, WEAK, WEAK])
    hits, total, _ = _both(database, "alpha bravo", 2)
    # then a page of the common word: the rare word's pages are long pages of links
    assert [doc for doc, _ in hits] == [2, 1] and total == 42


def test_maxscore_bounds_the_common_word_s_documents_by_their_whole_score(database):
    """A page holding only the common word is not scored down for lacking the rare one: the
    bound MaxScore stops at must say so, or the rare word's weak pages would be listed above
    it (as they were while coverage multiplied the score and the bound took its power)."""
    long_neither = (30_000, {}, [], None)
    _write(database, [*[COMMON] * 40, WEAK, WEAK, *[long_neither] * 8])
    hits, total, _ = _both(database, "alpha bravo", 1)
    assert hits[0][0] <= 40 and total == 42  # a page of the common word first
