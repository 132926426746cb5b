"""Rich Text Format through striprtf (a small, pure-Python reader): the text without its
control words, fonts and embedded pictures."""

from __future__ import annotations

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed


def extract_rtf(data: bytes) -> Parsed:
    from striprtf.striprtf import rtf_to_text

    if not data.lstrip().startswith(b"{\\rtf"):
        raise ExtractionError("cannot read RTF: it does not start with {\\rtf (not an RTF file?)")
    try:
        text = rtf_to_text(data.decode("latin-1"), errors="replace")  # RTF is 7-bit: escapes carry the rest
    except (ValueError, IndexError, RecursionError) as exc:
        raise ExtractionError(f"cannot read RTF: {exc}") from exc
    return Parsed(text, "")
