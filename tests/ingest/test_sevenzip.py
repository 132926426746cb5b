"""7-Zip archives read with the standard library, checked against archives py7zr (the format's
Python library) writes with each method, and as documents in a folder."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from findling.engine import Engine
from findling.ingest.extractors.sevenzip import SevenZipError, members_7z, read_7z
from findling.records import SearchMode, SearchRequest

py7zr = pytest.importorskip("py7zr")


def _archive(files: dict[str, bytes], filters=None, password=None, header_encryption=False) -> bytes:
    buffer = io.BytesIO()
    with py7zr.SevenZipFile(buffer, "w", filters=filters, password=password, header_encryption=header_encryption) as z:
        for name, data in files.items():
            z.writestr(data, name)
    return buffer.getvalue()


def _read(data: bytes, limit: int = 1 << 30) -> dict[str, tuple[bytes | None, str]]:
    entries, streams = read_7z(data)
    return {e.name: (content, why) for e, content, why in members_7z(data, entries, streams, set(entries), limit)}


ARCHIVES: dict[bool, bytes] = {}

FILES = {
    "docs/a.md": b"# A\n\nalpha words " * 40,
    "b.txt": b"beta " * 900,
    "empty.txt": b"",
    "c/noise.bin": os.urandom(2500),
}


ARCHIVES[True] = _archive(FILES)  # its header packed (py7zr's default)
ARCHIVES[False] = _archive(FILES, [{"id": py7zr.FILTER_COPY}])


@pytest.mark.parametrize(
    "filters",
    [
        None,  # py7zr's default, as 7-Zip's: LZMA2 (with BCJ for programs)
        [{"id": "LZMA"}],
        [{"id": "COPY"}],
        [{"id": "BZIP2"}],
        [{"id": "DEFLATE"}],
        [{"id": "DELTA"}, {"id": "LZMA2"}],
        [{"id": "X86"}, {"id": "LZMA2"}],
        [{"id": "ARM"}, {"id": "LZMA"}],
    ],
    ids=["default", "lzma", "copy", "bzip2", "deflate", "delta+lzma2", "bcj+lzma2", "arm+lzma"],
)
def test_every_method_the_standard_library_has_is_read(filters):
    named = None if filters is None else [{"id": getattr(py7zr, f"FILTER_{f['id']}")} for f in filters]
    read = _read(_archive(FILES, named))
    assert {name: content for name, (content, _why) in read.items()} == FILES


@pytest.mark.parametrize("method", ["ZSTD", "PPMD"])
def test_a_method_it_lacks_is_named_not_guessed(method):
    read = _read(_archive(FILES, [{"id": getattr(py7zr, f"FILTER_{method}")}]))
    name = {"ZSTD": "Zstandard", "PPMD": "PPMd"}[method]
    assert read["b.txt"] == (None, f"packed with {name}: not read")
    assert read["empty.txt"] == (b"", "")  # an empty file has nothing to unpack


def test_encrypted_members_are_named_and_an_encrypted_list_is_said():
    read = _read(_archive(FILES, password="secret"))
    assert read["b.txt"] == (None, "encrypted: not read")
    with pytest.raises(SevenZipError, match="a password is needed"):
        read_7z(_archive(FILES, password="secret", header_encryption=True))


def test_unpacking_stops_at_its_limit():
    read = _read(_archive({"big.txt": b"x" * 100_000, "small.txt": b"y"}), limit=1000)
    assert read["big.txt"] == (None, "cut short: not read")


@settings(max_examples=25, deadline=None)
@given(
    st.dictionaries(
        # names as archivers keep them: py7zr normalises "a/./b" and drops empty parts
        st.text(alphabet="abcdefghij/._-é", min_size=1, max_size=12).filter(
            lambda n: all(part not in ("", ".", "..") for part in n.split("/"))
        ),
        st.binary(max_size=3000),
        min_size=1,
        max_size=6,
    )
)
def test_what_py7zr_writes_reads_back(files):
    names = {n.split("/")[0] for n in files}  # a file and a folder may not share a name
    if any(n in names and "/" in m for n in files for m in files if m.startswith(n + "/")):
        return
    read = _read(_archive(files))
    assert {name: content for name, (content, _why) in read.items()} == files


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d[:40],
        lambda d: d[:-20],
        lambda d: d[:32] + os.urandom(len(d) - 32),
        lambda d: d[:20] + b"\xff" * 12 + d[32:],
    ],
    ids=["header-gone", "end-cut", "scrambled", "bad-offsets"],
)
def test_a_damaged_archive_is_an_error_not_a_crash(damage):
    data = damage(_archive(FILES))
    try:
        _read(data)
    except SevenZipError:
        pass  # said with why; anything else (an IndexError, a MemoryError) would fail here


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), min_size=1, max_size=8), st.booleans())
def test_any_damage_is_said_never_raised_otherwise(changes, solid_header):
    data = bytearray(ARCHIVES[solid_header])
    for at, value in changes:
        data[at % len(data)] = value
    try:
        _read(bytes(data), limit=1 << 20)
    except SevenZipError:
        pass


def test_members_of_a_7z_are_documents(tmp_path, settings):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "photos.7z").write_bytes(_archive({"notes/trip.md": b"# Trip\n\nThe sevenzipword itinerary."}))
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        (hit,) = engine.find(SearchRequest("sevenzipword", SearchMode.KEYWORD)).hits
        assert hit.path == f"{folder / 'photos.7z'} › notes/trip.md" and hit.title == "Trip"
        assert Path(hit.path).suffix == ".md"
