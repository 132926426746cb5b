"""Incremental indexing: compare the folders with the index, then extract the new and
changed files (in worker processes) and commit them in batches.

A batch is one transaction, so a killed run loses at most the batch in flight, and the
next run picks up exactly what is missing: nothing is half-indexed or duplicated."""

from __future__ import annotations

import json
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from findling.errors import SourceGoneError, StoreWriteError
from findling.ingest.extractors import content_hash
from findling.ingest.formats import OCR_EXTENSIONS, extension_of, kind_of
from findling.ingest.run_notes import WRITE_ERRORS, RunNotes
from findling.ingest.scan import FileEntry, is_indexable, leaves, scan
from findling.pathnames import display_path, readable_name
from findling.records import DocumentRow, IndexProgress, IndexReport, Source
from findling.settings import IndexSettings
from findling.store.db import Database
from findling.store.documents import (
    KnownDocument,
    allocate_ids,
    delete_documents,
    document_at,
    known_documents,
    link_members,
    update_stat,
    write_documents,
)
from findling.store.maintenance import (
    compact_postings_if_needed,
    note_appended_postings,
    read_again_if_analysis_changed,
    read_again_if_ocr_changed,
)
from findling.store.sources import owner_of, set_waiting

if TYPE_CHECKING:
    # Reading and analysing files (and the worker processes) are imported where files are read:
    # with them come numpy, the language detector and the shingle tables, a tenth of a second
    # of a rescan that finds nothing changed.
    from findling.ingest.prepare import PrepareTask, Unchanged

ProgressCallback = Callable[[IndexProgress], None]
# What a write of one odd row can raise: DuckDB's refusals, Arrow's conversions, a
# string that is not Unicode, a number out of range, memory.


def _apply_stats(tx: duckdb.DuckDBPyConnection, batch: _Batch) -> None:
    delete_documents(tx, batch.gone)
    for doc_id, result in batch.touched:
        update_stat(tx, doc_id, result.size, result.mtime)


def _first_line(exc: BaseException) -> str:
    return (str(exc).splitlines() or [type(exc).__name__])[0]


# Below these, small text files are read here: starting the workers costs more than reading
# them (docs/eval/beside-recoll.md, "Rescans").
_POOL_MIN_FILES = 200
_INLINE_TOTAL_BYTES = 2 * 1024 * 1024
# A batch is committed after 4 s, 1,000 files or 12 MB read, whichever comes first: each commit
# goes through DuckDB's log and a checkpoint, so small batches write their bytes twice or more;
# the bytes bound keeps giant generated files' batches small: their terms and positions, as
# Python objects, are four times the files (docs/eval/disk-scale.md, "Memory while indexing").
_BATCH_SECONDS = 4.0
_BATCH_BYTES = 12 * 1024 * 1024


@dataclass
class _Batch:
    """What one transaction writes: new and changed documents, files whose bytes did not
    change (new stat only), and documents whose files are gone."""

    rows: list[DocumentRow] = field(default_factory=list)
    touched: list[tuple[int, Unchanged]] = field(default_factory=list)
    gone: list[int] = field(default_factory=list)
    waiting: int = 0  # the folder's files still to be read after this batch (what status says)
    bytes: int = 0  # the rows' files' sizes

    def __bool__(self) -> bool:
        return bool(self.rows or self.touched or self.gone)


@dataclass(frozen=True)
class _Job:
    entry: FileEntry
    known: KnownDocument | None


_INLINE_KINDS = {"text", "markdown", "rst", "code", "sniff"}
_INLINE_BYTES = 1024 * 1024


def _inline_bytes(tasks: Sequence[PrepareTask]) -> int | None:
    """The files' bytes when every one is plain text small enough to read in this process
    (their parsing is linear); None as soon as one is not."""
    total = 0
    for task in tasks:
        if kind_of(task.kind_path or task.path) not in _INLINE_KINDS:
            return None
        try:
            size = os.stat(task.path).st_size
        except OSError:
            continue  # prepare() records what happened to it
        if size > _INLINE_BYTES:
            return None
        total += size
    return total


def worker_count(settings: IndexSettings) -> int:
    """Every core by default: workers run at low priority (see `_lower_priority`), so the
    UI thread still gets a core the moment it wants one."""
    if settings.workers > 0:
        return settings.workers
    return max(1, os.cpu_count() or 2)


def analysis_of(s: IndexSettings) -> str:
    """The settings that decide what a file becomes in the index (its terms, chunks and their
    weights), as one string: when it changes, indexed files are read again."""
    analysis: dict[str, object] = {
        "language": s.language,
        "title_weight": s.title_weight,
        "chunk": [s.chunk_tokens, s.chunk_overlap],
    }
    if not s.code_symbols:  # named only when off: indexes from before it existed keep their files
        analysis["code_symbols"] = False
    return json.dumps(analysis, sort_keys=True)


class Indexer:
    def __init__(
        self,
        db: Database,
        settings: IndexSettings,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
        ocr_models: tuple[str, str] | tuple[()] = (),
    ) -> None:
        self.db = db
        self.settings = settings
        self.ocr_models = ocr_models  # the OCR model's files: () = pictures and scans are not read
        self.progress = progress or (lambda _p: None)
        self.cancel = cancel or threading.Event()
        self._last_progress = 0.0
        self.warnings: list[str] = []
        self.roots: list[str] = []  # every source's folder: where links may lead
        self.notes = RunNotes(db)  # what status says of the run: files waiting, left out, costliest

    # -- public -----------------------------------------------------------------------

    def run(self, sources: Sequence[Source]) -> IndexReport:
        started = time.perf_counter()
        report = IndexReport()
        plans: list[tuple[Source, list[_Job]]] = []
        self.roots = [source.path for source in sources]
        if read_again_if_analysis_changed(self.db, analysis_of(self.settings)):
            report.warnings.append(
                "the settings for reading text changed (language, chunk size or title weight): every file is read again"
            )
        marked = read_again_if_ocr_changed(self.db, bool(self.ocr_models), (e.lstrip(".") for e in OCR_EXTENSIONS))
        if marked:
            report.warnings.append(
                f"OCR was turned {'on' if self.ocr_models else 'off'}: {marked:,} pictures and PDFs are read again"
            )
        self.progress(IndexProgress("scanning", 0, 0))
        self.notes.start()
        for source in sources:
            if self.cancel.is_set():
                break
            with self._unless_removed(source, report):
                plans.append((source, self._plan_source(source, report)))
        total = sum(len(jobs) for _, jobs in plans)
        for source, jobs in plans:
            if jobs:
                self.notes.waiting(source, len(jobs))
        done = 0
        for source, jobs in plans:
            if self.cancel.is_set():
                break
            with self._unless_removed(source, report):
                done = self._process(source, jobs, report, done, total)
        report.cancelled = self.cancel.is_set()
        report.warnings.extend(self.warnings)
        self.notes.record_costs()
        self.progress(IndexProgress("optimizing", done, total))
        try:
            if not report.cancelled:  # a stop is asked to be quick
                compact_postings_if_needed(self.db)
        except duckdb.Error as exc:  # the data is committed; sorting it is an optimization
            report.warnings.append(
                f"could not reorder the index for speed ({str(exc).splitlines()[0]}); "
                "search works, the next run tries again"
            )
        report.seconds = time.perf_counter() - started
        self.progress(IndexProgress("done", done, total, failed=report.failed))
        return report

    def update_paths(self, sources: Sequence[Source], paths: Iterable[str]) -> IndexReport:
        """Re-index single files that changed (from a file watcher), without a full scan."""
        started = time.perf_counter()
        report = IndexReport()
        by_source: dict[int, list[_Job]] = {}
        gone: list[int] = []
        cur = self.db.cursor()
        for raw in dict.fromkeys(paths):
            path = str(Path(raw))
            source = owner_of(sources, path)
            if source is None:
                continue
            known = document_at(cur, path)
            try:
                st = os.stat(path)
            except OSError:
                st = None
            target = os.path.realpath(path) if os.path.islink(path) else ""
            outside = (
                bool(target) and not self.settings.follow_outside_links and leaves(target, [s.path for s in sources])
            )
            if (
                st is None
                or outside
                or not stat.S_ISREG(st.st_mode)
                or not is_indexable(
                    source.path, path, source.include, (*self.settings.exclude, *source.exclude), source.gitignore
                )
            ):
                if known is not None:
                    gone.append(known.id)
                continue
            report.scanned += 1
            entry = FileEntry(path, st.st_size, st.st_mtime, target)
            if known is not None and known.size == entry.size and known.mtime == entry.mtime:
                report.unchanged += 1
                continue
            by_source.setdefault(source.id, []).append(_Job(entry, known))
        if gone:
            with self.db.transaction() as tx:
                delete_documents(tx, gone)
            report.removed += len(gone)
        total = sum(len(j) for j in by_source.values())
        done = 0
        for source in sources:
            if source.id in by_source:
                with self._unless_removed(source, report):
                    done = self._process(source, by_source[source.id], report, done, total)
        report.seconds = time.perf_counter() - started
        return report

    @contextmanager
    def _unless_removed(self, source: Source, report: IndexReport) -> Iterator[None]:
        """The folder was removed while this run read it: its files stop here (the store took
        none of them after the removal), and the run goes on with the other folders."""
        try:
            yield
        except SourceGoneError:
            report.warnings.append(f"{display_path(source.path)} was removed while it was indexed: not kept")

    # -- planning ---------------------------------------------------------------------

    def _plan_source(self, source: Source, report: IndexReport) -> list[_Job]:
        max_bytes = int(self.settings.max_file_mb * 1024 * 1024)
        result = scan(
            source.path,
            include=source.include,
            exclude=(*self.settings.exclude, *source.exclude),
            max_bytes=max_bytes,
            should_stop=self.cancel.is_set,
            roots=self.roots,
            follow_outside_links=self.settings.follow_outside_links,
            gitignore=source.gitignore,
        )
        if self.cancel.is_set():
            return []  # a partial scan must not be read as "files deleted"
        report.warnings.extend(result.warnings)
        self.notes.left_out(source, result, report)
        report.scanned += len(result.files) + len(result.skipped)
        known = known_documents(self.db.cursor(), source.id)
        seen: set[str] = set()
        jobs: list[_Job] = []
        new_entries: list[FileEntry] = []
        for entry in result.files:
            seen.add(entry.path)
            doc = known.get(entry.path)
            if doc is None:
                new_entries.append(entry)
            elif doc.size == entry.size and doc.mtime == entry.mtime and (doc.status != "skipped" or doc.hash):
                # a file skipped for what its bytes are (a legacy Word file: hashed) stays so
                # until it changes; one skipped unread (too large) is looked at again, the limit
                # may have changed (legacy .doc files were read again at every start)
                report.unchanged += 1
            else:
                jobs.append(_Job(entry, doc))
        skipped_rows = []
        for entry, reason in result.skipped:
            seen.add(entry.path)
            doc = known.get(entry.path)
            if doc is not None and doc.status == "skipped" and doc.size == entry.size and doc.mtime == entry.mtime:
                continue
            skipped_rows.append((entry, doc, reason))
        missing = [doc for path, doc in known.items() if path not in seen]
        # Vanished folders: a source whose root is gone keeps its index until it is back
        # or removed, so an unplugged drive does not wipe it.
        if not os.path.exists(source.path):
            report.warnings.append(f"source folder is missing, index kept: {source.path}")
            return []
        new_entries = self._apply_moves(new_entries, missing, report)
        jobs.extend(_Job(entry, None) for entry in new_entries)
        with self.db.transaction() as tx:
            if missing:
                delete_documents(tx, [doc.id for doc in missing])
                report.removed += len(missing)
            if skipped_rows:
                delete_documents(tx, [doc.id for _, doc, _ in skipped_rows if doc is not None])
                ids = allocate_ids(tx, len(skipped_rows))
                rows = []
                for (entry, _, reason), doc_id in zip(skipped_rows, ids):
                    rows.append(
                        DocumentRow(
                            path=entry.path,
                            ext=extension_of(entry.path),
                            size=entry.size,
                            mtime=entry.mtime,
                            hash=None,
                            status="skipped",
                            title=readable_name(Path(entry.path).name),
                            doc_id=doc_id,
                            error=reason,
                        )
                    )
                write_documents(tx, source.id, rows)
                report.skipped += len(rows)
        return jobs

    def _apply_moves(
        self, new_entries: list[FileEntry], missing: list[KnownDocument], report: IndexReport
    ) -> list[FileEntry]:
        """A new path with the same bytes as a vanished document is that document moved:
        keep its text, chunks and embeddings, change only the path."""
        if not missing or not new_entries:
            return new_entries
        by_size: dict[int, list[KnownDocument]] = {}
        for doc in missing:
            if doc.hash and doc.status == "ok":
                by_size.setdefault(doc.size, []).append(doc)
        remaining: list[FileEntry] = []
        moves: list[tuple[KnownDocument, FileEntry]] = []
        for entry in new_entries:
            candidates = by_size.get(entry.size)
            if not candidates:
                remaining.append(entry)
                continue
            from findling.ingest.prepare import read_file

            try:
                digest = content_hash(read_file(entry.path)[0])
            except OSError:
                remaining.append(entry)
                continue
            match = next((doc for doc in candidates if doc.hash == digest), None)
            if match is None:
                remaining.append(entry)
                continue
            candidates.remove(match)
            missing.remove(match)
            moves.append((match, entry))
        if moves:
            with self.db.transaction() as tx:
                for doc, entry in moves:
                    update_stat(tx, doc.id, entry.size, entry.mtime, (entry.path, extension_of(entry.path)))
            report.moved += len(moves)
        return remaining

    # -- processing -------------------------------------------------------------------

    def _tasks(self, jobs: Sequence[_Job]) -> list[PrepareTask]:
        from findling.ingest.prepare import task_for

        return [
            task_for(
                self.settings, job.entry.path, job.known.hash if job.known else None, job.entry.target, self.ocr_models
            )
            for job in jobs
        ]

    def _results(self, tasks: list[PrepareTask]) -> Iterator[object]:
        """Prepared documents, from worker processes that hold each file to its time and
        memory budget. A short list of small plain-text files runs inline: starting workers
        costs more than those take, and their parsing is linear. If workers cannot be
        started, the rest runs inline too."""
        inline = _inline_bytes(tasks) if len(tasks) < _POOL_MIN_FILES else None
        if inline is not None and inline <= _INLINE_TOTAL_BYTES:
            yield from self._inline(tasks)
            return
        from findling.ingest.workers import Budget, ExtractionPool

        s = self.settings
        done: set[str] = set()
        try:
            with ExtractionPool(min(worker_count(s), len(tasks)), Budget(s.file_timeout_s, s.worker_memory_mb)) as pool:
                for result in pool.results(tasks, self.cancel):
                    done.add(result.path)  # type: ignore[attr-defined]
                    yield result
            return
        except OSError as exc:
            self.warnings.append(f"worker processes failed ({exc}); indexing the rest in this process")
        yield from self._inline([task for task in tasks if task.path not in done])

    def _inline(self, tasks: Sequence[PrepareTask]) -> Iterator[object]:
        from findling.ingest.prepare import prepare

        for task in tasks:
            if self.cancel.is_set():
                return
            yield prepare(task)

    def _process(self, source: Source, jobs: list[_Job], report: IndexReport, done: int, total: int) -> int:
        if not jobs:
            self.notes.waiting(source, 0)
            return done
        from findling.ingest.prepare import Binary, Unchanged, Vanished

        known_by_path = {job.entry.path: job.known for job in jobs}
        batch = _Batch(waiting=len(jobs))
        batch_started = time.monotonic()
        for result in self._results(self._tasks(jobs)):
            done += 1
            batch.waiting -= 1
            path = result.path  # type: ignore[attr-defined]
            known = known_by_path.get(path)
            if isinstance(result, DocumentRow):
                batch.rows.append(result)
                batch.bytes += max(0, result.size)
                self.notes.costly(result)
                if result.status == "failed":
                    report.failed += 1
            elif isinstance(result, Unchanged):
                if known is not None:
                    batch.touched.append((known.id, result))
                report.unchanged += 1
            elif isinstance(result, (Binary, Vanished)):
                if known is not None:
                    batch.gone.append(known.id)
                    report.removed += 1
            self._report(IndexProgress("indexing", done, total, path, report.failed))
            if (
                len(batch.rows) >= self.settings.batch_files
                or batch.bytes >= _BATCH_BYTES
                or time.monotonic() - batch_started > _BATCH_SECONDS
            ):
                self._commit(source, batch, known_by_path, report)
                batch = _Batch(waiting=batch.waiting)
                batch_started = time.monotonic()
        self._commit(source, batch, known_by_path, report)
        if not self.cancel.is_set():
            self.notes.waiting(source, 0)
        self._report(IndexProgress("indexing", done, total, "", report.failed), force=True)
        return done

    def _commit(
        self, source: Source, batch: _Batch, known_by_path: dict[str, KnownDocument | None], report: IndexReport
    ) -> None:
        """One transaction for the batch. If it fails for anything but the storage itself
        (a full disk fails every retry too), the files are written one by one, and the one
        that cannot be stored is recorded as failed with the reason: one bad file never
        costs its batch."""
        if not batch:
            return
        rows = batch.rows
        try:
            with self.db.transaction() as tx:
                self._write(tx, source, rows, known_by_path)
                _apply_stats(tx, batch)
                set_waiting(tx, source.id, batch.waiting)
        except StoreWriteError:
            raise
        except WRITE_ERRORS as exc:
            self.warnings.append(
                f"a batch of {len(rows)} files could not be written ({_first_line(exc)}); writing them one by one"
            )
            rows = self._commit_one_by_one(source, batch, known_by_path, report)
        ok = [row for row in rows if row.status == "ok"]
        report.updated += sum(1 for row in ok if known_by_path.get(row.path) is not None)
        report.added += sum(1 for row in ok if known_by_path.get(row.path) is None)

    def _write(
        self,
        tx: duckdb.DuckDBPyConnection,
        source: Source,
        rows: list[DocumentRow],
        known_by_path: dict[str, KnownDocument | None],
    ) -> None:
        replaced = [known.id for row in rows if (known := known_by_path.get(row.path)) is not None]
        delete_documents(tx, replaced, changed=True)
        fresh = [row for row in rows if known_by_path.get(row.path) is None]
        for row, doc_id in zip(fresh, allocate_ids(tx, len(fresh))):
            row.doc_id = doc_id
        for row in rows:
            known = known_by_path.get(row.path)
            if known is not None:
                row.doc_id = known.id
        write_documents(tx, source.id, rows)
        inner = [(row.doc_id, member) for row in rows for member in row.members]
        if inner:  # the documents inside files (an archive's members): written with their files
            for (_, member), doc_id in zip(inner, allocate_ids(tx, len(inner)), strict=True):
                member.doc_id = doc_id
            write_documents(tx, source.id, [member for _, member in inner])
            link_members(tx, [(member.doc_id, container) for container, member in inner])
        note_appended_postings(tx, sum(len(row.terms) for row in (*rows, *(member for _, member in inner))))

    def _commit_one_by_one(
        self, source: Source, batch: _Batch, known_by_path: dict[str, KnownDocument | None], report: IndexReport
    ) -> list[DocumentRow]:
        with self.db.transaction() as tx:
            _apply_stats(tx, batch)
        written: list[DocumentRow] = []
        for row in batch.rows:
            try:
                with self.db.transaction() as tx:
                    self._write(tx, source, [row], known_by_path)
                written.append(row)
                continue
            except StoreWriteError:
                raise
            except WRITE_ERRORS as exc:
                reason = f"cannot be stored in the index: {_first_line(exc)}"
            failed = DocumentRow(
                path=row.path,
                ext=row.ext,
                size=row.size,
                mtime=row.mtime,
                hash=None,
                status="failed",
                title=row.title,
                error=reason,
            )
            try:
                with self.db.transaction() as tx:
                    self._write(tx, source, [failed], known_by_path)
                written.append(failed)
                if row.status != "failed":
                    report.failed += 1
            except WRITE_ERRORS as exc:
                self.warnings.append(
                    f"{display_path(row.path)}: {reason}; not even its failure could be recorded ({_first_line(exc)})"
                )
        return written

    def _report(self, progress: IndexProgress, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self._last_progress >= 0.05:
            self._last_progress = now
            self.progress(progress)
