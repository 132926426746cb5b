"""A folder of the files real folders hold that break indexers, each case in its own
subfolder beside a control file that must stay searchable.

`build(root, full=False)`: the test suite's scaled-down sizes; `full=True`: the sizes from
the issue reports, for `tests/bench_hostile.py`. Returns the cases, each with the word its
control file holds and what must become of its bad file."""

from __future__ import annotations

import os
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.helpers import make_epub, write

_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://evil/\x07link\x1b]8;;\x07\x9b31m"


@dataclass(frozen=True)
class Case:
    name: str
    bad: str  # the bad file's name in the case folder; "" when it is whatever lies deeper
    expect: str  # "ok" (indexed), "listed" (recorded with a reason), "absent" (must not be indexed)
    control: str  # the word only this case's control file holds
    find: str = ""  # for "ok": a word of the bad file that must be found


def _docx(path: Path, body_xml: str | bytes, compress: int = zipfile.ZIP_DEFLATED) -> None:
    with zipfile.ZipFile(path, "w", compress) as z:
        z.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>',
        )
        z.writestr("word/document.xml", body_xml)


def _docx_streamed(path: Path, head: str, repeat: bytes, times: int, tail: str) -> None:
    """A DOCX whose document.xml is written in blocks: gigabytes without holding them."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w", force_zip64=True) as out:
            out.write(head.encode())
            block = repeat * 4096
            for _ in range(times // 4096):
                out.write(block)
            out.write(tail.encode())


_ODF_OFFICE = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
_ODF_TABLE = "urn:oasis:names:tc:opendocument:xmlns:table:1.0"
_ODF_TEXT = "urn:oasis:names:tc:opendocument:xmlns:text:1.0"


def _zip_parts(path: Path, parts: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in parts.items():
            z.writestr(name, text)


def _xlsx_bomb(path: Path, unpacked_mb: int) -> None:
    """A workbook whose one sheet unpacks to `unpacked_mb` MB of empty rows."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            "xl/workbook.xml",
            '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>'
            '<sheet name="S" r:id="rId1"/></sheets></workbook>',
        )
        z.writestr(
            "xl/_rels/workbook.xml.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/'
            '2006/relationships"><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>',
        )
        with z.open("xl/worksheets/sheet1.xml", "w", force_zip64=True) as out:
            block = b"<row/>" * 100_000
            for _ in range(unpacked_mb * (1 << 20) // len(block)):
                out.write(block)


def _zip_with_encrypted_member(path: Path) -> None:
    """A zip whose `secret.txt` says it is encrypted (the flag bit in its local and central
    headers; the standard library writes no encrypted zips) beside a readable member."""
    _zip_parts(path, {"open.txt": "openmemberword", "secret.txt": "secretmemberword"})
    data = bytearray(path.read_bytes())
    for signature, flags_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        while at != -1:
            name_len = int.from_bytes(data[at + (26 if signature == b"PK\x03\x04" else 28) :][:2], "little")
            name_at = at + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at : name_at + name_len] == b"secret.txt":
                data[at + flags_at] |= 0x1
            at = data.find(signature, at + 4)
    path.write_bytes(bytes(data))


def _zip_member_bomb(path: Path, unpacked_mb: int) -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z, z.open("zeros.txt", "w", force_zip64=True) as out:
        block = b"0" * (1 << 20)
        for _ in range(unpacked_mb):
            out.write(block)


def _gz_bomb(path: Path, unpacked_mb: int) -> None:
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = b"0" * (1 << 20)
    with open(path, "wb") as out:
        for _ in range(unpacked_mb):
            out.write(compressor.compress(block))
        out.write(compressor.flush())


def _nested_zip(depth: int) -> bytes:
    import io

    inner = b""
    for level in range(depth):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as z:
            z.writestr("readme.txt", "outerzipword" if level == depth - 1 else f"level {level}")
            if inner:
                z.writestr("inner.zip", inner)
        inner = buffer.getvalue()
    return inner


def _nested_mail(depth: int) -> bytes:
    """A message with a message attached, with a message attached, … `depth` deep."""
    from email.message import EmailMessage

    inner = EmailMessage()
    inner["Subject"] = "innermostsubject"
    inner.set_content("the innermost body")
    for level in range(depth):
        outer = EmailMessage()
        outer["Subject"] = f"level {level}"
        outer.set_content("see attached" if level < depth - 1 else "outermostbodyword")
        outer.add_attachment(inner)
        inner = outer
    return bytes(inner)


def pdf_with_content(path: Path, ops_mb: int) -> None:
    """A one-page PDF whose deflated content stream unpacks to `ops_mb` MB of operators."""
    ops = b"BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n"
    inflater = zlib.compressobj(9)
    block = ops * (1024 * 1024 // len(ops))
    comp = b"".join(inflater.compress(block) for _ in range(ops_mb)) + inflater.flush()
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> "
        b"/Contents 5 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(comp) + comp + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    path.write_bytes(bytes(out))


def _epub_with_chapter(path: Path, chapter: bytes) -> None:
    """An EPUB (made by EbookLib) whose one chapter is replaced by `chapter`, deflated."""
    make_epub(path, "Hostile Book", [("One", "placeholder")])
    with zipfile.ZipFile(path) as z:
        parts = [(info, z.read(info)) for info in z.infolist()]
    with zipfile.ZipFile(path, "w") as z:
        for info, data in parts:
            if info.filename.endswith("chap_0.xhtml"):
                z.writestr(info.filename, chapter, zipfile.ZIP_DEFLATED)
            else:
                z.writestr(info, data)


def _long_path(folder: Path) -> None:
    """A file whose full path is longer than PATH_MAX, made with relative opens."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        for _ in range(18):  # 18 × 256 > 4096
            name = "d" * 255
            os.mkdir(name, dir_fd=fd)
            nxt = os.open(name, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nxt
        leaf = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, b"too deep to name")
        os.close(leaf)
    finally:
        os.close(fd)


def build(root: Path, outside: Path, full: bool = False) -> list[Case]:  # noqa: PLR0915 - the hostile corpus, a case a statement
    """Cases under `root`; `outside` is a folder beside it holding a secret that links point at."""
    cases: list[Case] = []
    outside.mkdir(parents=True, exist_ok=True)
    write(outside / "secret.txt", "outsidesecret credentials")

    def case(name: str, bad: str, expect: str, make: Callable[[Path], None], find: str = "") -> None:
        folder = root / name
        folder.mkdir(parents=True, exist_ok=True)
        control = f"control{len(cases):02d}word"
        write(folder / "control.txt", f"{control} stays searchable beside {name}")
        make(folder)
        cases.append(Case(name, bad, expect, control, find))

    case(
        "latin1-name",
        "m\udce9moire.txt",
        "ok",
        lambda f: (f / os.fsdecode(b"m\xe9moire.txt")).write_text("souvenirword of an old archive"),
        find="souvenirword",
    )
    case(
        "md-heading-spaces",
        "heading.md",
        "ok",
        lambda f: write(f / "heading.md", "# a" + " " * (4000 if not full else 100_000) + "b\n\nheadingbody text\n"),
        find="headingbody",
    )
    case(
        "md-heading-blank",
        "blank.md",
        "ok",
        lambda f: write(f / "blank.md", "# " + " " * 50_000 + "\nblankbody text\n"),
        find="blankbody",
    )

    def gitignore(f: Path) -> None:
        write(f / ".gitignore", "*a*a*a*a*a*a*a*a*a*a*a*a*b\n")
        write(f / ("a" * 40 + ".txt"), "gitignorebody is not ignored")

    case("gitignore-backtracking", "a" * 40 + ".txt", "ok", gitignore, find="gitignorebody")

    paragraphs = 3_000_000 if full else 300_000
    case(
        "docx-many-paragraphs",
        "paragraphs.docx",
        "ok",
        lambda f: _docx_streamed(
            f / "paragraphs.docx",
            f'<w:document xmlns:w="{_W}"><w:body>',
            b"<w:p><w:r><w:t>x</w:t></w:r></w:p>",
            paragraphs,
            "<w:p><w:r><w:t>paragraphend</w:t></w:r></w:p></w:body></w:document>",
        ),
        find="paragraphend",
    )
    bomb_mb = 1024 if full else 300
    case(
        "docx-bomb",
        "bomb.docx",
        "listed",
        lambda f: _docx_streamed(
            f / "bomb.docx",
            f'<w:document xmlns:w="{_W}"><w:body><w:p><w:r><w:t>',
            b"y",
            bomb_mb * 1024 * 1024,
            "</w:t></w:r></w:p></w:body></w:document>",
        ),
    )
    case(
        "epub-spaces-bomb",
        "spaces.epub",
        "listed",
        lambda f: _epub_with_chapter(
            f / "spaces.epub", b"<html><body><p>" + b" " * (bomb_mb << 20) + b"</p></body></html>"
        ),
    )
    case(
        "epub-whitespace-run",
        "run.epub",
        "ok",
        lambda f: _epub_with_chapter(
            f / "run.epub",
            b"<html><body><p>before</p><p>" + b" " * (12 << 20) + b"</p><p>afterspaces words</p></body></html>",
        ),
        find="afterspaces",
    )
    case("pdf-content-bomb", "bomb.pdf", "listed", lambda f: pdf_with_content(f / "bomb.pdf", 1024 if full else 300))
    case("xlsx-bomb", "bomb.xlsx", "listed", lambda f: _xlsx_bomb(f / "bomb.xlsx", bomb_mb))
    case(
        "xlsx-malformed",
        "broken.xlsx",
        "listed",
        lambda f: _zip_parts(
            f / "broken.xlsx",
            {
                "xl/workbook.xml": "<workbook><sheets><sheet name='x' r:id='rId1'",
            },
        ),
    )
    case(
        "ods-repeated-forever",
        "wide.ods",
        "ok",
        lambda f: _zip_parts(
            f / "wide.ods",
            {
                "content.xml": f'<office:document-content xmlns:office="{_ODF_OFFICE}" xmlns:table="{_ODF_TABLE}" '
                f'xmlns:text="{_ODF_TEXT}"><office:body><office:spreadsheet><table:table table:name="T">'
                '<table:table-row table:number-rows-repeated="1000000000"><table:table-cell '
                'table:number-columns-repeated="16384"><text:p>repeatedcellword</text:p></table:table-cell>'
                "</table:table-row></table:table></office:spreadsheet></office:body></office:document-content>",
            },
        ),
        find="repeatedcellword",
    )
    case(
        "eml-nested-deep",
        "deep.eml",
        "ok",
        lambda f: (f / "deep.eml").write_bytes(_nested_mail(40)),
        find="outermostbodyword",
    )
    case(
        "eml-garbage",
        "garbage.eml",
        "ok",
        lambda f: (f / "garbage.eml").write_bytes(
            b"Subject: =?utf-8?b?broken?=\nContent-Type: multipart/mixed; boundary=x\n\n--x\n"
            b"Content-Transfer-Encoding: base64\nContent-Disposition: attachment; filename=a.txt\n\n!!!notbase64\n"
            b"--x--\ngarbagebodyword"
        ),
    )
    case("zip-member-bomb", "bomb.zip", "listed", lambda f: _zip_member_bomb(f / "bomb.zip", bomb_mb))
    case("gz-bomb", "bomb.txt.gz", "listed", lambda f: _gz_bomb(f / "bomb.txt.gz", bomb_mb))
    case(
        "zip-escaping-names",
        "escape.zip",
        "ok",
        lambda f: _zip_parts(
            f / "escape.zip",
            {
                "../../outside.md": "escapingmemberword",
                "/etc/absolute.md": "absolutememberword",
            },
        ),
        find="escapingmemberword",
    )
    case(
        "zip-encrypted",
        "locked.zip",
        "ok",
        lambda f: _zip_with_encrypted_member(f / "locked.zip"),
        find="openmemberword",
    )
    case(
        "zip-nested-deep",
        "nest.zip",
        "ok",
        lambda f: (f / "nest.zip").write_bytes(_nested_zip(12)),
        find="outerzipword",
    )
    case("tar-truncated", "cut.tar.gz", "listed", lambda f: (f / "cut.tar.gz").write_bytes(b"\x1f\x8b\x08" + b"x" * 50))
    case("notebook-not-json", "broken.ipynb", "listed", lambda f: write(f / "broken.ipynb", '{"cells": [ {"cell'))
    case(
        "html-deep-font",
        "font.html",
        "ok",
        lambda f: write(
            f / "font.html",
            "<html><body><p>top</p>" + "<font size=2>" * (20_000 if full else 3000) + "deepfontword</body></html>",
        ),
        find="deepfontword",
    )
    case(
        "html-deep-div",
        "div.html",
        "ok",
        lambda f: write(
            f / "div.html",
            "<html><body><p>top</p>" + "<div>" * 3000 + "deepdivword" + "</div>" * 3000 + "</body></html>",
        ),
        find="deepdivword",
    )
    text_mb = 40 if full else 3
    case(
        "text-over-cap",
        "huge.txt",
        "ok",
        lambda f: write(f / "huge.txt", "capstart " + "filler words here " * (text_mb * 1024 * 1024 // 18)),
        find="capstart",
    )
    case("fifo", "pipe.txt", "listed", lambda f: os.mkfifo(f / "pipe.txt"))
    case("link-dev-zero", "zero.txt", "listed", lambda f: os.symlink("/dev/zero", f / "zero.txt"))
    case("link-outside-file", "notes.txt", "listed", lambda f: os.symlink(outside / "secret.txt", f / "notes.txt"))
    case("link-outside-folder", "", "absent", lambda f: os.symlink(outside, f / "elsewhere"))
    case("link-etc", "", "absent", lambda f: os.symlink("/etc", f / "etc-link"))
    case("path-too-long", "", "listed", _long_path)  # listed: the first path over the limit
    case(
        "escape-title",
        "title.md",
        "ok",
        lambda f: write(f / "title.md", f"# Evil {ESCAPES} title\n\nescapebody {ESCAPES} text\n"),
        find="escapebody",
    )
    case(
        "escape-name",
        "n\x1b[31mame.txt",
        "ok",
        lambda f: write(f / "n\x1b[31mame.txt", "escapename body"),
        find="escapename",
    )
    case("html-name", "<b>x<i>.txt", "ok", lambda f: write(f / "<b>x<i>.txt", "htmlname body"), find="htmlname")
    case("binary-as-text", "random.md", "listed", lambda f: (f / "random.md").write_bytes(os.urandom(8192)))
    case("empty", "empty.txt", "ok", lambda f: write(f / "empty.txt", ""))
    return cases


def docx_slow(path: Path, paragraphs: int = 190_000) -> Path:
    """A DOCX streamed paragraph by paragraph (~10 µs each): seconds, for timeout tests."""
    _docx_streamed(
        path,
        f'<w:document xmlns:w="{_W}"><w:body>',
        b"<w:p><w:r><w:t>x</w:t></w:r></w:p>",
        paragraphs,
        "</w:body></w:document>",
    )
    return path


__all__ = ["Case", "ESCAPES", "build", "docx_slow", "pdf_with_content"]
