"""Read, extract, chunk and analyse one file: everything about indexing that needs no
database. A pure function of the file, so it runs in worker processes."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath, PurePosixPath

from findling.errors import ExtractionError
from findling.ingest.chunk import chunk_text, code_spans
from findling.ingest.code_symbols import find_symbols
from findling.ingest.extractors import Extracted, content_hash
from findling.ingest.extractors.bundles import member_name
from findling.ingest.formats import extension_of, kind_of
from findling.ingest.ocr_pages import OCR_SECONDS, PageReader
from findling.ingest.scan import special_kind
from findling.pathnames import MEMBER_SEPARATOR, member_path, readable_name
from findling.records import ChunkSpan, CodeSymbol, DocumentRow, DocumentStatus
from findling.settings import IndexSettings
from findling.text.analyzer import (
    body_terms,
    identifier_term,
    iter_tokens,
    positions_of,
    term_counts,
    term_sequence,
    title_terms,
)
from findling.text.language import detect_language
from findling.text.shingles import signature

_MB = 1024 * 1024
# What is read of a picture or a recording: EXIF sits in a picture's first blocks; a recording's
# tags are read from the file itself by its reader (ingest/extractors/audio.py).
METADATA_HEAD_BYTES = 256 * 1024


@dataclass(frozen=True)
class PrepareTask:
    path: str
    known_hash: str | None = None
    chunk_tokens: int = 800
    chunk_overlap: float = 0.15
    title_weight: float = 2.0
    max_bytes: int = 50 * _MB
    max_text_mb: float = 16.0
    # The file whose name says what it is: the target when `path` is a symbolic link.
    kind_path: str = ""
    language: str = "auto"  # the stemming language: "auto" detects it from the text
    code_symbols: bool = True  # source files chunked at their definitions (ingest/code_symbols.py)
    # the OCR model's detector and recognizer files: () = pictures and scans are not read by OCR
    ocr_models: tuple[str, str] | tuple[()] = ()
    ocr_seconds: float = OCR_SECONDS  # OCR's budget for one file (the watchdog's is larger)


def task_for(
    s: IndexSettings,
    path: str,
    known_hash: str | None = None,
    kind_path: str = "",
    ocr_models: tuple[str, str] | tuple[()] = (),
) -> PrepareTask:
    """How the settings read and analyse one file (or a published document's text: path "")."""
    return PrepareTask(
        path,
        known_hash,
        s.chunk_tokens,
        s.chunk_overlap,
        s.title_weight,
        max_bytes=int(s.max_file_mb * 1024 * 1024),
        max_text_mb=s.max_text_mb,
        kind_path=kind_path,
        language=s.language,
        code_symbols=s.code_symbols,
        ocr_models=ocr_models,
        # within the watchdog's budget: a scan stops being read before its worker is stopped
        ocr_seconds=min(OCR_SECONDS, s.file_timeout_s * 0.6),
    )


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


class NotRegularFile(OSError):
    """A pipe, device or socket: opening it can block forever or read without end."""


class TooLarge(OSError):
    """The file grew past the size limit after the scan."""


def _row(path: str, size: int, mtime: float, digest: str | None, status: DocumentStatus, error: str) -> DocumentRow:
    return DocumentRow(
        path=path,
        ext=extension_of(path),
        size=size,
        mtime=mtime,
        hash=digest,
        status=status,
        title=readable_name(PurePath(path).name),
        error=error,
    )


def _failed(path: str, size: int, mtime: float, digest: str | None, error: str) -> DocumentRow:
    return _row(path, size, mtime, digest, "failed", error)


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def read_file(path: str, max_bytes: int | None = None, head: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file, at most `max_bytes` (or only its first `head` bytes, however
    large it is). The type is checked on the opened descriptor, not the name, so a file swapped
    for a pipe after the scan is refused too; O_NONBLOCK keeps the open of a pipe from waiting
    for a writer."""
    fd = os.open(path, _OPEN_FLAGS)
    with os.fdopen(fd, "rb") as handle:
        st = os.fstat(handle.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFile(f"not a regular file ({special_kind(st.st_mode)})")
        if head is not None:
            return handle.read(head), st
        if max_bytes is None:
            return handle.read(), st
        data = handle.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise TooLarge(f"larger than the {max_bytes / _MB:g} MB limit")
        return data, st


def prepare(task: PrepareTask) -> DocumentRow | Unchanged | Binary | Vanished:
    """The file read, extracted and analysed, or what it is instead; a row says what it took."""
    started = time.perf_counter()
    result = _prepare(task)
    if isinstance(result, DocumentRow):
        result.seconds = time.perf_counter() - started
    return result


def _prepare(task: PrepareTask) -> DocumentRow | Unchanged | Binary | Vanished:  # noqa: C901 - each way a file can fail to read is reported where it happens
    path = task.path
    # a picture or a recording is read for its metadata, not whole: a folder of photos or music is
    # hashed on its files' first bytes and sizes
    kind = kind_of(task.kind_path or path)
    # (pictures are read whole only for OCR)
    head = METADATA_HEAD_BYTES if kind == "audio" or (kind == "image" and not task.ocr_models) else None
    try:
        data, st = read_file(path, task.max_bytes, head)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return Vanished(path)
    except (NotRegularFile, TooLarge) as exc:
        size, mtime = _stat_or_zero(path)
        return _row(path, size, mtime, None, "skipped", str(exc))
    except OSError as exc:
        try:
            st = os.stat(path)
        except OSError:
            return Vanished(path)
        return _failed(path, st.st_size, st.st_mtime, None, f"cannot read the file: {exc.strerror or exc}")
    size, mtime = st.st_size, st.st_mtime
    digest = content_hash(data if head is None else data + f"/{size}".encode())
    if digest == task.known_hash:
        return Unchanged(path, size, mtime)
    # the extractors and their libraries load with the first file read, not with a rescan that
    # reads none (74 ms of a no-change rescan's 1 s)
    from findling.ingest.extract import NotRead, NotText, extract

    try:
        ocr = PageReader(task.ocr_models, task.ocr_seconds) if len(task.ocr_models) == 2 else None
        extracted = extract(task.kind_path or path, data, on_disk=True, ocr=ocr)
    except NotText:
        return Binary(path)
    except NotRead as exc:
        return _row(path, size, mtime, digest, "skipped", str(exc))
    except ExtractionError as exc:
        return _failed(path, size, mtime, digest, str(exc))
    except MemoryError:
        return _failed(path, size, mtime, digest, "not enough memory to extract this file")
    except RecursionError:
        return _failed(path, size, mtime, digest, "the file nests too deeply to read")
    except Exception as exc:  # a parser bug on one odd file must not stop the run
        return _failed(path, size, mtime, digest, f"extraction failed: {type(exc).__name__}: {exc}")
    del data
    try:
        row = analyse(task, extracted, size, mtime, digest)
        if extracted.members:
            row.members = tuple(_members(task, extracted, path, mtime))
        return row
    except MemoryError:
        return _failed(path, size, mtime, digest, "not enough memory to index this file's text")
    except Exception as exc:  # same rule as extraction: one file, one failure, the run goes on
        return _failed(path, size, mtime, digest, f"analysis failed: {type(exc).__name__}: {exc}")


def failed_row(path: str, error: str) -> DocumentRow:
    """A failure recorded from outside the extraction (a timeout, a crashed worker)."""
    size, mtime = _stat_or_zero(path)
    return _failed(path, size, mtime, None, error)


def _stat_or_zero(path: str) -> tuple[int, float]:
    try:
        st = os.stat(path)
    except OSError:
        return 0, 0.0
    return st.st_size, st.st_mtime


def _defined_names(symbols: tuple[CodeSymbol, ...], language: str) -> frozenset[str]:
    """A source file's title field also holds the names it defines: every identifier whole
    (`parse_known_args`, `JSONDecoder`) and the plain-word names of its top-level definitions
    (`namedtuple`, `iterparse`), so the file that defines a name a query spells ranks above the
    files that only use it. Plain-word method names (`run`, `close`, `get`) stay out: nearly
    every file defines some. Measured on the code questions: docs/eval/README.md ("definitions in
    the title field")."""
    out: set[str] = set()
    for s in symbols:
        term = identifier_term(s.name)
        if term is not None:
            out.add(term)
        elif "." not in s.qualname:
            out.update(token.term for token in iter_tokens(s.name, language))
    return frozenset(out)


def _members(
    task: PrepareTask, extracted: Extracted, container: str, mtime: float, taken: set[str] | None = None
) -> Iterator[DocumentRow]:
    """The documents inside a file (an archive's members, and theirs), each analysed as a file
    is, under its address (`bundle.zip › docs/inner.md`): one address, one document, across
    every depth of the file (`taken`)."""
    taken = set() if taken is None else taken
    for sub in extracted.members:
        # a name is one step of an address: it cannot spell a nested one (a member literally
        # named `a.zip › x.md` beside an `a.zip` holding `x.md`), nor hold controls or bidi marks
        name = member_name(sub.name).replace(MEMBER_SEPARATOR, " > ")
        path = member_path(container, name)
        copy = 1
        while path in taken:  # a zip may hold two members of one name, a message two attachments
            copy += 1
            path = member_path(container, f"{name} ({copy})")
        taken.add(path)
        # a member's own time (an archive entry's, a mailbox message's Date), else what dates
        # the file it is in (a message's Date for its attachments)
        when = sub.mtime or (sub.extracted.dated if sub.extracted is not None else 0.0) or extracted.dated or mtime
        if sub.extracted is None:
            yield _failed(path, sub.size, when, sub.digest or None, sub.error)
            continue
        inner = replace(task, path=path, kind_path=name)
        try:
            yield analyse(inner, sub.extracted, sub.size, when, sub.digest, PurePosixPath(name).name)
        except Exception as exc:  # one member, one failure: its archive and the rest are kept
            yield _failed(path, sub.size, when, sub.digest, f"analysis failed: {type(exc).__name__}: {exc}")
            continue
        yield from _members(task, sub.extracted, path, when, taken)


def analyse(
    task: PrepareTask,
    extracted: Extracted,
    size: int,
    mtime: float,
    digest: str,
    file_name: str = "",
    spans: Sequence[ChunkSpan] | None = None,
) -> DocumentRow:
    """`file_name`: the name the document goes by where its path does not end in it (a member);
    `spans`: its chunks as another indexer cut them (a published collection), kept as they are."""
    path = task.path
    text = extracted.text
    notes = list(extracted.notes)
    limit = int(task.max_text_mb * _MB)
    if len(text) > limit:
        text = text[:limit]
        notes.append(f"text truncated at {task.max_text_mb:g} MB")
    language = detect_language(text) if task.language == "auto" else task.language
    ext = extension_of(task.kind_path or path)
    symbols = find_symbols(text, ext) if extracted.kind == "code" and task.code_symbols else ()
    if spans is None:
        if symbols:
            spans = code_spans(text, symbols, task.chunk_tokens, task.chunk_overlap)
        else:
            spans = chunk_text(text, extracted.kind, task.chunk_tokens, task.chunk_overlap)
    terms, sequence = body_terms(text, language)
    name = readable_name(file_name or PurePath(path).name)
    fallback = PurePath(task.kind_path or path).name  # what extract() calls an untitled file
    title = extracted.title if extracted.title != fallback else name
    if task.title_weight > 0:
        terms.update(term_counts(title, language, task.title_weight))
        if title != name:  # the file name is findable too
            terms.update(term_counts(PurePath(name).stem, language))
    if extracted.author:  # an author's name finds the document, as Recoll's does
        terms.update(term_counts(extracted.author, language))
    return DocumentRow(
        path=path,
        ext=ext,
        size=size,
        mtime=mtime,
        hash=digest,
        status="ok",
        title=title,
        language=language,
        mime=extracted.mime,
        error="; ".join(notes),
        length=float(sum(terms.values())),
        chunks=[(span, text[span.start : span.end]) for span in spans],
        terms=dict(terms),
        positions=positions_of((term_sequence(title, language) if task.title_weight > 0 else [], sequence)),
        pages=tuple(start for start in extracted.pages if start < len(text)),
        author=extracted.author,
        title_terms=frozenset(title_terms(title, name, language)) | _defined_names(symbols, language),
        link_share=extracted.link_share,
        ocr_pages=extracted.ocr_pages,
        dated=extracted.dated,
        symbols=symbols,
        signature=signature(text),
    )
