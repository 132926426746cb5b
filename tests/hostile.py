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


def build(root: Path, outside: Path, full: bool = False) -> list[Case]:
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
