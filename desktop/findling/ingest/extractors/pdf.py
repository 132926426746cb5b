"""PDF text with pypdfium2 (PDFium, the engine in Chrome)."""

from __future__ import annotations

import pypdfium2 as pdfium

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed


def extract_pdf(data: bytes) -> Parsed:
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        message = str(exc)
        if "password" in message.lower():
            raise ExtractionError("encrypted PDF: a password is needed to read it") from exc
        raise ExtractionError(f"cannot open PDF: {message}") from exc
    try:
        title = ""
        try:
            title = (pdf.get_metadata_dict().get("Title") or "").strip()
        except pdfium.PdfiumError:
            pass
        pages: list[str] = []
        for index in range(len(pdf)):
            page = pdf[index]
            try:
                textpage = page.get_textpage()
                try:
                    pages.append(textpage.get_text_range().replace("\r\n", "\n").replace("\r", "\n"))
                finally:
                    textpage.close()
            finally:
                page.close()
        return Parsed("\n\n".join(pages), title)
    except pdfium.PdfiumError as exc:
        raise ExtractionError(f"cannot read PDF text: {exc}") from exc
    finally:
        pdf.close()
