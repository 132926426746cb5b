"""Read, extract, chunk and analyse one file: everything about indexing that needs no
database. A pure function of the file, so it runs in worker processes."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import PurePath

from findling.errors import ExtractionError
from findling.ingest.chunk import chunk_text
from findling.ingest.extract import NotText, extract
from findling.ingest.formats import extension_of
from findling.ingest.language import detect_language
from findling.search.analyzer import term_counts
from findling.store.documents import DocumentRow


@dataclass(frozen=True)
class PrepareTask:
    path: str
    known_hash: str | None = None
    chunk_tokens: int = 800
    chunk_overlap: float = 0.15
    title_weight: float = 2.0


@dataclass(frozen=True)
class Unchanged:
    """Same bytes as indexed (touched, or copied back): only the stat is new."""

    path: str
    size: int
    mtime: float


@dataclass(frozen=True)
class Binary:
    path: str


@dataclass(frozen=True)
class Vanished:
    path: str


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def _failed(path: str, size: int, mtime: float, digest: str | None, error: str) -> DocumentRow:
    return DocumentRow(
        path=path, ext=extension_of(path), size=size, mtime=mtime, hash=digest, status="failed",
        title=PurePath(path).name, error=error,
    )


def read_file(path: str) -> tuple[bytes, os.stat_result]:
    with open(path, "rb") as handle:
        st = os.fstat(handle.fileno())
        return handle.read(), st


def prepare(task: PrepareTask) -> DocumentRow | Unchanged | Binary | Vanished:
    path = task.path
    try:
        data, st = read_file(path)
    except FileNotFoundError:
        return Vanished(path)
    except IsADirectoryError:
        return Vanished(path)
    except OSError as exc:
        try:
            st = os.stat(path)
            size, mtime = st.st_size, st.st_mtime
        except OSError:
            return Vanished(path)
        return _failed(path, size, mtime, None, f"cannot read the file: {exc.strerror or exc}")
    size, mtime = st.st_size, st.st_mtime
    digest = content_hash(data)
    if digest == task.known_hash:
        return Unchanged(path, size, mtime)
    try:
        extracted = extract(path, data)
    except NotText:
        return Binary(path)
    except ExtractionError as exc:
        return _failed(path, size, mtime, digest, str(exc))
    except MemoryError:
        return _failed(path, size, mtime, digest, "not enough memory to extract this file")
    except Exception as exc:  # a parser bug on one odd file must not stop the run
        return _failed(path, size, mtime, digest, f"extraction failed: {type(exc).__name__}: {exc}")
    del data
    text = extracted.text
    language = detect_language(text)
    spans = chunk_text(text, extracted.kind, task.chunk_tokens, task.chunk_overlap)
    terms = term_counts(text, language)
    if task.title_weight > 0:
        terms.update(term_counts(extracted.title, language, task.title_weight))
        if extracted.title != PurePath(path).name:  # the file name is findable too
            terms.update(term_counts(PurePath(path).stem, language))
    return DocumentRow(
        path=path,
        ext=extension_of(path),
        size=size,
        mtime=mtime,
        hash=digest,
        status="ok",
        title=extracted.title,
        language=language,
        mime=extracted.mime,
        length=float(sum(terms.values())),
        chunks=[(span, text[span.start:span.end]) for span in spans],
        terms=dict(terms),
    )
