"""The engine API that the CLI and the GUI both call. No Qt here."""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from findling import shared_collections, why_not_file
from findling.allocator import keep_large_blocks_apart
from findling.docids import docid, split_reference
from findling.errors import FindlingError, SourceError, check_query_length
from findling.models.manifest import ROLES
from findling.models.service import ModelService
from findling.pathnames import display_path
from findling.paths import DB_FILENAME, config_dir, data_home
from findling.priority import FOREGROUND, YieldingStop, in_background
from findling.records import (
    Activity,
    Answer,
    AnswerSentence,
    DocumentSlice,
    EmbedReport,
    Filters,
    IndexReport,
    MultiGetResult,
    Note,
    Outline,
    PublishReport,
    SearchRequest,
    SearchResult,
    Source,
    SourceStatus,
    StoreStatus,
    WhyNotAnswer,
)
from findling.search.fetch import DocumentFetcher
from findling.search.service import DocumentText, Searcher
from findling.settings import Settings, load_settings
from findling.store.activity import ActivityTracker, EitherEvent, WaitingRuns
from findling.store.attached import attached_by_source
from findling.store.compaction import space
from findling.store.costs import indexed_costliest
from findling.store.db import Database
from findling.store.documents import (
    delete_documents,
    document_meta,
    document_paths,
)
from findling.store.lane_weights import save_self_test, self_tests
from findling.store.sources import (
    delete_source,
    insert_source,
    inside,
    left_out_by_source,
    list_sources,
    set_gitignore,
    set_rules,
    source_document_ids,
    waiting_by_source,
)
from findling.store.status import (
    SourceCounts,
    consistency_problems,
    counts_by_source,
    language_counts,
    ocr_counts,
    problems,
    repair_problems,
    totals,
)
from findling.store.symbols import symbols_of
from findling.store.text_cache import CachedDocument, DocumentCache
from findling.store.vectors import embedded_share, reach, table_for
from findling.store.vectors import generation as vector_generation
from findling.text.code_languages import language_of
from findling.text.synonyms import SYNONYMS_FILENAME, SynonymFile

T = TypeVar("T")

if TYPE_CHECKING:
    import duckdb

    from findling.index_api import IndexAPI
    from findling.ingest.indexer import ProgressCallback


def _normalise_path(path: str | os.PathLike[str]) -> str:
    return str(Path(path).expanduser().resolve())


class Engine:
    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        settings: Settings | None = None,
        read_only: bool = False,
    ) -> None:
        keep_large_blocks_apart()  # a process holding the index lives long: its heap must not creep
        self.home = data_home(home)
        self.home_override = home  # where settings.toml is saved: beside an explicit home
        self.settings = settings or load_settings(home)
        self._db = Database(
            self.home / DB_FILENAME, read_only=read_only, memory_limit_mb=self.settings.index.memory_limit_mb
        )
        self.synonyms = SynonymFile(config_dir(home) / SYNONYMS_FILENAME)  # beside settings.toml
        self._documents = DocumentCache(self._db.cursor, self.home, lambda: self._db.writes, self._db.bulk_read)
        self.models = ModelService(self.settings.models)
        self._fetch = DocumentFetcher(self._db.cursor, self._documents)
        self._index_lock = threading.Lock()
        # held while warm() loads the text and the vectors: an embedding run starting beside it
        # (the window does both at launch) waits, so that the two bulk reads do not peak together
        self._warming = threading.Lock()
        self._text_waiting = WaitingRuns()  # text runs that want the lock: embedding steps aside
        self._activity = ActivityTracker()
        self._search = Searcher(
            self._db, self.home, self.settings, self.models, self._documents, self.synonyms.get, self.sources
        )
        self._bm25 = self._search.bm25
        self._vectors_at_open = vector_generation(self._db.cursor())
        self._closed = False

    @property
    def database(self) -> Database:
        """The store this engine reads and writes: for measurement tools and consistency checks."""
        return self._db

    def close(self) -> None:
        if self._closed:  # a second close (a test's, a face's) finds nothing left to do
            return
        self._closed = True
        changed = (self.home / "vectors").is_dir() and vector_generation(self._db.cursor()) != self._vectors_at_open
        self._search.close(changed)
        self._documents.close()
        self._db.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sources ------------------------------------------------------------------------

    def sources(self) -> list[Source]:
        return list_sources(self._db.cursor())

    def add_source(
        self,
        path: str | os.PathLike[str],
        include: Sequence[str] = (),
        exclude: Sequence[str] = (),
        gitignore: bool | None = None,
    ) -> Source:
        """Add a folder (or a single file). A folder inside an existing source is already
        covered; a folder around existing sources takes their documents over. `gitignore`:
        whether its .gitignore files leave files out (None: as it was, or for a new folder as
        the settings say); the next run reads what they no longer leave out."""
        resolved = _normalise_path(path)
        try:
            mode = os.stat(resolved).st_mode
        except FileNotFoundError:
            raise SourceError(f"no such file or folder: {display_path(resolved)}") from None
        except OSError as exc:
            raise SourceError(f"cannot read {display_path(resolved)}: {exc.strerror or exc}") from None
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            raise SourceError(
                f"{display_path(resolved)} is not a folder or a regular file (a device, pipe or socket); "
                "only folders and files can be indexed"
            )
        existing = self.sources()
        for source in existing:
            if source.shared and (inside(resolved, source.path) or inside(source.path, resolved)):
                raise SourceError(
                    f"{display_path(resolved)} overlaps the shared collection {source.shared} "
                    f"(published from {display_path(source.path)}): detach it first"
                )
            if inside(resolved, source.path):
                if resolved != source.path:
                    return source
                follow = source.gitignore if gitignore is None else gitignore
                if include or exclude or follow != source.gitignore:
                    with self._db.transaction() as tx:
                        if include or exclude:
                            set_rules(tx, source.id, include, exclude)
                        set_gitignore(tx, source.id, follow)
                    rules = (tuple(include), tuple(exclude)) if include or exclude else (source.include, source.exclude)
                    return Source(source.id, source.path, *rules, follow)
                return source
        inner = [s for s in existing if inside(s.path, resolved)]
        follow = self.settings.index.gitignore if gitignore is None else gitignore
        with self._db.transaction() as tx:
            return insert_source(tx, resolved, include, exclude, absorb=inner, gitignore=follow)

    def remove_source(self, path: str | os.PathLike[str]) -> int:
        """Forget a source and everything indexed from it; returns the documents removed."""
        sources = self.sources()
        match = shared_collections.shared_source(self._db, sources, str(path))
        if match is None:
            resolved = _normalise_path(path)
            match = next((s for s in sources if s.path in (resolved, str(path))), None)
        if match is None:
            raise SourceError(f"not an indexed folder or an attached collection: {display_path(str(path))}")
        with self._db.transaction() as tx:
            # read in the transaction: a run indexing this folder commits its batches under the
            # same lock, so none lands between the reading and the removal, and none after it
            # (write_documents refuses a removed source)
            ids = source_document_ids(tx, match.id)
            delete_documents(tx, ids)
            delete_source(tx, match.id)
        self._bm25.invalidate()
        return len(ids)

    def attach(self, uri: str, name: str = "") -> Source:
        """Attach a collection another Findling published (read-only); `index` copies it in."""
        return shared_collections.attach(self._db, self.sources(), uri, name)

    def publish(self, path: str, uri: str, name: str = "") -> PublishReport:
        """Publish a folder of this index at `uri`, or what changed in it since the last time."""
        return shared_collections.publish(self._db, self.sources(), self.models, path, uri, name)

    # -- indexing -----------------------------------------------------------------------

    def index(
        self, progress: ProgressCallback | None = None, cancel: threading.Event | None = None, embed: bool = True
    ) -> IndexReport:
        """Bring the text index up to date, then (with `embed`) embed what is new when an embedder is
        installed. The text is searchable before embedding starts, and a text run never waits for
        another run's embedding: that steps aside at its next batch and goes on after."""
        from findling.ingest.indexer import Indexer  # the extractors' libraries load when first needed

        progress = self._activity.tracked(progress)
        self._text_waiting.add()
        try:
            with self._index_lock:
                self._text_waiting.done()
                try:
                    with self._db.working_memory():
                        sources = self.sources()
                        report = Indexer(self._db, self.settings.index, progress, cancel, self._ocr_files()).run(
                            [s for s in sources if not s.shared]
                        )
                        if not report.cancelled:
                            self._copy_shared(report, sources, progress, cancel)
                finally:
                    self._bm25.invalidate()
            if embed and not report.cancelled:
                report.embedding = self._embed(progress, cancel)
        finally:
            self._activity.idle()
        return report

    def _copy_shared(
        self, report: IndexReport, sources: Sequence[Source], progress: ProgressCallback, cancel: threading.Event | None
    ) -> None:
        """Each attached collection's copy brought to its last publication, in this text run."""
        from findling.records import IndexProgress

        def say(line: str) -> None:
            progress(IndexProgress("scanning", 0, 0, line))

        added, updated, removed, lines = shared_collections.bring_all_up_to_date(
            self._db, sources, self.settings.index, self.models, cancel, say
        )
        report.added += added
        report.updated += updated
        report.removed += removed
        report.shared.extend(lines)

    def activity(self) -> Activity | None:
        """What the index is busy with now (None: idle): every run's progress, whoever asked."""
        return self._activity.now()

    def embed(self, progress: ProgressCallback | None = None, cancel: threading.Event | None = None) -> EmbedReport:
        """Embed what is not embedded yet, stepping aside between batches for a text run that asks
        for the index, and going on after it."""
        try:
            return self._embed(self._activity.tracked(progress), cancel)
        finally:
            self._activity.idle()

    def _embed(self, progress: ProgressCallback, cancel: threading.Event | None) -> EmbedReport:
        done = EmbedReport()
        while True:
            with self._index_lock:
                part = self._embed_locked(progress, EitherEvent(cancel, self._text_waiting))
                # asked under the lock: the text run clears the flag only once it holds the lock
                stepped_aside = part.cancelled and self._text_waiting.is_set() and not (cancel and cancel.is_set())
            done = done.followed_by(part)
            if not stepped_aside:
                if not done.cancelled and done.skipped is None and not done.stopped:
                    done = replace(done, weighed=self._self_tests(EitherEvent(cancel, self._text_waiting)))
                return done
            while self._text_waiting.is_set():  # the text run takes the lock; go on once it has
                time.sleep(0.01)

    def _self_tests(self, cancel: threading.Event) -> tuple[tuple[str, float, int, float], ...]:
        """Each folder's self-test where it has none or a stale one (search/self_test.py), at
        background priority, kept with the index: how hybrid search weighs its two lanes there.
        A text run that asks for the index stops it; the next run does it again."""
        if self._db.read_only or not self.settings.pipeline.self_test:
            return ()

        def work() -> tuple[tuple[str, float, int, float], ...]:
            done: list[tuple[str, float, int, float]] = []
            for source in self.sources():
                try:
                    record = self._search.self_test(source, cancel)
                except FindlingError:  # a model server that stopped answering: the shipped weights stay
                    return tuple(done)
                if record is None:
                    continue
                with self._db.transaction() as tx:
                    save_self_test(tx, record)
                done.append((source.path, record.weights.meaning, record.weights.queries, record.seconds))
            return tuple(done)

        return in_background(work, "findling-self-test")

    def _embed_locked(self, progress: ProgressCallback | None, cancel: threading.Event | None) -> EmbedReport:
        reason = self.models.unavailable_reason("embedder")
        if reason is not None:
            return EmbedReport(skipped=reason)
        from findling.ingest.embedding import embed_pending

        def work() -> EmbedReport:
            # at background priority, in a thread of its own: a model built here (its threads
            # inherit the priority) and every model run yield to searches and the user's programs
            try:
                embedder = self.models.embedder()
            except FindlingError as exc:
                return EmbedReport(skipped=Note(str(exc), exc.remedy, exc.subject))

            stop = cancel or threading.Event()
            while not self._warming.acquire(timeout=0.25):
                if stop.is_set():
                    break
            else:
                self._warming.release()

            def cached_texts(cur: duckdb.DuckDBPyConnection, ids: list[int]) -> dict[int, CachedDocument]:
                return self._documents.documents(cur, ids) if self._documents.warmed else {}

            # on the reading budget, as searches are: a run reads a few documents' passages a batch
            # and writes 64 vectors a transaction (which raises the limit for itself); the whole
            # working budget only kept more of the chunks' blocks cached, ~80 MB more of the
            # process at the same vectors a second (docs/eval/beside-recoll.md, "Memory")
            return embed_pending(self._db, embedder, progress, YieldingStop(stop, FOREGROUND), cached_texts)

        return in_background(work, "findling-embedding")

    def warm(self, cancel: threading.Event | None = None) -> None:
        """Load what makes searching fast — the document cache, the embedder, the vectors —
        so that the first queries do not pay for it (the app calls this in the background)."""
        with self._warming:
            self._warm(cancel)

    def _warm(self, cancel: threading.Event | None) -> None:
        self._documents.warm(cancel)
        if cancel is not None and cancel.is_set() or self.models.unavailable_reason("embedder") is not None:
            return
        try:
            if self._search.vectors.index_for(self.models.spec("embedder").vector_key) is None:
                return  # nothing embedded by it yet: the model loads at the first semantic search
            self._search.vectors.warm(self.models.embedder().spec.vector_key)
        except FindlingError:
            return  # said again, with its reason, by the first semantic search

    def update_paths(
        self,
        paths: Iterable[str | os.PathLike[str]],
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
        embed: bool = True,
    ) -> IndexReport:
        """Read these changed paths again, then (with `embed`) embed what is not embedded yet, with
        progress: after a model import that can be the whole index, and the window shows it."""
        from findling.ingest.indexer import Indexer

        progress = self._activity.tracked(progress)
        self._text_waiting.add()
        try:
            with self._index_lock:
                self._text_waiting.done()
                try:
                    with self._db.working_memory():
                        report = Indexer(self._db, self.settings.index, ocr_models=self._ocr_files()).update_paths(
                            [s for s in self.sources() if not s.shared], [_normalise_path(p) for p in paths]
                        )
                finally:
                    self._bm25.invalidate()
            if embed:
                report.embedding = self._embed(progress, cancel)
        finally:
            self._activity.idle()
        return report

    # -- search -------------------------------------------------------------------------

    def why_not(self, request: SearchRequest, path: str | os.PathLike[str]) -> WhyNotAnswer:
        """Why this file is, or is not, among the results of this request (why_not_file.py)."""
        return why_not_file.why_not(self, request, path)

    # -- the search half (search/service.py) ----------------------------------------------

    def find(self, request: SearchRequest) -> SearchResult:
        """Answer one search, in the mode it asks for (Searcher.find_all)."""
        return self._search.find_all(request)

    def ask(
        self,
        question: str,
        filters: Filters | None = None,
        on_sentence: Callable[[AnswerSentence], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Answer:
        """An answer from the files, every sentence checked (answer/asker.Asker)."""
        from findling.answer.asker import Asker

        check_query_length(question, "a question")
        return Asker(self._search, self.settings.ask).ask(question, filters, on_sentence, cancel)

    def semantic_off(self) -> Note | None:
        """Why semantic search cannot run now, or None when it can: the one place that asks."""
        return self._search.semantic_off()

    def files_named(self, text: str, limit: int = 5) -> list[str]:
        """Indexed files whose name holds the text: the window's instant name row."""
        return self._search.files_named(text, limit)

    @property
    def searcher(self) -> Searcher:
        """The search half itself: for measurement tools, which rank without presenting."""
        return self._search

    def document_text(
        self, doc_id: int, terms: Sequence[str] = (), terms_apart: Mapping[str, frozenset[str]] | None = None
    ) -> DocumentText | None:
        """The document's text for the preview, with the places of `terms` (Searcher.document_text)."""
        return self._search.document_text(doc_id, terms, terms_apart)

    def similar(self, ref: str, limit: int | None = None, filters: Filters | None = None) -> SearchResult:
        """Documents like the given one, by meaning (Searcher.similar)."""
        return self._search.similar(ref, limit, filters)

    # -- documents by reference (docid or path) ---------------------------------------------

    def get(self, ref: str, first_line: int | None = None, count: int | None = None) -> DocumentSlice:
        """An indexed document's text, or lines of it: `ref` is a docid (`#3fa9c2`) or a path,
        optionally followed by `:line` or `:line:count`."""
        ref, line, n = split_reference(ref)
        return self._fetch.get(self._fetch.resolve(ref, self.sources()), first_line or line, count or n)

    def symbols(self, ref: str) -> Outline:
        """A source file's outline: its functions, classes and methods, in order. `ref` as `get` takes it."""
        doc_id = self._fetch.resolve(split_reference(ref)[0], self.sources())
        cur = self._db.cursor()
        meta = document_meta(cur, [doc_id])[doc_id]
        return Outline(
            docid(meta.path),
            meta.path,
            meta.title,
            tuple(symbols_of(cur, [doc_id]).get(doc_id, ())),
            language_of(meta.ext) or "",
        )

    def multi_get(self, refs: Sequence[str], max_bytes: int = 60_000, max_lines: int | None = None) -> MultiGetResult:
        """Several documents (docids, paths or glob patterns over the indexed paths), up to max_bytes."""
        return self._fetch.multi_get(refs, self.sources(), max_bytes, max_lines)

    def models_state(self) -> dict[str, Note | None]:
        """Each model role's state: None when ready, else why it is not."""
        return {role: self.models.unavailable_reason(role) for role in ROLES}

    def document_paths(self) -> dict[int, str]:
        """Every document's path, by id (for tools that map results to their own ids)."""
        return document_paths(self._db.cursor())

    def check_index(self) -> list[str]:
        """What would make the index lie (documents of removed folders, duplicates, orphans,
        counts out of step, kept vectors that do not match it); empty when sound."""
        return consistency_problems(self._db.cursor()) + self._search.vectors.kept_problems()

    def repair_index(self) -> int:
        with self._index_lock, self._db.transaction() as tx:
            removed = repair_problems(tx)
        self._bm25.invalidate()
        self._search.vectors.drop_damaged()
        return removed

    # -- status -------------------------------------------------------------------------

    def status(self, problem_limit: int = 200) -> StoreStatus:
        cur = self._db.cursor()
        per_source = counts_by_source(cur)
        waiting, left_out = waiting_by_source(cur), left_out_by_source(cur)
        model = self.models.spec("embedder").vector_key if self.models.unavailable_reason("embedder") is None else None
        weights = {r.source_id: r.weights for r in self_tests(cur) if r.model == model}
        attached = attached_by_source(cur, model)
        sources = tuple(
            SourceStatus(
                s,
                **asdict(per_source.get(s.id, SourceCounts())),
                waiting=waiting.get(s.id, 0),
                left_out=left_out.get(s.id, 0),
                weights=weights.get(s.id),
                attached=attached.get(s.id),
            )
            for s in self.sources()
        )
        found = tuple(problems(cur, problem_limit))
        costly = tuple(indexed_costliest(cur))
        total = totals(cur)
        # the database and the vectors kept beside it for the next process (search/vector_snapshot.py)
        kept = [*self.home.glob(DB_FILENAME + "*"), *self.home.glob("vectors/**/*")]
        size = sum(p.stat().st_size for p in kept if p.is_file())
        return StoreStatus(
            home=str(self.home),
            database=str(self._db.path),
            documents=sum(s.documents for s in sources),
            indexed=sum(s.indexed for s in sources),
            failed=sum(s.failed for s in sources),
            skipped=sum(s.skipped for s in sources),
            chunks=total.chunks,
            terms=total.terms,
            postings=total.postings,
            size_bytes=size,
            sources=sources,
            problems=found,
            languages=tuple(language_counts(cur).items()),
            **self._embedding_state(cur),
            **self._ocr_state(cur),
            activity=self._activity.now(),
            costliest=costly,
            free_bytes=space(cur, self._db.path).free_bytes,
        )

    def ocr_models(self) -> tuple[str, str] | str:
        """The OCR model's (detector, recognizer) files when pictures and scans are read, else why not."""
        if not self.settings.index.ocr:
            return "off in settings: [index] ocr = true turns it on"
        why = self.models.unavailable_reason("ocr")
        if why:
            return why.text
        try:
            spec = self.models.spec("ocr")
            store = self.models.store
            return (
                str(store.verified_path(spec, spec.file_of_kind("detector"))),
                str(store.verified_path(spec, spec.file_of_kind("model"))),
            )
        except FindlingError as exc:
            return str(exc)

    def _ocr_files(self) -> tuple[str, str] | tuple[()]:
        models = self.ocr_models()
        return () if isinstance(models, str) else models

    def _ocr_state(self, cur: Any) -> dict[str, Any]:
        models = self.ocr_models()
        documents, pages = ocr_counts(cur)
        return {"ocr": models if isinstance(models, str) else "", "ocr_documents": documents, "ocr_pages": pages}

    def _embedding_state(self, cur: Any) -> dict[str, Any]:
        name, table, dimension = "", None, 0
        if self.models.unavailable_reason("embedder") is None:
            spec = self.models.spec("embedder")
            name = spec.name
            found = table_for(cur, spec.vector_key)
            table, dimension = found if found else (None, 0)
        embedded, embeddable = embedded_share(cur, table)
        depth = reach(cur, table)
        endpoint = self.models.endpoint("embedder")
        away = ""
        if endpoint is not None:  # the model-server client brings numpy: not for every status
            from findling.models.remote import is_local

            away = "" if is_local(endpoint.url) else endpoint.host
        return {
            "embedder": name,
            "embedded": embedded,
            "embeddable": embeddable,
            "first_only": depth.get("", 0),
            "held_back": tuple(sorted(((why, n) for why, n in depth.items() if why), key=lambda r: -r[1])),
            "embedder_where": self.models.where("embedder") if name else "",
            "embedder_dimension": dimension,
            "text_sent_to": away,
        }


if TYPE_CHECKING:

    def _an_engine_is_an_index(engine: Engine) -> IndexAPI:
        return engine  # mypy holds the Engine to the one API every face calls
