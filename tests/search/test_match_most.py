"""Keyword search's default match, "most": any word matches, a document is ranked by its
BM25 score times the share of the query's weight it holds, times a bonus for the query
words in its title field (title and file name); quoted phrases and the words of unspaced
scripts stay whole."""

from __future__ import annotations

import os

import duckdb
import pytest

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.settings import Settings
from tests.helpers import write

FILLER = "Some words about other things entirely, for length. " * 30


@pytest.fixture()
def engine(tmp_path):
    settings = Settings()
    settings.index.workers = 1
    with Engine(tmp_path / "home", settings=settings) as engine:
        yield engine


def _names(engine, query, match=None, limit=10):
    result = engine.find(SearchRequest(query, SearchMode.KEYWORD, limit=limit, match=match))
    return [os.path.basename(h.path) for h in result.hits], result


def test_the_page_named_by_the_query_outranks_a_long_page_holding_every_word(engine, tmp_path):
    docs = tmp_path / "docs"
    # the known-item case: the page about temporary files lacks "automatically"; release
    # notes hold every word somewhere in their length
    write(
        docs / "tempfile.html",
        "<title>tempfile — Generate temporary files and directories</title>"
        "<p>This module creates temporary files and directories. The temporary directory and its "
        "contents are deleted when it is closed.</p>",
    )
    write(
        docs / "whatsnew.html",
        "<title>What's new in 3.2</title><p>"
        + FILLER
        + " A temporary fix was made. "
        + FILLER
        + " The directory module was deleted. "
        + FILLER
        + " Builds now run automatically. "
        + FILLER
        + "</p>",
    )
    for i in range(20):  # the rest of a documentation folder, so that the words have their usual rarity
        write(docs / f"page{i}.html", f"<title>Module {i}</title><p>Functions of module {i}, with examples.</p>")
    engine.add_source(docs)
    engine.index(embed=False)
    strict, _ = _names(engine, "temporary directory deleted automatically", "all")
    assert strict == ["whatsnew.html"]  # "all" drops the page that lacks a word
    ranked, result = _names(engine, "temporary directory deleted automatically")
    assert ranked == ["tempfile.html", "whatsnew.html"]
    assert not result.relaxed  # a document holds every word: nothing to say
    first = result.hits[0]
    assert 0.0 < first.score <= 1.0


def test_the_file_name_is_part_of_the_title_field(engine, tmp_path):
    docs = tmp_path / "docs"
    write(docs / "budget-2025.txt", "Numbers for the coming year: rent, food and travel.")
    write(docs / "diary.txt", "I made a budget for the year, a budget with rent and food and travel in it.")
    engine.add_source(docs)
    engine.index(embed=False)
    ranked, result = _names(engine, "budget rent")
    assert ranked[0] == "budget-2025.txt"
    # the same two words in both bodies: the name makes the difference, beyond its weight as text
    assert result.hits[0].score > result.hits[1].score


def test_documents_lacking_a_word_follow_and_the_note_says_when_none_has_them_all(engine, tmp_path):
    docs = tmp_path / "docs"
    write(docs / "both.md", "# Notes\n\nvacuum reclaims storage.\n")
    write(docs / "vacuum.md", "# Notes\n\nvacuum runs at night.\n")
    write(docs / "other.md", "# Notes\n\nnothing here.\n")
    engine.add_source(docs)
    engine.index(embed=False)
    names, result = _names(engine, "vacuum storage")
    assert names == ["both.md", "vacuum.md"] and not result.relaxed
    names, result = _names(engine, "vacuum xylophone")
    assert sorted(names) == ["both.md", "vacuum.md"]
    assert result.relaxed and result.notes  # no document holds "xylophone": said, as with "all"


def test_phrases_and_the_parts_of_a_word_stay_whole(engine, tmp_path):
    docs = tmp_path / "docs"
    write(docs / "campus.txt", "我在北京大学学习。")
    write(docs / "apart.txt", "北京的大学很多。")
    write(docs / "quoted.txt", "rename table is the command; see also table rename.")
    write(docs / "loose.txt", "table of contents; rename files.")
    write(docs / "split.py", "def parse_known_args(): pass")
    write(docs / "half.txt", "we parse the known world.")
    engine.add_source(docs)
    engine.index(embed=False)
    assert _names(engine, '"北京大学"')[0] == ["campus.txt"]
    assert _names(engine, '"rename table"')[0] == ["quoted.txt"]
    assert _names(engine, "parse_known_args")[0][0] == "split.py"
    assert "half.txt" not in _names(engine, "parse_known_args")[0]  # a part of the word is not the word


def test_a_long_query_of_many_words_is_scored(engine, tmp_path):
    """Sixteen words of different rarity: the coverage sums stay exact (DuckDB would read the
    weights as DECIMALs and overflow their sum)."""
    docs = tmp_path / "docs"
    words = [f"word{i}" for i in range(16)]
    for i in range(20):
        write(docs / f"d{i}.txt", " ".join(words[: 1 + i % 16]) + f" common, file {i}")
    engine.add_source(docs)
    engine.index(embed=False)
    names, _ = _names(engine, " ".join(reversed(words)), limit=20)
    assert len(names) == 20 and names[0] == "d15.txt"  # the one holding all sixteen


def test_an_index_from_before_the_title_field_gets_it_without_reading_files_again(tmp_path):
    docs = tmp_path / "docs"
    write(docs / "tempfile.md", "# Temporary files\n\nmake them and they go away.")
    write(docs / "long.md", "# Other\n\n" + FILLER + " temporary " + FILLER + " files " + FILLER)
    settings = Settings()
    settings.index.workers = 1
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        before = _names(engine, "temporary files")[0]
    con = duckdb.connect(str(tmp_path / "home" / "findling.duckdb"))
    con.execute("DROP TABLE title_postings")  # as schema 9 left it
    con.execute("UPDATE meta SET value = '9' WHERE key = 'schema_version'")
    con.close()
    with Engine(tmp_path / "home", settings=settings) as engine:
        assert _names(engine, "temporary files")[0] == before == ["tempfile.md", "long.md"]
        report = engine.index(embed=False)
        assert report.unchanged == 2 and engine.check_index() == []
        # the migration wrote what ingest writes: the same rows as a fresh index
        con = engine._db.cursor()
        migrated = sorted(con.execute("SELECT term_id, doc_id FROM title_postings").fetchall())
    with Engine(tmp_path / "fresh", settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
        con = engine._db.cursor()
        fresh = con.execute("SELECT t.term, p.doc_id FROM title_postings p JOIN terms t ON t.id = p.term_id").fetchall()
    assert len(migrated) == len(fresh) > 4


def test_a_page_of_links_ranks_below_the_page_it_links_to(engine, tmp_path):
    from findling.ingest.extractors.html import link_share

    docs = tmp_path / "docs"
    entries = "".join(
        f'<li><a href="p{i}.html">{w} reference {i}</a></li>'
        for i, w in enumerate(["socket server", "tcp listen", "accept connections", "threads"] * 5)
    )
    index_page = f"<title>Library index</title><ul>{entries}</ul>"
    write(docs / "index.html", index_page)
    content = (
        "<title>socketserver</title><p>A framework for network servers. A TCP server will listen "
        "and accept connections, one at a time or in threads. See <a href='x.html'>examples</a>.</p>"
    ) * 3
    write(docs / "socketserver.html", content)
    for i in range(10):
        write(docs / f"other{i}.html", f"<title>Other {i}</title><p>Unrelated page {i} about files.</p>")
    assert link_share(index_page) > 0.9 and link_share(content) < 0.2
    engine.add_source(docs)
    engine.index(embed=False)
    for match in ("most", "any", "all"):
        assert _names(engine, "tcp server listen accept connections", match)[0][0] == "socketserver.html", match


def test_a_hyphenated_word_s_parts_are_words_of_their_own(engine, tmp_path):
    """A claim's `IL-6` or `beta-catenin` is spelled another way in many abstracts: a
    document holding part of it is ranked below one holding all, not dropped."""
    docs = tmp_path / "docs"
    write(docs / "full.txt", "Beta-catenin signalling drives the tumour.")
    write(docs / "part.txt", "Catenin signalling rose in the tumour cells.")
    write(docs / "neither.txt", "An unrelated note about gardening.")
    engine.add_source(docs)
    engine.index(embed=False)
    names, _ = _names(engine, "beta-catenin signalling")
    assert names == ["full.txt", "part.txt"]


GERMAN = (
    "Die Katzen schlafen heute im Garten, und der Hund liegt unter dem Baum. Wir haben den "
    "ganzen Nachmittag gelesen und über die Bücher gesprochen, die wir im Sommer kaufen wollen. "
)


def _languages_indexed(engine, docs, files: dict[str, str]) -> tuple[str, ...]:
    """`files` (name: text) written into `docs` and indexed for keyword search: the languages
    the index then holds."""
    for name, text in files.items():
        write(docs / name, text)
    engine.add_source(docs)
    engine.index(embed=False)
    return engine._bm25._corpus_stats(engine._db.cursor())[2]


def test_a_split_word_s_parts_are_each_needed_in_an_index_of_several_languages(engine, tmp_path):
    """With a German page beside English ones, each part of "beta-catenin" still counts on its
    own: a page with only "beta" holds half the word, not all of it, and when no page holds
    both, the result says that no document has every word."""
    docs = tmp_path / "docs"
    files = {
        "katzen.txt": GERMAN * 3,
        "full.txt": "Beta-catenin signalling drives the tumour. " + FILLER,
        "beta.txt": "Beta blockers lower the heart rate in the tumour ward. " + FILLER,
        "catenin.txt": "Catenin levels rose in the tumour cells. " + FILLER,
    }
    assert len(_languages_indexed(engine, docs, files)) > 1
    names, result = _names(engine, "beta-catenin tumour")
    assert names[0] == "full.txt" and not result.relaxed
    (docs / "full.txt").unlink()
    engine.index(embed=False)
    names, result = _names(engine, "beta-catenin tumour")
    assert sorted(names) == ["beta.txt", "catenin.txt"] and result.relaxed  # no page holds every part


PORTUGUESE = (
    "Os gatos dormem hoje no jardim, e o cachorro está deitado debaixo da árvore. Passamos a "
    "tarde inteira lendo e conversando sobre os livros que queremos comprar no verão. "
)


def test_a_word_s_stems_in_a_rarer_language_weigh_as_the_word_does(engine, tmp_path):
    """A page read as another language holds its words under that language's stems ("cod" for
    "code" in Portuguese), which no other page holds. Each stem weighed by its own rarity made
    that page outrank every English page that answers (the Python docs' table of audit events,
    read as Portuguese, came first for six questions); a group's terms weigh as its commonest."""
    files = {
        "tabela.txt": PORTUGUESE * 3 + "code file",
        "answer.txt": "How to read a file of source code: open the code file and read it. " + FILLER,
    }
    files |= {f"other{i}.txt": f"Note {i}: some code here, a file there. " + FILLER for i in range(8)}
    assert len(_languages_indexed(engine, tmp_path / "docs", files)) > 1
    names, _ = _names(engine, "code file")
    assert names[0] == "answer.txt" and "tabela.txt" in names  # still found, by its words


FRENCH = (
    "Les chats dorment dans le jardin et le chien est sous un arbre. Nous avons lu tout "
    "l'après-midi et parlé des livres que nous voulons acheter pour les vacances. "
)


def test_a_stem_only_another_language_makes_matches_that_language_s_documents_only(engine, tmp_path):
    """French stems "cookies" to "cook", which English pages index "cooking" as. One French page
    in an index made every English page on cooking a match for "cookies" (NFCorpus's only page
    read as French: its results for "cookies" were all about cooking). The French stem matches
    the French page; the English pages match by their own stem."""
    docs = tmp_path / "docs"
    files = {
        "recettes.txt": FRENCH * 3 + "Des cookies au chocolat pour le goûter.",
        "cookies.txt": "Cookies and biscuits: smaller cookies lead to eating less. " + FILLER,
        "cooking.txt": "Cooking vegetables at home: how cooking changes their nutrients. " + FILLER,
        "recipes.txt": "Recipes for cooking at home, and the cookies we bake. " + FILLER,
    }
    assert len(_languages_indexed(engine, docs, files)) > 1
    for match in ("most", "any", "all"):
        names, _ = _names(engine, "cookies", match)
        assert sorted(names) == ["cookies.txt", "recettes.txt", "recipes.txt"], match
    # an excluded word keeps to the same rule: "-cookies" takes no English page on cooking away
    names, _ = _names(engine, "cooking -cookies")
    assert names == ["cooking.txt"]
    # and what lights up: "cookies" on every page, never an English page's "cooking"
    result = engine.find(SearchRequest("cookies", SearchMode.KEYWORD))
    for hit in result.hits:
        lit = {hit.snippet[h.start : h.end].lower() for h in hit.highlights}
        assert lit == {"cookies"}, hit.path
        text = engine.document_text(hit.doc_id, result.terms, result.terms_apart)
        assert {text.text[h.start : h.end].lower() for h in text.highlights} == {"cookies"}, hit.path
    # why-not says so too: the page on cooking lacks the word
    answer = engine.why_not(SearchRequest("cookies", SearchMode.KEYWORD), docs / "cooking.txt")
    assert answer.reason == "no_match" and "“cookies”" in answer.details[0]


def test_an_identifier_no_document_holds_whole_is_matched_by_its_words(engine, tmp_path):
    """`parseKnownArgs` where the code says `parse_known_args`, `thread_pool_executor` where it
    says `ThreadPoolExecutor`: a document indexes an identifier's words beside it, and the
    query's words are what is left to match by. An identifier some document holds whole
    matches only that way."""
    docs = tmp_path / "docs"
    write(docs / "cli.py", "def parse_known_args(self, args=None):\n    return self.parse_args(args)\n")
    write(docs / "pool.py", "class ThreadPoolExecutor:\n    '''Runs calls on a pool of threads.'''\n")
    write(docs / "notes.md", "Known issues: args are parsed late. " + FILLER)
    write(docs / "other.md", "Nothing about any of it. " + FILLER)
    engine.add_source(docs)
    engine.index(embed=False)
    for match in ("most", "all"):
        names, _ = _names(engine, "parseKnownArgs", match)
        assert names[0] == "cli.py", match
        names, _ = _names(engine, "thread_pool_executor", match)
        assert names[0] == "pool.py", match
    names, _ = _names(engine, "parse_known_args")
    assert names == ["cli.py"]  # held whole: its words alone do not match (notes.md holds them)
    result = engine.find(SearchRequest("parseKnownArgs", SearchMode.KEYWORD))
    assert {result.hits[0].snippet[h.start : h.end] for h in result.hits[0].highlights} >= {"parse_known_args"}
    answer = engine.why_not(SearchRequest("parseKnownArgs", SearchMode.KEYWORD), docs / "cli.py")
    assert answer.reason == "shown"


def test_a_phrase_is_matched_in_each_document_s_language(engine, tmp_path):
    """A quoted phrase was analysed in the first of the index's languages: with one German page
    beside English ones ("de" sorts before "en"), "running shoes" was looked for as German
    stems and found nothing. Each document is matched by the phrase in its own language, and
    so are NEAR, an excluded phrase, and what another lane's documents must obey."""
    from findling.search.query_parser import parse_query

    files = {
        "katzen.txt": GERMAN * 3,
        "shoes.md": "# Shoes\n\nThe best running shoes for long distances are light. " + FILLER,
        "other.md": "# Other\n\nShoes for running are not the same as hiking boots. " + FILLER,
    }
    assert _languages_indexed(engine, tmp_path / "docs", files)[0] == "de"  # the first language
    assert _names(engine, '"running shoes"')[0] == ["shoes.md"]
    assert _names(engine, '"Hund liegt"')[0] == ["katzen.txt"]
    assert sorted(_names(engine, "running NEAR shoes")[0]) == ["other.md", "shoes.md"]
    assert _names(engine, 'shoes -"running shoes"')[0] == ["other.md"]
    paths = {os.path.basename(p): d for d, p in engine.document_paths().items()}
    assert engine._bm25.satisfying(parse_query('"running shoes"'), list(paths.values())) == {paths["shoes.md"]}
