"""Property tests: random bytes and names through every extractor and the whole prepare
step, random strings through the query parser. Nothing may escape but the documented
outcomes (an ExtractionError or NotText for a file, a QuerySyntaxError for a query)."""

from __future__ import annotations

import io
import os
import zipfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from findling.errors import ExtractionError, QuerySyntaxError
from findling.ingest.extract import NotText, extract
from findling.ingest.prepare import Binary, PrepareTask, Unchanged, Vanished, prepare
from findling.pathnames import display_path, printable
from findling.records import DocumentRow
from findling.search.query_parser import parse_query
from findling.text.analyzer import term_counts

_KINDS = ["a.txt", "a.md", "a.rst", "a.py", "a.html", "a.pdf", "a.docx", "a.epub", "noext", "a.csv"]
_FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _zip_with(member: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(member, data)
    return buf.getvalue()


@_FAST
@given(name=st.sampled_from(_KINDS), data=st.binary(max_size=4096))
def test_random_bytes_never_escape_an_extractor(name, data):
    try:
        extracted = extract(name, data)
    except (ExtractionError, NotText):
        return
    assert isinstance(extracted.text, str) and isinstance(extracted.title, str)
    extracted.text.encode("utf-8")  # storable: no lone surrogates


@_FAST
@given(
    name=st.sampled_from(["a.docx", "a.epub"]),
    member=st.sampled_from(
        [
            "word/document.xml",
            "word/styles.xml",
            "docProps/core.xml",
            "META-INF/container.xml",
            "OEBPS/content.opf",
            "mimetype",
        ]
    ),
    data=st.binary(max_size=2048) | st.text(max_size=2048).map(str.encode),
)
def test_random_zip_parts_never_escape(name, member, data):
    try:
        extract(name, _zip_with(member, data))
    except (ExtractionError, NotText):
        pass


@_FAST
@given(text=st.text(max_size=3000))
def test_random_markup_never_escapes_html_or_markdown(text):
    for name in ("a.html", "a.md", "a.rst"):
        try:
            extract(name, text.encode("utf-8", "surrogatepass"))
        except (ExtractionError, NotText):
            pass


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    name=st.binary(min_size=1, max_size=40).filter(
        lambda b: b"/" not in b and b"\x00" not in b and b not in (b".", b"..")
    ),
    data=st.binary(max_size=2048),
)
def test_random_names_and_bytes_through_prepare(tmp_path, name, data):
    path = os.path.join(os.fsdecode(bytes(tmp_path)), os.fsdecode(name))
    with open(path, "wb") as handle:
        handle.write(data)
    try:
        result = prepare(PrepareTask(path))
    finally:
        os.unlink(path)
    assert isinstance(result, (DocumentRow, Unchanged, Binary, Vanished))
    if isinstance(result, DocumentRow):
        result.title.encode("utf-8")
        display_path(result.path).encode("utf-8")


@settings(max_examples=200, deadline=None)
@given(query=st.text(max_size=300))
def test_random_queries_parse_or_say_why(query):
    try:
        parsed = parse_query(query)
    except QuerySyntaxError:
        return
    for word in parsed.text.split():
        term_counts(word, "en")


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=300))
def test_printable_has_no_control_characters(text):
    shown = printable(text)
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in shown)
    shown.encode("utf-8")
