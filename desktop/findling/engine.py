"""The engine API that the CLI and the GUI both call. No Qt here."""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import astuple, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from findling.docids import docid, split_reference
from findling.errors import FindlingError, QuerySyntaxError, SourceError
from findling.models.manifest import ROLES
from findling.models.service import ModelService
from findling.pathnames import MEMBER_SEPARATOR, absolute_address, container_file, display_path
from findling.paths import DB_FILENAME, config_dir, data_home
from findling.records import (
    Activity,
    CodeSymbol,
    CopyKey,
    DocumentSlice,
    EmbedReport,
    Evidence,
    Filters,
    Highlight,
    Hit,
    IndexReport,
    Lane,
    MatchMode,
    MultiGetResult,
    Outline,
    QueryExplain,
    RerankerMode,
    SearchMode,
    SearchRequest,
    SearchResult,
    Source,
    SourceStatus,
    StoreStatus,
    WhyNotAnswer,
)
from findling.search.bm25 import Bm25Lane, Bm25Result
from findling.search.fetch import DocumentFetcher
from findling.search.keyword_explain import keyword_explain
from findling.search.presentation import PASSAGE_WORDS, what_matched
from findling.search.query_parser import ParsedQuery, parse_query
from findling.search.relevance import as_shown, newer_first_among_equals, relative, relevance
from findling.search.results import (
    RankedEntry,
    as_listed,
    distinct_count,
    listed_groups,
    present,
    rebuilt_offsets,
    symbol_terms,
    with_room_for_a_few_copies,
    with_room_for_copies,
)
from findling.search.snippets import highlight_spans
from findling.search.why_not import (
    WIDE_LIMIT,
    SearchFacts,
    filter_reason,
    judge,
    keyword_standing,
    semantic_standing,
)
from findling.settings import Settings, load_settings
from findling.store.activity import ActivityTracker
from findling.store.db import Database
from findling.store.documents import (
    copy_keys,
    delete_documents,
    document_meta,
    document_paths,
    document_state,
    document_text,
    documents_named,
    modified_times,
)
from findling.store.sources import (
    delete_source,
    insert_source,
    inside,
    list_sources,
    owner_of,
    set_rules,
    source_document_ids,
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
from findling.store.text_cache import DocumentCache
from findling.store.vectors import embedded_share, table_for
from findling.store.vectors import generation as vector_generation
from findling.text.analyzer import terms_in
from findling.text.code_languages import language_of
from findling.text.synonyms import SYNONYMS_FILENAME, SynonymFile

T = TypeVar("T")

if TYPE_CHECKING:
    from findling.index_api import IndexAPI
    from findling.ingest.indexer import ProgressCallback
    from findling.search.fusion import Fused
    from findling.search.pipeline import Pipeline, PipelineResult
    from findling.search.vector_lane import VectorLane


@dataclass(frozen=True)
class DocumentText:
    doc_id: int
    path: str
    title: str
    text: str
    language: str
    highlights: tuple[Highlight, ...] = ()  # where the given query terms occur
    pages: tuple[int, ...] = ()  # where each page begins in `text` (PDFs)
    # a source file's definitions, their spans in `text`: the preview's outline
    symbols: tuple[CodeSymbol, ...] = ()


_WEAK_SHOWN = 3


def _normalise_path(path: str | os.PathLike[str]) -> str:
    return str(Path(path).expanduser().resolve())


class Engine:
    def __init__(
        self,
        home: str | os.PathLike[str] | None = None,
        settings: Settings | None = None,
        read_only: bool = False,
    ) -> None:
        self.home = data_home(home)
        self.home_override = home  # where settings.toml is saved: beside an explicit home
        self.settings = settings or load_settings(home)
        self._db = Database(
            self.home / DB_FILENAME, read_only=read_only, memory_limit_mb=self.settings.index.memory_limit_mb
        )
        s = self.settings.search
        self.synonyms = SynonymFile(config_dir(home) / SYNONYMS_FILENAME)  # beside settings.toml
        self._bm25 = Bm25Lane(
            self._db.cursor, s.k1, s.b, s.max_query_terms, s.title_boost, self.synonyms.get, passages=self._passages
        )
        self._documents = DocumentCache(self._db.cursor, self.home, lambda: self._db.writes)
        self.models = ModelService(self.settings.models)
        self._fetch = DocumentFetcher(self._db.cursor, self._documents)
        self._index_lock = threading.Lock()
        self._text_waiting = _Waiting()  # text runs that want the lock: embedding steps aside
        self._activity = ActivityTracker()
        # The vector lane and the pipeline are made when first needed: a keyword search from a
        # terminal never loads what semantic search and reranking import.
        self._lazy_lock = threading.Lock()
        self._vector_lane: VectorLane | None = None
        self._hybrid: Pipeline | None = None
        self._vectors_at_open = vector_generation(self._db.cursor())
        self._closed = False

    @property
    def _vectors(self) -> VectorLane:
        with self._lazy_lock:
            if self._vector_lane is None:
                from findling.search.vector_lane import VectorLane

                self._vector_lane = VectorLane(
                    self._db.cursor,
                    self.home,
                    bulk_read=lambda: self._db.working_memory(shed=True),
                    database_file=self._db.path,
                )
            return self._vector_lane

    @property
    def _pipeline(self) -> Pipeline:
        vectors = self._vectors
        with self._lazy_lock:
            if self._hybrid is None:
                from findling.search.pipeline import Pipeline

                self._hybrid = Pipeline(
                    self._db,
                    self._bm25,
                    vectors,
                    self.models,
                    self.settings.pipeline,
                    self._documents,
                    newer_first=self._fused_newer_first,
                )
            return self._hybrid

    @property
    def database(self) -> Database:
        """The store this engine reads and writes: for measurement tools and consistency checks."""
        return self._db

    def close(self) -> None:
        if self._closed:  # a second close (a test's, a face's) finds nothing left to do
            return
        self._closed = True
        if self._hybrid is not None:
            self._hybrid.close()
        # vectors this process changed (removed a folder, re-read a file) without searching them:
        # the lane's close brings the files kept beside the index in step with the database
        changed = (self.home / "vectors").is_dir() and vector_generation(self._db.cursor()) != self._vectors_at_open
        if self._vector_lane is not None or changed:
            self._vectors.close()
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
        self, path: str | os.PathLike[str], include: Sequence[str] = (), exclude: Sequence[str] = ()
    ) -> Source:
        """Add a folder (or a single file). A folder inside an existing source is already
        covered; a folder around existing sources takes their documents over."""
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
            if inside(resolved, source.path):
                if resolved == source.path and (include or exclude):
                    with self._db.transaction() as tx:
                        set_rules(tx, source.id, include, exclude)
                    return Source(source.id, source.path, tuple(include), tuple(exclude))
                return source
        inner = [s for s in existing if inside(s.path, resolved)]
        with self._db.transaction() as tx:
            return insert_source(tx, resolved, include, exclude, absorb=inner)

    def remove_source(self, path: str | os.PathLike[str]) -> int:
        """Forget a source and everything indexed from it; returns the documents removed."""
        resolved = _normalise_path(path)
        match = next((s for s in self.sources() if s.path in (resolved, str(path))), None)
        if match is None:
            raise SourceError(f"not an indexed folder: {display_path(resolved)}")
        with self._db.transaction() as tx:
            # read in the transaction: a run indexing this folder commits its batches under the
            # same lock, so none lands between the reading and the removal, and none after it
            # (write_documents refuses a removed source)
            ids = source_document_ids(tx, match.id)
            delete_documents(tx, ids)
            delete_source(tx, match.id)
        self._bm25.invalidate()
        return len(ids)

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
                        report = Indexer(self._db, self.settings.index, progress, cancel, self._ocr_files()).run(
                            self.sources()
                        )
                finally:
                    self._bm25.invalidate()
            if embed and not report.cancelled:
                report.embedding = self._embed(progress, cancel)
        finally:
            self._activity.idle()
        return report

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
                part = self._embed_locked(progress, _EitherEvent(cancel, self._text_waiting))
                # asked under the lock: the text run clears the flag only once it holds the lock
                stepped_aside = part.cancelled and self._text_waiting.is_set() and not (cancel and cancel.is_set())
            done = done.followed_by(part)
            if not stepped_aside:
                return done
            while self._text_waiting.is_set():  # the text run takes the lock; go on once it has
                time.sleep(0.01)

    def _embed_locked(self, progress: ProgressCallback | None, cancel: threading.Event | None) -> EmbedReport:
        reason = self.models.unavailable_reason("embedder")
        if reason is not None:
            return EmbedReport(skipped=reason)
        try:
            embedder = self.models.embedder()
        except FindlingError as exc:
            return EmbedReport(skipped=str(exc))
        from findling.ingest.embedding import embed_pending

        with self._db.working_memory():
            return embed_pending(self._db, embedder, progress, cancel)

    def warm(self, cancel: threading.Event | None = None) -> None:
        """Load what makes searching fast — the document cache, the embedder, the vectors —
        so that the first queries do not pay for it (the app calls this in the background)."""
        self._documents.warm(cancel)
        if cancel is not None and cancel.is_set() or self.models.unavailable_reason("embedder") is not None:
            return
        try:
            if self._vectors.index_for(self.models.spec("embedder").vector_key) is None:
                return  # nothing embedded by it yet: the model loads at the first semantic search
            self._vectors.warm(self.models.embedder().spec.vector_key)
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
                            self.sources(), [_normalise_path(p) for p in paths]
                        )
                finally:
                    self._bm25.invalidate()
            if embed:
                report.embedding = self._embed(progress, cancel)
        finally:
            self._activity.idle()
        return report

    # -- search -------------------------------------------------------------------------

    def _parse(self, request: SearchRequest) -> tuple[ParsedQuery, int]:
        limit = request.limit
        if limit is not None and not 1 <= limit <= 10_000:
            raise QuerySyntaxError(f"the number of results must be between 1 and 10000, got {limit}")
        if request.mode not in SearchMode.__members__.values():
            raise QuerySyntaxError(f"mode must be one of {', '.join(SearchMode)}, got {request.mode!r}")
        return parse_query(request.text).with_filters(request.filters), limit or self.settings.search.limit

    def find(self, request: SearchRequest) -> SearchResult:
        """Answer one search, in the mode it asks for: the one place that maps a mode to its
        lanes, says what is unavailable, orders newer-first among equals and marks weak results."""
        return self._find(request)

    def _find(self, request: SearchRequest, keep_weak: bool = False) -> SearchResult:
        """`keep_weak`: also the results below the weak score, marked (why-not places every
        candidate; a list shows only good ones)."""
        started = time.perf_counter()
        parsed, limit = self._parse(request)
        if request.mode is SearchMode.KEYWORD:
            result = self._keyword(request, parsed, limit)
        else:
            result = self._ranked(request, parsed, limit, keep_weak)
        result.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 2)
        if result.explain is not None:
            result.explain.timings_ms.setdefault("total", result.timings_ms["total"])
        return result

    def _keyword_entries(
        self, request: SearchRequest, parsed: ParsedQuery, limit: int, shown: int | None = None
    ) -> tuple[list[RankedEntry], Bm25Result]:
        """Keyword mode's ranking: the BM25 lane alone, every word required unless no document
        has them all (or as the request's `match` says), scored by its keyword evidence.
        `shown`: how many of the `limit` a list shows (Bm25Lane.search)."""
        lane = self._bm25.search(parsed, limit, request.match or self.settings.search.match, shown)
        evidence = relative([Evidence(coverage=h.coverage, saturation=h.saturation) for h in lane.hits])
        # A query of filters alone is no evidence of relevance: its list keeps the lane's own
        # score (0 for plain filters, how well a name matches for `sym:`).
        scores = [relevance(e) for e in evidence] if parsed.has_terms else [h.score for h in lane.hits]
        entries = [
            RankedEntry(h.doc_id, h.score, as_shown(score))
            for h, score in zip(lane.hits, scores)
            if score >= request.min_score
        ]
        return entries, lane

    def _keyword(self, request: SearchRequest, parsed: ParsedQuery, limit: int) -> SearchResult:
        entries, lane = self._keyword_entries(request, parsed, with_room_for_a_few_copies(limit), limit)
        lane_ms = lane.ms
        presenting = time.perf_counter()
        # `sym:raw_decode` alone has no words, but the name it asks for is what to light up
        terms = tuple(lane.terms) or symbol_terms(parsed.filters.symbols)
        apart = lane.plan.apart if lane.plan is not None else {}
        listed = self._present_listed(entries, limit, terms, parsed.filters.symbols, apart)
        if distinct_count(listed) < limit and len(lane.hits) < lane.total:
            # copies took more places: ranked again, deeper
            entries, lane = self._keyword_entries(request, parsed, with_room_for_copies(limit), limit)
            lane_ms += lane.ms
            listed = self._present_listed(entries, limit, terms, parsed.filters.symbols, apart, listed)
        coverage = {h.doc_id: h.coverage for h in lane.hits} if parsed.has_terms else {}
        hits = [
            replace(h, matched=what_matched(coverage.get(h.doc_id), by_meaning=False))
            for h in as_listed(self._newer_first(listed, lambda h: h.score, lambda h: h.mtime))
        ]
        notes = ("no document has every word; showing documents with some of them",) if lane.relaxed else ()
        timings = {"bm25": round(lane_ms, 2), "snippets": round((time.perf_counter() - presenting) * 1000, 2)}
        explain = keyword_explain(request.text, lane, entries, lane_ms, {h.doc_id for h in listed})  # copies too
        return SearchResult(
            query=request.text,
            hits=tuple(hits),
            total_matched=lane.total,
            relaxed=lane.relaxed,
            notes=notes,
            timings_ms=timings,
            explain=replace(explain, timings_ms={**explain.timings_ms, **timings}),
            terms=terms,
            terms_apart=apart,
        )

    def _ranked(self, request: SearchRequest, parsed: ParsedQuery, limit: int, keep_weak: bool) -> SearchResult:
        """Hybrid and semantic modes: the pipeline over the mode's lanes, with its explain record."""
        if not parsed.has_terms:
            if parsed.filters.empty:
                return SearchResult(request.text, (), 0, notes=("the query has no words to search for",))
            # a filter alone (`ext:pdf`, `after:`, `sym:NAME`) lists what it lets through, in every
            # mode: there is nothing to rank by meaning, and keyword mode's list is that list
            return self._keyword(request, parsed, limit)
        result = self._run_pipeline(
            request.text,
            parsed,
            with_room_for_copies(limit),
            request.mode.lanes,
            request.expand,
            request.rerank,
            request.min_score,
            request.match,
        )
        presented = self._present_listed(
            result.entries, limit, result.terms, parsed.filters.symbols, result.terms_apart
        )
        listed = {h.doc_id for h in presented}
        evidence = {r.doc_id: r.evidence for r in result.explain.results}
        by_meaning = request.mode is SearchMode.SEMANTIC or len(request.text.split()) >= PASSAGE_WORDS
        # a candidate meaning brought that the keyword lane never saw holds none of the words
        coverage = {d: e.coverage if e.coverage is not None else 0.0 for d, e in evidence.items()}
        hits = [replace(h, matched=what_matched(coverage.get(h.doc_id, 0.0), by_meaning)) for h in as_listed(presented)]
        # keyword matches are matched, not only ranked: with the vector lane off, none is weak
        hits, notes = self._keep_good(hits, keep_weak) if "vector" in result.lanes else (hits, ())
        if request.mode is SearchMode.HYBRID and not by_meaning and hits and all(h.matched != "all" for h in hits):
            # as keyword mode says it: what is listed holds some of the words, or their meaning
            notes = (*notes, "no document has every word; showing documents with some of them or their meaning")
        explain = replace(result.explain, results=tuple(r for r in result.explain.results if r.doc_id in listed))
        return SearchResult(
            query=request.text,
            hits=tuple(hits),
            # the documents holding the words, as keyword search counts them, or the candidates meaning added
            total_matched=max(explain.candidates, result.matched),
            notes=result.notes + notes,
            timings_ms=dict(explain.timings_ms),
            explain=explain,
            terms=tuple(result.terms),
            terms_apart=result.terms_apart,
        )

    def _run_pipeline(
        self,
        query: str,
        parsed: ParsedQuery,
        limit: int,
        lanes: tuple[Lane, ...],
        expand: bool | None,
        rerank: RerankerMode | None,
        min_score: float = 0.0,
        match: MatchMode | None = None,
    ) -> PipelineResult:
        """The pipeline over the lanes that can run: a lane asked for but unavailable is named
        in a note. With the vector lane off, the keyword lane ranks as keyword search does
        (`match`, or the settings'): hybrid without models is keyword search, not a weaker one."""
        notes: list[str] = []
        if "vector" in lanes:
            off = self.semantic_off()
            if off is not None:
                notes.append(f"semantic search is off: {off}")
                lanes = tuple(lane for lane in lanes if lane != "vector")
            elif partial := self._vectors.coverage_note(self.models.spec("embedder").vector_key):
                notes.append(partial)
        if not lanes:
            explain = QueryExplain(
                query=query, mode="", stages=(), expansion=None, candidates=0, results=(), timings_ms={}
            )
            from findling.search.pipeline import PipelineResult

            return PipelineResult((), explain, (), tuple(notes))
        result = self._pipeline.run(
            query, parsed, limit, lanes, expand, rerank, min_score, match or self.settings.search.match
        )
        return replace(result, notes=tuple(notes) + result.notes)

    def semantic_off(self) -> str | None:
        """Why semantic search cannot run now, or None when it can: the one place that asks."""
        reason = self.models.unavailable_reason("embedder")
        if reason is not None:
            return reason
        try:
            embedder = (
                self.models.embedder()
            )  # loaded (and its file verified) here: a damaged model means keywords only
        except FindlingError as exc:
            return f"the embedder cannot be loaded ({exc})"
        if self._vectors.index_for(embedder.spec.vector_key) is None:
            return "no documents are embedded yet; run findling index"
        return None

    def files_named(self, text: str, limit: int = 5) -> list[str]:
        """Indexed files whose name holds the text: the window's instant name row."""
        text = text.strip()
        if len(text) < 2:
            return []
        return documents_named(self._db.cursor(), text, limit)

    def why_not(self, request: SearchRequest, path: str | os.PathLike[str]) -> WhyNotAnswer:
        """Why this file is, or is not, among the results of this request (the very search a face
        showed): first the file (missing, outside the folders, excluded and by which rule, a kind
        Findling does not read, not indexed, failed or skipped), then the search (filters, each
        lane's standing, the result limit, the score floor)."""
        from findling.ingest.formats import kind_of
        from findling.ingest.scan import why_left_out

        parsed, limit = self._parse(request)
        target = absolute_address(os.fspath(path))
        name = os.path.basename(target)

        def answer(reason: str, summary: str, details: tuple[str, ...] = (), **ranks: int | None) -> WhyNotAnswer:
            return WhyNotAnswer(request.text, target, reason, summary, details, **ranks)

        sources = self.sources()
        source = owner_of(sources, target)
        if source is None:  # asked first: outside the folders, whether a path exists is not ours to tell
            added = ", ".join(s.path for s in sources) or "none yet"
            return answer(
                "outside", f"It is not under any added folder (added: {added}); add its folder with findling add."
            )
        on_disk = container_file(target)  # an archive's member: its archive
        if not os.path.lexists(on_disk):
            return answer("missing", f"There is no file at {on_disk}.")
        left_out = why_left_out(source.path, on_disk, source.include, (*self.settings.index.exclude, *source.exclude))
        if left_out is not None:
            return answer("excluded", left_out.sentence(source.path, source.include, self.settings.index.exclude))
        if kind_of(target) is None:
            ext = os.path.splitext(name)[1]
            return answer("unsupported", f"Findling does not read {ext or 'this kind of'} files (binary or media).")
        cur = self._db.cursor()
        state = document_state(cur, display_path(target))
        if state is None and kind_of(target) == "image":
            read = "the words in a picture's metadata (EXIF description, title, comment, keywords, artist)"
            read = f"{read} and, by OCR, in the picture itself" if self._ocr_files() else f"only {read}"
            return answer(
                "unsupported",
                f"Findling reads {read}; this "
                f"{os.path.splitext(name)[1]} file has none, or it is not indexed yet (findling index).",
            )
        if state is None and on_disk != target and document_state(cur, display_path(on_disk)) is not None:
            member = target[len(on_disk) + len(MEMBER_SEPARATOR) :]
            return answer(
                "missing",
                f"{os.path.basename(on_disk)} holds no {member} that Findling reads "
                f"(its listing names what it holds: findling get {on_disk}).",
            )
        if state is None:
            return answer(
                "not_indexed",
                "It is not indexed yet: run findling index (or wait for the run in progress to reach it).",
            )
        doc_id, status, error = state
        if status in ("failed", "skipped"):
            what = "Reading it failed" if status == "failed" else "It was skipped"
            return answer(status, f"{what}: {error or 'no reason was recorded'}.")
        facts = self._search_facts(request, parsed, doc_id, display_path(target), limit)
        reason, summary, details = judge(facts)
        return answer(
            reason,
            summary,
            details,
            rank=facts.shown_rank or facts.wider_rank,
            keyword_rank=facts.keyword.rank if facts.keyword else None,
            semantic_rank=facts.semantic.rank if facts.semantic else None,
        )

    def _search_facts(
        self, request: SearchRequest, parsed: ParsedQuery, doc_id: int, path: str, limit: int
    ) -> SearchFacts:
        mode = request.mode
        min_score = request.min_score

        def results(n: int, floor: float, keep_weak: bool = False) -> SearchResult:
            return self._find(replace(request, limit=n, min_score=floor), keep_weak=keep_weak)

        def place(result: SearchResult) -> tuple[int | None, float | None]:
            """Its row in the list, also when it is listed as a copy (or near copy) of another file."""
            rows = enumerate(result.hits, 1)
            return next(
                ((i, h.score) for i, h in rows if h.doc_id == doc_id or path in h.copies or path in h.near_copies),
                (None, None),
            )

        shown = results(limit, min_score)
        shown_rank, _ = place(shown)
        wider = results(max(WIDE_LIMIT, limit), 0.0, keep_weak=True) if shown_rank is None else shown
        wider_rank, wider_score = place(wider)
        weak_cut = bool(shown.hits) and all(h.weak for h in shown.hits) and len(shown.hits) < limit
        too_weak = not weak_cut and wider_rank is not None and wider.hits[wider_rank - 1].weak
        cur = self._db.cursor()
        semantic, semantic_off = None, None
        if mode is not SearchMode.KEYWORD:
            semantic_off = self.semantic_off()
            if semantic_off is None:
                semantic = semantic_standing(self._vectors, self.models.embedder(), parsed, doc_id, self._passage)
        # the keyword lane as the search ran it: beside the vector lane it ranks any word's matches
        # (pipeline.run), and its ranks are the ones the Explain tab shows
        match = "any" if mode is SearchMode.HYBRID and semantic_off is None else None
        keyword = (
            keyword_standing(self._bm25, cur, parsed, doc_id, match or request.match or self.settings.search.match)
            if mode is not SearchMode.SEMANTIC
            else None
        )
        return SearchFacts(
            mode=mode,
            limit=limit,
            min_score=min_score,
            shown_rank=shown_rank,
            wider_rank=wider_rank,
            wider_score=wider_score,
            weak_cut=weak_cut and wider_rank is not None,
            too_weak=too_weak,
            weak_floor=self.settings.search.weak_score,
            filter_reason=filter_reason(cur, doc_id, parsed.filters) if not parsed.filters.empty else None,
            keyword=keyword,
            semantic=semantic,
            semantic_off=semantic_off,
        )

    def _passage(self, doc_id: int, start: int, end: int) -> str:
        text = self.document_text(doc_id)
        return text.text[start:end] if text is not None else ""

    def rank(
        self,
        query: str,
        limit: int = 100,
        lanes: tuple[Lane, ...] = ("bm25", "vector"),
        expand: bool | None = None,
        rerank: RerankerMode | None = None,
    ) -> PipelineResult:
        """The pipeline's ranking over any lanes, without snippets: for evaluation, where
        rendering results is not what is measured."""
        parsed, limit = self._parse(SearchRequest(query, limit=limit))
        return self._run_pipeline(query, parsed, limit, lanes, expand, rerank)

    def listed_with_copies(self, entries: Sequence[RankedEntry]) -> list[tuple[RankedEntry, tuple[int, ...]]]:
        """A ranking as a list shows it: a copy once, under the first of its copies (the rule of
        results.as_listed, which every list a person sees goes through), each listed entry with
        the ids of the copies it names. Reads each document's hash and signature only, not its
        text."""
        keys = copy_keys(self._db.cursor(), [e.doc_id for e in entries])
        return [
            (entries[place], tuple(entries[p].doc_id for p, _ in named))
            for place, named in listed_groups([keys.get(e.doc_id, CopyKey()) for e in entries])
        ]

    def _passages(self, ids: list[int]) -> dict[int, tuple[str, list[tuple[int, int, str]]]]:
        """Documents' (language, chunks), for the keyword lane's nearness."""
        found = self._documents.documents(self._db.cursor(), ids)
        return {doc_id: (d.meta.language, d.chunks) for doc_id, d in found.items()}

    def rank_keywords(self, request: SearchRequest) -> tuple[list[RankedEntry], bool]:
        """Keyword mode's list as `find` orders it, without snippets: for evaluation and
        benchmarks, which measure the product's keyword search, not rendering. Also whether
        the match was relaxed to some of the words."""
        parsed, limit = self._parse(replace(request, mode=SearchMode.KEYWORD))
        entries, lane = self._keyword_entries(request, parsed, limit)
        wanted = self.settings.search.recency_weight > 0 and len(entries) > 1
        mtimes = modified_times(self._db.cursor(), [e.doc_id for e in entries]) if wanted else {}
        return self._newer_first(entries, lambda e: e.score, lambda e: mtimes.get(e.doc_id)), lane.relaxed

    def _newer_first(
        self, items: Sequence[T], score: Callable[[T], float], mtime: Callable[[T], float | None]
    ) -> list[T]:
        """Best first by score, where a newer file gets a nudge too small to pass a clearly better
        one (relevance.with_recency): every list in every mode is ordered here."""
        s = self.settings.search
        if s.recency_weight <= 0 or len(items) < 2:
            return sorted(items, key=lambda item: -score(item))
        return newer_first_among_equals(items, score, mtime, s.recency_weight, s.recency_half_life_days, time.time())

    def _fused_newer_first(self, ranked: list[Fused], score_of: dict[int, float]) -> list[Fused]:
        """The pipeline's candidates ordered as every list is: their dates read from the store
        (they are not presented yet), only when recency counts."""
        wanted = self.settings.search.recency_weight > 0 and len(ranked) > 1
        mtimes = modified_times(self._db.cursor(), [f.doc_id for f in ranked]) if wanted else {}
        return self._newer_first(ranked, lambda f: score_of[f.doc_id], lambda f: mtimes.get(f.doc_id))

    def _keep_good(self, hits: list[Hit], keep_weak: bool = False) -> tuple[list[Hit], tuple[str, ...]]:
        """Semantic and hybrid results are ranked, not matched: every document is somewhat
        close to any query. Results below the weak score are left out; when nothing scores
        better, only the closest few are kept, marked weak, with a note saying so."""
        if not hits:
            return hits, ()
        floor = self.settings.search.weak_score
        good = [h for h in hits if h.score >= floor]
        if keep_weak:
            return [h if h.score >= floor else replace(h, weak=True) for h in hits], ()
        if good:
            return good, ()
        return [replace(h, weak=True) for h in hits[:_WEAK_SHOWN]], (
            "no good matches; the closest documents are shown, marked weak",
        )

    def _present_listed(
        self,
        entries: Sequence[RankedEntry],
        limit: int,
        terms: Sequence[str],
        symbols: Sequence[str] = (),
        terms_apart: Mapping[str, frozenset[str]] | None = None,
        presented: Sequence[Hit] = (),
    ) -> list[Hit]:
        """The entries a list of `limit` results shows, presented: up to the `limit`-th that copies
        none before it, with the copies among them (collapse_copies lists them under their first).
        Entries past `limit` are presented only where copies took places: a list without copies
        costs what it did before any were looked for. (A copy ranked below the last result shown
        is not looked for: it is not named beside that result.) `presented`: hits made for a
        shallower ranking of the same query, not made again."""
        made = {h.doc_id: h for h in presented}
        hits: list[Hit] = []
        taken = 0
        while taken < len(entries) and (shown := distinct_count(hits)) < limit:
            batch = entries[taken : taken + limit - shown]
            new = [e for e in batch if e.doc_id not in made]
            made.update((h.doc_id, h) for h in self._present(new, terms, symbols, terms_apart))
            hits.extend(made[e.doc_id] for e in batch if e.doc_id in made)
            taken += len(batch)
        return hits

    def _present(
        self,
        entries: Sequence[RankedEntry],
        terms: Sequence[str],
        symbols: Sequence[str] = (),
        terms_apart: Mapping[str, frozenset[str]] | None = None,
    ) -> list[Hit]:
        snippet_chars = self.settings.search.snippet_chars
        return present(self._db.cursor(), self._documents, entries, terms, snippet_chars, symbols, terms_apart)

    def document_text(
        self, doc_id: int, terms: Sequence[str] = (), terms_apart: Mapping[str, frozenset[str]] | None = None
    ) -> DocumentText | None:
        """The document's text, rebuilt from its overlapping chunks (for the preview pane),
        with the places of `terms` (a result's `terms` and `terms_apart`)."""
        cached = self._documents.documents(self._db.cursor(), [doc_id]).get(doc_id)
        if cached is None:
            return None
        meta = cached.meta
        text = document_text(cached.chunks)
        language = meta.language or "en"
        defined = symbols_of(self._db.cursor(), [doc_id]).get(doc_id, []) if language_of(meta.ext) else []
        starts = rebuilt_offsets(cached.chunks, [s.start for s in defined])
        return DocumentText(
            doc_id,
            meta.path,
            meta.title,
            text,
            language,
            tuple(highlight_spans(text, terms_in(terms, terms_apart or {}, meta.language or ""), language)),
            tuple(rebuilt_offsets(cached.chunks, meta.pages)),
            tuple(replace(s, start=at, end=at + (s.end - s.start)) for s, at in zip(defined, starts)),
        )

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

    def similar(self, ref: str, limit: int | None = None, filters: Filters | None = None) -> SearchResult:
        """Documents like the given one, by meaning (its vectors)."""
        started = time.perf_counter()
        ref, _line, _n = split_reference(ref)
        doc_id = self._fetch.resolve(ref, self.sources())
        limit = limit or self.settings.search.limit
        off = self.semantic_off()
        if off is not None:
            return SearchResult(ref, (), 0, notes=(f"semantic search is off: {off}",))
        model = self.models.spec("embedder").vector_key
        lane = self._vectors.similar(model, doc_id, limit, filters)
        if lane is None:
            return SearchResult(ref, (), 0, notes=("that document has no vectors yet: run findling index",))
        entries = [
            RankedEntry(h.doc_id, h.cosine, relevance(e), (h.start_char, h.end_char))
            for h, e in zip(lane.hits, relative([Evidence(cosine=h.cosine) for h in lane.hits]))
        ]
        hits = as_listed(self._newer_first(self._present(entries, ()), lambda h: h.score, lambda h: h.mtime))
        total_ms = (time.perf_counter() - started) * 1000
        return SearchResult(
            query=ref,
            hits=tuple(hits),
            total_matched=len(hits),
            timings_ms={"vector": round(lane.ms, 2), "total": round(total_ms, 2)},
        )

    def models_state(self) -> dict[str, str]:
        """Each model role's state in words: "ready", or why it is not."""
        return {role: self.models.unavailable_reason(role) or "ready" for role in ROLES}

    def document_paths(self) -> dict[int, str]:
        """Every document's path, by id (for tools that map results to their own ids)."""
        return document_paths(self._db.cursor())

    def check_index(self) -> list[str]:
        """What would make the index lie (documents of removed folders, duplicates, orphans,
        counts out of step); empty when sound."""
        return consistency_problems(self._db.cursor())

    def repair_index(self) -> int:
        with self._index_lock, self._db.transaction() as tx:
            removed = repair_problems(tx)
        self._bm25.invalidate()
        return removed

    # -- status -------------------------------------------------------------------------

    def status(self, problem_limit: int = 200) -> StoreStatus:
        cur = self._db.cursor()
        per_source = counts_by_source(cur)
        sources = tuple(SourceStatus(s, *astuple(per_source.get(s.id, SourceCounts()))) for s in self.sources())
        found = tuple(problems(cur, problem_limit))
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
        )

    def ocr_models(self) -> tuple[str, str] | str:
        """The OCR model's (detector, recognizer) files when pictures and scans are read, else why not."""
        if not self.settings.index.ocr:
            return "off in settings: [index] ocr = true turns it on"
        why = self.models.unavailable_reason("ocr")
        if why:
            return why
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
        name, table = "", None
        if self.models.unavailable_reason("embedder") is None:
            spec = self.models.spec("embedder")
            name = spec.name
            found = table_for(cur, spec.vector_key)
            table = found[0] if found else None
        embedded, embeddable = embedded_share(cur, table)
        return {"embedder": name, "embedded": embedded, "embeddable": embeddable}


if TYPE_CHECKING:

    def _an_engine_is_an_index(engine: Engine) -> IndexAPI:
        return engine  # mypy holds the Engine to the one API every face calls


class _Waiting:
    """How many text runs wait for the index lock; set while any does (as an Event reads)."""

    def __init__(self) -> None:
        self._count = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self._count += 1

    def done(self) -> None:
        with self._lock:
            self._count -= 1

    def is_set(self) -> bool:
        return self._count > 0


class _EitherEvent(threading.Event):
    """Set when either event is: the caller's cancel, or a text run waiting for the index."""

    def __init__(self, *events: threading.Event | _Waiting | None) -> None:
        super().__init__()
        self._events = [e for e in events if e is not None]

    def is_set(self) -> bool:
        return super().is_set() or any(e.is_set() for e in self._events)
