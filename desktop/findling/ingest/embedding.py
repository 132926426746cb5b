"""Embed indexed documents that have no vectors yet, in committed batches: resumable by
construction (what is committed is done), and run after the text is already searchable."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from findling.models.embedder import Embedder, embedding_windows
from findling.records import EmbedReport, IndexProgress
from findling.store.db import Database
from findling.store.documents import id_list
from findling.store.vectors import count_pending, drop_other_models, ensure_table, pending_documents, write_vectors

_DOCS_PER_BATCH = 16


def embed_pending(
    db: Database,
    embedder: Embedder,
    progress: Callable[[IndexProgress], None] | None = None,
    cancel: threading.Event | None = None,
) -> EmbedReport:
    progress = progress or (lambda _p: None)
    cancel = cancel or threading.Event()
    spec = embedder.spec
    started = time.perf_counter()
    report = EmbedReport(model=spec.name)
    dim = spec.dimension or embedder.embed(["dimension probe"]).shape[1]
    with db.transaction() as tx:
        table = ensure_table(tx, spec.vector_key, dim)
    cur = db.cursor()
    total = count_pending(cur, table)
    progress(IndexProgress("embedding", 0, total))
    while not cancel.is_set():
        docs = pending_documents(cur, table, _DOCS_PER_BATCH)
        if not docs:
            break
        titles = dict(docs)
        rows = cur.execute(
            f"""SELECT doc_id, ordinal, start_char, text FROM chunks WHERE doc_id IN {id_list(list(titles))}
                ORDER BY doc_id, ordinal"""
        ).fetchall()
        doc_ids, ordinals, spans, texts = [], [], [], []
        for doc_id, ordinal, chunk_start, text in rows:
            for lo, hi in embedding_windows(text, spec.max_length):
                doc_ids.append(doc_id)
                ordinals.append(ordinal)
                spans.append((chunk_start + lo, chunk_start + hi))
                texts.append(spec.passage(titles[doc_id], text[lo:hi]))
        vectors = embedder.embed(texts)
        with db.transaction() as tx:
            write_vectors(tx, table, doc_ids, ordinals, spans, vectors)
        report.documents += len(docs)
        report.vectors += len(texts)
        report.computed += len(texts)
        progress(IndexProgress("embedding", report.documents, total, current=docs[-1][1]))
    report.cancelled = cancel.is_set()
    if not report.cancelled:
        with db.transaction() as tx:
            drop_other_models(tx, spec.vector_key)  # a new model replaced the old one's vectors
    report.seconds = time.perf_counter() - started
    return report
