"""The stemming language per index (`[index] language`), and a change to how text is read
(language, chunk size, title weight) making the next run read every file again."""

from __future__ import annotations

import os

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.settings import Settings
from tests.helpers import assert_index_consistent, write


def _engine(home, **index) -> Engine:
    settings = Settings()
    settings.index.workers = 1
    for key, value in index.items():
        setattr(settings.index, key, value)
    return Engine(home, settings=settings)


def _found(engine: Engine, query: str) -> list[str]:
    return [os.path.basename(h.path) for h in engine.find(SearchRequest(query, SearchMode.KEYWORD)).hits]


def test_a_chosen_language_stems_every_document_and_a_change_reads_them_again(tmp_path):
    docs = tmp_path / "docs"
    # mostly English to the detector, with a German plural in it
    write(docs / "pets.md", "Notes: the Katzen and the dogs are in the garden today, all of them asleep.")
    write(docs / "other.md", "Nothing about animals here, only the weather and the garden.")
    home = tmp_path / "home"
    with _engine(home) as engine:
        engine.add_source(docs)
        first = engine.index(embed=False)
        assert first.added == 2 and not first.warnings
        assert _found(engine, "Katze") == []  # English stems leave "katzen" whole
        again = engine.index(embed=False)
        assert again.unchanged == 2 and not again.warnings  # nothing changed: nothing read again
    with _engine(home, language="de") as engine:
        report = engine.index(embed=False)
        assert report.updated == 2 and any("read again" in w for w in report.warnings)
        assert _found(engine, "Katze") == ["pets.md"]  # German: Katzen and Katze share a stem
        assert engine.index(embed=False).unchanged == 2
        assert_index_consistent(engine)
    with _engine(home, language="de", chunk_tokens=400) as engine:  # how text is cut counts too
        assert engine.index(embed=False).updated == 2


def test_an_index_from_before_keeps_its_files(tmp_path):
    """An index that never recorded its reading settings takes the current ones, without
    reading every file again on the first run after an upgrade."""
    import duckdb

    docs = tmp_path / "docs"
    write(docs / "a.md", "alpha")
    home = tmp_path / "home"
    with _engine(home) as engine:
        engine.add_source(docs)
        engine.index(embed=False)
    con = duckdb.connect(str(home / "findling.duckdb"))
    con.execute("DELETE FROM meta WHERE key = 'analysis'")
    con.close()
    with _engine(home) as engine:
        report = engine.index(embed=False)
        assert report.unchanged == 1 and not report.warnings
