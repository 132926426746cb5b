"""OCR inside the extraction workers: a picture's or a scanned page's words, through the OCR
model (models/ocr.py), within a time budget per file so that a 300-page scan cannot hold a
worker past its watchdog: pages after the budget are counted, not read."""

from __future__ import annotations

import io
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from findling.allocator import return_freed_memory
from findling.errors import ExtractionError

# Larger pictures are not read (a decompression bomb, or a poster): Pillow's own guard is 179 MP.
MAX_PIXELS = 60_000_000
# Sides beyond this are scaled down before reading: the detector works at 2,000 pixels anyway,
# and a 10,000-pixel scan held as floats would take a worker's memory.
MAX_SIDE = 4096
PDF_DPI = 150  # scanned pages are rendered at this resolution: body text is 20+ pixels high
MIN_DPI = 36  # a page too large to render at this within MAX_SIDE is skipped: its text would be specks
OCR_SECONDS = 20.0  # OCR's budget for one file: about 8 scanned pages on one core

_readers: dict[tuple[str, str], Any] = {}  # one TextReader per worker process, made on first use


def _reader(models: tuple[str, str]) -> Any:
    if models not in _readers:
        from findling.models.ocr import TextReader

        _readers[models] = TextReader(Path(models[0]), Path(models[1]), provider="cpu", threads=1)
    return _readers[models]


@dataclass
class PageReader:
    """Reads pages until the deadline; `read` is given an RGB picture, says its text."""

    models: tuple[str, str]
    seconds: float
    pages: int = 0  # whose words OCR read
    left_out: int = 0  # not read: the time budget was spent
    too_large: list[str] = field(default_factory=list)  # pages or pictures skipped for their size
    _deadline: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.seconds

    def has_time(self) -> bool:
        """Whether the budget allows one more page; counted as left out when not. Asked before a
        page is rendered: rendering 100 blank A0 pages took longer than the file's whole time."""
        if time.monotonic() > self._deadline:
            self.left_out += 1
            return False
        return True

    def skip(self, what: str) -> None:
        self.too_large.append(what)

    def read(self, rgb: np.ndarray) -> str | None:
        """The page's lines, or None when the budget is spent."""
        if time.monotonic() > self._deadline:
            self.left_out += 1
            return None
        try:
            text = "\n".join(line.text for line in _reader(self.models).read(rgb))
        finally:
            return_freed_memory()
        self.pages += bool(text)
        return text

    def note(self) -> tuple[str, ...]:
        notes = []
        if self.left_out:
            notes.append(
                f"{self.left_out} scanned pages were not read: OCR's {self.seconds:g} s budget for one file was spent"
            )
        if self.too_large:
            shown = ", ".join(self.too_large[:5]) + (
                f" and {len(self.too_large) - 5} more" if len(self.too_large) > 5 else ""
            )
            notes.append(f"too large to read by OCR: {shown}")
        return tuple(notes)


def decode_picture(data: bytes) -> np.ndarray:
    """An RGB array of a PNG, JPEG, TIFF, WebP, GIF or BMP (the first frame), at most MAX_SIDE
    pixels a side; a picture too large or damaged raises ExtractionError."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            if width * height > MAX_PIXELS:
                raise ExtractionError(
                    f"picture of {width}×{height} pixels: over {MAX_PIXELS // 1_000_000} MP, its text is not read"
                )
            image.draft("RGB", (MAX_SIDE, MAX_SIDE))  # JPEG decodes at a smaller scale directly
            if max(image.size) > MAX_SIDE:
                image.thumbnail((MAX_SIDE, MAX_SIDE))
            if image.mode in ("RGBA", "LA", "P", "PA"):  # transparent pixels read as white paper
                paper = Image.new("RGBA", image.size, "white")
                paper.alpha_composite(image.convert("RGBA"))
                return np.asarray(paper.convert("RGB"))
            return np.asarray(image.convert("RGB"))
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError, SyntaxError) as exc:
        raise ExtractionError(f"cannot decode the picture: {exc}") from exc
