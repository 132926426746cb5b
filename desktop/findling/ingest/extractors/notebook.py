"""Jupyter notebooks: the markdown cells as they read, the code cells as fenced code, and the
text their outputs printed. Images and other binary outputs (base64 in the JSON) never reach
the index."""

from __future__ import annotations

import json

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed

_TEXT_OUTPUTS = ("text/markdown", "text/plain")  # an output's richest text form, in that order
_MAX_OUTPUT = 64 * 1024  # a cell printing megabytes of numbers is kept in part


def _source(value: object) -> str:
    if isinstance(value, list):
        return "".join(str(piece) for piece in value)
    return str(value or "")


def _output_text(output: dict) -> str:
    if output.get("output_type") == "stream":
        return _source(output.get("text"))[:_MAX_OUTPUT]
    if output.get("output_type") == "error":
        return f"{output.get('ename', '')}: {output.get('evalue', '')}"
    data = output.get("data") or {}
    if not isinstance(data, dict):
        return ""
    for mime in _TEXT_OUTPUTS:
        if mime in data:
            return _source(data[mime])[:_MAX_OUTPUT]
    return ""  # image/png, application/…: base64, not words


def extract_notebook(data: bytes) -> Parsed:
    try:
        notebook = json.loads(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ExtractionError(f"cannot read the notebook (damaged JSON): {exc}") from exc
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise ExtractionError("cannot read the notebook: it has no cells (not a Jupyter notebook?)")
    language = ((notebook.get("metadata") or {}).get("language_info") or {}).get("name", "")
    pieces: list[str] = []
    title = ""
    for cell in cells:
        if not isinstance(cell, dict):
            continue
        source = _source(cell.get("source")).strip()
        if cell.get("cell_type") == "markdown":
            if not title:
                title = next((line.lstrip("#").strip() for line in source.splitlines() if line.startswith("#")), "")
            pieces.append(source)
        elif cell.get("cell_type") == "code":
            if source:
                pieces.append(f"```{language}\n{source}\n```")
            printed = [text.strip() for text in map(_output_text, cell.get("outputs") or []) if text.strip()]
            pieces.extend(printed)
        elif source:
            pieces.append(source)
    return Parsed("\n\n".join(p for p in pieces if p), title)
