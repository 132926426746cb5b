"""EPUB with EbookLib: the spine's XHTML documents in reading order, each through the HTML extractor."""

from __future__ import annotations

import io
import warnings
import zipfile

import ebooklib
from ebooklib import epub

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed
from findling.ingest.extractors.archive import MAX_PART, check_unpacked, open_zip
from findling.ingest.extractors.html import html_to_text


def extract_epub(data: bytes, max_chars: int = 64 * 1024 * 1024) -> Parsed:
    with open_zip(data, "EPUB") as archive:
        infos = archive.infolist()
    # EbookLib reads every part into memory: refuse what would unpack to too much first.
    check_unpacked(infos, "EPUB")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # EbookLib warns about future defaults on every read
            book = epub.read_epub(io.BytesIO(data), options={"ignore_ncx": True})
    except (zipfile.BadZipFile, KeyError, epub.EpubException) as exc:
        raise ExtractionError(f"cannot open EPUB (damaged or not an e-book): {exc}") from exc
    except Exception as exc:  # EbookLib surfaces lxml and zip errors unwrapped
        raise ExtractionError(f"cannot read EPUB: {exc}") from exc
    titles = book.get_metadata("DC", "title")
    title = titles[0][0].strip() if titles and titles[0] and titles[0][0] else ""
    creators = book.get_metadata("DC", "creator")
    author = ", ".join(c[0].strip() for c in creators if c and c[0])
    ordered = []
    by_id = {item.get_id(): item for item in book.get_items_of_type(ebooklib.ITEM_DOCUMENT)}
    for spine_id, _linear in book.spine:
        item = by_id.pop(spine_id, None)
        if item is not None:
            ordered.append(item)
    ordered.extend(by_id.values())
    parts: list[str] = []
    notes: list[str] = []
    size = 0
    for item in ordered:
        # The raw chapter: EbookLib's get_content() re-renders EpubHtml through lxml's
        # default parser, which silently drops text after a text node over 10 MB.
        content = item.content if isinstance(item.content, (bytes, str)) and item.content else item.get_content()
        if len(content) > MAX_PART:
            notes.append(f"a chapter of {len(content) // (1024 * 1024)} MB was left out")
            continue
        parsed = html_to_text(content)
        notes.extend(parsed.notes)
        if parsed.text.strip():
            parts.append(parsed.text)
            size += len(parsed.text)
        if size > max_chars:
            notes.append(f"only the first {max_chars // (1024 * 1024)} MB of text were read")
            break
    return Parsed("\n\n".join(parts), title, tuple(dict.fromkeys(notes)), author=author)
