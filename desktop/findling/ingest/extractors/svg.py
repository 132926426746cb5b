"""An SVG picture's words: its title and description, the text it draws (a diagram's labels, a
chart's axes) and its metadata's title, never its markup. Read as plain text, the kernel's 74 SVG
diagrams made 995 passages of path coordinates."""

from __future__ import annotations

import lxml.etree

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed

_SVG = "{http://www.w3.org/2000/svg}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_WORDS = {f"{_SVG}title", f"{_SVG}desc", f"{_SVG}text", "title", "desc", "text", _DC_TITLE}


def extract_svg(data: bytes) -> Parsed:
    """The words of an SVG file (see the module's docstring); its title is its own `<title>`, else
    its metadata's. Entities are not resolved and nothing is fetched: a picture cannot read files."""
    parser = lxml.etree.XMLParser(resolve_entities=False, no_network=True, recover=True, huge_tree=False)
    try:
        root = lxml.etree.fromstring(data, parser=parser)
    except (lxml.etree.LxmlError, ValueError) as exc:
        raise ExtractionError(f"not a readable SVG picture: {exc}") from None
    if root is None:
        raise ExtractionError("not a readable SVG picture: no markup")
    lines: list[str] = []
    title = ""
    for element in root.iter():
        if not isinstance(element.tag, str) or element.tag not in _WORDS:
            continue
        if any(isinstance(a.tag, str) and a.tag in _WORDS for a in element.iterancestors()):
            continue  # a <tspan> inside a <text>, a <title> inside a <text>: read with it
        words = " ".join("".join(element.itertext()).split())
        if not words:
            continue
        if not title and element.tag in (f"{_SVG}title", "title", _DC_TITLE):
            title = words
        lines.append(words)
    return Parsed("\n".join(dict.fromkeys(lines)), title)
