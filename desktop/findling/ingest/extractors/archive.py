"""Zip containers (DOCX, EPUB) checked by their directory before anything is unpacked:
a few megabytes can expand to gigabytes (a zip bomb), and the parsers read whole parts
into memory."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable

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
