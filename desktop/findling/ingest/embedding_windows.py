"""A document's embedding windows: its chunks as the embedder reads them, from the database or
a running process's copy of the text, cut into windows of the model's length, each titled as
the model reads it."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field

import duckdb

from findling.models.embedder import CHARS_PER_TOKEN, WINDOW_OVERLAP, embedding_windows
from findling.models.manifest import ModelSpec
from findling.store.sql import id_list
from findling.store.text_cache import CachedDocument
from findling.text.code_languages import language_of

# A source file's window is titled with its folder, file and the definition it lies in
# (`json/decoder.py · JSONDecoder.raw_decode`): the model reads what the code is part of even
# in a function's third window. Measured in docs/eval/README.md (code questions).
NAMED_CODE_PASSAGES = True


# A long-running process's copy of every document's text (store/text_cache.py): the passes
# after the first read prose from it. Through DuckDB, a batch's 16 documents scan the chunks'
# text column whole: on the kernel's Documentation/ + arch/ 150 MB went into DuckDB's cache
# with the first batch (288 ms), and a window that embeds kept it.
CachedTexts = Callable[[duckdb.DuckDBPyConnection, list[int]], dict[int, CachedDocument]]


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


@dataclass
class Document:
    """A document's chunks as the embedder reads them: (ordinal, start, text, heading)."""

    ext: str
    path: str
    chunks: list[tuple[int, int, str, str]] = field(default_factory=list)

    @property
    def length(self) -> int:
        return sum(len(text) for _, _, text, _ in self.chunks)


def read_documents(
    cur: duckdb.DuckDBPyConnection, ids: list[int], first_chunks: int | None = None
) -> dict[int, Document]:
    """These documents' chunks, or their first `first_chunks` only."""
    upto = "" if first_chunks is None else f"AND c.ordinal < {int(first_chunks)}"
    rows = cur.execute(
        f"""SELECT c.doc_id, c.ordinal, c.start_char, c.text, c.heading, d.ext, d.path
            FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.doc_id IN {id_list(ids)} {upto}
            ORDER BY c.doc_id, c.ordinal"""
    ).fetchall()
    out: dict[int, Document] = {}
    for doc_id, ordinal, chunk_start, text, heading, ext, path in rows:
        doc = out.get(doc_id)
        if doc is None:
            doc = out[doc_id] = Document(ext, path)
        doc.chunks.append((ordinal, chunk_start, text, heading))
    return out


def later_documents(cur: duckdb.DuckDBPyConnection, ids: list[int], cached: CachedTexts | None) -> dict[int, Document]:
    """The documents the passes after the first read: prose from the process's copy of the text
    where it has one (their chunks' headings are not read after the first window), the rest
    from the database."""
    if cached is None:
        return read_documents(cur, ids)
    found = cached(cur, ids)
    out: dict[int, Document] = {}
    rest: list[int] = []
    for doc_id in ids:
        doc = found.get(doc_id)
        if doc is None or language_of(doc.meta.ext) is not None:
            rest.append(doc_id)  # code is titled with its definitions' names; a gone one is gone there too
            continue
        chunks = [(ordinal, start, text, "") for ordinal, (start, _end, text) in enumerate(doc.chunks)]
        out[doc_id] = Document(doc.meta.ext, doc.meta.path, chunks)
    if rest:
        out.update(read_documents(cur, rest))
    return out


def batch_windows(
    spec: ModelSpec, titles: dict[int, str], documents: dict[int, Document]
) -> tuple[list[int], list[int], list[tuple[int, int]], list[str]]:
    """The embedding windows of these documents, each document's side by side: (document,
    chunk ordinal, span, the passage the model reads)."""
    doc_ids, ordinals, spans, texts = [], [], [], []
    for doc_id, doc in documents.items():
        code = NAMED_CODE_PASSAGES and language_of(doc.ext) is not None
        title = code_title(doc.path) if code else titles.get(doc_id, "")
        named = {ordinal: heading for ordinal, _, _, heading in doc.chunks if code and heading}
        chunks = [(ordinal, start, text) for ordinal, start, text, _ in doc.chunks]
        for ordinal, lo, hi, window in document_windows(chunks, spec.window_length):
            doc_ids.append(doc_id)
            ordinals.append(ordinal)
            spans.append((lo, hi))
            definition = named.get(ordinal)
            texts.append(spec.passage(f"{title} · {definition}" if definition else title, window))
    return doc_ids, ordinals, spans, texts


def opening_share(spans: list[tuple[int, int]], rows: list[int], through: int) -> float:
    """The share of a document's text its windows after the first, through `through`, add to
    what the first covers (`rows`: the document's windows in `spans`)."""
    start, end = spans[rows[0]][0], spans[rows[-1]][1]
    return max(0.0, min(1.0, (spans[rows[through]][1] - spans[rows[0]][1]) / max(1, end - start)))


def rows_by_document(doc_ids: list[int]) -> dict[int, list[int]]:
    """Each document's positions in a batch's windows (batch_windows puts them side by side)."""
    rows: dict[int, list[int]] = {}
    for i, doc_id in enumerate(doc_ids):
        rows.setdefault(doc_id, []).append(i)
    return rows


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
