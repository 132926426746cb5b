"""The files that cost a run most are named, with a folder to exclude where they gather (issue 62,
5: the kernel's generated AMD register headers, 373 files of 373 MB, cost most of a run, one timed
out at 30 s, one was cut at 16 MB, and nothing said so)."""

from __future__ import annotations

from findling.engine import Engine
from findling.faces.presentation import costly_lines
from findling.records import CostlyFile, Source, SourceStatus, StoreStatus
from findling.store.costs import COSTLIEST, costliest, merged
from tests.helpers import write


def _status(files: list[CostlyFile], sources: list[str]) -> StoreStatus:
    return StoreStatus(
        home="/h",
        database="/h/findling.duckdb",
        documents=0,
        indexed=0,
        failed=0,
        skipped=0,
        chunks=0,
        terms=0,
        postings=0,
        size_bytes=0,
        sources=tuple(SourceStatus(Source(i, path), 0, 0, 0, 0) for i, path in enumerate(sources)),
        problems=(),
        costliest=tuple(files),
    )


def test_the_costliest_are_named_with_the_folder_where_they_gather():
    reg = "/k/linux/drivers/gpu/drm/amd/include/asic_reg"
    files = [CostlyFile(f"{reg}/nbio/n{i}.h", 12.0 - i, 16_000_000) for i in range(4)]
    files += [CostlyFile(f"{reg}/dcn/d{i}.h", 7.0 - i, 9_000_000) for i in range(3)]
    files += [CostlyFile("/k/linux/fs/ext4/super.c", 1.5, 200_000), CostlyFile("/k/linux/tiny.c", 0.2, 100)]
    lines = costly_lines(_status(files, ["/k/linux", "/elsewhere"]), "terminal")
    assert lines[0] == f"12.0 s  {reg}/nbio/n0.h (16.0 MB)"
    assert len(lines) == 6  # five files, then the folder
    assert lines[-1] == (
        f"7 of them are in {reg}; if it need not be searched: "
        "findling add /k/linux --exclude 'drivers/gpu/drm/amd/include/asic_reg/'"
    )
    assert (
        "exclude drivers/gpu/drm/amd/include/asic_reg/ from /k/linux"
        in costly_lines(_status(files, ["/k/linux"]), "window")[-1]
    )
    assert costly_lines(_status([CostlyFile("/k/linux/a.c", 0.4, 10)], ["/k/linux"]), "terminal") == []


def test_runs_merge_keeping_a_files_latest_cost():
    kept = [CostlyFile(f"/f/{i}", float(i + 1), 1) for i in range(COSTLIEST)]
    new = [CostlyFile("/f/9", 0.1, 1), CostlyFile("/f/new", 50.0, 1)]
    after = merged(kept, new)
    assert after[0].path == "/f/new" and len(after) == COSTLIEST
    assert "/f/9" not in [f.path for f in after]  # read again and cheap now: no longer among them


def test_a_run_records_its_costliest_files(tmp_path, settings):
    for i in range(15):
        write(tmp_path / "docs" / f"note{i:02d}.txt", "harbour tides " * (200 * (i + 1)))
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(str(tmp_path / "docs"))
        engine.index(embed=False)
        recorded = costliest(engine._db.cursor())
        assert len(recorded) == COSTLIEST
        assert all(f.seconds > 0 and f.size > 0 for f in recorded)
        assert {f.path for f in engine.status().costliest} == {f.path for f in recorded}
        engine.remove_source(str(tmp_path / "docs"))
        assert engine.status().costliest == ()  # only what is still indexed
