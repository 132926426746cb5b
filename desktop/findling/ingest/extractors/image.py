"""What people write into their photos and scans: the EXIF description, title, comment, subject,
keywords and artist (Windows' XP* fields too), with the camera and the date taken, read by
ExifRead (pure Python, BSD) from the file's first bytes (the indexer reads no more: JPEG, PNG
and WebP keep EXIF in their first blocks, TIFF in its first directory). A picture with none of
those words is not a document: it is skipped as before, so a folder of photos does not fill the
index with camera models.

With the OCR model, the words in the picture itself (a screenshot, a photo of a page, a scan)
are read too, after what its metadata says."""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING

from findling.errors import ExtractionError
from findling.ingest.extractors import NotText, Parsed

if TYPE_CHECKING:
    from findling.ingest.ocr_pages import PageReader

# (label, EXIF tags in order of preference): what a person wrote about the picture
_WRITTEN = (
    ("Title", ("Image XPTitle",)),
    ("Description", ("Image ImageDescription",)),
    ("Subject", ("Image XPSubject",)),
    ("Comment", ("Image XPComment", "EXIF UserComment")),
    ("Keywords", ("Image XPKeywords",)),
    ("Copyright", ("Image Copyright",)),
)
_AUTHOR = ("Image Artist", "Image XPAuthor")
_TAKEN = ("EXIF DateTimeOriginal", "Image DateTime")


def _value(tag: object) -> str:
    """A tag as text: the XP* tags are UTF-16 in a list of bytes, UserComment has an 8-byte
    charset prefix, the others are strings."""
    values = getattr(tag, "values", None)
    if isinstance(values, list) and values and all(isinstance(v, int) for v in values):
        raw = bytes(v & 0xFF for v in values)
        if raw[:8] in (b"ASCII\0\0\0", b"UNICODE\0", b"\0" * 8):
            codec = "utf-16-le" if raw[:8] == b"UNICODE\0" else "latin-1"
            return raw[8:].decode(codec, "replace").strip("\0 ")
        return raw.decode("utf-16-le", "replace").strip("\0 ")
    return str(values if isinstance(values, str) else tag).strip("\0 ")


def extract_image(data: bytes, ocr: PageReader | None = None) -> Parsed:
    import exifread

    # ExifRead warns through logging about every file without EXIF ("File format not recognized"):
    # for us that is an ordinary picture, not news for the terminal
    logging.getLogger("exifread").setLevel(logging.CRITICAL)
    try:
        tags = exifread.process_file(io.BytesIO(data), details=False, extract_thumbnail=False)
    except Exception as exc:  # a damaged header: say so, as for any other unreadable file
        raise ExtractionError(f"unreadable picture metadata: {type(exc).__name__}: {exc}") from exc
    lines, title = [], ""
    for label, names in _WRITTEN:
        text = next((v for name in names if name in tags and (v := _value(tags[name]))), "")
        if text:
            lines.append(f"{label}: {text}")
            title = title or (text if label in ("Title", "Description") else "")
    author = next((v for name in _AUTHOR if name in tags and (v := _value(tags[name]))), "")
    seen, unseen = "", ""
    if ocr is not None:
        from findling.ingest.ocr_pages import decode_picture

        try:
            seen = (ocr.read(decode_picture(data)) or "").strip()
        except ExtractionError as exc:
            if not lines and not author:  # nothing else to keep: the picture fails, with why
                raise
            unseen = str(exc)  # its metadata is kept; what OCR could not read is said
    if not lines and not author and not seen:
        raise NotText("no words in its metadata" + (" or in the picture" if ocr is not None else ""))
    if author:
        lines.append(f"Artist: {author}")
    camera = " ".join(_value(tags[n]) for n in ("Image Make", "Image Model") if n in tags).strip()
    if camera:
        lines.append(f"Camera: {camera}")
    taken = next((_value(tags[n]) for n in _TAKEN if n in tags), "")
    if taken:
        date, _, clock = taken.partition(" ")
        lines.append(f"Taken: {date.replace(':', '-')} {clock}".strip())
    if seen:
        lines.extend(("", seen) if lines else (seen,))
    notes = (ocr.note() if ocr is not None else ()) + ((unseen,) if unseen else ())
    read = ocr.pages if ocr is not None else 0
    return Parsed("\n".join(lines) + "\n", title[:300], notes, author=author, ocr_pages=read)
