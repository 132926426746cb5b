"""One module per file format; each turns a file into an `Extracted` record."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Extracted:
    text: str
    title: str  # "" when the format gives none: the caller falls back to the file name
    kind: str  # markdown, rst, html, code, text, pdf, docx, epub: steers chunk boundaries
    mime: str
