"""The search half of the engine: a `Searcher` answers a `SearchRequest` end to end (parse,
lanes, fusion, constraints, listing with copies, weak marking, newer-first), finds documents
like one, and gives a document's text for the preview. Every face's search reaches it through
`Engine.find`; the engine keeps the files (sources, indexing, status), and why_not_file.py asks
both halves why a file is or is not listed."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from findling.docids import split_reference
from findling.errors import FindlingError, QuerySyntaxError, Remedy, check_query_length
from findling.file_kinds import is_prose
from findling.models.service import ModelService
from findling.pathnames import under
from findling.priority import FOREGROUND
from findling.records import (
    CodeSymbol,
    CopyKey,
    Evidence,
    Filters,
    Highlight,
    Hit,
    Lane,
    MatchMode,
    Note,
    QueryExplain,
    RerankerMode,
    SearchMode,
    SearchRequest,
    SearchResult,
    Source,
)
from findling.search.fetch import DocumentFetcher
from findling.search.keyword.explain import keyword_explain
from findling.search.keyword.hits import Bm25Result
from findling.search.keyword.lane import Bm25Lane
from findling.search.query_parser import READ_AS_TEXT, ParsedQuery, parse_query
from findling.search.relevance import as_shown, newer_first_among_equals, relative, relevance
from findling.search.results import (
    RankedEntry,
    as_listed,
    distinct_count,
    listed_groups,
    present,
    rebuilt_offsets,
    symbol_terms,
    what_matched,
    with_room_for_a_few_copies,
    with_room_for_copies,
)
from findling.search.snippets import highlight_spans
from findling.settings import Settings
from findling.store.attached import attached_roots
from findling.store.db import Database
from findling.store.documents import (
    copy_keys,
    document_text,
    documents_named,
    modified_times,
)
from findling.store.lane_weights import SelfTestRecord, opening_texts, self_test_sample, self_tests
from findling.store.symbols import symbols_of
from findling.store.text_cache import DocumentCache
from findling.store.vectors import table_for
from findling.text.analyzer import terms_in
from findling.text.code_languages import language_of
from findling.tuning import (
    LOADING_SHOWN_MS,
    PASSAGE_WORDS,
    SELF_TEST_CHUNKS,
    SELF_TEST_DOCUMENTS,
    SELF_TEST_FEWEST,
    SELF_TEST_STALE,
    WEAK_SHOWN,
)
from findling.vocabulary import RESULT_LIMIT

T = TypeVar("T")

if TYPE_CHECKING:
    import duckdb

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


class Searcher:
    """Answers searches over one index. The vector lane and the pipeline are made when first
    needed: a keyword search from a terminal never loads what semantic search and reranking import."""

    def __init__(
        self,
        db: Database,
        home: Path,
        settings: Settings,
        models: ModelService,
        documents: DocumentCache,
        synonyms: Callable[[], Mapping[str, tuple[str, ...]]],
        sources: Callable[[], list[Source]],
    ) -> None:
        self._db = db
        self.home = home
        self.settings = settings
        self.models = models
        self._documents = documents
        self.sources = sources
        # the attached collections' folders and names, read again only after this process wrote
        # (the index's one writer): every result list asks for them
        self._roots: tuple[int, list[tuple[str, str]]] = (-1, [])
        s = settings.search
        self._bm25 = Bm25Lane(db.cursor, s.k1, s.b, s.max_query_terms, s.title_boost, synonyms, passages=self.passages)
        self._fetch = DocumentFetcher(db.cursor, documents)
        self._lazy_lock = threading.Lock()
        self._vector_lane: VectorLane | None = None
        self._hybrid: Pipeline | None = None

    @property
    def bm25(self) -> Bm25Lane:
        return self._bm25

    @property
    def vectors(self) -> VectorLane:
        return self._vectors

    @property
    def vectors_loaded(self) -> bool:
        return self._vector_lane is not None

    @property
    def _vectors(self) -> VectorLane:
        with self._lazy_lock:
            if self._vector_lane is None:
                from findling.search.vector_lane import VectorLane

                self._vector_lane = VectorLane(
                    self._db.cursor,
                    self.home,
                    bulk_read=self._db.bulk_read,
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

    def close(self, vectors_changed: bool) -> None:
        """`vectors_changed`: this process changed vectors (removed a folder, re-read a file)
        without searching them: the lane's close brings the files kept beside the index in step."""
        if self._hybrid is not None:
            self._hybrid.close()
        if self._vector_lane is not None or vectors_changed:
            self._vectors.close()

    def self_test(self, source: Source, cancel: threading.Event | None = None) -> SelfTestRecord | None:
        """A new self-test of the folder (search/self_test.py) where it has none read with this
        embedder's vectors, or one from a folder that has since grown or shrunk by a quarter;
        None where it keeps what it has, has too few embedded documents, or was cancelled."""
        from findling.search.self_queries import SelfTestDocument
        from findling.search.self_test import self_test

        model = self.models.spec("embedder").vector_key
        cur = self._db.cursor()
        found = table_for(cur, model)
        if found is None:
            return None
        embedded, sample = self_test_sample(cur, source.id, found[0], SELF_TEST_DOCUMENTS)
        before = next((r for r in self_tests(cur) if r.source_id == source.id and r.model == model), None)
        if embedded < SELF_TEST_FEWEST or (
            before is not None and abs(embedded - before.documents) <= SELF_TEST_STALE * before.documents
        ):
            return None
        texts = opening_texts(cur, [doc_id for doc_id, _, _ in sample], SELF_TEST_CHUNKS)
        documents = [
            SelfTestDocument(doc_id, path, texts[doc_id], not is_prose(ext))
            for doc_id, path, ext in sample
            if texts.get(doc_id)
        ]
        return self_test(self._pipeline, source, documents, embedded, model, cancel)

    # -- search -------------------------------------------------------------------------

    def parse(self, request: SearchRequest) -> tuple[ParsedQuery, int]:
        check_query_length(request.text)
        limit = request.limit
        low, high = RESULT_LIMIT
        if limit is not None and not low <= limit <= high:
            raise QuerySyntaxError(f"the number of results must be between {low:g} and {high:g}, got {limit}")
        if request.mode not in SearchMode.__members__.values():
            raise QuerySyntaxError(f"mode must be one of {', '.join(SearchMode)}, got {request.mode!r}")
        return parse_query(request.text).with_filters(request.filters), limit or self.settings.search.limit

    def find(self, request: SearchRequest) -> SearchResult:
        """Answer one search, in the mode it asks for: the one place that maps a mode to its
        lanes, says what is unavailable, orders newer-first among equals and marks weak results."""
        return self.find_all(request)

    def find_all(self, request: SearchRequest, keep_weak: bool = False) -> SearchResult:
        """`keep_weak`: also the results below the weak score, marked (why-not places every
        candidate; a list shows only good ones). Background embedding holds back meanwhile."""
        with FOREGROUND:
            return self._find_all(request, keep_weak)

    def _find_all(self, request: SearchRequest, keep_weak: bool) -> SearchResult:
        started = time.perf_counter()
        parsed, limit = self.parse(request)
        if request.mode is SearchMode.KEYWORD:
            result = self._keyword(request, parsed, limit)
        else:
            result = self._ranked(request, parsed, limit, keep_weak)
        if parsed.read_as_text:
            result = replace(result, notes=(*result.notes, Note(READ_AS_TEXT)))
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
        notes = (Note("no document has every word; showing documents with some of them"),) if lane.relaxed else ()
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
                return SearchResult(request.text, (), 0, notes=(Note("the query has no words to search for"),))
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
            notes = (*notes, Note("no document has every word; showing documents with some of them or their meaning"))
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
        notes: list[Note] = []
        loading_ms = 0.0
        if "vector" in lanes:
            opening = time.perf_counter()
            off = self.semantic_off()  # loads the embedder on first use
            loading_ms = round((time.perf_counter() - opening) * 1000, 2)
            off = off or self._server_silent(query)  # a server embedding the query: the lanes' time
            if off is not None:
                notes.append(replace(off, text=f"semantic search is off: {off.text}"))
                lanes = tuple(lane for lane in lanes if lane != "vector")
            elif partial := self._vectors.coverage_note(self.models.spec("embedder").vector_key):
                notes.append(Note(partial))
        if not lanes:
            explain = QueryExplain(
                query=query, mode="", stages=(), expansion=None, candidates=0, results=(), timings_ms={}
            )
            from findling.search.pipeline import PipelineResult

            return PipelineResult((), explain, (), tuple(notes))
        result = self._pipeline.run(
            query, parsed, limit, lanes, expand, rerank, min_score, match or self.settings.search.match
        )
        if loading_ms >= LOADING_SHOWN_MS:  # said where the search's own time is: not in its stages
            result.explain.timings_ms["loading models"] = loading_ms
        return replace(result, notes=tuple(notes) + result.notes)

    def _server_silent(self, query: str) -> Note | None:
        """When a model server embeds, why it cannot embed this query (it is down, or refuses):
        the search then goes on by keywords and says so, instead of failing. The vector lane
        reuses the answer (RemoteEmbedder remembers recent queries)."""
        if self.models.endpoint("embedder") is None:
            return None
        from findling.models.remote import ModelServerError

        try:
            self.models.embedder().embed([query], kind="query")
        except ModelServerError as exc:
            return Note(str(exc))
        return None

    def semantic_off(self) -> Note | None:
        """Why semantic search cannot run now, or None when it can: the one place that asks."""
        reason = self.models.unavailable_reason("embedder")
        if reason is not None:
            return reason
        try:
            embedder = (
                self.models.embedder()
            )  # loaded (and its file verified) here: a damaged model means keywords only
        except FindlingError as exc:
            return Note(f"the embedder cannot be loaded ({exc})", exc.remedy, exc.subject)
        if self._vectors.index_for(embedder.spec.vector_key) is None:
            return Note("no documents are embedded yet", Remedy.UPDATE_INDEX)
        return None

    def files_named(self, text: str, limit: int = 5) -> list[str]:
        """Indexed files whose name holds the text: the window's instant name row."""
        text = text.strip()
        if len(text) < 2:
            return []
        return documents_named(self._db.cursor(), text, limit)

    def passage(self, doc_id: int, start: int, end: int) -> str:
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
        parsed, limit = self.parse(SearchRequest(query, limit=limit))
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

    def passages(self, ids: list[int]) -> dict[int, tuple[str, list[tuple[int, int, str]]]]:
        """Documents' (language, chunks), for the keyword lane's nearness."""
        found = self._documents.documents(self._db.cursor(), ids)
        return {doc_id: (d.meta.language, d.chunks) for doc_id, d in found.items()}

    def rank_keywords(self, request: SearchRequest) -> tuple[list[RankedEntry], bool]:
        """Keyword mode's list as `find` orders it, without snippets: for evaluation and
        benchmarks, which measure the product's keyword search, not rendering. Also whether
        the match was relaxed to some of the words."""
        parsed, limit = self.parse(replace(request, mode=SearchMode.KEYWORD))
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

    def _keep_good(self, hits: list[Hit], keep_weak: bool = False) -> tuple[list[Hit], tuple[Note, ...]]:
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
        return [replace(h, weak=True) for h in hits[:WEAK_SHOWN]], (
            Note("no good matches; the closest documents are shown, marked weak"),
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
        cur = self._db.cursor()
        hits = present(cur, self._documents, entries, terms, snippet_chars, symbols, terms_apart)
        roots = self._attached_roots(cur) if hits else []
        if not roots:
            return hits
        # a shared collection's documents say its name (every face shows where a result is from)
        return [
            replace(h, collection=name) if (name := next((n for r, n in roots if under(h.path, r)), "")) else h
            for h in hits
        ]

    def _attached_roots(self, cur: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
        if self._roots[0] != self._db.writes:
            writes = self._db.writes  # read first: a write landing meanwhile makes the next call read again
            self._roots = (writes, attached_roots(cur))
        return self._roots[1]

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

    def similar(self, ref: str, limit: int | None = None, filters: Filters | None = None) -> SearchResult:
        """Documents like the given one, by meaning (its vectors)."""
        started = time.perf_counter()
        ref, _line, _n = split_reference(ref)
        doc_id = self._fetch.resolve(ref, self.sources())
        limit = limit or self.settings.search.limit
        off = self.semantic_off()
        if off is not None:
            return SearchResult(ref, (), 0, notes=(replace(off, text=f"semantic search is off: {off.text}"),))
        model = self.models.spec("embedder").vector_key
        lane = self._vectors.similar(model, doc_id, limit, filters)
        if lane is None:
            return SearchResult(ref, (), 0, notes=(Note("that document has no vectors yet", Remedy.UPDATE_INDEX),))
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
