"""Turn a file's bytes into text and a title, whatever its format."""

from __future__ import annotations

from pathlib import PurePath

from findling.errors import ExtractionError
from findling.ingest.extractors import Extracted
from findling.ingest.extractors.docx import extract_docx
from findling.ingest.extractors.epub import extract_epub
from findling.ingest.extractors.html import html_to_text
from findling.ingest.extractors.pdf import extract_pdf
from findling.ingest.extractors.text import extract_text, looks_binary
from findling.ingest.formats import kind_of, mime_of
from findling.pathnames import clean_text, printable


class NotText(Exception):
    """The file is binary: skipped quietly, not a failure."""


def extract(path: str, data: bytes) -> Extracted:
    kind = kind_of(path)
    if kind is None:
        raise NotText(path)
    if kind == "sniff":
        if looks_binary(data[:8192]):
            raise NotText(path)
        kind = "text"
    mime = mime_of(path, kind)
    if kind == "pdf":
        parsed = extract_pdf(data)
    elif kind == "docx":
        parsed = extract_docx(data)
    elif kind == "epub":
        parsed = extract_epub(data)
    else:
        if looks_binary(data[:8192]):
            raise ExtractionError(f"binary content in a {kind} file")
        parsed = html_to_text(data) if kind == "html" else extract_text(data, kind, mime)
    return Extracted(
        text=clean_text(parsed.text.replace("\x00", "")),
        title=printable(" ".join(parsed.title.split())) or PurePath(path).name,
        kind=kind,
        mime=mime,
        notes=parsed.notes,
        pages=parsed.pages,
    )
