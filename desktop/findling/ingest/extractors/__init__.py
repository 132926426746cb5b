"""One module per file format; each turns a file into an `Extracted` record."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import NamedTuple


class NotText(Exception):
    """The file is binary (or a picture or recording without words): skipped quietly, not a failure."""


@dataclass(frozen=True)
class Extracted:
    text: str
    title: str  # "" when the format gives none: the caller falls back to the file name
    kind: str  # markdown, rst, html, code, text, pdf, docx, epub: steers chunk boundaries
    mime: str
    # What could not be kept, said in status as "indexed, partly: …" (nesting too deep, …)
    notes: tuple[str, ...] = ()
    # Where each page begins in `text` (PDFs), so a passage can say its page: () elsewhere
    pages: tuple[int, ...] = ()
    author: str = ""  # from the file's properties (an e-mail's sender); "" when it has none
    link_share: float = 0.0  # of a web page's text, the share in links or index entries (index pages: most)
    ocr_pages: int = 0  # pictures or scanned pages whose words were read by OCR
    # when the document says it was written (an e-mail's Date header), as a Unix time; 0: it does
    # not say, and its file's modification time dates it
    dated: float = 0.0
    # documents inside this file (an archive's members), each indexed on its own under its address
    members: tuple[SubDocument, ...] = ()


@dataclass(frozen=True)
class SubDocument:
    """A document inside a file: an archive's member, addressed as `bundle.zip › docs/inner.md`."""

    name: str
    extracted: Extracted | None  # None: it could not be read, for `error`
    error: str = ""
    mtime: float = 0.0  # 0: the file's own
    size: int = 0
    digest: str = ""  # of its bytes, as a file's: copies of it are known


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class Parsed(NamedTuple):
    """What one format's extractor returns."""

    text: str
    title: str
    notes: tuple[str, ...] = ()
    pages: tuple[int, ...] = ()
    author: str = ""
    link_share: float = 0.0
    ocr_pages: int = 0
    members: tuple[SubDocument, ...] = ()
    dated: float = 0.0
