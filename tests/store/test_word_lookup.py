"""A run that writes many files does without the words' lookup index and builds it at its end
(issue 62, 3: bytes written). On the kernel's AMD register headers the UNIQUE index on
`terms.term` cost a third of the bytes written and a fifth of the file."""

from __future__ import annotations

import duckdb

from findling.cli import main
from findling.engine import Engine
from findling.paths import DB_FILENAME
from findling.records import SearchMode, SearchRequest
from findling.store import word_lookup
from findling.store.word_lookup import has_word_lookup
from tests.helpers import write


def _fill(docs, n: int, word: str, extra: str = "") -> None:
    for i in range(n):
        write(docs / f"{word}{i:03d}.txt", f"{word} number {i} shared{i % 3} {extra} " + f"{word}{i}only")


def _duplicate_terms(con) -> list[tuple[str, int]]:
    return con.execute("SELECT term, count(*) FROM terms GROUP BY term HAVING count(*) > 1").fetchall()


def _keyword(engine: Engine, query: str) -> list[str]:
    return [hit.path.rsplit("/", 1)[-1] for hit in engine.find(SearchRequest(query, SearchMode.KEYWORD)).hits]


def test_a_run_of_many_files_writes_without_the_lookup_and_builds_it_at_its_end(tmp_path, settings, monkeypatch):
    monkeypatch.setattr(word_lookup, "BULK_FILES", 10)
    docs = tmp_path / "docs"
    _fill(docs, 12, "alpha")
    seen: list[bool] = []
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(str(docs))

        def watch(progress) -> None:
            if progress.phase == "indexing":
                seen.append(has_word_lookup(engine._db.cursor()))

        engine.index(progress=watch, embed=False)
        assert seen and not any(seen)  # dropped while the files were written
        cur = engine._db.cursor()
        assert has_word_lookup(cur) and _duplicate_terms(cur) == []
        assert engine.check_index() == []
        assert _keyword(engine, "alpha7only") == ["alpha007.txt"]
        assert len(_keyword(engine, "shared1")) == 4

        # a small run keeps it; the words both runs hold stay one row each
        _fill(tmp_path / "few", 3, "beta", extra="alpha shared1")
        engine.add_source(str(tmp_path / "few"))
        seen.clear()
        engine.index(progress=watch, embed=False)
        assert seen and all(seen)
        cur = engine._db.cursor()
        assert _duplicate_terms(cur) == [] and engine.check_index() == []
        assert len(_keyword(engine, "shared1")) == 7

        # many edited files again: new words and old ones, no duplicates
        _fill(docs, 12, "alpha", extra="gamma beta2only")
        engine.index(embed=False)
        cur = engine._db.cursor()
        assert has_word_lookup(cur) and _duplicate_terms(cur) == []
        assert engine.check_index() == []
        assert len(_keyword(engine, "gamma")) == 12
        assert sorted(_keyword(engine, "beta2only")) == ["alpha%03d.txt" % i for i in range(12)] + ["beta002.txt"]


def test_a_run_killed_without_its_lookup_gets_it_back_when_the_index_opens(tmp_path, settings, monkeypatch, capsys):
    home = tmp_path / "home"
    _fill(tmp_path / "docs", 5, "alpha")
    with Engine(home, settings=settings) as engine:
        engine.add_source(str(tmp_path / "docs"))
        engine.index(embed=False)
    con = duckdb.connect(str(home / DB_FILENAME))
    con.execute(f"DROP INDEX {word_lookup.NAME}")  # as a run killed mid-way leaves it
    con.close()
    monkeypatch.setenv("FINDLING_HOME", str(home))
    assert main(["search", "alpha3only", "--json"]) == 0
    assert "alpha003.txt" in capsys.readouterr().out
    con = duckdb.connect(str(home / DB_FILENAME), read_only=True)
    assert has_word_lookup(con)
    con.close()


def test_schema_33_takes_the_unique_constraint_off_and_keeps_every_term(tmp_path, settings):
    home = tmp_path / "home"
    _fill(tmp_path / "docs", 6, "alpha")
    with Engine(home, settings=settings) as engine:
        engine.add_source(str(tmp_path / "docs"))
        engine.index(embed=False)
        before = sorted(engine._db.cursor().execute("SELECT id, term, df FROM terms").fetchall())
        found = _keyword(engine, "shared2")
    con = duckdb.connect(str(home / DB_FILENAME))
    con.execute(f"DROP INDEX {word_lookup.NAME}")  # the table as schema 32 had it
    con.execute("CREATE TABLE terms_old (id INTEGER NOT NULL, term VARCHAR NOT NULL UNIQUE, df INTEGER NOT NULL)")
    con.execute("INSERT INTO terms_old SELECT * FROM terms")
    con.execute("DROP TABLE terms")
    con.execute("ALTER TABLE terms_old RENAME TO terms")
    con.execute("UPDATE meta SET value = '32' WHERE key = 'schema_version'")
    con.close()
    with Engine(home, settings=settings) as engine:
        cur = engine._db.cursor()
        assert sorted(cur.execute("SELECT id, term, df FROM terms").fetchall()) == before
        unique = cur.execute(
            "SELECT count(*) FROM duckdb_constraints() WHERE table_name = 'terms' AND constraint_type = 'UNIQUE'"
        ).fetchall()[0][0]
        assert unique == 0 and has_word_lookup(cur)
        assert _keyword(engine, "shared2") == found and engine.check_index() == []
