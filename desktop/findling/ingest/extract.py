"""Turn a file's bytes into text and a title, whatever its format."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePath
from typing import TYPE_CHECKING

from findling.errors import ExtractionError
from findling.ingest.extractors import Extracted, NotText, Parsed, SubDocument, content_hash
from findling.ingest.extractors.audio import extract_audio
from findling.ingest.extractors.bundles import archive_members, decompress
from findling.ingest.extractors.docx import extract_docx
from findling.ingest.extractors.epub import extract_epub
from findling.ingest.extractors.html import html_to_text
from findling.ingest.extractors.image import extract_image
from findling.ingest.extractors.mail import extract_eml, extract_mbox
from findling.ingest.extractors.notebook import extract_notebook
from findling.ingest.extractors.office import extract_odf, extract_pptx, extract_xlsx
from findling.ingest.extractors.pdf import extract_pdf
from findling.ingest.extractors.rtf import extract_rtf
from findling.ingest.extractors.text import extract_text, looks_binary
from findling.ingest.formats import LEGACY, OCR_PICTURES, kind_of, mime_of
from findling.pathnames import clean_text, printable

if TYPE_CHECKING:
    from findling.ingest.ocr_pages import PageReader


class NotRead(Exception):
    """A format Findling recognises but does not read (legacy Office): listed as skipped, with why."""


_DEEPER = re.compile(r"^(#{1,4}) ", re.MULTILINE)
MAX_NESTING = 3  # an attachment of an attachment of an attachment is read; deeper ones are named

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
}


def _nested_reader(depth: int, ocr: PageReader | None) -> Callable[[str, bytes], str | None]:
    """How a mail attachment or an archive member `depth` levels down is read: its text, or
    None for a kind not read."""

    def nested(name: str, content: bytes) -> str | None:
        if depth >= MAX_NESTING:
            return "(nested too deeply: not read)"
        try:
            # its headings sit under the container's "## name" heading: one level deeper at least
            return _DEEPER.sub(r"##\1 ", extract(name, content, depth + 1, ocr=ocr).text)
        except (NotText, NotRead):
            return None
        except ExtractionError as exc:
            return f"(could not be read: {exc})"

    return nested


def _archive(data: bytes, tar: bool, depth: int, ocr: PageReader | None) -> Parsed:
    """An archive as a listing of its members, each member a document of its own (an archive
    inside it too, to MAX_NESTING): what it holds is found under its own address."""
    members, notes = archive_members(data, tar)
    lines, found = [], []
    for member in members:
        if member.content is None:
            lines.append(f"{member.name} ({member.why})")
            continue
        size, digest = len(member.content), content_hash(member.content)
        if depth + 1 > MAX_NESTING:
            lines.append(f"{member.name} (nested too deeply: not read)")
            continue
        try:
            inner = extract(member.name, member.content, depth + 1, ocr=ocr)
        except (NotText, NotRead):
            lines.append(f"{member.name} (a kind Findling does not read)")
            continue
        except ExtractionError as exc:
            found.append(SubDocument(member.name, None, str(exc), member.mtime, size, digest))
            lines.append(f"{member.name} (could not be read)")
            continue
        except (MemoryError, RecursionError):
            raise
        except Exception as exc:  # a parser's bug on one member: that member fails, not its archive
            found.append(SubDocument(member.name, None, f"extraction failed: {type(exc).__name__}: {exc}"))
            lines.append(f"{member.name} (could not be read)")
            continue
        found.append(SubDocument(member.name, inner, "", member.mtime, size, digest))
        lines.append(member.name)
    return Parsed("\n".join(lines), "", tuple(dict.fromkeys(notes)), members=tuple(found))


def _parse(
    kind: str,
    path: str,
    data: bytes,
    nested: Callable[[str, bytes], str | None],
    on_disk: bool,
    ocr: PageReader | None,
    depth: int,
) -> Parsed:
    if kind == "pdf":
        return extract_pdf(data, ocr=ocr)
    if kind == "image":
        return extract_image(data, ocr if PurePath(path).suffix.lower() in OCR_PICTURES else None)
    if kind in _READERS:
        return _READERS[kind](data)
    if kind == "audio":  # a file on disk is read where its tags are; a member from its bytes
        return extract_audio(data, path if on_disk else None, PurePath(path).name)
    if kind in ("eml", "mbox"):
        return extract_eml(data, nested) if kind == "eml" else extract_mbox(data, nested)
    if kind in ("zip", "tar"):
        return _archive(data, kind == "tar", depth, ocr)
    if looks_binary(data[:8192]):
        raise ExtractionError(f"binary content in a {kind} file")
    return html_to_text(data) if kind == "html" else extract_text(data, kind, mime_of(path, kind))


def extract(path: str, data: bytes, depth: int = 0, on_disk: bool = False, ocr: PageReader | None = None) -> Extracted:
    """The file's text and title, by its kind. `depth`: how deep inside e-mail attachments it is;
    `on_disk`: `path` is the file itself (an audio file's tags are read from it, not from `data`,
    which then holds only its head); `ocr`: pictures and scanned PDF pages are read by it."""
    kind = kind_of(path)
    if kind is None:
        raise NotText(path)
    if kind == "legacy":
        raise NotRead(LEGACY[PurePath(path).suffix.lower()])
    if kind == "sniff":
        if looks_binary(data[:8192]):
            raise NotText(path)
        kind = "text"
    if kind == "compressed":
        if depth >= MAX_NESTING:
            raise ExtractionError("compressed files nested too deeply: not read")
        suffix = PurePath(path).suffix.lower()
        return extract(path[: -len(suffix)], decompress(data, suffix), depth + 1, ocr=ocr)
    mime = mime_of(path, kind)
    parsed = _parse(kind, path, data, _nested_reader(depth, ocr), on_disk, ocr, depth)
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
    )
