"""Open the one DuckDB file that holds the index, with errors a person can act on."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import duckdb

from findling.errors import StoreCorruptError, StoreLockedError, StoreReadOnlyError, StoreWriteError
from findling.paths import keep_private
from findling.settings import MEMORY_LIMIT_MB
from findling.store.schema import migrate
from findling.store.sql import sql_literal
from findling.store.vectors import vector_bytes

_PID = re.compile(r"PID (\d+)")

# DuckDB's Python client tries `import pandas` for every bound parameter and for every
# string it reads from a numpy object column; when pandas is not installed, Python does not
# remember the failure and searches sys.path each time (~0.1 ms a value: a third of a short
# query, half of indexing). A None entry in sys.modules is Python's own "known absent": the
# import fails at once, before any finder runs. Only set when pandas is absent, so it never
# hides a real install.
if "pandas" not in sys.modules and importlib.util.find_spec("pandas") is None:
    sys.modules["pandas"] = None  # type: ignore[assignment]


# The index is attached, under this name, to an in-memory DuckDB of its own: only ATTACH takes a
# row group size. DuckDB's 122,880 rows a group made every checkpoint of an indexing run rewrite
# the growing last group of the chunks' text whole, up to ~300 MB of strings analysed and
# compressed again outside DuckDB's budget: the AMD register headers peaked at 1,100 MB, 8,192 rows
# a group at 755 MB, and the file was 12 % smaller (docs/eval/disk-scale.md). DuckDB keeps no row
# group size in the file: every opening of the index must attach it this way.
INDEX_CATALOG = "findling"
ROW_GROUP_ROWS = 8192
_ATTACH_LOCK = threading.Lock()


def _instance_name(path: Path) -> str:
    """A named in-memory database is shared by every connection of the process that asks for it,
    as DuckDB shares a file's: this process's handles on one index share one open file."""
    where = os.path.realpath(path).encode("utf-8", "surrogateescape")
    return ":memory:findling_" + hashlib.sha256(where).hexdigest()[:24]


def index_cursor(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """A new connection on `con`'s database that reads and writes the index: each DuckDB
    connection starts in the in-memory catalog, whatever its parent uses."""
    cur = con.cursor()
    cur.execute(f"USE {INDEX_CATALOG}")
    return cur


def connect_index(path: Path, read_only: bool, threads: int, memory_limit_mb: int) -> duckdb.DuckDBPyConnection:
    config: dict[str, str | bool | int | float | list[str]] = {
        "memory_limit": f"{memory_limit_mb}MB",
        # Never reach for DuckDB's extension server: extensions come from PyPI packages.
        "autoinstall_known_extensions": False,
        "autoload_known_extensions": False,
        "threads": threads,
        # where a file's own database would spill: beside it, in the user's private folder
        "temp_directory": f"{path}.tmp",
    }
    with _ATTACH_LOCK:
        try:
            con = duckdb.connect(_instance_name(path), config=config)
        except duckdb.ConnectionException as exc:  # open here already, with other settings
            raise StoreLockedError(f"the index at {path} is in use by another part of this Findling") from exc
        try:
            held = con.execute(
                "SELECT readonly FROM duckdb_databases() WHERE database_name = ?", [INDEX_CATALOG]
            ).fetchall()
            if not held:
                mode = ", READ_ONLY" if read_only else ""
                con.execute(f"ATTACH '{sql_literal(path)}' AS {INDEX_CATALOG} (ROW_GROUP_SIZE {ROW_GROUP_ROWS}{mode})")
            elif held[0][0] and not read_only:
                raise StoreLockedError(f"the index at {path} is open read-only in this Findling; close it first")
            con.execute(f"USE {INDEX_CATALOG}")
        except BaseException as exc:
            con.close()
            if isinstance(exc, duckdb.Error):
                raise _open_error(path, exc) from exc
            raise
        return con


def _open_error(path: Path, exc: duckdb.Error) -> Exception:
    message = str(exc)
    if isinstance(exc, duckdb.IOException):
        if "lock" in message.lower():
            pid = _PID.search(message)
            who = f" (process {pid.group(1)})" if pid else ""
            return StoreLockedError(
                f"the index at {path} is in use by another Findling{who}. Close the Findling app "
                "or wait for the other command to finish, then try again."
            )
        if "permission" in message.lower() or "read-only" in message.lower():
            return StoreReadOnlyError(f"cannot write the index at {path}: {message}")
        return StoreCorruptError(
            f"cannot open the index at {path}: {message}. The file was left untouched; move it aside "
            "to start a new index."
        )
    if "already attached" in message:  # held by another handle in this very process
        return StoreLockedError(f"the index at {path} is in use by another part of this Findling")
    return StoreCorruptError(
        f"the index at {path} is damaged or not a Findling database ({exc}). The file was left "
        "untouched; move it aside to start a new index."
    )


def _is_write_failure(exc: BaseException) -> bool:
    """An error from the storage underneath (full disk, I/O), not from our SQL. DuckDB
    reports a failed WAL write at COMMIT as a TransactionException, so the message counts."""
    if isinstance(exc, (duckdb.IOException, duckdb.OutOfMemoryException)):
        return True
    text = str(exc).lower()
    return isinstance(exc, duckdb.Error) and ("no space left" in text or "could not write" in text)


READING_FLOOR_MB = 128
READING_SHARE = 16  # of the file, in MB per MB of budget


def reading_budget_mb(file_bytes: int, cap_mb: int) -> int:
    """DuckDB's memory while an index of this size is only searched: a sixteenth of the file,
    within [READING_FLOOR_MB, the configured limit]. DuckDB keeps every block it read cached up
    to its limit, and searches read the same few postings blocks again and again, so a larger
    cache only grows the process (at 100k documents: 614 MB with 512, 495 with 160, the same
    20 ms a search; the kernel's Documentation/ + arch/, 1.3 GB less its vectors: 651 MB with
    256, 521 with 128, keyword p50 62 and 61 ms, hybrid 180 and 166 ms)."""
    return int(min(cap_mb, max(READING_FLOOR_MB, file_bytes // (READING_SHARE * 1_000_000))))


# The index files this process has open, and how many times: DuckDB shares one open file among a
# process's connections, so a second connection here would not be refused as another process's is.
_OPEN: dict[str, int] = {}
_OPEN_LOCK = threading.Lock()


def open_here(path: Path) -> bool:
    """Whether this process has the index at `path` open."""
    with _OPEN_LOCK:
        return _OPEN.get(os.path.realpath(path), 0) > 0


class Database:
    """One DuckDB database for the process. Threads read through their own cursors; writes
    go through `transaction()` under one lock, since DuckDB allows one writer."""

    def __init__(
        self, path: Path, read_only: bool = False, threads: int | None = None, memory_limit_mb: int = MEMORY_LIMIT_MB
    ) -> None:
        self.path = path
        self.read_only = read_only
        if not read_only:
            try:
                keep_private(path.parent)
            except OSError as exc:
                raise StoreReadOnlyError(f"cannot create the data folder {path.parent}: {exc}") from exc
            if not os.access(path.parent, os.W_OK):
                raise StoreReadOnlyError(
                    f"the data folder {path.parent} is read-only; choose another with --home or FINDLING_HOME"
                )
        self._con = connect_index(path, read_only, threads or max(1, (os.cpu_count() or 2)), memory_limit_mb)
        with _OPEN_LOCK:
            _OPEN[os.path.realpath(path)] = _OPEN.get(os.path.realpath(path), 0) + 1
        self._local = threading.local()
        # Transactions this process has committed. An index file has one writer (DuckDB locks
        # it), so while this count stands nothing in the file has changed: what the document
        # cache checks before trusting its copies.
        self.writes = 0
        self._write_lock = threading.RLock()
        self._memory_cap_mb = memory_limit_mb
        self._memory_lock = threading.Lock()
        self._working = 0  # writers that asked for the whole budget (working_memory)
        if not read_only:
            try:
                migrate(self._con)
            except duckdb.Error as exc:
                self._con.close()
                raise StoreCorruptError(f"cannot prepare the index at {path}: {exc}") from exc
        self._set_memory_limit(self.reading_memory_mb())

    def reading_memory_mb(self) -> int:
        """DuckDB's budget while the index is only searched: reading_budget_mb of the file less
        its vectors, which the vector index holds itself once loaded (cached again here, they
        were 418 MB of a process searching a million)."""

        try:
            size = self.path.stat().st_size
        except OSError:
            size = 0
        with index_cursor(self._con) as cur:
            try:
                size -= vector_bytes(cur)
            except duckdb.Error:
                pass  # an index older than its vector tables: the whole file counts
        return reading_budget_mb(max(0, size), self._memory_cap_mb)

    def _set_memory_limit(self, mb: int) -> None:
        with self._con.cursor() as setter:
            try:
                setter.execute(f"SET memory_limit = '{int(mb)}MB'")
            except duckdb.Error:
                # lowering it while DuckDB holds more than the new limit (blocks it cannot free
                # yet) fails: the limit stays higher until the next transaction lowers it; a
                # write that succeeded must not be reported as failed for it. And after a full
                # disk has invalidated the database, setting it fails too: the write's own
                # clear error is what the user reads, not a FatalException traceback after it.
                pass

    def working_memory(self) -> AbstractContextManager[None]:
        """The configured limit for every transaction, and around an indexing run (its many
        batches keep it throughout; an embedding run reads on the reading budget), back to the
        reading budget, from the file's new size, when the last one ends."""
        return self._raised(shed=False)

    def bulk_read(self) -> AbstractContextManager[None]:
        """The working budget around a read of a whole column whose rows then live elsewhere
        (the text cache's copy, the vector index's load): searches beside it need their room in
        DuckDB's memory (a load on the reading budget beside eight searches failed two of them
        with DuckDB's out-of-memory error). DuckDB keeps the blocks it read cached and lets
        them go only when its limit is lowered, so when the last holder ends, the limit drops to
        the floor before the reading budget."""
        return self._raised(shed=True)

    @contextmanager
    def _raised(self, shed: bool) -> Iterator[None]:
        with self._memory_lock:
            self._working += 1
            if self._working == 1:
                self._set_memory_limit(self._memory_cap_mb)
        try:
            yield
        finally:
            with self._memory_lock:
                self._working -= 1
                if self._working == 0:
                    if shed:
                        self._set_memory_limit(READING_FLOOR_MB)
                    self._set_memory_limit(self.reading_memory_mb())

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A connection for the calling thread (DuckDB connections are not thread-safe)."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self._local.cursor = index_cursor(self._con)
        return cur

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """One all-or-nothing write. An I/O failure (a full disk) rolls back and becomes a
        StoreWriteError: what was committed before stays intact and searchable."""
        with self._write_lock, self.working_memory():  # writes never run on the reading budget
            cur = self.cursor()
            cur.execute("BEGIN TRANSACTION")
            try:
                yield cur
                # counted on both sides of the commit: a reader whose snapshot holds it sees a
                # new count, and a check of the cache made while it landed counts for nothing
                self.writes += 1
                cur.execute("COMMIT")
                self.writes += 1
            except BaseException as exc:
                try:
                    cur.execute("ROLLBACK")
                except duckdb.Error:
                    pass  # a failed COMMIT has already ended the transaction
                if _is_write_failure(exc):
                    raise StoreWriteError(
                        f"cannot write the index at {self.path} ({str(exc).splitlines()[0]}). Is the disk full? "
                        "Everything committed before is intact; run the same command again when there is space."
                    ) from exc
                raise

    def checkpoint(self) -> bool:
        """Fold the WAL into the file, when no other transaction is open (a reader in the
        app may hold one). Only an optimization: DuckDB checkpoints on its own later, so a
        refusal is not an error."""
        with self._write_lock:
            try:
                self.cursor().execute("CHECKPOINT")
            except duckdb.TransactionException:
                return False
            return True

    def close(self) -> None:
        self._con.close()
        with _OPEN_LOCK:
            left = _OPEN.pop(os.path.realpath(self.path), 1) - 1
            if left > 0:
                _OPEN[os.path.realpath(self.path)] = left
