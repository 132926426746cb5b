"""Archives: the members of a .zip or a .tar (.tar.gz, .tgz, .tar.bz2, .tar.xz), each read by the
extractor of its own kind under a heading that names it (`## docs/inner.md`), and single
compressed files (.gz, .bz2, .xz) read as the file they hold.

An archive is untrusted input: members are counted and measured before they are read (member
count, each member's size, everything unpacked together), decompression is capped as it
runs, so a member whose header lies about its size cannot unpack more, nothing is ever written
to disk (a `../` name is only a heading), and encrypted members are named, not read."""

from __future__ import annotations

import bz2
import io
import lzma
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from findling.errors import ExtractionError
from findling.ingest.extractors import Parsed
from findling.ingest.extractors.archive import MAX_PART, MAX_UNPACKED

# (member name, bytes) -> its text, None for a kind not read; given by extract.py.
ReadMember = Callable[[str, bytes], str | None]

MAX_MEMBERS = 10_000
_MB = 1024 * 1024


class _Budget:
    """What one archive may unpack in all; each member is also held to MAX_PART."""

    def __init__(self) -> None:
        self.left = MAX_UNPACKED
        self.notes: list[str] = []

    def take(self, size: int, name: str) -> bool:
        if size > MAX_PART:
            self.notes.append(f"members over {MAX_PART // _MB} MB were not read ({name})")
            return False
        if size > self.left:
            self.notes.append(f"only the first {MAX_UNPACKED // _MB} MB of members were read")
            return False
        self.left -= size
        return True


def _section(name: str, text: str | None) -> str:
    if text is None:
        return f"## {name} (a kind Findling does not read)"
    return f"## {name}\n\n{text}".strip()


def _zip_members(data: bytes, budget: _Budget) -> Iterator[tuple[str, bytes | None, str]]:
    """(name, bytes or None, why not read) for each file member."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ExtractionError(f"cannot open the zip archive (damaged?): {exc}") from exc
    with archive:
        infos = [info for info in archive.infolist() if not info.is_dir()]
        if len(infos) > MAX_MEMBERS:
            budget.notes.append(f"only the first {MAX_MEMBERS:,} members were read")
        for info in infos[:MAX_MEMBERS]:
            if info.flag_bits & 0x1:
                yield info.filename, None, "encrypted: not read"
                continue
            if not budget.take(info.file_size, info.filename):
                continue
            try:
                with archive.open(info) as member:
                    content = member.read(info.file_size + 1)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError, zlib.error) as exc:
                yield info.filename, None, f"could not be read: {exc}"
                continue
            if len(content) > info.file_size:
                raise ExtractionError(f"the zip archive lies about {info.filename}'s size (a zip bomb?)")
            yield info.filename, content, ""


def _tar_members(data: bytes, budget: _Budget) -> Iterator[tuple[str, bytes | None, str]]:
    try:
        archive = tarfile.open(fileobj=io.BytesIO(data), mode="r:*")
    except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
        raise ExtractionError(f"cannot open the tar archive (damaged?): {exc}") from exc
    with archive:
        count = 0
        try:
            for info in archive:
                if not info.isfile():  # links, devices, folders: nothing of their own to read
                    continue
                count += 1
                if count > MAX_MEMBERS:
                    budget.notes.append(f"only the first {MAX_MEMBERS:,} members were read")
                    return
                if not budget.take(info.size, info.name):
                    continue
                member = archive.extractfile(info)  # a stream over the archive: nothing touches the disk
                yield info.name, member.read(info.size) if member is not None else None, ""
        except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
            budget.notes.append(f"the archive is damaged after {count} members: {exc}")


def extract_archive(data: bytes, tar: bool, read_member: ReadMember) -> Parsed:
    """Every member's text, one after another, each under its name."""
    budget = _Budget()
    sections = []
    members = _tar_members(data, budget) if tar else _zip_members(data, budget)
    for name, content, why in members:
        if content is None:
            sections.append(f"## {name} ({why})" if why else _section(name, None))
            continue
        sections.append(_section(name, read_member(PurePosixPath(name).name or name, content)))
    return Parsed("\n\n".join(sections), "", tuple(dict.fromkeys(budget.notes)))


_DECOMPRESSORS: dict[str, Callable[[], object]] = {
    ".gz": lambda: zlib.decompressobj(wbits=47),  # gzip or zlib, by the header
    ".bz2": bz2.BZ2Decompressor,
    ".xz": lzma.LZMADecompressor,
}


def decompress(data: bytes, suffix: str, limit: int = MAX_PART) -> bytes:
    """A single compressed file's content, at most `limit` bytes (a bomb stops there)."""
    decompressor = _DECOMPRESSORS[suffix]()
    try:
        out = decompressor.decompress(data, limit + 1)  # type: ignore[attr-defined]
    except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as exc:
        raise ExtractionError(f"cannot decompress the {suffix} file (damaged?): {exc}") from exc
    if len(out) > limit:
        raise ExtractionError(f"the {suffix} file unpacks to over {limit // _MB} MB (a decompression bomb?)")
    return bytes(out)
