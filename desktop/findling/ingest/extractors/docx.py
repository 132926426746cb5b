"""Word documents with python-docx: headings become Markdown headings, tables become rows."""

from __future__ import annotations

import io
import zipfile

import docx
from docx.opc.exceptions import PackageNotFoundError

from findling.errors import ExtractionError


def _heading_level(style_name: str) -> int:
    if style_name == "Title":
        return 1
    if style_name.startswith("Heading "):
        try:
            return min(6, int(style_name.split()[1]))
        except (IndexError, ValueError):
            return 0
    return 0


def extract_docx(data: bytes) -> tuple[str, str]:
    try:
        document = docx.Document(io.BytesIO(data))
    except (PackageNotFoundError, zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise ExtractionError(f"cannot open DOCX (damaged or not a Word file): {exc}") from exc
    except Exception as exc:  # python-docx raises lxml errors for broken XML parts
        raise ExtractionError(f"cannot read DOCX: {exc}") from exc
    title = (document.core_properties.title or "").strip()
    blocks: list[str] = []
    first_heading = ""
    for paragraph in document.paragraphs:
        text = paragraph.text.strip()
        if not text:
            continue
        style = paragraph.style.name if paragraph.style is not None else ""
        level = _heading_level(style or "")
        if level:
            first_heading = first_heading or text
            blocks.append(f"{'#' * level} {text}")
        else:
            blocks.append(text)
    for table in document.tables:
        for row in table.rows:
            cells = [cell.text.strip() for cell in row.cells]
            if any(cells):
                blocks.append("\t".join(cells))
    return "\n\n".join(blocks), title or first_heading
