"""PDF text with pypdfium2 (PDFium, the engine in Chrome)."""

from __future__ import annotations

import re
import zlib
from typing import TYPE_CHECKING

import pypdfium2 as pdfium

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed

if TYPE_CHECKING:
    from findling.ingest.ocr_pages import PageReader

_STREAM = re.compile(rb"(?<!end)stream\r?\n")
_MB = 1024 * 1024
# Non-image streams (page content, fonts, object streams) unpacked together, and one on
# its own. PDFium inflates and parses a page's content whole, at about 14 bytes of memory
# per byte of operators (50 MB took 730 MB): 873 KB of deflated operators reached 4 GB.
MAX_STREAMS = 256 * _MB
MAX_STREAM = 24 * _MB


def unpacked_stream_bytes(data: bytes, limit: int = MAX_STREAMS, one_limit: int = MAX_STREAM) -> tuple[int, int]:
    """How many bytes the file's deflated non-image streams unpack to, together and the
    largest alone, counted by inflating a megabyte at a time and stopping past a limit:
    nothing is kept."""
    total = largest = 0
    for match in _STREAM.finditer(data):
        head = data[max(0, match.start() - 2048) : match.start()]
        head = head[head.rfind(b"obj") + 3 :] if b"obj" in head else head
        if b"/FlateDecode" not in head or b"/Image" in head:
            continue
        inflater = zlib.decompressobj()
        pos = match.end()
        before = total
        try:
            while pos < len(data) and not inflater.eof and total <= limit and total - before <= one_limit:
                total += len(inflater.decompress(data[pos : pos + 65536], _MB))
                pos += 65536
                while inflater.unconsumed_tail and not inflater.eof and total <= limit:
                    out = inflater.decompress(inflater.unconsumed_tail, _MB)
                    if not out:
                        break
                    total += len(out)
        except zlib.error:
            pass  # PDFium decides what a broken stream is worth
        largest = max(largest, total - before)
        if total > limit or largest > one_limit:
            break
    return total, largest


_SEPARATOR = "\n\n"
# a page with fewer characters of text than this is a scan (a page number or a stamp at most)
_SCANNED_BELOW = 16


def page_starts(pages: list[str]) -> tuple[int, ...]:
    """Where each page begins in the pages joined by the separator."""
    starts = []
    at = 0
    for page in pages:
        starts.append(at)
        at += len(page) + len(_SEPARATOR)
    return tuple(starts)


def ocr_scale(width_pt: float, height_pt: float) -> float | None:
    """The scale a scanned page is rendered at for OCR: PDF_DPI, or less where a side would pass
    MAX_SIDE pixels; None for a page so large that its text would be too small to read there (a
    14,400 pt poster: rendered whole at 150 DPI it took 2.7 GB)."""
    from findling.ingest.ocr_pages import MAX_SIDE, MIN_DPI, PDF_DPI

    longest = max(width_pt, height_pt, 1.0)
    scale = min(PDF_DPI / 72, MAX_SIDE / longest)
    return scale if scale >= MIN_DPI / 72 else None


def _scanned(page: pdfium.PdfPage, number: int, ocr: PageReader) -> str:
    """The words of a page that has no text layer (a scan), read from its picture; "" when the
    OCR budget is spent (checked before the page is rendered) or the page is too large."""
    if not ocr.has_time():
        return ""
    scale = ocr_scale(page.get_width(), page.get_height())
    if scale is None:
        ocr.skip(f"page {number}")
        return ""
    bitmap = page.render(scale=scale, rev_byteorder=True, grayscale=False)
    try:
        rgb = bitmap.to_numpy()[:, :, :3]
    finally:
        bitmap.close()
    return ocr.read(rgb) or ""


def extract_pdf(data: bytes, max_chars: int = 64 * _MB, ocr: PageReader | None = None) -> Parsed:
    """The pages' text; with `ocr`, a page with no text layer is read from its picture."""
    total, largest = unpacked_stream_bytes(data)
    if total > MAX_STREAMS or largest > MAX_STREAM:
        what = (
            f"its streams unpack to over {MAX_STREAMS // _MB} MB"
            if total > MAX_STREAMS
            else f"one of its streams unpacks to over {MAX_STREAM // _MB} MB"
        )
        raise ExtractionError(f"not read: {what} (a decompression bomb?)")
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            raise ExtractionError("encrypted PDF: a password is needed to read it") from exc
        raise ExtractionError(f"cannot open PDF: {message}") from exc
    try:
        title = author = ""
        try:
            properties = pdf.get_metadata_dict()
            title, author = (properties.get("Title") or "").strip(), (properties.get("Author") or "").strip()
        except pdfium.PdfiumError:
            pass
        pages: list[str] = []
        notes: tuple[str, ...] = ()
        size = 0
        for index in range(len(pdf)):
            if size > max_chars:
                notes = (f"only the first {index} pages were read ({max_chars // _MB} MB of text)",)
                break
            page = pdf[index]
            try:
                textpage = page.get_textpage()
                try:
                    # NULs are dropped here, not later, so that the page offsets stay true
                    text = textpage.get_text_range().replace("\r\n", "\n").replace("\r", "\n")
                    if ocr is not None and len(text.strip()) < _SCANNED_BELOW:
                        text = _scanned(page, index + 1, ocr) or text
                    pages.append(text.replace("\x00", ""))
                    size += len(pages[-1])
                finally:
                    textpage.close()
            finally:
                page.close()
        if ocr is not None:
            notes += ocr.note()
        read = ocr.pages if ocr is not None else 0
        return Parsed(_SEPARATOR.join(pages), title, notes, page_starts(pages), author, ocr_pages=read)
    except pdfium.PdfiumError as exc:
        raise ExtractionError(f"cannot read PDF text: {exc}") from exc
    finally:
        pdf.close()
