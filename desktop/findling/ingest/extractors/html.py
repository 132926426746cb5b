"""HTML to text with lxml: scripts and styles dropped, headings kept as Markdown headings
so the chunker can break at them and the title rule can find them."""

from __future__ import annotations

import codecs
import re

import lxml.etree
import lxml.html

from findling.errors import ExtractionError
from findling.ingest.extractors.text import decode

_DECLARED = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)|<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""",
                       re.IGNORECASE)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def _html_text(data: bytes) -> str:
    """Bytes to text: the charset the page declares, else UTF-8 or detection. (lxml alone
    reads undeclared bytes as Latin-1, turning a UTF-8 "°" into "Â°".)"""
    match = _DECLARED.search(data[:4096])
    if match:
        name = (match.group(1) or match.group(2)).decode("ascii", "replace")
        try:
            codecs.lookup(name)
            return data.decode(name, errors="replace")
        except LookupError:
            pass
    return decode(data)

_DROP = {"script", "style", "noscript", "template", "svg", "head", "nav", "iframe", "object"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = {
    "p", "div", "section", "article", "header", "footer", "main", "aside", "blockquote",
    "pre", "ul", "ol", "li", "dl", "dt", "dd", "table", "tr", "br", "hr", "figure",
    "figcaption", "form", "fieldset", "address", "details", "summary", "body",
}


def _walk(node: lxml.html.HtmlElement, out: list[str]) -> None:
    tag = node.tag if isinstance(node.tag, str) else ""
    tag = tag.lower().rsplit("}", 1)[-1]
    if tag in _DROP:
        if node.tail:
            out.append(node.tail)
        return
    level = _HEADINGS.get(tag)
    if level:
        heading = " ".join(node.text_content().split())
        if heading:
            out.append(f"\n\n{'#' * level} {heading}\n\n")
    else:
        block = tag in _BLOCKS
        line = tag in ("li", "br", "tr", "dt", "dd")
        if block:
            out.append("\n" if line else "\n\n")
        if node.text and isinstance(node.tag, str):
            out.append(node.text)
        for child in node:
            _walk(child, out)
        if tag in ("td", "th"):
            out.append("\t")
        if block and not line:
            out.append("\n")
    if node.tail:
        out.append(node.tail)


def _tidy(text: str) -> str:
    lines = [" ".join(line.split()) for line in text.split("\n")]
    tidy: list[str] = []
    blank = 0
    for line in lines:
        if line:
            if blank and tidy:
                tidy.append("")
            tidy.append(line)
            blank = 0
        else:
            blank += 1
    return "\n".join(tidy)


def html_to_text(data: bytes | str) -> tuple[str, str]:
    """Returns (text, title). Title: <title>, else the first <h1>."""
    if not (data.strip() if isinstance(data, str) else data.strip()):
        return "", ""
    text = data if isinstance(data, str) else _html_text(data)
    # lxml refuses str input that carries an XML encoding declaration
    text = _XML_DECLARATION.sub("", text, count=1)
    if not text.strip():
        return "", ""
    try:
        root = lxml.html.document_fromstring(text)
    except (lxml.etree.ParserError, ValueError) as exc:
        raise ExtractionError(f"cannot parse HTML: {exc}") from exc
    title = ""
    title_el = root.find(".//title")
    if title_el is not None:
        title = " ".join(title_el.text_content().split())
    if not title:
        h1 = root.find(".//h1")
        if h1 is not None:
            title = " ".join(h1.text_content().split())
    out: list[str] = []
    body = root.find("body")
    _walk(body if body is not None else root, out)
    return _tidy("".join(out)), title
