"""The index gives back the space of what was removed (issue 62, 3): after 19,825 of the kernel's
documents were removed the file stayed 1.57 GB, where a copy of what it held was 535 MB."""

from __future__ import annotations

import duckdb
import pytest

from findling.cli import main
from findling.engine import Engine
from findling.errors import StoreLockedError, StoreWriteError
from findling.paths import DB_FILENAME
from findling.records import SearchMode, SearchRequest
from findling.store import compaction
from findling.store.compaction import Space, compact
from tests.helpers import write


def _fill(docs, n: int, word: str) -> None:
    for i in range(n):
        write(docs / f"{word}{i:03d}.txt", f"{word} number {i} " + " ".join(f"{word}{i}w{j}" for j in range(400)))


def test_compact_gives_back_the_space_and_keeps_what_is_left(tmp_path, settings, capsys, monkeypatch):
    home = tmp_path / "home"
    _fill(tmp_path / "gone", 200, "gone")
    _fill(tmp_path / "kept", 5, "kept")
    with Engine(home, settings=settings) as engine:
        engine.add_source(str(tmp_path / "gone"))
        engine.add_source(str(tmp_path / "kept"))
        engine.index(embed=False)
        engine.remove_source(str(tmp_path / "gone"))
    monkeypatch.setenv("FINDLING_HOME", str(home))
    before = (home / DB_FILENAME).stat().st_size
    assert main(["index", "--compact"]) == 0
    assert "compacted:" in capsys.readouterr().out
    after = (home / DB_FILENAME).stat().st_size
    assert after < before / 2, (before, after)
    assert not list(home.glob("*.compact*"))
    _fill(tmp_path / "new", 3, "fresh")
    with Engine(home, settings=settings) as engine:
        assert engine.check_index() == []
        assert engine.status().indexed == 5
        engine.add_source(str(tmp_path / "new"))
        engine.index(embed=False)  # ids go on from where they were: no clash with the kept
        assert engine.check_index() == []
        assert len(engine.find(SearchRequest("kept", SearchMode.KEYWORD)).hits) == 5
        assert len(engine.find(SearchRequest("fresh", SearchMode.KEYWORD)).hits) == 3
        assert engine.find(SearchRequest("gone17w3", SearchMode.KEYWORD)).hits == ()


def test_a_compaction_cut_short_leaves_the_index_as_it_was(tmp_path, settings, monkeypatch):
    home = tmp_path / "home"
    _fill(tmp_path / "docs", 20, "kept")
    with Engine(home, settings=settings) as engine:
        engine.add_source(str(tmp_path / "docs"))
        engine.index(embed=False)

    def cut_short(con, name):
        raise duckdb.Error("the copy of postings holds 3 rows of 8,000")

    monkeypatch.setattr(compaction, "_same_rows", cut_short)
    with pytest.raises(StoreWriteError, match="it is unchanged"):
        compact(home / DB_FILENAME)
    assert not list(home.glob("*.compact*"))
    with Engine(home, settings=settings) as engine:
        assert engine.status().indexed == 20 and engine.check_index() == []


def test_an_index_held_elsewhere_is_not_compacted(tmp_path, settings):
    """Held in this process (DuckDB would share its open file) or by another one."""
    import subprocess
    import sys

    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        engine.add_source(str(tmp_path))
        with pytest.raises(StoreLockedError, match="another part of this Findling"):
            compact(home / DB_FILENAME)
    hold = f"import duckdb, time; c = duckdb.connect({str(home / DB_FILENAME)!r}); print(1, flush=True); time.sleep(30)"
    holder = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"1"
        with pytest.raises(StoreLockedError, match="in use by another Findling"):
            compact(home / DB_FILENAME)
    finally:
        holder.kill()
        holder.wait()


def test_doctor_offers_it_only_where_it_is_worth_it():
    assert Space(1_500_000_000, 1_000_000_000).worth_compacting
    assert not Space(1_500_000_000, 100_000_000).worth_compacting  # a few per cent
    assert not Space(40_000_000, 30_000_000).worth_compacting  # a few MB
