"""One table of file kinds that ingest, code symbols, the facets, the Type filter and the preview
read: they drifted apart (69 code extensions read as code, 26 with a grammar, 9 in the window's
Code filter; .mts and .hxx had a grammar but were read as plain text)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from findling.file_kinds import CATEGORIES, KINDS
from findling.ingest.formats import kind_of
from findling.search.facets import TYPE_GROUPS, type_group
from findling.text.code_languages import language_of
from tests.helpers import index_files


def test_every_reader_of_kinds_reads_the_one_table():
    from findling.gui.formatted import FORMATTED
    from findling.gui.preview import PreviewPane

    for ext, kind in KINDS.items():
        if kind.reader == "never":
            assert kind_of(f"notes/file.{ext}") is None and type_group(ext) == "Other", ext
            continue
        assert kind_of(f"notes/file.{ext}") == ("legacy" if kind.unread else kind.reader), ext
        assert type_group(ext) == kind.category and ext in TYPE_GROUPS[kind.category], ext
        assert language_of(ext) == (kind.language or None), ext
        assert (ext in PreviewPane.CODE) == (kind.category == "Code"), ext
        assert FORMATTED.get(ext) == (kind.reader if kind.reader in ("markdown", "html") else None), ext
    assert list(TYPE_GROUPS) == ["Any type", *CATEGORIES]
    assert all(language_of(ext) is None or KINDS[ext].reader == "code" for ext in KINDS)


def test_formats_not_read_and_pictures_ocr_reads_are_rows_of_the_table():
    """The legacy formats with their reasons, the binary kinds and the pictures OCR reads were
    three more tables in ingest/formats.py: they are columns of the one table now."""
    from findling.ingest.formats import BINARY, LEGACY, LEGACY_OFFICE, OCR_EXTENSIONS

    assert set(LEGACY) == {f".{e}" for e, k in KINDS.items() if k.reader in ("unread", "legacy-office")}
    assert all(LEGACY[s] for s in LEGACY) and LEGACY_OFFICE == {".doc", ".xls", ".ppt"}
    assert {".gif", ".exe", ".sqlite", ".pyc"} <= BINARY and not BINARY & {
        f".{e}" for e in KINDS if KINDS[e].category != "Other"
    }
    assert OCR_EXTENSIONS == {".jpg", ".jpeg", ".png", ".tif", ".tiff", ".webp", ".pdf"}  # not .heic: Pillow cannot
    assert kind_of("a/b.unknownext") == "sniff"


def test_a_typescript_module_with_a_grammar_is_source_code(engine, tmp_path):
    """`.mts` had a grammar but was read as plain text: no definitions, no Code filter."""
    from findling.records import Filters, SearchMode, SearchRequest

    index_files(engine, tmp_path / "docs", {"clock.mts": "export function tickTock(n: number) {\n  return n + 1;\n}\n"})
    found = engine.find(SearchRequest("sym:tickTock", SearchMode.KEYWORD))
    assert [h.path.rsplit("/", 1)[-1] for h in found.hits] == ["clock.mts"]
    code_only = Filters(extensions=TYPE_GROUPS["Code"])
    assert engine.find(SearchRequest("tickTock", SearchMode.KEYWORD, filters=code_only)).hits


@given(st.text(alphabet="ab.c -_é", max_size=12))
def test_a_names_suffix_is_read_as_pathlib_reads_it(name):
    """kind_of reads a suffix with string operations (a rescan asks it of every file; two
    PurePaths a file were 0.65 s of a 1.6 s rescan of 25,600 files): the same suffix."""
    from pathlib import PurePath

    from findling.ingest.formats import _suffix

    if name not in ("", ".", ".."):
        assert _suffix(name) == PurePath(name).suffix
