"""Zip containers (DOCX, EPUB) checked by their directory before anything is unpacked:
a few megabytes can expand to gigabytes (a zip bomb), and the parsers read whole parts
into memory."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable

import lxml.etree

from findling.errors import ExtractionError

_MB = 1024 * 1024
# Together, everything a parser may unpack from one file; each text part on its own.
MAX_UNPACKED = 256 * _MB
MAX_PART = 64 * _MB


def open_zip(data: bytes, what: str) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ExtractionError(f"cannot open {what} (damaged, or not a {what} file): {exc}") from exc


def check_unpacked(infos: Iterable[zipfile.ZipInfo], what: str, limit: int = MAX_UNPACKED) -> None:
    total = sum(info.file_size for info in infos)
    if total > limit:
        raise ExtractionError(
            f"{what} would unpack to {total / _MB:,.0f} MB, over the {limit / _MB:.0f} MB limit (a zip bomb?)"
        )


_DC = "{http://purl.org/dc/elements/1.1/}"


def core_properties(archive: zipfile.ZipFile) -> tuple[str, str]:
    """(title, author) from an Office file's docProps/core.xml; "" where it says nothing."""
    try:
        info = archive.getinfo("docProps/core.xml")
    except KeyError:
        return "", ""
    if info.file_size > _MB:
        return "", ""
    try:
        root = lxml.etree.fromstring(archive.read(info), parser=lxml.etree.XMLParser(resolve_entities=False))
    except (lxml.etree.LxmlError, zipfile.BadZipFile, OSError, ValueError):
        return "", ""  # damaged properties do not make the document unreadable

    def field(name: str) -> str:
        node = root.find(f"{_DC}{name}")
        return " ".join((node.text or "").split()) if node is not None else ""

    return field("title"), field("creator")
