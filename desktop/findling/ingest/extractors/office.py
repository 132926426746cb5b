"""Spreadsheets and slides: Office Open XML (XLSX/XLSM, PPTX) and OpenDocument (ODT, ODS, ODP),
read from their XML with lxml as the DOCX reader reads Word files. No new library: the parts
are plain XML in a zip, every part is checked against the unpacked-size limits first, and big
sheets are streamed (iterparse, each row dropped once read).

What comes out reads like a document: a sheet or a slide is a heading, a row a tab-separated
line (a formula's cached value, not the formula), a slide's speaker notes follow it."""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager

import lxml.etree

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed
from findling.ingest.extractors.archive import MAX_PART, check_unpacked, core_properties, open_zip

_MB = 1024 * 1024
_MAX_CHARS = 64 * _MB
_PARSER = lxml.etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)

_S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_DC_CREATOR = "{http://purl.org/dc/elements/1.1/}creator"
_META_CREATOR = "{urn:oasis:names:tc:opendocument:xmlns:meta:1.0}initial-creator"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_TABLE = "{urn:oasis:names:tc:opendocument:xmlns:table:1.0}"
_DRAW = "{urn:oasis:names:tc:opendocument:xmlns:drawing:1.0}"
_PRES = "{urn:oasis:names:tc:opendocument:xmlns:presentation:1.0}"
_MAX_REPEAT = 64  # an ODF cell or row "repeated" a million times (a formatted empty column) is kept once


class _Text:
    """Lines of output, stopped at the size limit with a note."""

    def __init__(self, limit: int = _MAX_CHARS) -> None:
        self.lines: list[str] = []
        self.size = 0
        self.limit = limit
        self.notes: list[str] = []

    def add(self, line: str) -> bool:
        """False once the limit is reached: the caller stops reading."""
        if self.size > self.limit:
            return False
        self.lines.append(line)
        self.size += len(line) + 1
        if self.size > self.limit:
            self.notes.append(f"only the first {self.limit // _MB} MB of text were read")
            return False
        return True

    def parsed(self, title: str, author: str = "") -> Parsed:
        text = re.sub(r"\n{3,}", "\n\n", "\n".join(self.lines)).strip()
        return Parsed(text, title, tuple(self.notes), author=author)


def _part(archive: zipfile.ZipFile, name: str, what: str) -> bytes | None:
    try:
        info = archive.getinfo(name)
    except KeyError:
        return None
    check_unpacked([info], f"the {what} part {name}", MAX_PART)
    return archive.read(info)


def _xml(archive: zipfile.ZipFile, name: str, what: str) -> lxml.etree._Element | None:
    data = _part(archive, name, what)
    return None if data is None else lxml.etree.fromstring(data, parser=_PARSER)


def _rels(archive: zipfile.ZipFile, part: str, what: str) -> dict[str, str]:
    """A part's relationships: id -> the target part's name inside the zip."""
    folder, name = posixpath.split(part)
    root = _xml(archive, posixpath.join(folder, "_rels", name + ".rels"), what)
    if root is None:
        return {}
    out = {}
    for rel in root.iter(f"{_REL}Relationship"):
        target = rel.get("Target", "")
        out[rel.get("Id", "")] = posixpath.normpath(
            target.lstrip("/") if target.startswith("/") else posixpath.join(folder, target)
        )
    return out


@contextmanager
def _reading(what: str) -> Iterator[None]:
    """Turn what a damaged file raises into the extractor's one error."""
    try:
        yield
    except (lxml.etree.LxmlError, zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError) as exc:
        raise ExtractionError(f"cannot read {what}: {exc}") from exc


# -- XLSX ----------------------------------------------------------------------------------------


def _shared_strings(archive: zipfile.ZipFile) -> list[str]:
    data = _part(archive, "xl/sharedStrings.xml", "XLSX")
    if data is None:
        return []
    strings = []
    for _event, item in lxml.etree.iterparse(io.BytesIO(data), tag=f"{_S}si", resolve_entities=False):
        strings.append("".join(t.text or "" for t in item.iter(f"{_S}t")))
        item.clear()
    return strings


def _cell_value(cell: lxml.etree._Element, strings: list[str]) -> str:
    kind = cell.get("t", "n")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(f"{_S}t"))
    value = cell.findtext(f"{_S}v") or ""
    if kind == "s":
        try:
            return strings[int(value)]
        except (ValueError, IndexError):
            return ""
    if kind == "b":
        return "TRUE" if value == "1" else "FALSE" if value == "0" else value
    return value  # numbers, dates as serial numbers, and a formula's cached result ("str", "e")


@contextmanager
def _package(data: bytes, what: str, root: str, kind: str) -> Iterator[tuple[zipfile.ZipFile, lxml.etree._Element]]:
    """The zip package, checked whole against the unpacked-size limits, and its root part parsed;
    whatever a damaged package raises inside becomes one ExtractionError."""
    archive = open_zip(data, what)
    with archive:
        check_unpacked(archive.infolist(), f"the {what}")
        with _reading(what):
            parsed = _xml(archive, root, what)
            if parsed is None:
                raise ExtractionError(f"cannot open {what}: it has no {root} (not {kind}?)")
            yield archive, parsed


_CELL_COLUMN = re.compile(r"[A-Z]{1,3}")
MAX_COLUMNS = 256  # a cell further right is put after the row's others, not after thousands of tabs


def _column(reference: str) -> int:
    """The 0-based column of a cell reference (`C7` -> 2); -1 when it has none."""
    letters = _CELL_COLUMN.match(reference)
    if letters is None:
        return -1
    number = 0
    for letter in letters.group():
        number = number * 26 + ord(letter) - 64
    return number - 1


def _placed_cells(row: lxml.etree._Element, strings: list[str]) -> list[str]:
    """A row's values, each in its column: a sheet leaves its empty cells out, and a row's
    values set one after another would stand under other columns' headings."""
    cells: list[str] = []
    for cell in row.iter(f"{_S}c"):
        column = _column(cell.get("r", ""))
        if len(cells) < column < MAX_COLUMNS:
            cells.extend([""] * (column - len(cells)))
        cells.append(_cell_value(cell, strings))
    return cells


def _row_line(cells: list[str]) -> str:
    """A table row as a line of tab-separated cells, an empty cell kept where it holds a column's
    place (the preview lines columns up by the tabs); "" when the row is empty."""
    cells = [" ".join(c.split()) for c in cells]
    while cells and not cells[-1]:
        cells.pop()
    return "\t".join(cells) if any(cells) else ""


def extract_xlsx(data: bytes) -> Parsed:
    """Each sheet a heading (its name), each row a tab-separated line of its cells' values, each
    value in its column."""
    with _package(data, "XLSX", "xl/workbook.xml", "a spreadsheet") as (archive, workbook):
        targets = _rels(archive, "xl/workbook.xml", "XLSX")
        strings = _shared_strings(archive)
        out = _Text()
        for sheet in workbook.iter(f"{_S}sheet"):
            part = targets.get(sheet.get(f"{_R}id", ""))
            data_part = _part(archive, part, "XLSX") if part else None
            if data_part is None:
                continue
            if not out.add(f"\n# {sheet.get('name', 'Sheet')}\n"):
                break
            for _event, row in lxml.etree.iterparse(io.BytesIO(data_part), tag=f"{_S}row", resolve_entities=False):
                line = _row_line(_placed_cells(row, strings))
                row.clear()
                if line and not out.add(line):
                    break
        return out.parsed(*core_properties(archive))


# -- PPTX ----------------------------------------------------------------------------------------


def _paragraphs(root: lxml.etree._Element) -> Iterator[tuple[str, bool]]:
    """(text, is a title) for each shape's paragraphs, tables as tab-separated rows."""
    for shape in root.iter(f"{_P}sp", f"{_P}graphicFrame"):
        placeholder = shape.find(f".//{_P}ph")
        is_title = placeholder is not None and placeholder.get("type") in ("title", "ctrTitle")
        if shape.tag == f"{_P}graphicFrame":
            for row in shape.iter(f"{_A}tr"):
                cells = [" ".join("".join(t.text or "" for t in cell.iter(f"{_A}t")).split()) for cell in row]
                yield "\t".join(c for c in cells if c), False
            continue
        for paragraph in shape.iter(f"{_A}p"):
            text = "".join(t.text or "" for t in paragraph.iter(f"{_A}t")).strip()
            if text:
                yield text, is_title


def extract_pptx(data: bytes) -> Parsed:
    """One heading per slide (its title), its text, tables and speaker notes, in slide order."""
    with _package(data, "PPTX", "ppt/presentation.xml", "a presentation") as (archive, presentation):
        targets = _rels(archive, "ppt/presentation.xml", "PPTX")
        out = _Text()
        for number, slide_id in enumerate(presentation.iter(f"{_P}sldId"), 1):
            part = targets.get(slide_id.get(f"{_R}id", ""))
            slide = _xml(archive, part, "PPTX") if part else None
            if part is None or slide is None:
                continue
            pieces = list(_paragraphs(slide))
            title = next((text for text, is_title in pieces if is_title), "")
            out.add(f"\n## Slide {number}" + (f": {title}" if title else "") + "\n")
            for text, is_title in pieces:
                if not is_title and not out.add(text):
                    break
            notes_part = next((t for t in _rels(archive, part, "PPTX").values() if "notesSlide" in t), None)
            notes = _xml(archive, notes_part, "PPTX") if notes_part else None
            if notes is not None:
                spoken = [text for text, _title in _paragraphs(notes) if not text.isdigit()]
                if spoken:
                    out.add("Notes: " + "\n".join(spoken))
            if out.size > out.limit:
                break
        return out.parsed(*core_properties(archive))


# -- OpenDocument --------------------------------------------------------------------------------


def _odf_text(element: lxml.etree._Element) -> str:
    """A paragraph's text, with its spaces, tabs and line breaks."""
    parts: list[str] = []

    def walk(node: lxml.etree._Element) -> None:
        if node.text:
            parts.append(node.text)
        for child in node:
            if child.tag == f"{_TEXT}s":
                parts.append(" " * min(int(child.get(f"{_TEXT}c", "1") or 1), 64))
            elif child.tag == f"{_TEXT}tab":
                parts.append("\t")
            elif child.tag == f"{_TEXT}line-break":
                parts.append("\n")
            elif child.tag != f"{_OFFICE}annotation":
                walk(child)
            if child.tail:
                parts.append(child.tail)

    walk(element)
    return "".join(parts).strip()


def _repeat(element: lxml.etree._Element, attribute: str) -> int:
    try:
        return max(1, min(int(element.get(attribute, "1")), _MAX_REPEAT))
    except ValueError:
        return 1


def _odf_table(table: lxml.etree._Element, out: _Text) -> None:
    out.add(f"\n# {table.get(f'{_TABLE}name', 'Table')}\n")
    for row in table.iter(f"{_TABLE}table-row"):
        cells: list[str] = []
        for cell in row:
            if cell.tag not in (f"{_TABLE}table-cell", f"{_TABLE}covered-table-cell"):
                continue
            text = " ".join(_odf_text(p) for p in cell.iter(f"{_TEXT}p", f"{_TEXT}h")).strip()
            repeat = _repeat(cell, f"{_TABLE}number-columns-repeated")
            cells.extend([text] * min(repeat, max(1, MAX_COLUMNS - len(cells))))
        line = _row_line(cells)
        if line:
            for _ in range(_repeat(row, f"{_TABLE}number-rows-repeated")):
                if not out.add(line):
                    return


def _odf_body(node: lxml.etree._Element, out: _Text) -> None:
    """Headings, paragraphs, lists, tables and slides in document order."""
    for child in node:
        if out.size > out.limit:
            return
        tag = child.tag
        if tag == f"{_TEXT}h":
            level = min(6, max(1, _repeat(child, f"{_TEXT}outline-level")))
            out.add("\n" + "#" * level + " " + _odf_text(child) + "\n")
        elif tag == f"{_TEXT}p":
            text = _odf_text(child)
            if text:
                out.add(text)
        elif tag == f"{_TABLE}table":
            _odf_table(child, out)
        elif tag == f"{_DRAW}page":
            out.add(f"\n## {child.get(f'{_DRAW}name', 'Slide')}\n")
            _odf_body(child, out)
        elif tag == f"{_PRES}notes":
            before = len(out.lines)
            _odf_body(child, out)
            if len(out.lines) > before:
                out.lines[before] = "Notes: " + out.lines[before]
        elif tag != f"{_OFFICE}annotation":
            _odf_body(child, out)


def extract_odf(data: bytes, what: str = "OpenDocument") -> Parsed:
    """ODT, ODS and ODP: content.xml's text in order; the title from meta.xml."""
    with _package(data, what, "content.xml", "an OpenDocument file") as (archive, content):
        body = content.find(f"{_OFFICE}body")
        out = _Text()
        if body is not None:
            _odf_body(body, out)
        meta = _xml(archive, "meta.xml", what)

        def field(path: str) -> str:
            found = meta.find(path) if meta is not None else None
            return " ".join((found.text or "").split()) if found is not None else ""

        return out.parsed(field(f".//{_DC_TITLE}"), field(f".//{_DC_CREATOR}") or field(f".//{_META_CREATOR}"))
