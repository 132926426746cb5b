"""Turn a file's bytes into text and a title, whatever its format."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING

from findling.errors import ExtractionError
from findling.ingest.extractors import Extracted, NotText, Parsed, SubDocument, content_hash
from findling.ingest.extractors.audio import extract_audio
from findling.ingest.extractors.bundles import archive_members, decompress
from findling.ingest.extractors.docx import extract_docx
from findling.ingest.extractors.epub import extract_epub
from findling.ingest.extractors.html import html_to_text, markup_link_share
from findling.ingest.extractors.image import extract_image
from findling.ingest.extractors.mail import extract_eml, extract_mbox
from findling.ingest.extractors.notebook import extract_notebook
from findling.ingest.extractors.office import extract_odf, extract_pptx, extract_xlsx
from findling.ingest.extractors.pdf import extract_pdf
from findling.ingest.extractors.rtf import extract_rtf
from findling.ingest.extractors.svg import extract_svg
from findling.ingest.extractors.text import extract_text, looks_binary
from findling.ingest.formats import LEGACY, LEGACY_OFFICE, OCR_EXTENSIONS, kind_of, mime_of
from findling.pathnames import clean_text, printable

if TYPE_CHECKING:
    from findling.ingest.ocr_pages import PageReader


class NotRead(Exception):
    """A format Findling recognises but does not read (legacy Office): listed as skipped, with why."""


MAX_NESTING = 3  # a member of a member of a member is read; deeper ones are named

# Kinds whose extractor reads the bytes itself; the others are text, checked for binary content.
_READERS: dict[str, Callable[[bytes], Parsed]] = {
    "docx": extract_docx,
    "epub": extract_epub,
    "xlsx": extract_xlsx,
    "pptx": extract_pptx,
    "odt": lambda data: extract_odf(data, "ODT"),
    "ods": lambda data: extract_odf(data, "ODS"),
    "odp": lambda data: extract_odf(data, "ODP"),
    "rtf": extract_rtf,
    "notebook": extract_notebook,
    "svg": extract_svg,
}
# The first bytes of every file of the legacy Office formats (an OLE2 compound file): a `.doc`
# without them is no Word document (the kernel's plain-text .doc notes were skipped as one).
_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"


def _member(name: str, content: bytes, depth: int, ocr: PageReader | None, mtime: float = 0.0) -> SubDocument | str:
    """A document inside a file (an archive's member, a mail attachment), read by the extractor
    of its kind; or why it is not one ("a kind Findling does not read")."""
    if depth + 1 > MAX_NESTING:
        return "nested too deeply: not read"
    size, digest = len(content), content_hash(content)
    try:
        inner = extract(name, content, depth + 1, ocr=ocr)
    except (NotText, NotRead):
        return "a kind Findling does not read"
    except ExtractionError as exc:
        return SubDocument(name, None, str(exc), mtime, size, digest)
    except MemoryError:  # a member that asks for more than there is (the worker's limit still holds
        # the file: a process truly out of memory is stopped by it, not here)
        return SubDocument(name, None, "not enough memory to read it", mtime, size, digest)
    except RecursionError:
        return SubDocument(name, None, "nested too deeply to be read", mtime, size, digest)
    except Exception as exc:  # a parser's bug on one member: that member fails, not its file
        return SubDocument(name, None, f"extraction failed: {type(exc).__name__}: {exc}", mtime, size, digest)
    return SubDocument(name, inner, "", mtime, size, digest)


def _archive(data: bytes, kind: str, depth: int, ocr: PageReader | None) -> Parsed:
    """An archive as a listing of its members, each member a document of its own (an archive
    inside it too, to MAX_NESTING): what it holds is found under its own address."""
    members, notes = archive_members(data, kind)
    lines, found = [], []
    for member in members:
        read = member.why if member.content is None else _member(member.name, member.content, depth, ocr, member.mtime)
        if isinstance(read, str):
            lines.append(f"{member.name} ({read})")
            continue
        found.append(read)
        lines.append(member.name if read.extracted is not None else f"{member.name} (could not be read)")
    return Parsed("\n".join(lines), "", tuple(dict.fromkeys(notes)), members=tuple(found))


def _mail(data: bytes, mbox: bool, depth: int, ocr: PageReader | None) -> Parsed:
    """A message with its attachments as documents of their own (`message.eml › report.docx`); a
    mailbox as a listing of its messages, each a document (`archive.mbox › 3. Subject.eml`)."""

    def attachment(name: str, content: bytes) -> SubDocument | str:
        return _member(name, content, depth, ocr)

    if not mbox:
        return extract_eml(data, attachment)

    def message(name: str, parsed: Parsed, mtime: float, size: int) -> SubDocument:
        return SubDocument(name, _extracted(parsed, name, "eml", "message/rfc822"), "", mtime, size)

    return extract_mbox(data, attachment, message)


def _parse(kind: str, path: str, data: bytes, on_disk: bool, ocr: PageReader | None, depth: int) -> Parsed:
    if kind == "pdf":
        return extract_pdf(data, ocr=ocr)
    if kind == "image":
        return extract_image(data, ocr if PurePath(path).suffix.lower() in OCR_EXTENSIONS else None)
    if kind in _READERS:
        return _READERS[kind](data)
    if kind == "audio":  # a file on disk is read where its tags are; a member from its bytes
        return extract_audio(data, path if on_disk else None, PurePath(path).name)
    if kind in ("eml", "mbox"):
        return _mail(data, kind == "mbox", depth, ocr)
    if kind in ("zip", "tar", "7z"):
        return _archive(data, kind, depth, ocr)
    if looks_binary(data[:8192]):
        raise ExtractionError(f"binary content in a {kind} file")
    if kind == "html":
        return html_to_text(data)
    parsed = extract_text(data, kind, mime_of(path, kind))
    return parsed._replace(link_share=markup_link_share(parsed.text))


def extract(path: str, data: bytes, depth: int = 0, on_disk: bool = False, ocr: PageReader | None = None) -> Extracted:
    """The file's text and title, by its kind. `depth`: how deep inside other files it is;
    `on_disk`: `path` is the file itself (an audio file's tags are read from it, not from `data`,
    which then holds only its head); `ocr`: pictures and scanned PDF pages are read by it."""
    kind = kind_of(path)
    if kind is None:
        raise NotText(path)
    if kind == "legacy":
        kind = _legacy_kind(path, data)
    sniffed = kind == "sniff"
    if sniffed:
        if looks_binary(data[:8192]):
            raise NotText(path)
        kind = "text"
    if kind == "compressed":
        if depth >= MAX_NESTING:
            raise ExtractionError("compressed files nested too deeply: not read")
        suffix = PurePath(path).suffix.lower()
        return extract(path[: -len(suffix)], decompress(data, suffix), depth + 1, ocr=ocr)
    try:
        return _extracted(_parse(kind, path, data, on_disk, ocr, depth), path, kind, mime_of(path, kind))
    except ExtractionError as exc:
        if sniffed:
            # a file of no known type was only guessed to be text: bytes that no text encoding
            # reads are not text (gnuplot's raw picture blutux.rgb, no NUL in its 48 KB, was
            # listed among the failures)
            raise NotText(path) from exc
        raise


def _legacy_kind(path: str, data: bytes) -> str:
    """What a file named as a legacy Office one is read as: RTF (Word saves it under .doc too) or
    text where its bytes are that; else it is not read (NotRead says why)."""
    suffix = PurePath(path).suffix.lower()
    if suffix in LEGACY_OFFICE and not data.startswith(_OLE2):
        if data.lstrip()[:5] == b"{\\rtf":
            return "rtf"
        if not looks_binary(data[:8192]):
            return "sniff"
    raise NotRead(LEGACY[suffix])


def _extracted(parsed: Parsed, path: str, kind: str, mime: str) -> Extracted:
    return Extracted(
        text=clean_text(parsed.text.replace("\x00", "")),
        title=printable(" ".join(parsed.title.split())) or PurePath(path).name,
        kind=kind,
        mime=mime,
        notes=parsed.notes,
        pages=parsed.pages,
        author=printable(" ".join(parsed.author.split()))[:500],
        link_share=parsed.link_share,
        ocr_pages=parsed.ocr_pages,
        members=parsed.members,
        dated=parsed.dated,
    )
