"""Embed indexed documents that have no vectors yet, in committed batches: resumable by
construction (what is committed is done), and run after the text is already searchable.

Reach before depth: every document first gets one vector of its first window (its opening and
headings, or what a source file defines: ingest/synopsis.py), prose first, so that a whole disk
is searchable by meaning within minutes; then each prose document its opening's next windows
beside it (where a page says what it is for); then each document's windows replace those,
prose before code, small before giant, recent before old. Machine-made text (ingest/
machine_made.py) keeps its first vector only. On the Linux kernel's Documentation/ and arch/
(25,571 files, ~433,000 windows) the first pass is ~26,000 model runs.

Each window is keyed by a hash of the exact text the model reads: a window whose text was
embedded before (a copied file, a repeated header, the unchanged paragraphs of an edited
document) gets the stored vector instead of a model run."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import duckdb
import numpy as np

from findling.file_kinds import is_prose
from findling.ingest.embed_pace import EmbedPace, Waiting
from findling.ingest.embed_work import token_density, tokens_waiting
from findling.ingest.embedding_windows import (
    NAMED_CODE_PASSAGES,
    CachedTexts,
    Document,
    batch_windows,
    code_title,
    document_parts,
    later_documents,
    opening_share,
    read_documents,
    rows_by_document,
)
from findling.ingest.machine_made import machine_made
from findling.ingest.synopsis import code_synopsis, prose_synopsis
from findling.models.embedder import CHARS_PER_TOKEN, EmbeddingStopped, TextEmbedder
from findling.models.manifest import ModelSpec
from findling.models.remote import ModelServerError
from findling.records import EmbedDepth, EmbedReport, IndexProgress, Note
from findling.store.db import Database
from findling.store.symbols import symbols_of
from findling.store.vectors import (
    drop_model,
    drop_other_models,
    embedded_share,
    ensure_table,
    fingerprint,
    forget_stale,
    known_vectors,
    mark_first_only,
    pending_depth,
    pending_first,
    pending_opening,
    reach,
    replace_document_vectors,
    set_fingerprint,
    work_waiting,
    write_vectors,
)
from findling.text.code_languages import language_of

_DOCS_PER_BATCH = 16
# Documents whose first windows are read and committed together: one model call's worth
# (Embedder.windows_per_call), so a stop loses at most that.
FIRST_PER_BATCH = 64
# After every document's first vector, each prose document's next this-many windows, before any
# document is embedded whole: on the kernel's Documentation/ the words of a question were a
# page's second to fourth window for three of the four pages first vectors missed
# (docs/eval/disk-scale.md). A document that few more windows hold is embedded whole then.
OPENING_WINDOWS = 3


@dataclass
class _Run:
    """One embedding run's counts, in the index's terms, for its progress and time left."""

    table: str
    window_chars: int
    before: int  # documents with a vector when the run began
    embeddable: int
    first_waiting: int  # documents without a vector
    whole_waiting: dict[str, float]  # by extension: characters of text waiting for whole vectors
    density: dict[str, float]  # by extension: the model's tokens per character of that text
    whole: int  # documents embedded whole
    held: int  # documents held back at their first vector
    pace: EmbedPace
    report: EmbedReport = field(default_factory=EmbedReport)
    # characters of a document's text its opening windows read in this run: the depth pass reads
    # those windows again at no cost, so they are work done, not work waiting
    opened: dict[int, float] = field(default_factory=dict)
    cached: CachedTexts | None = None
    last: float = 0.0  # when the last batch was done

    @property
    def reached(self) -> int:
        return self.embeddable - self.first_waiting

    def depth(self, now: float) -> EmbedDepth:
        waiting = Waiting(self.first_waiting, tokens_waiting(self.whole_waiting, self.density))
        left = self.pace.seconds_left(waiting, now)
        first_left = self.pace.seconds_left(waiting, now, whole=False)
        return EmbedDepth(self.whole, self.embeddable - self.held, first_left, left)

    def progress(self, current: str, now: float) -> IndexProgress:
        """Where the run stands, in the index's terms: documents with a vector of those with text."""
        return IndexProgress(
            "embedding",
            self.reached - self.before,
            self.embeddable - self.before,
            current=current,
            base=self.before,
            depth=self.depth(now),
        )

    def made_whole(self, documents: int, vectors: int, computed: int) -> None:
        """A batch's documents embedded whole: `vectors` more stored, `computed` by the model."""
        self.whole += documents
        self.report.deepened += documents
        self.report.vectors += vectors
        self.report.computed += computed

    def text_done(self, ext: str, chars: float) -> None:
        """Text of this extension no longer waits for whole vectors."""
        self.whole_waiting[ext] = self.whole_waiting.get(ext, 0.0) - chars

    def spent(self, tokens: float, model_seconds: float) -> float:
        """A batch done, the model having read `tokens` in `model_seconds`; returns now."""
        now = time.monotonic()
        self.pace.spent(now - self.last, tokens, now, model_seconds)
        self.last = now
        return now


def embed_pending(
    db: Database,
    embedder: TextEmbedder,
    progress: Callable[[IndexProgress], None] | None = None,
    cancel: threading.Event | None = None,
    cached: CachedTexts | None = None,
) -> EmbedReport:
    progress = progress or (lambda _p: None)
    cancel = cancel or threading.Event()
    spec = embedder.spec
    started = time.perf_counter()
    report = EmbedReport(model=spec.name)
    try:
        probe = None if spec.dimension else embedder.embed([FINGERPRINT_PROBE])[0]  # a server's: asked
    except ModelServerError as exc:
        report.skipped = Note(str(exc))
        return report
    with db.transaction() as tx:
        if probe is not None:
            if not _same_model(tx, spec.vector_key, probe):
                drop_model(tx, spec.vector_key)  # another model behind the same name: embedded again, never mixed
            set_fingerprint(tx, spec.vector_key, probe.tolist())
        table = ensure_table(tx, spec.vector_key, spec.dimension or (len(probe) if probe is not None else 0))
    cur = db.cursor()
    before, embeddable = embedded_share(cur, table)
    window_chars = int(spec.window_length * CHARS_PER_TOKEN)
    first_waiting, whole_waiting = work_waiting(cur, table, window_chars)
    depths = reach(cur, table)
    held = sum(n for why, n in depths.items() if why)
    now = time.monotonic()
    run = _Run(
        table,
        window_chars,
        before,
        embeddable,
        first_waiting,
        {ext: float(chars) for ext, chars in whole_waiting.items()},
        token_density(cur, table, spec, window_chars, embedder.count_tokens),
        before - held - depths.get("", 0),
        held,
        EmbedPace(now),
        report,
        last=now,
        cached=cached,
    )
    progress(IndexProgress("embedding", 0, embeddable - before, base=before, depth=run.depth(time.monotonic())))
    try:
        _first_pass(db, embedder, run, progress, cancel)
        if not cancel.is_set():
            _opening_pass(db, embedder, run, progress, cancel)
        if not cancel.is_set():
            _depth_pass(db, embedder, run, progress, cancel)
    except ModelServerError as exc:  # retried already: the rest stays pending for the next run
        report.stopped = f"{exc}; {run.first_waiting:,} documents wait for a first vector"
    finally:
        embedder.release_memory()  # the window and `serve` live on after the run
    report.cancelled = cancel.is_set()
    report.whole = run.whole
    if not report.cancelled and not report.stopped:
        with db.transaction() as tx:
            forget_stale(tx, table)
            drop_other_models(tx, spec.vector_key)  # a new model replaced the old one's vectors
    report.seconds = time.perf_counter() - started
    return report


def _first_pass(
    db: Database,
    embedder: TextEmbedder,
    run: _Run,
    progress: Callable[[IndexProgress], None],
    cancel: threading.Event,
) -> None:
    """A first vector for every document without one, a model call's worth of documents at a time."""
    cur = db.cursor()
    spec = embedder.spec
    report = run.report
    while not cancel.is_set():
        docs = pending_first(cur, run.table, FIRST_PER_BATCH)
        if not docs:
            return
        first = _first_windows(cur, run.table, spec, dict(docs), run.window_chars)
        hashes = np.fromiter((text_hash(t) for t in first.texts), dtype=np.uint64, count=len(first.texts))
        try:
            vectors, computed, model_seconds = _vectors_for(cur, run.table, embedder, first.texts, hashes, cancel)
        except EmbeddingStopped:
            return
        with db.transaction() as tx:
            write_vectors(tx, run.table, first.doc_ids, first.ordinals, first.spans, vectors, hashes)
            mark_first_only(tx, run.table, first.held)
        tokens = _tokens_read(embedder, first.texts, computed)
        run.pace.first(len(computed), tokens)
        now = run.spent(tokens, model_seconds)
        run.whole += first.documents - len(first.held)
        run.held += sum(1 for _, why in first.held if why)
        run.first_waiting -= first.documents
        for ext, chars in first.held_chars.items():
            run.text_done(ext, chars)
        report.documents += first.documents
        report.vectors += len(first.doc_ids)
        report.computed += len(computed)
        progress(run.progress(docs[-1][1], now))


_Windows = tuple[list[int], list[int], list[tuple[int, int]], list[str]]  # doc_ids, ordinals, spans, texts


def _later_batch(
    cur: duckdb.DuckDBPyConnection,
    run: _Run,
    spec: ModelSpec,
    pending: Callable[[duckdb.DuckDBPyConnection, str, int], list[tuple[int, str]]],
) -> tuple[dict[int, str], dict[int, Document], _Windows] | None:
    """The next documents a pass after the first takes (`pending` picks them: id, title), read and
    cut into windows; None when none waits."""
    docs = pending(cur, run.table, _DOCS_PER_BATCH)
    if not docs:
        return None
    titles = dict(docs)
    documents = later_documents(cur, list(titles), run.cached)
    return titles, documents, batch_windows(spec, titles, documents)


def _opening_pass(
    db: Database,
    embedder: TextEmbedder,
    run: _Run,
    progress: Callable[[IndexProgress], None],
    cancel: threading.Event,
) -> None:
    """Beside each prose document's first vector, the next OPENING_WINDOWS windows of its text;
    a document those would nearly hold is embedded whole instead. The windows are keyed by their
    text, so the depth pass reads them again at no cost."""
    cur = db.cursor()
    while not cancel.is_set():
        batch = _later_batch(cur, run, embedder.spec, pending_opening)
        if batch is None:
            return
        titles, documents, (doc_ids, ordinals, spans, texts) = batch
        keep: list[int] = []
        whole: list[int] = []
        opened: dict[int, float] = {}
        for doc_id, rows in rows_by_document(doc_ids).items():
            if len(rows) <= OPENING_WINDOWS + 1:
                keep += rows
                whole.append(doc_id)
            else:
                keep += rows[1 : OPENING_WINDOWS + 1]
                opened[doc_id] = documents[doc_id].length * opening_share(spans, rows, OPENING_WINDOWS)
        if not keep:  # documents that lost their text since: the depth pass sees to them
            return
        kept_texts = [texts[i] for i in keep]
        hashes = np.fromiter((text_hash(t) for t in kept_texts), dtype=np.uint64, count=len(keep))
        try:
            vectors, computed, model_seconds = _vectors_for(cur, run.table, embedder, kept_texts, hashes, cancel)
        except EmbeddingStopped:
            return
        with db.transaction() as tx:
            replaced = replace_document_vectors(tx, run.table, whole)
            write_vectors(
                tx,
                run.table,
                [doc_ids[i] for i in keep],
                [ordinals[i] for i in keep],
                [spans[i] for i in keep],
                vectors,
                hashes,
            )
        for doc_id in whole:
            run.text_done(documents[doc_id].ext, documents[doc_id].length)
        for doc_id, chars in opened.items():
            run.opened[doc_id] = chars
            run.text_done(documents[doc_id].ext, chars)
        now = run.spent(_tokens_read(embedder, kept_texts, computed), model_seconds)
        # a document embedded whole replaced its first vector
        run.made_whole(len(whole), len(keep) - replaced, len(computed))
        progress(run.progress(titles.get(doc_ids[keep[-1]], ""), now))


def _depth_pass(
    db: Database,
    embedder: TextEmbedder,
    run: _Run,
    progress: Callable[[IndexProgress], None],
    cancel: threading.Event,
) -> None:
    """Every window of the documents that have their first vector only, whole documents committed
    together, each replacing its first vector."""
    cur = db.cursor()
    while not cancel.is_set():
        batch = _later_batch(cur, run, embedder.spec, pending_depth)
        if batch is None:
            return
        titles, documents, (doc_ids, ordinals, spans, texts) = batch
        hashes = np.fromiter((text_hash(t) for t in texts), dtype=np.uint64, count=len(texts))
        for lo, hi in document_parts(doc_ids, embedder.windows_per_call):
            try:
                vectors, computed, model_seconds = _vectors_for(
                    cur, run.table, embedder, texts[lo:hi], hashes[lo:hi], cancel
                )
            except EmbeddingStopped:
                return
            done = sorted(set(doc_ids[lo:hi]))
            with db.transaction() as tx:
                replaced = replace_document_vectors(tx, run.table, done)
                write_vectors(tx, run.table, doc_ids[lo:hi], ordinals[lo:hi], spans[lo:hi], vectors, hashes[lo:hi])
            for d in done:
                run.text_done(documents[d].ext, documents[d].length - run.opened.pop(d, 0.0))
            now = run.spent(_tokens_read(embedder, texts[lo:hi], computed), model_seconds)
            run.made_whole(len(done), hi - lo - replaced, len(computed))  # each replaced its first vector (and opening)
            progress(run.progress(titles.get(doc_ids[hi - 1], ""), now))


def _tokens_read(embedder: TextEmbedder, texts: list[str], computed: list[int]) -> float:
    """The model's tokens for the windows at `computed` (those it ran)."""
    return float(sum(embedder.count_tokens([texts[i] for i in computed]))) if computed else 0.0


# An edited document whose windows were mostly embedded before is embedded whole at once when
# at most this many of its windows are new: hardly more than its first window would cost.
_EDITED_WINDOWS = 8


@dataclass
class _FirstWindows:
    """A first pass's batch: the windows to write (a document's first, or all of a document that
    one window holds or whose every window was embedded before), and the documents that have
    their first vector only, each with why the rest is held back ("" : it waits)."""

    doc_ids: list[int] = field(default_factory=list)
    ordinals: list[int] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    documents: int = 0
    held: list[tuple[int, str]] = field(default_factory=list)
    # by extension, text no later whole vectors will be made of: held back, or whole already
    held_chars: dict[str, float] = field(default_factory=dict)

    def add(self, doc_id: int, ordinal: int, span: tuple[int, int], text: str) -> None:
        self.doc_ids.append(doc_id)
        self.ordinals.append(ordinal)
        self.spans.append(span)
        self.texts.append(text)

    def text_done(self, ext: str, chars: float) -> None:
        self.held_chars[ext] = self.held_chars.get(ext, 0.0) + chars


def _first_windows(
    cur: duckdb.DuckDBPyConnection, table: str, spec: ModelSpec, titles: dict[int, str], window_chars: int
) -> _FirstWindows:
    """Each document's first window: the whole document where that takes no more than one model
    run (one window holds it, or all of its windows but one were embedded before: a copy) or a
    few where most of it was (an edit), else what it is about (synopsis.py), with why the rest
    is held back (machine_made.py) or "" if it waits."""
    documents = read_documents(cur, list(titles))
    doc_ids, ordinals, spans, texts = batch_windows(spec, titles, documents)
    hashes = [text_hash(t) for t in texts]
    known = set(known_vectors(cur, table, np.asarray(hashes, dtype=np.uint64)))
    windows = rows_by_document(doc_ids)
    code_ids = [d for d, doc in documents.items() if not is_prose(doc.ext)]
    symbols = symbols_of(cur, code_ids) if code_ids else {}
    out = _FirstWindows()
    for doc_id, rows_of in windows.items():
        doc = documents[doc_id]
        out.documents += 1
        length = doc.length
        unknown = sum(1 for i in rows_of if hashes[i] not in known)
        if unknown <= 1 or (unknown <= _EDITED_WINDOWS and unknown * 4 <= len(rows_of)):
            for i in rows_of:
                out.add(doc_id, ordinals[i], spans[i], texts[i])
            out.text_done(doc.ext, length if length > window_chars else 0)
            continue
        ordinal, start, first_text, _heading = doc.chunks[0]
        prose = is_prose(doc.ext)
        if prose:
            synopsis = prose_synopsis(first_text, [h for _, _, _, h in doc.chunks], window_chars)
        else:
            named = [(s.name, s.doc) for s in symbols.get(doc_id, []) if s.kind != "variable"]
            synopsis = code_synopsis(first_text, named, window_chars)
        code = NAMED_CODE_PASSAGES and language_of(doc.ext) is not None
        title = code_title(doc.path) if code else titles[doc_id]
        span = (start, start + min(len(first_text), window_chars))
        out.add(doc_id, ordinal, span, spec.passage(title, synopsis or first_text[:window_chars]))
        why = machine_made(doc.ext, "".join(text for _, _, text, _ in doc.chunks), prose)
        out.held.append((doc_id, why))
        if why:
            out.text_done(doc.ext, length)
    return out


# What a model server is asked before each run: its vector tells whether the model behind the
# name is still the one that made the index's vectors (dimension, then cosine).
FINGERPRINT_PROBE = "Findling asks which model makes these vectors: a fox, a ledger, a river in spring."
_SAME_MODEL = 0.99


def _same_model(cur: duckdb.DuckDBPyConnection, key: str, probe: np.ndarray) -> bool:
    """Whether the vectors stored under `key` were made by the model that answered `probe` (yes
    when none are stored yet)."""
    stored = fingerprint(cur, key)
    if stored is None:
        return True
    if len(stored) != len(probe):
        return False
    before = np.asarray(stored, dtype=np.float32)
    return float(before @ probe / (np.linalg.norm(before) * np.linalg.norm(probe) or 1.0)) >= _SAME_MODEL


def text_hash(text: str) -> int:
    """64 bits of BLAKE2b, never 0 (0 stands for "no hash" when written)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little") or 1


def _vectors_for(
    cur: duckdb.DuckDBPyConnection,
    table: str,
    embedder: TextEmbedder,
    texts: list[str],
    hashes: np.ndarray,
    cancel: threading.Event | None = None,
) -> tuple[np.ndarray, list[int], float]:
    """One vector per text: stored ones where the text was embedded before, the model's
    for the rest, each distinct text run once. Returns the vectors, the positions of the
    texts the model ran and the seconds it took."""
    known = known_vectors(cur, table, hashes)
    todo: dict[int, int] = {}  # hash -> first index of a text not embedded before
    for i, h in enumerate(hashes.tolist()):
        if h not in known and h not in todo:
            todo[h] = i
    started = time.monotonic()
    fresh = embedder.embed([texts[i] for i in todo.values()], cancel=cancel) if todo else None
    model_seconds = time.monotonic() - started
    by_hash = dict(known)
    if fresh is not None:
        by_hash.update(zip(todo, fresh))
    dim = fresh.shape[1] if fresh is not None else len(next(iter(known.values())))
    out = np.empty((len(texts), dim), dtype=np.float32)
    for i, h in enumerate(hashes.tolist()):
        out[i] = by_hash[h]
    return out, list(todo.values()), model_seconds
