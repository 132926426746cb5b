"""Collections shared between Findlings: one publishes a folder it has indexed as Lance datasets
(store/published.py); any number attach it read-only and keep a copy inside their own index,
as a source whose documents come from the publication instead of a scan.

A reader does not read the files or run the model again: each published document carries its
text, its chunks as the publisher cut them, and its windows' vectors with the text hash that
names each window. The reader analyses the text into its own postings (the same code a file's
text goes through, so keyword search ranks it as the publisher's index does), and the vectors
wait in stale_vectors until the embedding run copies them in by hash, as it does for an
edited file's unchanged windows. A reader whose embedder is another model keeps them out:
that collection is searched by its words (status says so).

Searches never reach the collection: they read the copy, so an unreachable collection costs
a search nothing. An `index` run brings each copy up to the collection's last publication,
within a time budget per remote call, and says once when it cannot."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import duckdb

from findling.errors import SharedError
from findling.ingest.extractors import Extracted
from findling.ingest.prepare import PrepareTask, analyse, failed_row, task_for
from findling.records import Attached, ChunkSpan, DocumentRow, PublishReport, Source
from findling.settings import IndexSettings
from findling.store import published
from findling.store.attached import (
    chunk_spans,
    published_fields,
    record_reached,
    record_unreachable,
    stash_vectors,
    window_counts,
    window_vectors,
)
from findling.store.db import Database
from findling.store.documents import (
    KnownDocument,
    allocate_ids,
    delete_documents,
    known_documents,
    write_documents,
)
from findling.store.lane_weights import save_self_test, self_test_from_json, self_test_json, self_tests
from findling.store.maintenance import note_appended_postings
from findling.store.sources import inside
from findling.store.vectors import ensure_table, table_for

_PART = 128  # documents read, analysed and written at a time


@dataclass(frozen=True)
class VectorModel:
    """The embedder in use here: the key its vectors are kept under, and their dimension."""

    key: str
    dim: int


# -- publishing -----------------------------------------------------------------------------


def publish_folder(db: Database, source: Source, uri: str, name: str, model: VectorModel | None) -> PublishReport:
    """Publish the folder's documents (and their vectors, where `model` made them) at `uri`;
    a collection already there gets only what changed since its last publication."""
    started = time.monotonic()
    if source.shared:
        raise SharedError(f"{source.path} is a shared collection attached here, not a folder of this index")
    uri = published.normalise_uri(uri)
    try:
        last = published.latest(uri)
    except SharedError as exc:
        if not str(exc).startswith("no published collection"):
            raise
        last = None
    name = name or (last.name if last is not None else _default_name(source.path))
    if last is not None and last.root != source.path:
        raise SharedError(f"{uri} holds another collection ({last.name}, from {last.root}): choose another place")
    cur = db.cursor()
    found = table_for(cur, model.key) if model is not None else None
    table = found[0] if found else None
    fields = {row[1]: row for row in published_fields(cur, source.id)}
    counts = window_counts(cur, table, source.id)
    embedder = model.key if model is not None and table is not None else ""
    dim = model.dim if embedder and model is not None else 0
    last_keys = published.published_keys(uri, last.version) if last is not None else {}
    keys = last_keys
    if last is not None and (last.embedder != embedder or last.dim != dim):
        keys = {}  # vectors of another model: everything again
    changed = [
        path
        for path, row in fields.items()
        if (path_key := keys.get(path)) is None or path_key != (row[5], row[4], counts.get(row[0], 0))
    ]
    removed = sorted(set(last_keys) - set(fields))

    def parts() -> Iterator[list[published.PublishedDocument]]:
        for at in range(0, len(changed), _PART):
            rows = [fields[p] for p in changed[at : at + _PART]]
            yield _published(db.cursor(), rows, table)

    tested = next((r for r in self_tests(cur) if r.source_id == source.id and r.model == embedder), None)
    publication = published.Publication(
        0, name, source.path, embedder, dim, 0, 0.0, self_test=self_test_json(tested) if tested and embedder else ""
    )
    done = published.publish(uri, publication, parts(), set(fields))
    return PublishReport(
        uri=uri,
        name=done.name,
        root=source.path,
        version=done.version,
        documents=done.documents,
        changed=len(changed),
        removed=len(removed),
        embedded=sum(1 for row in fields.values() if counts.get(row[0], 0) > 0),
        embedder=embedder,
        seconds=time.monotonic() - started,
    )


def _default_name(path: str) -> str:
    from pathlib import PurePath

    return PurePath(path).name or path


def _published(
    cur: duckdb.DuckDBPyConnection, rows: Sequence[tuple], table: str | None
) -> list[published.PublishedDocument]:
    import numpy as np

    from findling.store.documents import document_text

    ids = [row[0] for row in rows]
    chunks = chunk_spans(cur, ids)
    vectors = window_vectors(cur, table, ids) if table is not None else {}
    out = []
    for doc_id, path, ext, size, mtime, digest, title, mime, notes, author, dated, link, ocr, pages, code in rows:
        spans = chunks.get(doc_id, [])
        hashes, vecs = vectors.get(doc_id, ([], []))
        out.append(
            published.PublishedDocument(
                path=path,
                ext=ext,
                size=int(size),
                mtime=float(mtime),
                hash=digest,
                kind="code" if code else "text",
                title=title,
                mime=mime,
                author=author,
                dated=float(dated),
                link_share=float(link),
                ocr_pages=int(ocr),
                notes=notes,
                pages=tuple(pages or ()),
                text=document_text([(s, e, t) for s, e, _, t in spans]),
                chunks=tuple((s, e, h) for s, e, h, _ in spans),
                window_hashes=tuple(hashes),
                vectors=np.asarray(vecs, dtype=np.float32) if vecs else None,
            )
        )
    return out


# -- attached collections ---------------------------------------------------------------------


def bring_up_to_date(
    db: Database,
    source: Source,
    held: Attached,
    settings: IndexSettings,
    model: VectorModel | None,
    cancel: threading.Event | None = None,
    say: Callable[[str], None] = lambda _line: None,
) -> tuple[int, int, int, str]:
    """The copy of an attached collection brought to its last publication: (added, updated,
    removed, what to say). An unreachable collection changes nothing here and is said."""
    try:
        last = published.latest(held.uri)
        keys = published.published_keys(held.uri, last.version) if last.version != held.version else None
    except SharedError as exc:
        with db.transaction() as tx:
            record_unreachable(tx, source.id, str(exc))
        kept = f"its copy of {held.documents:,} documents stays searchable" if held.version else "nothing held yet"
        return 0, 0, 0, f"{held.name}: cannot be reached ({exc}); {kept}"
    now = time.time()
    if keys is None:
        with db.transaction() as tx:
            record_reached(tx, source.id, last.version, last.embedder, last.documents, now)
        return 0, 0, 0, ""
    cur = db.cursor()
    use_vectors = model is not None and last.embedder == model.key and last.dim == model.dim
    table = None
    if use_vectors and model is not None:
        with db.transaction() as tx:
            table = ensure_table(tx, model.key, model.dim)
    known = known_documents(cur, source.id)
    counts = window_counts(cur, table, source.id)
    wanted = [
        path
        for path, (digest, mtime, windows) in keys.items()
        if (doc := known.get(path)) is None
        or doc.hash != digest
        or doc.mtime != mtime
        or (use_vectors and windows > counts.get(doc.id, 0))
    ]
    gone = [doc.id for path, doc in known.items() if path not in keys]
    added = updated = refused = 0
    task = task_for(settings, "")
    try:
        for read in published.read_documents(held.uri, last.version, wanted, _PART):
            if cancel is not None and cancel.is_set():
                return added, updated, 0, f"{held.name}: stopped; the next run goes on"
            # a document is this source's only under the folder it was published from: a path
            # elsewhere (a damaged or hostile collection) would stand for a file of this machine
            part = [d for d in read if inside(d.path, source.path) and d.path != source.path]
            refused += len(read) - len(part)
            fresh = _write_part(db, source.id, known, [_row(task, d) for d in part], part, table, model)
            added += fresh
            updated += len(part) - fresh
            say(f"{held.name}: {added + updated:,} of {len(wanted):,} documents copied")
    except SharedError as exc:
        with db.transaction() as tx:
            record_unreachable(tx, source.id, str(exc))
        return added, updated, 0, f"{held.name}: not copied whole ({exc}); the next run goes on"
    tested = self_test_from_json(source.id, model.key, last.self_test) if use_vectors and model is not None else None
    with db.transaction() as tx:
        delete_documents(tx, gone)
        record_reached(tx, source.id, last.version, last.embedder, last.documents, now)
        if tested is not None:  # the publisher's self-test of these documents and vectors
            save_self_test(tx, tested)
    where = "" if use_vectors or not last.embedder else f"; published with {last.embedder}: searched by its words here"
    if refused:
        where += f"; {refused:,} documents refused: their paths lie outside {source.path}"
    line = (
        f"{held.name}: publication {last.version} ({added:,} added, {updated:,} updated, {len(gone):,} removed){where}"
    )
    return added, updated, len(gone), line


def _write_part(
    db: Database,
    source_id: int,
    known: dict[str, KnownDocument],
    rows: list[DocumentRow],
    part: Sequence[published.PublishedDocument],
    table: str | None,
    model: VectorModel | None,
) -> int:
    """One transaction for a part of the copy: the documents written as an indexing run writes
    a batch (a changed one under its id), their sound vectors waiting by hash; the new ones."""
    with db.transaction() as tx:
        delete_documents(tx, [known[r.path].id for r in rows if r.path in known], changed=True)
        fresh = [r for r in rows if r.path not in known]
        for r, doc_id in zip(fresh, allocate_ids(tx, len(fresh)), strict=True):
            r.doc_id = doc_id
        for r in rows:
            if r.path in known:
                r.doc_id = known[r.path].id
        write_documents(tx, source_id, rows)
        note_appended_postings(tx, sum(len(r.terms) for r in rows))
        if table is not None and model is not None:
            _stash(tx, table, model.dim, part)
    return len(fresh)


def _row(task: PrepareTask, d: published.PublishedDocument) -> DocumentRow:
    """A published document analysed as this index analyses a file's text, its chunks kept; one
    that cannot be (a damaged collection's) is recorded as failed, as a file would be."""
    from dataclasses import replace

    extracted = Extracted(
        text=d.text,
        title=d.title,
        kind=d.kind,
        mime=d.mime,
        notes=tuple(n for n in d.notes.split("; ") if n),
        pages=d.pages,
        author=d.author,
        link_share=d.link_share,
        ocr_pages=d.ocr_pages,
        dated=d.dated,
    )
    spans = [ChunkSpan(start, end, heading) for start, end, heading in d.chunks] or None
    try:
        return analyse(replace(task, path=d.path), extracted, d.size, d.mtime, d.hash, spans=spans)
    except Exception as exc:  # one document, one failure: the rest of the copy goes on
        failed = failed_row(d.path, f"analysis failed: {type(exc).__name__}: {exc}")
        return replace(failed, size=d.size, mtime=d.mtime, hash=d.hash)  # not read again until republished


def sound_vectors(d: published.PublishedDocument, dim: int) -> bool:
    """A document's published vectors are taken only whole and sound: one finite, non-zero
    vector of the model's dimension per window hash. Anything else (a damaged or hostile
    dataset) is left out, and this machine embeds the document itself."""
    import numpy as np

    v = d.vectors
    if v is None or not d.window_hashes or v.ndim != 2 or v.shape != (len(d.window_hashes), dim):
        return False
    return bool(np.isfinite(v).all() and (np.linalg.norm(v, axis=1) > 1e-6).all())


def _stash(tx: duckdb.DuckDBPyConnection, table: str, dim: int, part: Sequence[published.PublishedDocument]) -> None:
    import numpy as np

    with_vectors = [d for d in part if sound_vectors(d, dim)]
    if not with_vectors:
        return
    hashes = np.concatenate([np.asarray(d.window_hashes, dtype=np.uint64) for d in with_vectors])
    vectors = np.concatenate([d.vectors for d in with_vectors])
    stash_vectors(tx, table, hashes, vectors)
