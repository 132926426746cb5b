"""What a run leaves on record for `status`, beside the documents it writes: the files of each
folder it found and has not read yet, what .gitignore files left out, and its costliest files.
Each is a count in `meta`; failing to write one is no failure of the run."""

from __future__ import annotations

import heapq
from collections.abc import Callable

import duckdb

from findling.errors import StoreWriteError
from findling.ingest.scan import ScanResult
from findling.pathnames import display_path
from findling.records import CostlyFile, DocumentRow, IndexReport, Source
from findling.store.costs import COSTLIEST, record_costliest
from findling.store.db import Database
from findling.store.sources import left_out_by_source, set_left_out, set_waiting, waiting_by_source

# what writing rows may fail with short of the storage itself (a full disk fails the run): a
# batch then goes one by one (indexer.py), a note for status is let go
WRITE_ERRORS = (duckdb.Error, UnicodeError, ValueError, OverflowError, MemoryError, TypeError)


class RunNotes:
    def __init__(self, db: Database) -> None:
        self.db = db
        self._counted: set[int] = set()  # folders whose waiting files are on record
        self._left_out: dict[int, int] = {}  # what each folder's .gitignore files left out, on record
        self._costs: list[tuple[float, str, int]] = []  # the run's costliest files: (seconds, path, size)

    def start(self) -> None:
        """A new run: what is on record now, and no costs yet."""
        cur = self.db.cursor()
        self._counted = set(waiting_by_source(cur))
        self._left_out = left_out_by_source(cur)
        self._costs = []

    def _write(self, note: Callable[[duckdb.DuckDBPyConnection], None]) -> None:
        try:
            with self.db.transaction() as tx:
                note(tx)
        except StoreWriteError:
            raise
        except WRITE_ERRORS:
            pass  # a note for status; the files themselves are what matter

    def costly(self, row: DocumentRow) -> None:
        """Keep the run's COSTLIEST files (a heap: a run of 78,000 keeps ten)."""
        entry = (row.seconds, row.path, row.size)
        if len(self._costs) < COSTLIEST:
            heapq.heappush(self._costs, entry)
        elif entry > self._costs[0]:
            heapq.heapreplace(self._costs, entry)

    def record_costs(self) -> None:
        if self._costs:
            files = [CostlyFile(path, seconds, size) for seconds, path, size in self._costs]
            self._write(lambda tx: record_costliest(tx, files))

    def left_out(self, source: Source, result: ScanResult, report: IndexReport) -> None:
        """What the folder's .gitignore files left out, for status; and when they left out every
        file, a warning naming the pattern (Debian's kernel tree ignores `/*`: 78,297 files, and
        `add` said "0 added" in 1.4 s)."""
        entries = sum(result.left_out.values())
        if entries != self._left_out.get(source.id, 0):
            self._write(lambda tx: set_left_out(tx, source.id, entries))
            self._left_out[source.id] = entries
        if entries and not result.files:
            (where, pattern), most = max(result.left_out.items(), key=lambda kv: kv[1])
            report.warnings.append(
                f"nothing to read in {display_path(source.path)}: the pattern `{pattern}` in "
                f"{display_path(where)} leaves out {most:,} of its files and folders ({entries:,} in all by "
                ".gitignore files); a folder set to follow no .gitignore reads them"
            )

    def waiting(self, source: Source, files: int) -> None:
        """Record how many of the folder's files wait to be read (after planning, and 0 when its
        files are all read), as its batches record it; a folder with none waiting writes nothing."""
        if files == 0 and source.id not in self._counted:
            return
        self._counted.add(source.id)
        self._write(lambda tx: set_waiting(tx, source.id, files))
