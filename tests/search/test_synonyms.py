"""synonyms.txt beside settings.toml: a query word matches the words of its set, highlighted,
in keyword and hybrid search; an edit takes effect at the next query."""

from __future__ import annotations

import os

from findling.engine import Engine
from findling.paths import config_dir
from findling.records import SearchMode, SearchRequest
from findling.text.synonyms import SYNONYMS_FILENAME, parse_synonyms, with_synonyms
from tests.helpers import write


def test_the_file_format():
    sets = parse_synonyms("# databases\npostgres, PostgreSQL  pg\n\ncolour color # spelling\nPG sql\n")
    assert sets["postgres"] == ("postgresql", "pg")
    assert sets["pg"] == ("postgres", "postgresql", "sql")  # in two sets: both
    assert sets["colour"] == ("color",) and "databases" not in sets
    assert with_synonyms(("Colour",), sets) == ("Colour", "color")
    assert with_synonyms(("nothing",), sets) == ("nothing",)


def test_a_word_finds_its_synonyms_and_an_edit_counts_at_once(tmp_path, settings):
    docs = tmp_path / "docs"
    write(docs / "db.md", "# Server\n\nThe PostgreSQL server listens on port 5432.\n")
    write(docs / "other.md", "# Other\n\nA server of another kind.\n")
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        engine.add_source(docs)
        engine.index(embed=False)

        def found(query: str, mode: SearchMode = SearchMode.KEYWORD):
            result = engine.find(SearchRequest(query, mode, rerank="off", match="all"))
            return [os.path.basename(h.path) for h in result.hits], result

        assert found("pg server")[1].relaxed  # no synonyms yet: no document holds "pg"
        write(config_dir(home) / SYNONYMS_FILENAME, "postgres, postgresql, pg\n")
        names, result = found("pg server")
        assert names == ["db.md"] and not result.relaxed
        hit = result.hits[0]
        assert "PostgreSQL" in [hit.snippet[h.start : h.end] for h in hit.highlights]
        assert found("pg server", SearchMode.HYBRID)[0][0] == "db.md"
        why = engine.why_not(SearchRequest("pg server", SearchMode.KEYWORD, match="all"), docs / "other.md")
        assert "“pg”" in why.details[0]  # said in the query's own words
        (config_dir(home) / SYNONYMS_FILENAME).unlink()
        assert found("pg server")[1].relaxed
