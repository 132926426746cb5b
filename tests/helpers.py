"""Real small files of every format, made in the tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pdf_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(path: Path, pages: list[str], title: str | None = None) -> Path:
    """A valid PDF 1.4 with Helvetica text, one string of lines per page."""
    objects: list[bytes] = []
    page_ids = []
    n_pages = len(pages)
    # 1: catalog, 2: pages, 3: font, then page/content pairs, then info
    first_page = 4
    for i in range(n_pages):
        page_ids.append(first_page + 2 * i)
    objects.append(b"<< /Type /Catalog /Pages 2 0 R >>")
    kids = " ".join(f"{pid} 0 R" for pid in page_ids)
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {n_pages} >>".encode())
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    for i, text in enumerate(pages):
        lines = text.split("\n")
        ops = ["BT", "/F1 12 Tf", "14 TL", "72 720 Td"]
        for line in lines:
            ops.append(f"({_pdf_escape(line)}) Tj T*")
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
            f"/Contents {page_ids[i] + 1} 0 R >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    info_id = None
    if title:
        objects.append(f"<< /Title ({_pdf_escape(title)}) >>".encode("latin-1"))
        info_id = len(objects)
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R"
    if info_id:
        trailer += f" /Info {info_id} 0 R"
    out += f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))
    return path


def make_docx(
    path: Path, title: str, heading: str, paragraphs: list[str], table: list[list[str]] | None = None
) -> Path:
    import docx

    document = docx.Document()
    document.core_properties.title = title
    document.add_heading(heading, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        t = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                t.cell(r, c).text = value
    document.save(str(path))
    return path


def make_epub(path: Path, title: str, chapters: list[tuple[str, str]]) -> Path:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("findling-test")
    book.set_title(title)
    book.set_language("en")
    items = []
    for i, (heading, body) in enumerate(chapters):
        chapter = epub.EpubHtml(title=heading, file_name=f"chap_{i}.xhtml", lang="en")
        chapter.content = f"<html><body><h1>{heading}</h1><p>{body}</p></body></html>"
        book.add_item(chapter)
        items.append(chapter)
    book.toc = items
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *items]
    epub.write_epub(str(path), book)
    return path


def draw_page(lines: list[str], size=(1240, 1754), font_size: int = 34, mode: str = "L"):
    """A picture of text as a scanner or a screenshot gives it (Pillow), no text layer."""
    from PIL import Image, ImageDraw, ImageFont

    page = Image.new(mode, size, "white")
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=font_size)
    for i, line in enumerate(lines):
        draw.text((120, 200 + i * 2 * font_size), line, fill="black", font=font)
    return page


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding))
    return path


def assert_index_consistent(engine) -> int:
    """No duplicate, orphaned or half-written rows; term document counts match postings.
    Returns the number of documents."""
    assert engine.check_index() == []
    return engine.status(problem_limit=0).documents


def indexed_engine(home: Path, settings, folder: Path):
    """An engine on `home` with `folder` added and indexed (close it when done)."""
    from findling.engine import Engine

    engine = Engine(home, settings=settings)
    engine.add_source(folder)
    engine.index()
    return engine


def index_files(engine, folder: Path, files: dict[str, str]) -> Path:
    """Write `files` (name: text) into `folder`, add it to the engine and index it."""
    for name, text in files.items():
        write(folder / name, text)
    engine.add_source(folder)
    engine.index()
    return folder


def wait_until(condition, timeout: float, what: str, interval: float = 0.02) -> None:
    """Poll `condition` until it holds; fail naming `what` when `timeout` seconds pass first.
    Tests wait on the condition they need, never for a fixed time."""
    import time

    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            import pytest

            pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


class RecordingCursor:
    """A DuckDB cursor that notes each statement it runs in `statements`."""

    def __init__(self, cur: Any, statements: list[str]) -> None:
        self._cur = cur
        self._statements = statements

    def execute(self, sql: str, *args: object) -> RecordingCursor:
        self._statements.append(sql)
        self._cur.execute(sql, *args)
        return self

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cur, name)


def record_statements(engine: Any) -> list[str]:
    """Every statement the engine's cursors run from now on (those it hands out per call)."""
    statements: list[str] = []
    real = engine._db.cursor
    engine._db.cursor = lambda: RecordingCursor(real(), statements)
    return statements


def write_stand_in_vectors(db, table, vectors, first_doc) -> list[int]:
    """One vector a document from `first_doc` on, each with its stand-in document row: the
    vector index's tests, which need no text."""
    from findling.store.vectors import write_vectors

    docs = list(range(first_doc, first_doc + len(vectors)))
    with db.transaction() as tx:
        stand_in_documents(tx, docs)
        write_vectors(tx, table, docs, [0] * len(docs), [(0, 1)] * len(docs), vectors)
    return docs


def stand_in_documents(tx, ids) -> None:
    """Document rows for `ids`, for store tests that write vectors alone: vectors are stored only
    for documents the index holds."""
    tx.executemany(
        "INSERT INTO documents (id, source_id, path, ext, size, mtime, status) VALUES (?, 1, ?, 'txt', 0, 0, 'ok')",
        [(int(i), f"/stand-in/{int(i)}.txt") for i in ids],
    )


def indexed_home(settings, home: Path, docs: Path):
    """A home whose settings are saved (so the CLI reads them too) and `docs` indexed and
    embedded with them; returns its status."""
    from findling.engine import Engine
    from findling.settings import save_settings

    save_settings(settings, home)
    with Engine(home, settings=settings) as engine:
        engine.add_source(str(docs))
        engine.index()
        return engine.status()


def published_collection(settings, home: Path, folder: Path, to: Path, name: str = "", embed: bool = False) -> Path:
    """`folder` indexed in a Findling at `home` and published at `to` (shared collections)."""
    from findling.engine import Engine

    publisher = Engine(home, settings=settings)
    try:
        publisher.add_source(folder)
        publisher.index(embed=embed)
        publisher.publish(str(folder), str(to), name=name)
    finally:
        publisher.close()
    return to
