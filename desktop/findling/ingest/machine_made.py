"""Text that machines wrote for machines: searchable by its words, embedded by its first window
only. Register headers, firmware tables, minified code and logs are most of a large source
tree's bytes (the AMD GPU headers of Linux: 373 files, 373 MB, a million windows) and nobody
asks for them by meaning; their vectors would cost hours and crowd the meaning lane.

Each kind has a reason that `status` and the window say. Pure functions of the text."""

from __future__ import annotations

import re

# reason -> what `status` calls the documents held back for it
REASONS: dict[str, str] = {
    "generated": "say at their top that a program generated them",
    "numbers": "are mostly numeric constants (register definitions, tables, firmware)",
    "minified": "are minified code or one-line data",
    "markup": "are picture markup (SVG)",
    "log": "are logs",
    "data": "are large data files (JSON, CSV)",
}

_GENERATED = re.compile(
    r"(auto(matically)?[- ]?generated|@generated|do not edit|this file (is|was|has been) (automatically )?generated"
    r"|generated (automatically|file)|machine[- ]generated)",
    re.IGNORECASE,
)
# a line that is a number's definition or a row of numbers: `#define mmREG 0x1a2b`, `0x00, 0xff, 0x3c,`
_NUMBER_LINE = re.compile(
    r"^\s*(#\s*define\s+\w+\s+\(?\s*-?(0x[0-9a-f]+|\d+)[ul]*\s*\)?\s*(/[/*].*)?"
    r"|(?:(?:0x[0-9a-f]+|\d+)[ul]*\s*(?:,\s*|$))+(/[/*].*)?)$",
    re.IGNORECASE,
)
_NUMBERS_FROM_LINES = 200  # a header of a few dozen constants is code a person wrote
_NUMBERS_SHARE = 0.6
_NUMBERS_SAMPLE = 1_000  # lines looked at
_MINIFIED_CHARS = 50_000
_MINIFIED_LINE = 2_000
_DATA_CHARS = 20_000
_OPENING = 1_000  # where a generator says what it is


def machine_made(ext: str, text: str, prose: bool) -> str:
    """The reason (a key of REASONS) this document's meaning is not worth more than one window,
    or "" for text a person wrote. `prose`: a page, not source code or data (prose that speaks of
    generated files is not one)."""
    ext = ext.lower()
    if ext == "svg":
        return "markup"
    if ext == "log":
        return "log"
    lines = text.count("\n") + 1
    if len(text) > _MINIFIED_CHARS and len(text) / lines > _MINIFIED_LINE:
        return "minified"
    if ext in ("json", "csv", "tsv", "ndjson", "jsonl") and len(text) > _DATA_CHARS:
        return "data"
    if not prose and _GENERATED.search(text[:_OPENING]):
        return "generated"
    if lines >= _NUMBERS_FROM_LINES and text.count("0x") + text.count("#define") >= lines * _NUMBERS_SHARE / 2:
        filled = [line for line in text.splitlines() if line.strip()]
        sample = filled[:: max(1, len(filled) // _NUMBERS_SAMPLE)]  # spread over the file: a giant costs no more
        numbers = sum(1 for line in sample if _NUMBER_LINE.match(line))
        if sample and numbers / len(sample) >= _NUMBERS_SHARE:
            return "numbers"
    return ""
