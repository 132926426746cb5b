"""The preview's formatted view of Markdown and HTML files: rendered by Qt's rich text (no
script engine), with nothing loaded from anywhere and no link followed; the query's matched
words highlighted and walked like the plain view's.

Nothing loaded means Qt never sees an address: Qt's rich text opens an image straight from
disk when its document hands back no data (an `<img src=/dev/zero>` or a FIFO would stall or
kill the window, `file://host/share` would reach for a network share), and `@import` in a
style sheet does the same. So Markdown is rendered to HTML here, every page goes through one
sanitizer that removes images, style sheets and URLs, and the document still answers any
request with a blank image it made itself."""

from __future__ import annotations

import re
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from lxml import etree as lxml_etree
from lxml import html as lxml_html
from markdown_it import MarkdownIt
from PySide6.QtCore import QByteArray, Signal
from PySide6.QtGui import QImage, QTextCursor, QTextDocument
from PySide6.QtWidgets import QTextBrowser

from findling.file_kinds import KINDS
from findling.gui.hits import hit_selections, span_cursor, utf16_positions
from findling.ingest.extractors.html import page_content, without_xml_declaration
from findling.pathnames import container_file
from findling.records import Highlight

# rendered as they read: the file-kind table's Markdown and web pages
FORMATTED = {ext: kind.reader for ext, kind in KINDS.items() if kind.reader in ("markdown", "html")}
MAX_FORMATTED_BYTES = 2 * 1024 * 1024  # bigger files stay plain: rich text layout is slow

# Elements that run code, embed other content, submit data or pull resources in: dropped
# with their contents.
_DROP = (
    "script",
    "noscript",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "form",
    "input",
    "button",
    "textarea",
    "select",
    "link",
    "meta",
    "base",
    "svg",
    "math",
    "style",
    "template",
    "audio",
    "video",
    "canvas",
)
_DROP_ATTRS = re.compile(
    r"^(on.*|src|srcset|href|style|background|action|formaction|poster|data|xlink:href|xmlns.*)$", re.IGNORECASE
)


def sanitize_html(raw: str, whole: bool = False) -> str:
    """The page's own content (as indexed: navigation and sidebars left out; `whole` keeps
    everything, for rendered Markdown) with nothing active left: no scripts or embedded
    content, no style sheets, no event handlers, no URLs (links keep their text; images become
    their alt text)."""
    raw = without_xml_declaration(raw)
    if not raw.strip():
        return ""
    document = lxml_html.document_fromstring(raw)
    root = document if whole else page_content(document)
    if not isinstance(root.tag, str) or root.tag.lower() in _DROP:
        return ""
    for element in root.xpath("|".join(f"//{tag}" for tag in _DROP)):
        element.drop_tree()
    for permalink in root.xpath("//a[contains(concat(' ', normalize-space(@class), ' '), ' headerlink ')]"):
        permalink.drop_tree()  # Sphinx's "¶" after every heading: a link, and nothing to read
    for image in root.xpath("//img"):
        alt = image.get("alt")
        if alt:
            label = lxml_html.Element("span")
            label.text = f"[{alt}]"
            image.addprevious(label)
        image.drop_tree()
    for element in root.iter():
        if isinstance(element.tag, str):
            for name in [a for a in element.attrib if _DROP_ATTRS.match(a)]:
                del element.attrib[name]
    return str(lxml_html.tostring(root, encoding="unicode"))


def passage_pattern(snippet: str, highlights: Sequence[Highlight], words: int = 5) -> str:
    """A pattern that finds a result's snippet in the rendered page: its words from the
    first match on, whatever markup or spacing the rendering puts between them."""
    if not highlights:
        return ""
    tokens = re.findall(r"\w+", snippet[highlights[0].start :])[:words]
    return r"\b" + r"\W+".join(re.escape(t) for t in tokens) if tokens else ""


_MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable("table")


def formatted_source(path: str, ext: str, indexed: str | None = None) -> tuple[str, str] | None:
    """(kind, sanitized HTML to render) for a Markdown or HTML file, read from disk; None for
    other kinds, files too big to lay out quickly, or files no longer readable. Only regular
    files are opened: a FIFO or a device named like a page is never read. A Markdown document
    inside an archive renders from its `indexed` text, which is its source; a web page's is not."""
    kind = FORMATTED.get(ext.lower().lstrip("."))
    if kind is None:
        return None
    if container_file(path) != path:
        if kind != "markdown" or indexed is None or len(indexed) > MAX_FORMATTED_BYTES:
            return None
        return kind, sanitize_html(_MARKDOWN.render(indexed), whole=True)
    try:
        file = Path(path)
        info = file.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FORMATTED_BYTES:
            return None
        text = file.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    try:
        if kind == "markdown":
            return kind, sanitize_html(_MARKDOWN.render(text), whole=True)
        return kind, sanitize_html(text)
    except (lxml_etree.ParserError, ValueError):  # a page lxml cannot read shows as plain text
        return None


class InertDocument(QTextDocument):
    """A document that loads nothing: every resource is answered here, an image with a blank
    pixel (an empty answer would make Qt open the address itself)."""

    def loadResource(self, kind: int, name) -> object:  # noqa: N802 - Qt's name
        if kind == int(QTextDocument.ResourceType.ImageResource):
            blank = QImage(1, 1, QImage.Format.Format_ARGB32)
            blank.fill(0)
            return blank
        return QByteArray()


class FormattedView(QTextBrowser):
    hit_changed = Signal(int, int)

    def __init__(self) -> None:
        super().__init__()
        self.setDocument(InertDocument(self))
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)
        self._hits: list[tuple[int, int]] = []
        self.current = -1

    def loadResource(self, kind: int, name) -> object:  # noqa: N802 - Qt's name
        return self.document().loadResource(kind, name)  # the inert document's answer, never a file

    def show_source(self, kind: str, text: str, words: Iterable[str], passage: str = "") -> None:
        """`passage`: a pattern for the result's best passage (`passage_pattern`): the current
        match starts there, as in the plain view, rather than at the first match."""
        self.setHtml(text)  # sanitized HTML for both kinds (formatted_source)
        self._hits = self._find(words)
        self.current = self._first_in(passage) if self._hits else -1
        self._show()

    def _first_in(self, passage: str) -> int:
        if not passage:
            return 0
        # Python's search over the plain text, not QTextDocument.find: a passage runs on past a
        # heading, and Qt's regular expressions stop at the end of each block
        text = self.document().toPlainText()
        found = re.search(passage, text, re.IGNORECASE)
        if found is None:
            return 0
        at = utf16_positions(text)(found.start())
        return next((i for i, (start, _) in enumerate(self._hits) if start >= at), 0)

    def _find(self, words: Iterable[str]) -> list[tuple[int, int]]:
        found: set[tuple[int, int]] = set()
        flags = QTextDocument.FindFlag.FindWholeWords
        for word in {w for w in words if w.strip()}:
            cursor = QTextCursor(self.document())
            while True:
                cursor = self.document().find(word, cursor, flags)
                if cursor.isNull():
                    break
                found.add((cursor.selectionStart(), cursor.selectionEnd()))
        return sorted(found)

    @property
    def hit_count(self) -> int:
        return len(self._hits)

    def next_hit(self) -> None:
        self._step(1)

    def previous_hit(self) -> None:
        self._step(-1)

    def _step(self, delta: int) -> None:
        if self._hits:
            self.current = (self.current + delta) % len(self._hits)
            self._show()

    def _show(self) -> None:
        self.setExtraSelections(hit_selections(self.document(), self._hits, self.current))
        if self._hits:
            start = self._hits[self.current][0]
            self.setTextCursor(span_cursor(self.document(), start, start))
            self.ensureCursorVisible()
        self.hit_changed.emit(self.current + 1 if self._hits else 0, len(self._hits))
