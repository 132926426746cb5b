"""One bad part costs that part alone: a message nested thousands of parts deep, a header built to
make the parser slow, a 7-Zip member that claims a 4 GiB dictionary, a PDF page the size of a
poster. Each fails (or is skipped) with its own note; what is around it is indexed."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from findling.ingest.extractors import sevenzip
from findling.ingest.extractors.bundles import archive_members
from tests.helpers import make_pdf
from tests.test_integrity import _run, _search


def _message(i: int, subject: str = "", sender: str = "a@example.org") -> str:
    head = f"From: {sender}\nSubject: {subject or f'note {i}'}\nDate: Mon, 3 Mar 2025 10:00:00 +0000\n"
    return f"{head}\nbody of good message {i} gnu{i}\n"


def _mbox(messages: list[str]) -> str:
    return "".join(f"From sender@example.org Mon Mar  3 10:00:00 2025\n{m}\n" for m in messages)


def _added(docs: Path, home: Path, settings: str) -> Path:
    """`docs` added through the command line to an index in `home` with these settings."""
    home.mkdir()
    (home / "settings.toml").write_text(settings)
    _run("add", str(docs), home=home)
    return home


def _deep(depth: int) -> str:
    head = "From: deep@example.org\nSubject: deep\nMIME-Version: 1.0\n"
    body, closing = "", ""
    for level in range(depth):
        body += f'Content-Type: multipart/mixed; boundary="b{level}"\n\n--b{level}\n'
        closing = f"\n--b{level}--\n" + closing
    return head + body + "Content-Type: text/plain\n\ninnermost\n" + closing


@pytest.mark.slow
def test_a_message_nested_thousands_deep_costs_that_message_alone(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    good = [_message(i) for i in range(50)]
    (docs / "box.mbox").write_text(_mbox([*good[:25], _deep(2_000), *good[25:]]))
    home = tmp_path / "home"
    _run("add", str(docs), home=home)
    messages = [h for h in _search(home, "good message", "-n", "100") if "›" in h["path"]]
    assert len(messages) == 50
    status = json.loads(_run("status", "--json", home=home).stdout)
    assert status["failed"] == 0


@pytest.mark.slow
def test_a_header_built_to_be_slow_does_not_cost_its_mailbox(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    slow = "a " * 30_000  # CPython's header parser is quadratic in it: about 10 s alone
    good = [_message(i) for i in range(200)]
    (docs / "box.mbox").write_text(_mbox([*good[:100], _message(999, sender=slow), *good[100:]]))
    home = _added(docs, tmp_path / "home", "[index]\nfile_timeout_s = 5\n")
    messages = [h for h in _search(home, "good message", "-n", "300") if "›" in h["path"]]
    assert len(messages) == 201
    assert [h["path"] for h in _search(home, "gnu999")]  # the slow one too, its sender cut short


def _lzma1_7z(text: bytes) -> bytes:
    import py7zr

    buffer = io.BytesIO()
    with py7zr.SevenZipFile(buffer, "w", filters=[{"id": py7zr.FILTER_LZMA}]) as archive:
        archive.set_encoded_header_mode(False)  # the coder's properties where they can be changed
        archive.writestr(text, "tiny.txt")
    return buffer.getvalue()


@pytest.mark.slow
def test_a_7z_member_claiming_a_4_gib_dictionary_costs_that_member_alone(tmp_path):
    data = _lzma1_7z(b"small text in a hostile seven zip")
    coder = b"\x03\x01\x01\x05"  # LZMA, five bytes of properties: lc/lp/pb, then the dictionary size
    at = data.rfind(coder)
    assert at != -1, "py7zr wrote its header encoded"
    hostile = data[: at + 5] + b"\xff\xff\xff\xff" + data[at + 9 :]
    docs = tmp_path / "docs"
    docs.mkdir()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for i in range(20):
            archive.writestr(f"note{i}.txt", f"wombat note {i}")
        archive.writestr("inner.7z", hostile)
    (docs / "bundle.zip").write_bytes(buffer.getvalue())
    home = _added(docs, tmp_path / "home", "[index]\nworker_memory_mb = 1024\n")
    notes = [h for h in _search(home, "wombat note", "-n", "50") if "note" in h["path"]]
    assert len(notes) == 20
    assert [h["path"] for h in _search(home, "hostile")] == [f"{docs / 'bundle.zip'} › inner.7z › tiny.txt"]


def test_7z_counts_are_bounded_together_before_anything_is_built():
    # an "all defined" CRC list of 10^10 digests: counted against the bytes there, never listed
    reader = sevenzip._Reader(b"\x01" + b"\x00" * 64)
    with pytest.raises(sevenzip.SevenZipError):
        reader.skip_digests(10**10)
    reader = sevenzip._Reader(b"\x00" + b"\xff" * 4)
    with pytest.raises(sevenzip.SevenZipError):
        reader.defined(10**10)
    # folders x substreams: each count within bounds, their sum is not
    streams = sevenzip._Streams()
    streams.folders = [sevenzip._Folder([], [], []) for _ in range(20)]
    counts = sevenzip._MAX_ITEMS // 10
    number = bytes([0xC0 | (counts >> 16), counts & 0xFF, (counts >> 8) & 0xFF])  # 7-Zip's 3-byte number
    header = bytes([sevenzip._NUM_UNPACK_STREAM]) + number * 20 + b"\x00" * 16
    assert sevenzip._Reader(number).number() == counts
    with pytest.raises(sevenzip.SevenZipError, match="too many streams"):
        sevenzip._substreams(sevenzip._Reader(header), streams)


def test_members_of_one_name_in_several_folders_share_one_budget(monkeypatch):
    import py7zr

    from findling.ingest.extractors import bundles

    monkeypatch.setattr(bundles, "MAX_UNPACKED", 10_000)
    buffer = io.BytesIO()
    with py7zr.SevenZipFile(buffer, "w") as archive:
        for i in range(6):
            archive.writestr(bytes([65 + i]) * 3_000, "same.txt")
    members, notes = archive_members(buffer.getvalue(), "7z")
    read = [m for m in members if m.content is not None]
    assert 1 <= len(read) <= 3 and sum(len(m.content) for m in read) <= 10_000
    assert any("MB of members were read" in n for n in notes)


def test_a_poster_sized_pdf_page_is_skipped_with_ocr_and_the_text_pages_kept(tmp_path, ocr_installed):
    from findling.engine import Engine
    from findling.ingest.prepare import PrepareTask, prepare
    from findling.records import DocumentRow

    path = make_pdf(tmp_path / "mixed.pdf", ["first page about the narwhal", "", "third page about the okapi"])
    data = path.read_bytes().replace(
        b"/MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents 7",
        b"/MediaBox [0 0 14400 14400] /Resources << /Font << /F1 3 0 R >> >> /Contents 7",
    )
    assert b"14400" in data
    path.write_bytes(data)
    with Engine(tmp_path / "home") as engine:
        models = engine.ocr_models()
    row = prepare(PrepareTask(str(path), ocr_models=models, ocr_seconds=20.0))
    assert isinstance(row, DocumentRow) and row.status == "ok"
    assert "narwhal" in row.terms and "okapi" in row.terms
    assert "too large to read by OCR: page 2" in row.error


def test_ocr_scale_keeps_a_page_within_the_side_limit():
    from findling.ingest.extractors.pdf import ocr_scale
    from findling.ingest.ocr_pages import MAX_SIDE, PDF_DPI

    assert ocr_scale(612, 792) == pytest.approx(PDF_DPI / 72)
    a0 = ocr_scale(2384, 3370)
    assert a0 is not None and 3370 * a0 <= MAX_SIDE + 1
    assert ocr_scale(14_400, 14_400) is None
