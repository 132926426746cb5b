"""The vector lane: embed the query, then exact cosine search over chunk vectors, best
chunk per document, scores mapped to [0, 1] as the spec says (1 − distance/2)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np

from findling.models.embedder import TextEmbedder
from findling.records import Filters
from findling.search import vector_snapshot
from findling.search.filter_table import filter_sql
from findling.search.normalize import cosine_from_distance
from findling.search.vector_index import VectorHit, VectorIndex
from findling.store.vectors import embedded_share, index_id, reach, table_for, vector_models


@dataclass(frozen=True)
class VectorLaneHit:
    doc_id: int
    rank: int
    cosine: float
    score: float  # cosine mapped to [0, 1]
    start_char: int
    end_char: int


@dataclass(frozen=True)
class VectorResult:
    hits: tuple[VectorLaneHit, ...]
    ms: float
    embed_ms: float
    query_vector: np.ndarray | None = None  # for scoring other candidates by the same query


class VectorLane:
    def __init__(
        self,
        cursor: Callable[[], duckdb.DuckDBPyConnection],
        scratch: Path | None = None,
        bulk_read: Callable[[], AbstractContextManager[object]] = nullcontext,
        database_file: Path | None = None,
    ) -> None:
        """`database_file`: keep the vectors beside it for the next process (search/vector_snapshot.py)."""
        self._cursor = cursor
        self._database_file = database_file
        self._bulk_read = bulk_read  # around an index's first load (VectorIndex)
        self._scratch = scratch  # where the indexes keep their exact vectors (a temporary file each)
        self._indexes: dict[str, VectorIndex] = {}
        self._lock = threading.Lock()

    def close(self) -> None:
        """Close the indexes, saving what changed. The kept vector files this process did not
        load follow the database too: rows removed here (a folder, a file) leave them, and
        a dropped model's files go, so no removed document's vectors outlive it on disk."""
        with self._lock:
            if self._database_file is not None:
                try:
                    cur = self._cursor()
                    models = dict(vector_models(cur))
                    home = self._database_file.parent
                    vector_snapshot.sweep(home)
                    for table in vector_snapshot.tables_kept(home):
                        if table not in models:
                            vector_snapshot.forget(home, table)
                        elif table not in self._indexes:
                            self._open(table, models[table]).refresh()  # maps it; a save follows if rows left
                except (OSError, duckdb.Error):
                    pass
            for index in self._indexes.values():
                index.close()
            self._indexes.clear()

    def _kept_problems(self) -> list[tuple[str, str]]:
        """(table, what is wrong) for each model's kept vectors that do not hold (vector_snapshot.kept_problem)."""
        if self._database_file is None:
            return []
        cur = self._cursor()
        belongs = index_id(cur)
        home = self._database_file.parent
        found = (
            (table, vector_snapshot.kept_problem(home, cur, table, dim, belongs)) for table, dim in vector_models(cur)
        )
        return [(table, problem) for table, problem in found if problem]

    def kept_problems(self) -> list[str]:
        """What is wrong with the vectors kept beside the database."""
        return [problem for _, problem in self._kept_problems()]

    def drop_damaged(self) -> int:
        """Remove the kept vectors that do not hold; an index using them reads its rows again.
        Returns how many tables' files went."""
        damaged = self._kept_problems()
        for table, _ in damaged:
            with self._lock:
                index = self._indexes.get(table)
            if index is not None:
                index.read_again()
            elif self._database_file is not None:
                vector_snapshot.forget(self._database_file.parent, table)
        return len(damaged)

    def index_for(self, model: str) -> VectorIndex | None:
        with self._lock:
            found = table_for(self._cursor(), model)
            if found is None:
                return None
            table, dim = found
            return self._indexes.get(table) or self._open(table, dim)

    def _open(self, table: str, dim: int) -> VectorIndex:
        """The table's index, kept beside the database where this lane keeps them."""
        named = index_id(self._cursor()) if self._database_file is not None else ""
        persist = (self._database_file.parent, named) if self._database_file is not None and named else None
        index = self._indexes[table] = VectorIndex(self._cursor, table, dim, self._scratch, self._bulk_read, persist)
        return index

    def warm(self, model: str) -> None:
        """Load the vectors now (the app calls this in the background at start)."""
        index = self.index_for(model)
        if index is not None:
            index.refresh()

    def coverage_note(self, model: str) -> str | None:
        """While embedding goes on, how much of the index the semantic lane can see."""
        index = self.index_for(model)
        if index is None:
            return None
        index.refresh()
        # documents with text to embed: an empty file (its name gives it terms, not chunks) has
        # nothing to embed and must not keep the share below 100 % for ever
        cur = self._cursor()
        _, total = embedded_share(cur, None)
        return coverage_note(index.documents, total, reach(cur, index.table).get("", 0))

    def _allowed(self, filters: Filters | None) -> np.ndarray | None:
        if filters is None or filters.empty:
            return None
        where, params = filter_sql(filters)
        ids = self._cursor().execute(f"SELECT d.id FROM documents d WHERE d.status = 'ok'{where}", params).fetchnumpy()
        return np.asarray(ids["id"], dtype=np.int32)

    def search(self, embedder: TextEmbedder, text: str, limit: int, filters: Filters | None = None) -> VectorResult:
        started = time.perf_counter()
        index = self.index_for(embedder.spec.vector_key)
        if index is None or not text.strip():
            return VectorResult((), 0.0, 0.0)
        query = embedder.embed([text], kind="query")[0]
        embedded = time.perf_counter()
        found = index.search(query, limit, self._allowed(filters))
        done = time.perf_counter()
        return VectorResult(_lane_hits(found), (done - started) * 1000, (embedded - started) * 1000, query)

    def similar(self, model: str, doc_id: int, limit: int, filters: Filters | None = None) -> VectorResult | None:
        """Documents close to the given one (by the mean of its chunk vectors), itself left out;
        None when it has no vectors."""
        started = time.perf_counter()
        index = self.index_for(model)
        vector = index.document_vector(doc_id) if index is not None else None
        if index is None or vector is None:
            return None
        found = [h for h in index.search(vector, limit + 1, self._allowed(filters)) if h.doc_id != doc_id][:limit]
        return VectorResult(_lane_hits(found), (time.perf_counter() - started) * 1000, 0.0, vector)

    def evidence(self, model: str, query_vector: np.ndarray, doc_ids: list[int]) -> dict[int, VectorLaneHit]:
        """The best chunk of each given document (found by another lane) for the query."""
        index = self.index_for(model)
        if index is None:
            return {}
        found = index.best_chunks(query_vector, doc_ids)
        return {
            doc: VectorLaneHit(doc, 0, h.cosine, cosine_from_distance(1.0 - h.cosine), h.start_char, h.end_char)
            for doc, h in found.items()
        }


def _lane_hits(found: list[VectorHit]) -> tuple[VectorLaneHit, ...]:
    return tuple(
        VectorLaneHit(h.doc_id, rank, h.cosine, cosine_from_distance(1.0 - h.cosine), h.start_char, h.end_char)
        for rank, h in enumerate(found, 1)
    )


def coverage_note(embedded: int, total: int, first_only: int = 0) -> str | None:
    """How much of the index the meaning lane saw, when not all of it: documents without a
    vector, and those embedded by their first window only (ingest/embedding.py's first pass)."""
    if total <= 0 or (embedded >= total and not first_only):
        return None
    share = min(99, int(100 * embedded / total)) if embedded < total else 100  # "100 %" only when all are there
    # said of the list it goes with: the index goes on embedding after the list is made
    if first_only:
        return (
            f"semantic: {share} % of documents embedded when this list was made, {first_only:,} of them by "
            "their opening only so far (keywords cover all)"
        )
    return f"semantic: {share} % of documents embedded when this list was made (keywords cover all)"
