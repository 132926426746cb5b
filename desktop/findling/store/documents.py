"""Reading and writing documents, chunks and postings. Every write of a batch happens
inside one transaction, so a crash leaves each file either fully indexed or untouched."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import duckdb

from findling.errors import SourceGoneError
from findling.pathnames import MEMBER_SEPARATOR, clean_text, display_path, path_bytes, stored_path
from findling.records import CopyKey, DocumentRow
from findling.store.batches import registered
from findling.store.sql import id_list, rows_for_ids
from findling.store.symbols import write_symbols
from findling.store.vectors import delete_vectors

if TYPE_CHECKING:
    import numpy as np  # written columns; a search reads rows without it


@dataclass(frozen=True)
class KnownDocument:
    id: int
    path: str
    size: int
    mtime: float
    hash: str | None
    status: str


def _objects(values: Sequence[object]) -> np.ndarray:
    """Python values as a numpy object column for DuckDB."""
    import numpy as np

    column = np.empty(len(values), dtype=object)
    column[:] = values
    return column


def _strings(values: Sequence[str | None]) -> np.ndarray:
    """Python strings as a numpy object column for DuckDB. A string that is not valid
    Unicode (a lone surrogate from a parser) would fail the whole batch's insert: the batch
    is checked with one encode of all its text, and only a batch that fails it is cleaned
    string by string."""
    column = _objects(values)
    try:
        "".join(v for v in values if v is not None).encode("utf-8")
    except UnicodeError:
        column[:] = [None if v is None else clean_text(v) for v in values]
    return column


def _known(row: tuple[Any, ...]) -> KnownDocument:
    doc_id, path, raw, size, mtime, digest, status = row
    return KnownDocument(doc_id, stored_path(path, raw), size, mtime, digest, status)


# A document's path to open: the exact bytes where the name needs them.
WITH_RAW_PATH = "LEFT JOIN raw_paths r ON r.doc_id = d.id"
_KNOWN = f"SELECT d.id, d.path, r.raw, d.size, d.mtime, d.hash, d.status FROM documents d {WITH_RAW_PATH}"


def known_documents(cur: duckdb.DuckDBPyConnection, source_id: int) -> dict[str, KnownDocument]:
    """The source's files by the path to open (the documents inside them are theirs to keep)."""
    rows = cur.execute(
        f"{_KNOWN} WHERE d.source_id = ? AND d.id NOT IN (SELECT doc_id FROM members)", [source_id]
    ).fetchall()
    return {doc.path: doc for doc in map(_known, rows)}


def document_at(cur: duckdb.DuckDBPyConnection, path: str) -> KnownDocument | None:
    rows = cur.execute(f"{_KNOWN} WHERE d.path = ?", [display_path(path)]).fetchall()
    return next((doc for doc in map(_known, rows) if doc.path == path), None)


def _write_raw_paths(cur: duckdb.DuckDBPyConnection, pairs: Sequence[tuple[int, str]]) -> None:
    for doc_id, path in pairs:
        raw = path_bytes(path)
        if raw is not None:
            cur.execute("INSERT INTO raw_paths VALUES (?, ?)", [doc_id, raw])


def allocate_ids(cur: duckdb.DuckDBPyConnection, count: int) -> list[int]:
    if count == 0:
        return []
    return [r[0] for r in cur.execute("SELECT nextval('doc_ids') FROM range(?)", [count]).fetchall()]


def _register_ids(cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> None:
    import numpy as np

    cur.register("batch_ids", {"id": np.asarray(ids, dtype=np.int32)})


def link_members(cur: duckdb.DuckDBPyConnection, pairs: Sequence[tuple[int, int]]) -> None:
    """(member's id, its file's id): the documents inside a file go when it goes."""
    if pairs:
        cur.executemany("INSERT INTO members VALUES (?, ?)", pairs)


def delete_documents(cur: duckdb.DuckDBPyConnection, ids: Sequence[int], changed: bool = False) -> None:
    """Remove documents with their chunks and postings. A changed file is deleted and
    rewritten under the same id in one transaction; its vectors are kept for reuse."""
    if not ids:
        return
    _register_ids(cur, ids)
    inner = [
        r[0]
        for r in cur.execute("SELECT doc_id FROM members WHERE container_id IN (SELECT id FROM batch_ids)").fetchall()
    ]
    if inner:  # a file's members go with it (read again, they are written anew)
        cur.unregister("batch_ids")
        ids = [*ids, *inner]
        _register_ids(cur, ids)
    try:
        cur.execute(
            """UPDATE terms SET df = terms.df - gone.n
               FROM (SELECT term_id, count(*) AS n FROM postings WHERE doc_id IN (SELECT id FROM batch_ids)
                     GROUP BY term_id) gone
               WHERE terms.id = gone.term_id"""
        )
        cur.execute("DELETE FROM postings WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM positions WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM chunks WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM pages WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM doc_fields WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM doc_dates WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM title_postings WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM link_shares WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM ocr_pages WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM symbols WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM near_signatures WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM raw_paths WHERE doc_id IN (SELECT id FROM batch_ids)")
        cur.execute("DELETE FROM members WHERE doc_id IN (SELECT id FROM batch_ids)")
        delete_vectors(cur, "(SELECT id FROM batch_ids)", keep_for_reuse=changed)
        cur.execute("DELETE FROM documents WHERE id IN (SELECT id FROM batch_ids)")
    finally:
        cur.unregister("batch_ids")


def _write_properties(cur: duckdb.DuckDBPyConnection, rows: Sequence[DocumentRow]) -> None:
    """What a document has besides its text: its author, the date it says it was written, its
    share of link text, where its pages begin, how many of its pages OCR read."""
    import numpy as np

    authored = [(r.doc_id, r.author) for r in rows if r.author]
    if authored:
        cur.executemany("INSERT INTO doc_fields VALUES (?, ?)", authored)
    dated = [(r.doc_id, r.dated) for r in rows if r.dated]
    if dated:
        cur.executemany("INSERT INTO doc_dates VALUES (?, ?)", dated)
    linked = [(r.doc_id, r.link_share) for r in rows if r.link_share > 0]
    if linked:
        cur.executemany("INSERT INTO link_shares VALUES (?, ?)", linked)
    scanned = [(r.doc_id, r.ocr_pages) for r in rows if r.ocr_pages > 0]
    if scanned:
        cur.executemany("INSERT INTO ocr_pages VALUES (?, ?)", scanned)
    signed = [r for r in rows if r.signature]
    if signed:
        cur.register(
            "batch_signatures",
            {
                "doc_id": np.array([r.doc_id for r in signed], dtype=np.int32),
                "sig": _objects([r.signature for r in signed]),
            },
        )
        try:
            cur.execute("INSERT INTO near_signatures SELECT doc_id, sig FROM batch_signatures")
        finally:
            cur.unregister("batch_signatures")

    paged = [r for r in rows if r.pages]
    if paged:
        cur.register(
            "batch_pages",
            {
                "doc_id": np.concatenate([np.full(len(r.pages), r.doc_id, dtype=np.int32) for r in paged]),
                "page": np.concatenate([np.arange(1, len(r.pages) + 1, dtype=np.int32) for r in paged]),
                "start_char": np.concatenate([np.asarray(r.pages, dtype=np.int32) for r in paged]),
            },
        )
        try:
            cur.execute("INSERT INTO pages SELECT doc_id, page, start_char FROM batch_pages")
        finally:
            cur.unregister("batch_pages")


def _write_positions(cur: duckdb.DuckDBPyConnection, rows: Sequence[DocumentRow]) -> None:
    """Each posting's word positions, as a list beside it. DuckDB scans numpy columns of one value
    per row only: the positions go in flat, each with its posting's row, and are gathered into
    lists in SQL (as vectors are)."""
    import numpy as np

    owners: list[tuple[int, str]] = [(r.doc_id, term) for r in rows for term in r.positions]
    if not owners:
        return
    counts = np.fromiter((len(p) for r in rows for p in r.positions.values()), dtype=np.int64, count=len(owners))
    flat = np.fromiter(
        (x for r in rows for p in r.positions.values() for x in p), dtype=np.int32, count=int(counts.sum())
    )
    postings: dict[str, np.ndarray] = {
        "row": np.arange(len(owners), dtype=np.int64),
        "doc_id": np.array([d for d, _ in owners], dtype=np.int32),
        "term": _strings([t for _, t in owners]),
    }
    places: dict[str, np.ndarray] = {"row": np.repeat(np.arange(len(owners), dtype=np.int64), counts), "pos": flat}
    with registered(cur, "batch_position_rows", postings), registered(cur, "batch_places", places):
        cur.execute(
            """INSERT INTO positions
               SELECT t.id, r.doc_id, p.pos
               FROM batch_position_rows r
               JOIN (SELECT row, list(pos ORDER BY pos) AS pos FROM batch_places GROUP BY row) p USING (row)
               JOIN terms t ON t.term = r.term"""
        )


def write_title_terms(cur: duckdb.DuckDBPyConnection, fields: Sequence[tuple[int, Sequence[str]]]) -> None:
    """Each document's title-field terms, (doc_id, terms), as postings of the title field:
    only terms the index already holds (a document's title terms are among its own terms)."""
    import numpy as np

    docs = [doc_id for doc_id, terms in fields for _ in terms]
    if not docs:
        return
    titles = {"doc_id": np.array(docs, dtype=np.int32), "term": _strings([t for _, terms in fields for t in terms])}
    with registered(cur, "batch_titles", titles):
        cur.execute(
            """INSERT INTO title_postings
               SELECT DISTINCT t.id, b.doc_id FROM batch_titles b JOIN terms t ON t.term = b.term"""
        )


def write_documents(cur: duckdb.DuckDBPyConnection, source_id: int, rows: Sequence[DocumentRow]) -> None:
    """Write rows whose doc_id is set. Old data for those ids must be deleted first."""
    import numpy as np

    if not rows:
        return
    # Inside the writer's transaction: a folder removed since its run began (remove_source
    # commits under the same lock) takes no more rows, which nothing could remove later.
    if not cur.execute("SELECT 1 FROM sources WHERE id = ?", [source_id]).fetchall():
        raise SourceGoneError(f"the folder (source {source_id}) was removed while it was being indexed")
    docs = {
        "id": np.array([r.doc_id for r in rows], dtype=np.int32),
        "path": _strings([display_path(r.path) for r in rows]),
        "ext": _strings([r.ext for r in rows]),
        "size": np.array([r.size for r in rows], dtype=np.int64),
        "mtime": np.array([r.mtime for r in rows], dtype=np.float64),
        "hash": _strings([r.hash for r in rows]),
        "title": _strings([r.title for r in rows]),
        "language": _strings([r.language for r in rows]),
        "mime": _strings([r.mime for r in rows]),
        "status": _strings([r.status for r in rows]),
        "error": _strings([r.error or None for r in rows]),
        "length": np.array([r.length for r in rows], dtype=np.float32),
    }
    with registered(cur, "batch_docs", docs):
        cur.execute(
            """INSERT INTO documents (id, source_id, path, ext, size, mtime, hash, title, language, mime,
                                      status, error, length)
               SELECT id, ?, path, ext, size, mtime, hash, title, language, mime, status, error, length
               FROM batch_docs""",
            [source_id],
        )
    _write_raw_paths(cur, [(r.doc_id, r.path) for r in rows])

    chunk_doc, chunk_ord, chunk_text, chunk_start, chunk_end, chunk_head = [], [], [], [], [], []
    for r in rows:
        for ordinal, (span, text) in enumerate(r.chunks):
            chunk_doc.append(r.doc_id)
            chunk_ord.append(ordinal)
            chunk_text.append(text)
            chunk_start.append(span.start)
            chunk_end.append(span.end)
            chunk_head.append(span.heading)
    if chunk_doc:
        chunks = {
            "doc_id": np.array(chunk_doc, dtype=np.int32),
            "ordinal": np.array(chunk_ord, dtype=np.int32),
            "text": _strings(chunk_text),
            "start_char": np.array(chunk_start, dtype=np.int32),
            "end_char": np.array(chunk_end, dtype=np.int32),
            "heading": _strings(chunk_head),
        }
        with registered(cur, "batch_chunks", chunks):
            cur.execute("INSERT INTO chunks SELECT * FROM batch_chunks")

    _write_properties(cur, rows)
    write_symbols(cur, rows)

    post_doc: list[int] = []
    post_term: list[str] = []
    post_tf: list[float] = []
    post_dl: list[float] = []
    for r in rows:
        post_doc.extend([r.doc_id] * len(r.terms))
        post_term.extend(r.terms.keys())
        post_tf.extend(r.terms.values())
        post_dl.extend([r.length] * len(r.terms))
    if post_doc:
        postings = {
            "doc_id": np.array(post_doc, dtype=np.int32),
            "term": _strings(post_term),
            "tf": np.array(post_tf, dtype=np.float32),
            "dl": np.array(post_dl, dtype=np.float32),
        }
        with registered(cur, "batch_postings", postings):
            cur.execute(
                """INSERT INTO terms (id, term)
                   SELECT nextval('term_ids'), term FROM (
                       SELECT DISTINCT b.term FROM batch_postings b
                       ANTI JOIN terms t ON t.term = b.term)"""
            )
            cur.execute(
                """UPDATE terms SET df = terms.df + added.n
                   FROM (SELECT term, count(*) AS n FROM batch_postings GROUP BY term) added
                   WHERE terms.term = added.term"""
            )
            cur.execute(
                """INSERT INTO postings
                   SELECT t.id, b.doc_id, b.tf, b.dl FROM batch_postings b JOIN terms t ON t.term = b.term"""
            )
    _write_positions(cur, rows)
    write_title_terms(cur, [(r.doc_id, sorted(r.title_terms)) for r in rows if r.title_terms])


def update_stat(
    cur: duckdb.DuckDBPyConnection, doc_id: int, size: int, mtime: float, moved_to: tuple[str, str] | None = None
) -> None:
    """A file whose bytes did not change (touched, or moved to `(path, ext)`): keep its text.
    `indexed_at` changes all the same: it is the row's version for the document cache."""
    if moved_to is None:
        cur.execute(
            "UPDATE documents SET size = ?, mtime = ?, indexed_at = current_timestamp WHERE id = ?",
            [size, mtime, doc_id],
        )
    else:
        found = cur.execute(
            f"SELECT d.path, r.raw FROM documents d {WITH_RAW_PATH} WHERE d.id = ?", [doc_id]
        ).fetchall()
        if found:
            _move_members(cur, doc_id, stored_path(*found[0]), moved_to[0])
        cur.execute(
            "UPDATE documents SET size = ?, mtime = ?, path = ?, ext = ?, indexed_at = current_timestamp WHERE id = ?",
            [size, mtime, display_path(moved_to[0]), moved_to[1], doc_id],
        )
        cur.execute("DELETE FROM raw_paths WHERE doc_id = ?", [doc_id])
        _write_raw_paths(cur, [(doc_id, moved_to[0])])


def _move_members(cur: duckdb.DuckDBPyConnection, container_id: int, old: str, new: str) -> None:
    """The addresses of a moved file's members, under its new path (`new.zip › docs/a.md`)."""
    rows = cur.execute(
        f"SELECT d.id, d.path, r.raw FROM members m JOIN documents d ON d.id = m.doc_id {WITH_RAW_PATH} "
        "WHERE m.container_id = ?",
        [container_id],
    ).fetchall()
    for doc_id, shown, raw in rows:
        member = stored_path(shown, raw)
        if not member.startswith(old + MEMBER_SEPARATOR):
            continue
        moved = new + member[len(old) :]
        cur.execute("UPDATE documents SET path = ? WHERE id = ?", [display_path(moved), doc_id])
        cur.execute("DELETE FROM raw_paths WHERE doc_id = ?", [doc_id])
        _write_raw_paths(cur, [(doc_id, moved)])


def dated_sql(alias: str) -> str:
    """A document's date as SQL: when it says it was written (an e-mail's Date header), else its
    file's modification time. The file's own mtime stays what tells whether it changed."""
    return f"coalesce((SELECT t.dated FROM doc_dates t WHERE t.doc_id = {alias}.id), {alias}.mtime)"


@dataclass(frozen=True)
class DocumentMeta:
    """What a result shows of a document besides its text."""

    path: str  # the path to open (exact bytes where the name needs them)
    title: str
    mtime: float  # its date (dated_sql): an e-mail's Date, else its file's modification time
    size: int
    ext: str
    language: str
    pages: tuple[int, ...] = ()  # where each page begins in the text (PDFs)
    author: str = ""
    content_hash: str = ""  # of the file's bytes: files with the same one are copies
    signature: bytes = b""  # of its text's shingles: files with nearly the same one are near copies
    ocr_pages: int = 0  # pictures or scanned pages whose words OCR read
    length: float = 0.0  # in index terms


META_SQL = (
    f"SELECT d.id, d.path, r.raw, coalesce(d.title, ''), {dated_sql('d')}, d.size, d.ext, coalesce(d.language, ''), "
    f"d.indexed_at, g.starts, coalesce(f.author, ''), coalesce(d.hash, ''), n.sig, coalesce(o.pages, 0), d.length "
    f"FROM documents d {WITH_RAW_PATH} "
    "LEFT JOIN (SELECT doc_id, list(start_char ORDER BY page) AS starts FROM pages GROUP BY doc_id) g "
    "ON g.doc_id = d.id LEFT JOIN doc_fields f ON f.doc_id = d.id LEFT JOIN near_signatures n ON n.doc_id = d.id"
    " LEFT JOIN ocr_pages o ON o.doc_id = d.id"
)


def meta_of(row: Sequence[Any]) -> DocumentMeta:
    """A META_SQL row (without its id and version) as DocumentMeta."""
    title, mtime, size, ext, language = row[3:8]
    return DocumentMeta(
        stored_path(row[1], row[2]),
        title,
        mtime,
        size,
        ext,
        language,
        tuple(row[9] or ()),
        row[10],
        row[11],
        bytes(row[12] or b""),
        int(row[13]),
        float(row[14]),
    )


def document_meta(cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> dict[int, DocumentMeta]:
    rows = cur.execute(f"{META_SQL} WHERE d.id IN {id_list(ids)}").fetchall()
    return {r[0]: meta_of(r) for r in rows}


def modified_times(cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> dict[int, float]:
    """Each document's date (dated_sql): what ordering by recency needs, without the rest of its row."""
    if not ids:
        return {}
    return dict(cur.execute(f"SELECT id, {dated_sql('d')} FROM documents d WHERE id IN {id_list(ids)}").fetchall())


def copy_keys(cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> dict[int, CopyKey]:
    """What tells each document's copies and near copies, without the rest of its row or its text."""
    if not ids:
        return {}
    rows = cur.execute(
        f"SELECT d.id, coalesce(d.hash, ''), n.sig, d.path, d.length, coalesce(d.language, '') FROM documents d "
        f"LEFT JOIN near_signatures n ON n.doc_id = d.id WHERE d.id IN {id_list(ids)}"
    ).fetchall()
    return {r[0]: CopyKey(r[1], bytes(r[2] or b""), r[3], float(r[4]), r[5]) for r in rows}


def link_shares(cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> dict[int, float]:
    """The share of each page's text in links, for the pages among `ids` that have links."""
    if not ids:
        return {}
    return dict(cur.execute(f"SELECT doc_id, share FROM link_shares WHERE doc_id IN {id_list(ids)}").fetchall())


Chunk = tuple[int, int, str]  # (start_char, end_char, text) in the document


def document_text(chunks: Sequence[Chunk]) -> str:
    """A document's text rebuilt from its overlapping chunks."""
    pieces: list[str] = []
    covered = 0
    for start, end, text in chunks:
        if end <= covered:
            continue
        pieces.append(text[max(0, covered - start) :])
        covered = end
    return "".join(pieces)


def chunks_by_document(cur: duckdb.DuckDBPyConnection, ids: Sequence[int]) -> dict[int, list[Chunk]]:
    """Each document's chunks, in order."""
    out: dict[int, list[Chunk]] = {}
    rows = rows_for_ids("SELECT doc_id, ordinal, start_char, end_char, text FROM chunks", "doc_id", ids)
    for doc_id, start, end, text in cur.execute(
        f"SELECT doc_id, start_char, end_char, text FROM ({rows}) ORDER BY doc_id, ordinal"
    ).fetchall():
        out.setdefault(doc_id, []).append((start, end, text))
    return out


def document_paths(cur: duckdb.DuckDBPyConnection) -> dict[int, str]:
    """Every document's path to open, by id."""
    rows = cur.execute(f"SELECT d.id, d.path, r.raw FROM documents d {WITH_RAW_PATH}").fetchall()
    return {r[0]: stored_path(r[1], r[2]) for r in rows}


def document_state(cur: duckdb.DuckDBPyConnection, path: str) -> tuple[int, str, str] | None:
    """(id, status, error) of the document at this path, or None when it is not in the index."""
    rows = cur.execute("SELECT id, status, coalesce(error, '') FROM documents WHERE path = ?", [path]).fetchall()
    return (int(rows[0][0]), str(rows[0][1]), str(rows[0][2])) if rows else None


def terms_in_document(cur: duckdb.DuckDBPyConnection, doc_id: int, terms: Sequence[str]) -> set[str]:
    """Which of these analysed terms the document holds."""
    if not terms:
        return set()
    rows = cur.execute(
        """SELECT t.term FROM postings p JOIN terms t ON t.id = p.term_id
           WHERE p.doc_id = ? AND t.term IN (SELECT unnest(?::VARCHAR[]))""",
        [doc_id, list(dict.fromkeys(terms))],
    ).fetchall()
    return {r[0] for r in rows}


def document_matches(cur: duckdb.DuckDBPyConnection, doc_id: int, where: str, params: Sequence[object]) -> bool:
    """Does the document pass a filter (`where`: SQL conditions on `documents d`, as the
    search lanes build them)?"""
    row = cur.execute(f"SELECT count(*) FROM documents d WHERE d.id = ?{where}", [doc_id, *params]).fetchone()
    return bool(row and row[0])


def documents_named(cur: duckdb.DuckDBPyConnection, needle: str, limit: int) -> list[str]:
    """Paths to open of indexed documents whose file name holds `needle` (any case), the
    shortest names first: an exact name before names that merely contain it. It runs on every
    keystroke: a plain LIKE on the whole path narrows the rows before the name is cut out."""
    escaped = needle.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = cur.execute(
        f"""SELECT d.path, r.raw FROM documents d {WITH_RAW_PATH}
            WHERE d.status = 'ok' AND lower(d.path) LIKE ? ESCAPE '\\'
              AND lower(regexp_extract(d.path, '[^/\\\\]+$')) LIKE ? ESCAPE '\\'
            ORDER BY length(regexp_extract(d.path, '[^/\\\\]+$')), d.path LIMIT ?""",
        [f"%{escaped}%", f"%{escaped}%", limit],
    ).fetchall()
    return [stored_path(r[0], r[1]) for r in rows]
