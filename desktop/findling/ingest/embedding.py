"""Embed indexed documents that have no vectors yet, in committed batches: resumable by
construction (what is committed is done), and run after the text is already searchable.

Each window is keyed by a hash of the exact text the model reads: a window whose text was
embedded before (a copied file, a repeated header, the unchanged paragraphs of an edited
document) gets the stored vector instead of a model run."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable

import duckdb
import numpy as np

from findling.models.embedder import CHARS_PER_TOKEN, WINDOW_OVERLAP, EmbeddingStopped, TextEmbedder, embedding_windows
from findling.models.manifest import ModelSpec
from findling.models.remote import ModelServerError
from findling.records import EmbedReport, IndexProgress, Note
from findling.store.db import Database
from findling.store.sql import id_list
from findling.store.vectors import (
    drop_model,
    drop_other_models,
    embedded_share,
    ensure_table,
    fingerprint,
    forget_stale,
    known_vectors,
    pending_documents,
    set_fingerprint,
    write_vectors,
)
from findling.text.code_languages import language_of

_DOCS_PER_BATCH = 16
# A source file's window is titled with its folder, file and the definition it lies in
# (`json/decoder.py · JSONDecoder.raw_decode`): the model reads what the code is part of even
# in a function's third window. Measured in docs/eval/README.md (code questions).
NAMED_CODE_PASSAGES = True


def embed_pending(
    db: Database,
    embedder: TextEmbedder,
    progress: Callable[[IndexProgress], None] | None = None,
    cancel: threading.Event | None = None,
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
    total = embeddable - before  # the documents pending
    progress(IndexProgress("embedding", 0, total, base=before))
    while not cancel.is_set():
        docs = pending_documents(cur, table, _DOCS_PER_BATCH)
        if not docs:
            break
        doc_ids, ordinals, spans, texts = _batch_windows(cur, spec, dict(docs))
        hashes = np.fromiter((text_hash(t) for t in texts), dtype=np.uint64, count=len(texts))
        for lo, hi in document_parts(doc_ids, embedder.windows_per_call):
            try:
                vectors, computed = _vectors_for(cur, table, embedder, texts[lo:hi], hashes[lo:hi], cancel)
            except EmbeddingStopped:
                break
            except ModelServerError as exc:  # retried already: the rest stays pending for the next run
                report.stopped = f"{exc}; {embeddable - before - report.documents:,} documents wait for it"
                break
            with db.transaction() as tx:
                write_vectors(tx, table, doc_ids[lo:hi], ordinals[lo:hi], spans[lo:hi], vectors, hashes[lo:hi])
            report.documents += len(set(doc_ids[lo:hi]))
            report.vectors += hi - lo
            report.computed += computed
            # said as each part commits: the count every face shows is the index's own
            title = dict(docs).get(doc_ids[hi - 1], "")
            progress(IndexProgress("embedding", report.documents, total, current=title, base=before))
        if cancel.is_set() or report.stopped:
            break
    report.cancelled = cancel.is_set()
    if not report.cancelled and not report.stopped:
        with db.transaction() as tx:
            forget_stale(tx, table)
            drop_other_models(tx, spec.vector_key)  # a new model replaced the old one's vectors
    report.seconds = time.perf_counter() - started
    return report


_MACHINE_DATA_CHARS = 50_000
_MACHINE_DATA_LINE = 2_000


def document_windows(chunks: list[tuple[int, int, str]], window_tokens: int) -> list[tuple[int, int, int, str]]:
    """The embedding windows of one document's chunks (ordinal, start, text), as
    (ordinal, start, end, text). Each chunk's windows cover its own part, up to where the
    next chunk starts plus a window's usual overlap, so the text that chunks share is not
    embedded twice. Machine data (minified code, one-line JSON or logs: over 50,000
    characters at more than 2,000 a line) gets one window, from its beginning: its words
    are searchable, its meaning is not worth hundreds of model runs."""
    spans: list[tuple[int, int, int, str]] = []
    total = sum(len(text) for _, _, text in chunks)
    lines = sum(text.count("\n") for _, _, text in chunks) + 1
    machine_data = total > _MACHINE_DATA_CHARS and total / lines > _MACHINE_DATA_LINE
    for i, (ordinal, start, text) in enumerate(chunks):
        own = text
        if i + 1 < len(chunks):
            overlap = int(window_tokens * CHARS_PER_TOKEN * WINDOW_OVERLAP)
            own = text[: max(0, chunks[i + 1][1] - start) + overlap]
        for lo, hi in embedding_windows(own, window_tokens):
            spans.append((ordinal, start + lo, start + hi, own[lo:hi]))
            if machine_data:
                return spans
    return spans


def _batch_windows(
    cur: duckdb.DuckDBPyConnection, spec: ModelSpec, titles: dict[int, str]
) -> tuple[list[int], list[int], list[tuple[int, int]], list[str]]:
    """The embedding windows of these documents, each document's side by side: (document,
    chunk ordinal, span, the passage the model reads)."""
    rows = cur.execute(
        f"""SELECT c.doc_id, c.ordinal, c.start_char, c.text, c.heading, d.ext, d.path
            FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.doc_id IN {id_list(list(titles))}
            ORDER BY c.doc_id, c.ordinal"""
    ).fetchall()
    by_doc: dict[int, list[tuple[int, int, str]]] = {}
    named: dict[tuple[int, int], str] = {}  # (doc, ordinal) -> the definition a source file's chunk holds
    for doc_id, ordinal, chunk_start, text, heading, ext, path in rows:
        code = NAMED_CODE_PASSAGES and language_of(ext) is not None
        if code and doc_id not in by_doc:
            titles[doc_id] = code_title(path)  # once a document, at its first chunk
        by_doc.setdefault(doc_id, []).append((ordinal, chunk_start, text))
        if code and heading:
            named[doc_id, ordinal] = heading
    doc_ids, ordinals, spans, texts = [], [], [], []
    for doc_id, chunks in by_doc.items():
        for ordinal, lo, hi, window in document_windows(chunks, spec.window_length):
            doc_ids.append(doc_id)
            ordinals.append(ordinal)
            spans.append((lo, hi))
            definition = named.get((doc_id, ordinal))
            title = f"{titles[doc_id]} · {definition}" if definition else titles[doc_id]
            texts.append(spec.passage(title, window))
    return doc_ids, ordinals, spans, texts


def document_parts(doc_ids: list[int], windows: int) -> list[tuple[int, int]]:
    """[lo, hi) ranges of `doc_ids` (each document's windows side by side) holding whole
    documents, each at least `windows` long except the last."""
    parts: list[tuple[int, int]] = []
    lo = 0
    for i in range(1, len(doc_ids) + 1):
        if i == len(doc_ids) or (doc_ids[i] != doc_ids[i - 1] and i - lo >= windows):
            parts.append((lo, i))
            lo = i
    return parts


def code_title(path: str) -> str:
    """A source file as its passages name it: its folder and name (`json/decoder.py`), what the
    module is part of."""
    parent, name = os.path.split(path)
    folder = os.path.basename(parent)
    return f"{folder}/{name}" if folder else name


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
) -> tuple[np.ndarray, int]:
    """One vector per text: stored ones where the text was embedded before, the model's
    for the rest, each distinct text run once. Returns the vectors and the model runs."""
    known = known_vectors(cur, table, hashes)
    todo: dict[int, int] = {}  # hash -> first index of a text not embedded before
    for i, h in enumerate(hashes.tolist()):
        if h not in known and h not in todo:
            todo[h] = i
    fresh = embedder.embed([texts[i] for i in todo.values()], cancel=cancel) if todo else None
    by_hash = dict(known)
    if fresh is not None:
        by_hash.update(zip(todo, fresh))
    dim = fresh.shape[1] if fresh is not None else len(next(iter(known.values())))
    out = np.empty((len(texts), dim), dtype=np.float32)
    for i, h in enumerate(hashes.tolist()):
        out[i] = by_hash[h]
    return out, len(todo)
