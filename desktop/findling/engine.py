"""The engine API that the CLI and the GUI both call. No Qt here."""

from __future__ import annotations

import os
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from findling.errors import FindlingError, QuerySyntaxError, SourceError
from findling.ingest.embedding import embed_pending
from findling.ingest.indexer import Indexer, ProgressCallback
from findling.models.service import ModelService
from findling.paths import DB_FILENAME, data_home
from findling.records import (
    Highlight,
    Filters,
    EmbedReport,
    FailedFile,
    Hit,
    IndexReport,
    SearchResult,
    Source,
    SourceStatus,
    StoreStatus,
)
from findling.search.bm25 import Bm25Lane
from findling.search.normalize import minmax
from findling.search.query_parser import ParsedQuery, parse_query
from findling.search.pipeline import Pipeline
from findling.search.vector_lane import VectorLane
from findling.search.snippets import highlight_spans, make_snippet
from findling.settings import Settings, load_settings
from findling.store.db import Database
from findling.pathnames import display_path, readable_name, stored_path
from findling.store.documents import WITH_RAW_PATH, delete_documents, id_list
from findling.store.sources import (
    delete_source,
    inside,
    insert_source,
    list_sources,
    set_rules,
    source_document_ids,
)


@dataclass(frozen=True)
class DocumentText:
    doc_id: int
    path: str
    title: str
    text: str
    language: str
    highlights: tuple[Highlight, ...] = ()  # where the given query terms occur


def _cut_span(chunks: list[tuple[int, int, str]], span: tuple[int, int]) -> list[tuple[int, int, str]]:
    """The text of a document span, from the chunk that holds its start."""
    start, end = span
    for c_start, c_end, text in chunks:
        if c_start <= start < c_end:
            return [(start, min(end, c_end), text[start - c_start:min(end, c_end) - c_start])]
    return chunks[:1]


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
        self.db = Database(
            self.home / DB_FILENAME, read_only=read_only, memory_limit_mb=self.settings.index.memory_limit_mb
        )
        self.bm25 = Bm25Lane(self.db.cursor, self.settings.search.k1, self.settings.search.b)
        self.vectors = VectorLane(self.db.cursor)
        self.models = ModelService(self.settings.models)
        self.pipeline = Pipeline(self.db.cursor, self.bm25, self.vectors, self.models, self.settings.pipeline)
        self._index_lock = threading.Lock()

    def close(self) -> None:
        self.pipeline.close()
        self.db.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sources ------------------------------------------------------------------------

    def sources(self) -> list[Source]:
        return list_sources(self.db.cursor())

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
                    with self.db.transaction() as tx:
                        set_rules(tx, source.id, include, exclude)
                    return Source(source.id, source.path, tuple(include), tuple(exclude))
                return source
        inner = [s for s in existing if inside(s.path, resolved)]
        with self.db.transaction() as tx:
            return insert_source(tx, resolved, include, exclude, absorb=inner)

    def remove_source(self, path: str | os.PathLike[str]) -> int:
        """Forget a source and everything indexed from it; returns the documents removed."""
        resolved = _normalise_path(path)
        match = next((s for s in self.sources() if s.path in (resolved, str(path))), None)
        if match is None:
            raise SourceError(f"not an indexed folder: {display_path(resolved)}")
        ids = source_document_ids(self.db.cursor(), match.id)
        with self.db.transaction() as tx:
            delete_documents(tx, ids)
            delete_source(tx, match.id)
        self.bm25.invalidate()
        return len(ids)

    # -- indexing -----------------------------------------------------------------------

    def index(
        self, progress: ProgressCallback | None = None, cancel: threading.Event | None = None
    ) -> IndexReport:
        """Bring the text index up to date, then embed what is new (when an embedder is
        installed). The text is searchable before embedding starts."""
        with self._index_lock:
            try:
                report = Indexer(self.db, self.settings.index, progress, cancel).run(self.sources())
            finally:
                self.bm25.invalidate()
            if not report.cancelled:
                report.embedding = self._embed_locked(progress, cancel)
            return report

    def embed(
        self, progress: ProgressCallback | None = None, cancel: threading.Event | None = None
    ) -> EmbedReport:
        with self._index_lock:
            return self._embed_locked(progress, cancel)

    def _embed_locked(self, progress: ProgressCallback | None, cancel: threading.Event | None) -> EmbedReport:
        reason = self.models.unavailable_reason("embedder")
        if reason is not None:
            return EmbedReport(skipped=reason)
        try:
            embedder = self.models.embedder()
        except FindlingError as exc:
            return EmbedReport(skipped=str(exc))
        return embed_pending(self.db, embedder, progress, cancel)

    def update_paths(self, paths: Iterable[str | os.PathLike[str]]) -> IndexReport:
        with self._index_lock:
            try:
                report = Indexer(self.db, self.settings.index).update_paths(
                    self.sources(), [_normalise_path(p) for p in paths]
                )
            finally:
                self.bm25.invalidate()
            report.embedding = self._embed_locked(None, None)
            return report

    # -- search -------------------------------------------------------------------------

    def _parse(self, query: str, limit: int | None, filters: Filters | None) -> tuple[ParsedQuery, int]:
        if limit is not None and not 1 <= limit <= 10_000:
            raise QuerySyntaxError(f"the number of results must be between 1 and 10000, got {limit}")
        parsed = parse_query(query)
        if filters is not None:
            parsed = parsed.with_filters(filters)
        return parsed, limit or self.settings.search.limit

    def search(
        self, query: str, limit: int | None = None, filters: Filters | None = None, match: str | None = None
    ) -> SearchResult:
        """Keyword search (the BM25 lane) with snippets."""
        started = time.perf_counter()
        parsed, limit = self._parse(query, limit, filters)
        lane = self.bm25.search(parsed, limit, match or self.settings.search.match)
        normalized = minmax([h.score for h in lane.hits])
        hits = self.present(
            [(h.doc_id, h.score, n, None) for h, n in zip(lane.hits, normalized)], lane.terms
        )
        notes = ("no document has every word; showing documents with some of them",) if lane.relaxed else ()
        total_ms = (time.perf_counter() - started) * 1000
        return SearchResult(
            query=query,
            hits=tuple(hits),
            total_matched=lane.total,
            relaxed=lane.relaxed,
            notes=notes,
            timings_ms={"bm25": round(lane.ms, 2), "snippets": round(total_ms - lane.ms, 2), "total": round(total_ms, 2)},
            terms=tuple(lane.terms),
        )

    def query(
        self,
        query: str,
        limit: int | None = None,
        filters: Filters | None = None,
        expand: bool | None = None,
        rerank: str | None = None,
        min_score: float = 0.0,
        lanes: tuple[str, ...] = ("bm25", "vector"),
    ) -> SearchResult:
        """The full hybrid pipeline, with its explain record."""
        started = time.perf_counter()
        parsed, limit = self._parse(query, limit, filters)
        if not parsed.has_terms:
            return SearchResult(query, (), 0, notes=("the query has no words to search for",))
        result = self.pipeline.run(query, parsed, limit, lanes, expand, rerank, min_score)
        hits = self.present(result.entries, result.terms)
        explain = result.explain
        timings = dict(explain.timings_ms)
        timings["total"] = round((time.perf_counter() - started) * 1000, 2)
        return SearchResult(
            query=query, hits=tuple(hits), total_matched=explain.candidates, notes=result.notes,
            timings_ms=timings, explain=explain, terms=tuple(result.terms),
        )

    def vsearch(self, query: str, limit: int | None = None, filters: Filters | None = None) -> SearchResult:
        """Semantic search (the vector lane): documents by meaning, best chunk each."""
        started = time.perf_counter()
        parsed, limit = self._parse(query, limit, filters)
        reason = self.models.unavailable_reason("embedder")
        if reason is not None:
            return SearchResult(query, (), 0, notes=(f"semantic search is off: {reason}",))
        try:
            embedder = self.models.embedder()
        except FindlingError as exc:
            return SearchResult(query, (), 0, notes=(f"semantic search is off: {exc}",))
        if self.vectors.index_for(embedder.spec.name) is None:
            return SearchResult(query, (), 0, notes=("no documents are embedded yet: run findling index",))
        lane = self.vectors.search(embedder, parsed.text, limit, parsed.filters)
        terms = self.bm25.terms_of(parsed)
        hits = self.present([(h.doc_id, h.cosine, h.score, (h.start_char, h.end_char)) for h in lane.hits], terms)
        total_ms = (time.perf_counter() - started) * 1000
        return SearchResult(
            query=query,
            hits=tuple(hits),
            total_matched=len(hits),
            timings_ms={"embed": round(lane.embed_ms, 2), "vector": round(lane.ms - lane.embed_ms, 2),
                        "total": round(total_ms, 2)},
            terms=tuple(terms),
        )

    def present(
        self, entries: Sequence[tuple[int, float, float, tuple[int, int] | None]], terms: Sequence[str]
    ) -> list[Hit]:
        """Results from (doc_id, raw score, score in [0, 1], matched span or None): metadata
        and a snippet — from the matched span when one is given, else the best chunk."""
        if not entries:
            return []
        ids = [e[0] for e in entries]
        cur = self.db.cursor()
        meta = {
            r[0]: (stored_path(r[1], r[2]), *r[3:])
            for r in cur.execute(
                f"SELECT d.id, d.path, r.raw, d.title, d.mtime, d.size, d.ext, d.language FROM documents d "
                f"{WITH_RAW_PATH} WHERE d.id IN {id_list(ids)}"
            ).fetchall()
        }
        chunks: dict[int, list[tuple[int, int, str]]] = {}
        for doc_id, start, end, text in cur.execute(
            f"SELECT doc_id, start_char, end_char, text FROM chunks WHERE doc_id IN {id_list(ids)} "
            "ORDER BY doc_id, ordinal"
        ).fetchall():
            chunks.setdefault(doc_id, []).append((start, end, text))
        hits = []
        for doc_id, raw, score, span in entries:
            row = meta.get(doc_id)
            if row is None:
                continue  # removed between the lane query and now
            path, title, mtime, size, ext, language = row
            doc_chunks = chunks.get(doc_id, [])
            if span is not None:
                doc_chunks = _cut_span(doc_chunks, span)
            snippet = make_snippet(doc_chunks, terms, language or "en", self.settings.search.snippet_chars)
            hits.append(
                Hit(
                    doc_id=doc_id, path=path, title=title or readable_name(Path(path).name), score=round(score, 6),
                    snippet=snippet.text, highlights=snippet.highlights, mtime=mtime, size=size, ext=ext,
                    raw_score=raw, chunk_start=snippet.chunk_start, chunk_end=snippet.chunk_end,
                )
            )
        return hits

    def document_text(self, doc_id: int, terms: Sequence[str] = ()) -> DocumentText | None:
        """The document's text, rebuilt from its overlapping chunks (for the preview pane),
        with the places of `terms` (a result's `terms`)."""
        cur = self.db.cursor()
        row = cur.execute(
            f"SELECT d.path, r.raw, d.title, d.language FROM documents d {WITH_RAW_PATH} WHERE d.id = ?", [doc_id]
        ).fetchone()
        if row is None:
            return None
        pieces: list[str] = []
        covered = 0
        for start, end, text in cur.execute(
            "SELECT start_char, end_char, text FROM chunks WHERE doc_id = ? ORDER BY ordinal", [doc_id]
        ).fetchall():
            if end <= covered:
                continue
            pieces.append(text[max(0, covered - start):])
            covered = end
        text, language = "".join(pieces), row[3] or "en"
        return DocumentText(doc_id, stored_path(row[0], row[1]), row[2] or "", text, language,
                            tuple(highlight_spans(text, terms, language)))

    # -- status -------------------------------------------------------------------------

    def status(self, problem_limit: int = 200) -> StoreStatus:
        cur = self.db.cursor()
        per_source = {
            r[0]: r[1:]
            for r in cur.execute(
                """SELECT source_id, count(*), count(*) FILTER (status = 'ok'),
                          count(*) FILTER (status = 'failed'), count(*) FILTER (status = 'skipped')
                   FROM documents GROUP BY source_id"""
            ).fetchall()
        }
        sources = tuple(
            SourceStatus(s, *per_source.get(s.id, (0, 0, 0, 0))) for s in self.sources()
        )
        problems = tuple(
            FailedFile(*r)
            for r in cur.execute(
                # failed and skipped files, and files indexed only partly (status ok, with a note)
                """SELECT path, status, coalesce(error, '') FROM documents
                   WHERE status <> 'ok' OR coalesce(error, '') <> ''
                   ORDER BY status, path LIMIT ?""",
                [problem_limit],
            ).fetchall()
        )
        chunks = cur.execute("SELECT count(*) FROM chunks").fetchone()[0]
        terms = cur.execute("SELECT count(*) FROM terms").fetchone()[0]
        postings = cur.execute("SELECT count(*) FROM postings").fetchone()[0]
        size = sum(p.stat().st_size for p in self.home.glob(DB_FILENAME + "*") if p.is_file())
        return StoreStatus(
            home=str(self.home),
            database=str(self.db.path),
            documents=sum(s.documents for s in sources),
            indexed=sum(s.indexed for s in sources),
            failed=sum(s.failed for s in sources),
            skipped=sum(s.skipped for s in sources),
            chunks=chunks,
            terms=terms,
            postings=postings,
            size_bytes=size,
            sources=sources,
            problems=problems,
        )
