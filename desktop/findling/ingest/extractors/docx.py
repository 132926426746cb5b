"""Word documents, streamed from their XML: headings become Markdown headings, table rows
become tab-separated lines, in document order.

Read with lxml's iterparse rather than python-docx: python-docx builds the whole tree and
resolves each paragraph's style with a search, which took minutes on a document of
millions of short paragraphs; streaming is linear and holds one paragraph at a time."""

from __future__ import annotations

import html
import re
import zipfile

import lxml.etree

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed
from findling.ingest.extractors.archive import MAX_PART, check_unpacked, core_properties, open_zip

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_HEADING_ID = re.compile(r"heading\s*(\d)", re.IGNORECASE)
_DOCUMENT = "word/document.xml"
_MB = 1024 * 1024


def _level(name: str) -> int:
    lowered = name.strip().lower()
    if lowered == "title":
        return 1
    match = _HEADING_ID.fullmatch(lowered)
    return min(6, int(match.group(1))) if match else 0


def _style_levels(archive: zipfile.ZipFile) -> dict[str, int]:
    """styleId → heading level, from the style names ("heading 1", "Title")."""
    try:
        info = archive.getinfo("word/styles.xml")
    except KeyError:
        return {}
    if info.file_size > MAX_PART:
        return {}
    levels: dict[str, int] = {}
    root = lxml.etree.fromstring(archive.read(info), parser=lxml.etree.XMLParser(resolve_entities=False))
    for style in root.iter(f"{_W}style"):
        style_id = style.get(f"{_W}styleId") or ""
        name = style.find(f"{_W}name")
        level = _level(name.get(f"{_W}val", "") if name is not None else "") or _level(style_id)
        if level:
            levels[style_id] = level
    return levels


def _paragraph_text(paragraph: lxml.etree._Element) -> str:
    parts = []
    for node in paragraph.iter(f"{_W}t", f"{_W}tab", f"{_W}br", f"{_W}cr"):
        if node.tag == f"{_W}t":
            parts.append(node.text or "")
        elif node.tag == f"{_W}tab":
            parts.append("\t")
        else:
            parts.append("\n")
    return "".join(parts).strip()


_HEAD = 64 * 1024
# Streaming costs ~10 µs a paragraph in Python; past this many, the text is read with
# C-speed substitutions instead, without headings or tables (a note says so).
_STREAM_PARAGRAPHS = 200_000
_PREFIX = re.compile(rb'xmlns:(\w+)="http://schemas\.openxmlformats\.org/wordprocessingml/2006/main"')


def _paragraph_count(stream) -> int:
    """Paragraph ends (by Word's usual prefix), counted at C speed, a block at a time."""
    count, tail = 0, b""
    for block in iter(lambda: stream.read(1 << 20), b""):
        data = tail + block
        count += data.count(b"</w:p>")
        tail = data[-5:]
    return count


def _flat(stream, title: str, max_chars: int) -> Parsed:
    """Text by substitution, a few megabytes at a time (cut after a '>', so no tag or
    entity is split), so memory stays small whatever the size of the document."""
    head = stream.read(_HEAD)
    match = _PREFIX.search(head)
    prefix = re.escape(match.group(1) + b":") if match else b""
    paragraph_end = re.compile(rb"</" + prefix + rb"p>")
    space = re.compile(rb"<" + prefix + rb"(?:tab|br|cr)\b[^<>]*>")
    pieces: list[str] = []
    size = 0
    carry = head
    notes = ["a document of very many paragraphs: its text was read without headings or tables"]
    while True:
        block = stream.read(4 << 20)
        data = carry + block
        cut = data.rfind(b">") + 1 if block else len(data)
        data, carry = data[:cut], data[cut:]
        data = _TAG.sub(b"", space.sub(b" ", paragraph_end.sub(b"\n", data)))
        text = html.unescape(data.decode("utf-8", "replace"))
        pieces.append(text)
        size += len(text)
        if size > max_chars:
            notes.append(f"only the first {max_chars // _MB} MB of text were read")
            break
        if not block:
            break
    text = _BLANK_LINES.sub("\n\n", "".join(pieces)).strip()
    return Parsed(text[:max_chars], title, tuple(notes))


_TAG = re.compile(rb"<[^<>]*>")
_BLANK_LINES = re.compile(r"\n[\s]*\n")


def extract_docx(data: bytes, max_chars: int = 64 * _MB) -> Parsed:
    archive = open_zip(data, "DOCX")
    with archive:
        try:
            info = archive.getinfo(_DOCUMENT)
        except KeyError:
            raise ExtractionError("cannot open DOCX: it has no word/document.xml (not a Word file?)") from None
        check_unpacked([info], "the DOCX text", MAX_PART * 4)
        try:
            levels = _style_levels(archive)
            title, author = core_properties(archive)
            with archive.open(info) as stream:
                many = _paragraph_count(stream) > _STREAM_PARAGRAPHS
            if many:
                with archive.open(info) as stream:
                    return _flat(stream, title, max_chars)._replace(author=author)
            return _body(archive, info, levels, title, max_chars)._replace(author=author)
        except (lxml.etree.LxmlError, zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
            raise ExtractionError(f"cannot read DOCX: {exc}") from exc


def _body(  # noqa: C901 - one branch per WordprocessingML element, as the format lists them
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, levels: dict[str, int], title: str, max_chars: int
) -> Parsed:
    blocks: list[str] = []
    size = 0
    first_heading = ""
    cells: list[str] = []
    cell: list[str] = []
    table_depth = 0
    notes: tuple[str, ...] = ()
    with archive.open(info) as stream:
        events = lxml.etree.iterparse(
            stream,
            events=("start", "end"),
            tag=(f"{_W}p", f"{_W}tbl", f"{_W}tc", f"{_W}tr"),
            huge_tree=True,
            resolve_entities=False,
        )
        for event, node in events:
            tag = node.tag
            if event == "start":
                if tag == f"{_W}tbl":
                    table_depth += 1
                continue
            if tag == f"{_W}p":
                text = _paragraph_text(node)
                if table_depth:
                    if text:
                        cell.append(text)
                elif text:
                    style = node.find(f"{_W}pPr/{_W}pStyle")
                    level = levels.get(style.get(f"{_W}val", ""), 0) if style is not None else 0
                    if level:
                        first_heading = first_heading or text
                        text = f"{'#' * level} {text}"
                    blocks.append(text)
                    size += len(text)
            elif tag == f"{_W}tc" and table_depth == 1:
                cells.append(" ".join(cell))
                cell = []
            elif tag == f"{_W}tr" and table_depth == 1:
                if any(cells):
                    row = "\t".join(cells)
                    blocks.append(row)
                    size += len(row)
                cells = []
            elif tag == f"{_W}tbl":
                table_depth -= 1
            if table_depth == 0 and tag != f"{_W}tc":
                # Done with this part of the body: free it, and the siblings before it.
                node.clear()
                parent = node.getparent()
                while parent is not None and node.getprevious() is not None:
                    del parent[0]
            if size > max_chars:
                notes = (f"only the first {max_chars // _MB} MB of text were read",)
                break
    return Parsed("\n\n".join(blocks), title or first_heading, notes)
