"""Plain text, Markdown, reStructuredText and source code: encoding detection and titles."""

from __future__ import annotations

import codecs
import re

from charset_normalizer import from_bytes

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_DETECT_SAMPLE = 256 * 1024
# One line at a time, no nested quantifiers over the same characters: the trailing "#"s
# and spaces are stripped in Python (the old pattern backtracked cubically on long runs
# of spaces).
_MD_HEADING = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+([^\n]*)$", re.MULTILINE)
_ASCIIDOC_TITLE = re.compile(r"^=[ \t]+(\S.*)$")
MAX_TITLE = 120  # a longer first line is a sentence, not a title
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+<>:.])\1{2,}\s*$")


def has_bom(data: bytes) -> bool:
    return any(data.startswith(bom) for bom, _ in _BOMS)


def looks_binary(sample: bytes) -> bool:
    """NUL bytes or many control characters: an image, archive or executable. A NUL or two in
    text that is otherwise UTF-8 is text: Javadoc's page of CharUtils shows the NUL character
    itself, and the page failed as binary."""
    if not sample or has_bom(sample):
        return False
    if b"\x00" in sample and (sample.count(b"\x00") > 2 or not _utf8(sample)):
        return True
    controls = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13, 27))
    return controls > len(sample) * 0.10


def _utf8(sample: bytes) -> bool:
    """Whether the bytes are UTF-8, a character cut at the end of the sample allowed."""
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        return False
    return True


def decode(data: bytes) -> str:
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            return data.decode(encoding, errors="replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    western = _as_western(data)
    if western is not None:
        return western
    best = from_bytes(data[:_DETECT_SAMPLE]).best()
    if best is None or best.encoding is None:
        raise ExtractionError("cannot detect the text encoding")
    return data.decode(best.encoding, errors="replace")


_WESTERN_PUNCT = set("€‚„…†‡ˆ‰‹‘’“”•–—˜™›\u00a0¡¢£¤¥¦§¨©ª«¬\u00ad®¯°±²³´µ¶·¸¹º»¼½¾¿×÷")


def _as_western(data: bytes) -> str | None:
    """Windows-1252 text (most Western European legacy files), which statistical detectors
    often mistake for a Baltic or Central European code page on short samples. In real
    Western text an accented letter stands alone between ASCII letters; in another
    encoding read as 1252, non-ASCII characters come in runs."""
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:
        return None
    non_ascii = runs = 0
    previous = False
    for ch in text:
        if ord(ch) < 128:
            previous = False
            continue
        if not (ch.isalpha() or ch in _WESTERN_PUNCT):
            return None
        non_ascii += 1
        if previous:
            runs += 1
        previous = True
    if non_ascii and runs / non_ascii < 0.15:
        return text
    return None


def markdown_title(text: str) -> str:
    for match in _MD_HEADING.finditer(text[:20000]):
        title = match.group(1).strip().rstrip("#").strip()
        if title:
            return title
    return ""


def rst_title(text: str) -> str:
    lines = text[:20000].splitlines()
    for i in range(len(lines) - 1):
        line, under = lines[i].strip(), lines[i + 1].strip()
        if line and _RST_UNDERLINE.match(under) and len(under) >= len(line) and not _RST_UNDERLINE.match(line):
            return line
    return ""


def underlined_title(text: str) -> str:
    """A plain text's title when it opens as a document does in AsciiDoc, Setext or most
    README files: its first line underlined (`git-branch(1)` over `=============`), or an
    AsciiDoc title line (`= User Guide`). Git's manual pages in AsciiDoc were all titled by
    their file name."""
    lines = text[:2000].lstrip("\ufeff\n \t").splitlines()
    if not lines:
        return ""
    first = lines[0].strip()
    if len(first) > MAX_TITLE or _RST_UNDERLINE.match(first):
        return ""
    if (doc_title := _ASCIIDOC_TITLE.match(first)) is not None:
        return doc_title.group(1).strip()
    under = lines[1].strip() if len(lines) > 1 else ""
    if first and _RST_UNDERLINE.match(under) and under[0] in "=-~" and len(under) >= len(first) - 2:
        return first
    return ""


def extract_text(data: bytes, kind: str, mime: str) -> Parsed:
    text = decode(data).replace("\r\n", "\n").replace("\r", "\n")
    if kind == "markdown":
        title = underlined_title(text) or markdown_title(text)
    elif kind == "rst":
        title = rst_title(text)
    elif kind == "text":
        title = underlined_title(text)
    else:
        title = ""
    return Parsed(text, title)
