"""HTML to text with lxml: scripts and styles dropped, headings kept as Markdown headings
so the chunker can break at them and the title rule can find them."""

from __future__ import annotations

import codecs
import html
import re

import lxml.etree
import lxml.html

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed
from findling.ingest.extractors.text import decode

_DECLARED = re.compile(
    rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)|<\?xml[^>]+encoding\s*=\s*["']([A-Za-z0-9_.:-]+)""",
    re.IGNORECASE,
)
_XML_DECLARATION = re.compile(r"^\s*<\?xml[^>]*\?>")


def without_xml_declaration(text: str) -> str:
    """XHTML's `<?xml … encoding=…?>` removed: lxml refuses str input that declares an encoding."""
    return _XML_DECLARATION.sub("", text, count=1)


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
# Elements that never hold a page's readable content, whatever their role or id says.
_NOT_CONTENT = _DROP | {
    "form",
    "math",
    "audio",
    "video",
    "canvas",
    "embed",
    "frame",
    "frameset",
    "applet",
    "input",
    "button",
    "select",
    "textarea",
    "link",
    "meta",
    "base",
    "title",
    "html",
}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_BLOCKS = {
    "p",
    "div",
    "section",
    "article",
    "header",
    "footer",
    "main",
    "aside",
    "blockquote",
    "pre",
    "ul",
    "ol",
    "li",
    "dl",
    "dt",
    "dd",
    "table",
    "tr",
    "br",
    "hr",
    "figure",
    "figcaption",
    "form",
    "fieldset",
    "address",
    "details",
    "summary",
    "body",
}
_LINES = {"li", "br", "tr", "dt", "dd"}
# Inline formatting adds nothing to the text but nesting: legacy pages that never close
# their <font> tags nest thousands deep, past libxml2's depth limit, which drops the text
# below it. Removed before parsing; `[^<>]` stops at the next bracket, so this is linear.
_INLINE = re.compile(
    r"</?(?:font|b|i|u|s|em|strong|span|small|big|tt|strike|sub|sup|a|abbr|cite|kbd|mark|q|samp|var|ins|del|"
    r"bdi|bdo|nobr|wbr|center|blink)\b[^<>]*>",
    re.IGNORECASE,
)
# Permalink anchors ("¶" after every Sphinx heading and signature) are links, which the
# line above unwraps; removed first, mark and all.
_PERMALINK = re.compile(r"""<a\b[^<>]*class=["'][^"']*\bheaderlink\b[^<>]*>[^<]*</a>""", re.IGNORECASE)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)[^<>]*>")


def _walk(root: lxml.html.HtmlElement, out: list[str]) -> None:  # noqa: C901 - one branch per kind of HTML node, in one walk for speed
    """Depth-first text with block breaks; a stack, not recursion, since pages nest deeper
    than Python's recursion limit."""
    stack: list[tuple[lxml.html.HtmlElement, bool]] = [(root, False)]
    while stack:
        node, closing = stack.pop()
        tag = node.tag.lower().rsplit("}", 1)[-1] if isinstance(node.tag, str) else ""
        if closing:
            if tag in ("td", "th"):
                out.append("\t")
            if tag in _BLOCKS and tag not in _LINES:
                out.append("\n")
            if node.tail:
                out.append(node.tail)
            continue
        if tag in _DROP:
            if node.tail:
                out.append(node.tail)
            continue
        level = _HEADINGS.get(tag)
        if level:
            heading = " ".join(node.text_content().split())
            if heading:
                out.append(f"\n\n{'#' * level} {heading}\n\n")
            if node.tail:
                out.append(node.tail)
            continue
        if tag in _BLOCKS:
            out.append("\n" if tag in _LINES else "\n\n")
        if node.text and isinstance(node.tag, str):
            out.append(node.text)
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(node))


# Where documentation generators and ordinary pages put the page's own content, most
# specific first: HTML5 <main> and role=main (Sphinx, MkDocs, Javadoc 9+, most sites), then
# Sphinx's div.body, Doxygen's div.contents, older Javadoc's div.contentContainer, and the
# usual ids. An article counts only when it is the page's one article.
_MAIN_CLASSES = ("body", "contents", "contentContainer", "rst-content", "md-content")
_MAIN_IDS = ("main-content", "maincontent", "content", "main")
# Navigation, sidebars, breadcrumbs, "previous/next" blocks and permalink marks, inside or
# outside the main content: the same on every page, so they only dilute its words.
_CHROME_CLASSES = (
    "related",
    "sphinxsidebar",
    "navheader",
    "navfooter",
    "navpath",
    "breadcrumb",
    "breadcrumbs",
    "wy-breadcrumbs",
    "rst-footer-buttons",
    "md-sidebar",
    "md-header",
    "md-footer",
    "footer",
    "subNav",
    "topNav",
    "bottomNav",
    "skip-link",
    "visually-hidden",
    "sr-only",
)
_CHROME_ROLES = ("navigation", "search", "banner", "contentinfo")
_MIN_MAIN_CHARS = 200
_MIN_MAIN_SHARE = 0.4


def _classes(el: lxml.html.HtmlElement) -> set[str]:
    return set((el.get("class") or "").split())


def _text_length(el: lxml.html.HtmlElement) -> int:
    return len("".join(el.itertext()).strip())


def _drop_chrome(root: lxml.html.HtmlElement) -> None:
    chrome = set(_CHROME_CLASSES)
    for el in list(root.iter()):
        if not isinstance(el.tag, str) or el is root or el.getparent() is None:
            continue
        if (
            el.get("role") in _CHROME_ROLES
            or _classes(el) & chrome
            or (el.tag in ("header", "footer") and el.getparent().tag == "body")
        ):
            el.drop_tree()


def _main_content(body: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """The element holding the page's own content, or the body when no convention finds one
    that holds enough of the page's text (a <main> left empty for a script to fill)."""
    articles = body.findall(".//article")
    candidates = [
        *body.iter("main"),
        *body.xpath(".//*[@role='main']"),
        *(articles if len(articles) == 1 else []),
        *(el for name in _MAIN_CLASSES for el in body.find_class(name) if el.tag == "div"),
        *(el for name in _MAIN_IDS for el in body.xpath(f".//*[@id='{name}']")),
    ]
    whole = _text_length(body)
    for el in candidates:
        if not isinstance(el.tag, str) or el.tag.lower() in _NOT_CONTENT:
            continue  # role=main on a style sheet, a form or a template is no page content
        length = _text_length(el)
        if length >= _MIN_MAIN_CHARS or length >= _MIN_MAIN_SHARE * whole > 0:
            return el
    return body


def _flat_text(text: str) -> str:
    """Every word of a page without its structure: tags removed, scripts and styles skipped.
    For pages too deep for the parser."""
    out: list[str] = []
    pos = 0
    skipping = ""
    for match in _TAG.finditer(text):
        if not skipping:
            out.append(text[pos : match.start()])
        closing, name = match.group(1), match.group(2).lower()
        if skipping:
            if closing and name == skipping:
                skipping = ""
        elif not closing and name in ("script", "style"):
            skipping = name
        elif name in _BLOCKS or name in _HEADINGS:
            out.append("\n")
        pos = match.end()
    if not skipping:
        out.append(text[pos:])
    return html.unescape("".join(out))


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


def page_content(root: lxml.html.HtmlElement) -> lxml.html.HtmlElement:
    """The page's own content without its chrome (navigation, sidebars, header and footer):
    what is indexed, and what the preview shows formatted. Changes `root` in place."""
    body = root.find("body")
    if body is None:
        body = root
    _drop_chrome(body)
    return _main_content(body)


_ANCHOR = re.compile(r"<(/?)a\b[^<>]*>", re.IGNORECASE)
_ANY_TAG = re.compile(r"<[^<>]*>")
_SPACE = re.compile(r"\s+")


def _visible(html_part: str) -> int:
    return len(_SPACE.sub("", _ANY_TAG.sub("", html_part)))


def link_share(page: str) -> float:
    """The share of a page's visible characters inside links: an index, a table of contents or
    a section's list of pages is nearly all links (.9 and more), a page of content a tenth or
    so. The whole page, chrome included, in one linear pass (an unclosed link ends where the
    next begins, as browsers read it)."""
    total = _visible(page)
    if total < 200:  # too little text to call it a list of links
        return 0.0
    linked, start = 0, -1
    for tag in _ANCHOR.finditer(page):
        if start >= 0:
            linked += _visible(page[start : tag.start()])
        start = -1 if tag.group(1) else tag.end()
    return min(1.0, linked / total)


# What documentation generators mark as an index, a glossary or a table of contents (Sphinx's
# glossary, indextable and toctree-wrapper; DocBook's glossary, glosslist, index and toc): their
# entries send a reader to other pages or name a term in a line, and answer no question.
_REFERENCE_CLASSES = ("glossary", "glosslist", "index", "indextable", "toc", "toctree-wrapper")
# A page naming none of them is not searched for them: an XPath over every element's class
# costs as much as parsing the page.
_REFERENCE_CLASS_NAMED = re.compile(
    r"""class=["']?(?:[^"'<>\s]+\s+)*(?:""" + "|".join(_REFERENCE_CLASSES) + r""")["'\s>]"""
)
_CLASSED = lxml.etree.XPath(
    "descendant::*[contains(@class, 'gloss') or contains(@class, 'index') or contains(@class, 'toc')]"
)
# List items and table rows whose first text a reader sees lies inside a link (an element's
# text nodes include its descendants' tails, in reading order).
_LINK_LED = lxml.etree.XPath(
    "descendant::*[self::li or self::tr][descendant::text()[normalize-space()][1]/ancestor::a]"
)
_ENTRY_CHARS = 300
_CHARS = lxml.etree.XPath("string-length(translate(string(.), ' \t\n\r\u00a0', ''))")


def entry_share(page: str) -> float:
    """The share of a page's visible characters in entries that point elsewhere: list items and
    table rows that lead with a link (a module index, an API index, a list of pages with a line
    on each) and what a generator marks as an index, a glossary or a table of contents. Such a
    page holds every word of many questions and answers none; where its entries carry a line of
    description beside the link, the share of text inside links says too little (the Python
    docs' module index: .19 in links, .97 in entries). The page parsed on its own, chrome
    included as link_share reads it: the text's parse has its links unwrapped."""
    try:
        root = lxml.etree.fromstring(page, parser=lxml.etree.HTMLParser(huge_tree=True))
    except (lxml.etree.ParserError, ValueError):
        return 0.0
    if root is None:
        return 0.0
    lxml.etree.strip_elements(root, "script", "style", "template", lxml.etree.Comment, with_tail=False)
    body = root.find("body")
    if body is None:
        body = root
    total = int(_CHARS(body))
    if total < 200:  # too little text to call it a list, as link_share
        return 0.0
    # an entry is a line or two: a layout table's one row around a whole page is no entry,
    # though its first text may be a link home (its own rows and items may still be)
    chosen = {el for el in _LINK_LED(body) if int(_CHARS(el)) <= _ENTRY_CHARS}
    if _REFERENCE_CLASS_NAMED.search(page):
        named = set(_REFERENCE_CLASSES)
        chosen.update(el for el in _CLASSED(body) if named.intersection((el.get("class") or "").split()))
    inside = sum(int(_CHARS(el)) for el in chosen if not any(up in chosen for up in el.iterancestors()))
    return min(1.0, inside / total)


# A markup line that sends a reader elsewhere: an attribute naming another file or address.
_LINK_ATTRIBUTE = re.compile(r"""\b(?:href|link|src)\s*=\s*["']""", re.IGNORECASE)
_MARKUP_START = re.compile(r"\s*<")


def markup_link_share(text: str) -> float:
    """For a file of markup read as text (XML, a Devhelp or Qt Help index, a sitemap), the share
    of its visible characters on lines that link elsewhere: an index of every function of a
    manual is a line per function, each with its link, and answers no question though it holds
    every name. Text that does not begin with a tag has none."""
    if not _MARKUP_START.match(text):  # every text file is asked: no copy of its text for it
        return 0.0
    total = len(_SPACE.sub("", text))
    if total < 200:  # too little text to call it a list of links, as link_share
        return 0.0
    linked = sum(len(_SPACE.sub("", line)) for line in text.splitlines() if _LINK_ATTRIBUTE.search(line))
    return min(1.0, linked / total)


def html_to_text(data: bytes | str) -> Parsed:
    """Text and title (<title>, else the first <h1>) of a page, with a note when a part of
    it could be read only without its structure."""
    if not (data.strip() if isinstance(data, str) else data.strip()):
        return Parsed("", "")
    text = data if isinstance(data, str) else _html_text(data)
    text = without_xml_declaration(text)
    links = max(link_share(text), entry_share(text))  # entries pointing elsewhere count as links
    text = _INLINE.sub("", _PERMALINK.sub("", text))
    if not text.strip():
        return Parsed("", "")
    # huge_tree: text nodes over 10 MB (a long run of spaces) and nesting up to 2048 levels,
    # which the default parser silently cuts off.
    parser = lxml.html.HTMLParser(huge_tree=True)
    try:
        root = lxml.html.document_fromstring(text, parser=parser)
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
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        return Parsed(
            _tidy(_flat_text(text)),
            title,
            ("the page nests too deeply; its text was read without headings",),
            link_share=links,
        )
    main = page_content(root)
    body = root.find("body")
    if body is None:
        body = root
    out: list[str] = []
    if main is not body and main.find(".//h1") is None:
        h1 = body.find(".//h1")  # a page heading kept outside the content block (Javadoc, Doxygen)
        if h1 is not None and " ".join(h1.text_content().split()):
            out.append(f"# {' '.join(h1.text_content().split())}\n\n")
    _walk(main, out)
    return Parsed(_tidy("".join(out)), title, link_share=links)
