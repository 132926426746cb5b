"""Archives: the members of a .zip, a .7z (extractors/sevenzip.py) or a .tar (.tar.gz, .tgz,
.tar.bz2, .tar.xz), each a document of its own addressed as `bundle.zip › docs/inner.md` (read by
extract.py with the extractor of its kind), the archive itself a listing of its members; and
single compressed files (.gz, .bz2, .xz) read as the file they hold.

An archive is untrusted input: members are counted and measured before they are read (member
count, each member's size, everything unpacked together), decompression is capped as it
runs, so a member whose header lies about its size cannot unpack more, nothing is ever written
to disk (a `../` name is only part of an address), and encrypted members are named, not read."""

from __future__ import annotations

import bz2
import io
import lzma
import tarfile
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from findling.errors import ExtractionError
from findling.ingest.extractors.archive import MAX_PART, MAX_UNPACKED
from findling.ingest.extractors.sevenzip import members_7z, read_7z

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


@dataclass(frozen=True)
class Member:
    name: str  # as the archive spells it: only ever part of an address, never a path written to
    content: bytes | None  # None: not read, for `why`
    why: str = ""
    mtime: float = 0.0  # 0: the archive's own


def member_name(raw: str) -> str:
    """A member's name as its address shows it: forward slashes, no leading `/` or `./`, no
    control characters (a `../` stays as written: it names nothing outside the archive)."""
    name = "".join(ch if ch.isprintable() else "\ufffd" for ch in raw.replace("\\", "/"))
    while name.startswith(("/", "./")):
        name = name[2:] if name.startswith("./") else name[1:]
    return name or "(unnamed)"


def _zip_time(info: zipfile.ZipInfo) -> float:
    try:
        return time.mktime((*info.date_time, 0, 0, -1))
    except (OverflowError, ValueError):
        return 0.0


def _zip_members(data: bytes, budget: _Budget) -> Iterator[Member]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError, OSError) as exc:
        raise ExtractionError(f"cannot open the zip archive (damaged?): {exc}") from exc
    with archive:
        infos = [info for info in archive.infolist() if not info.is_dir()]
        if len(infos) > MAX_MEMBERS:
            budget.notes.append(f"only the first {MAX_MEMBERS:,} members were read")
        for info in infos[:MAX_MEMBERS]:
            name = member_name(info.filename)
            if info.flag_bits & 0x1:
                yield Member(name, None, "encrypted: not read")
                continue
            if not budget.take(info.file_size, info.filename):
                continue
            try:
                with archive.open(info) as member:
                    content = member.read(info.file_size + 1)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError, EOFError, zlib.error) as exc:
                yield Member(name, None, f"could not be read: {exc}")
                continue
            if len(content) > info.file_size:
                raise ExtractionError(f"the zip archive lies about {name}'s size (a zip bomb?)")
            yield Member(name, content, mtime=_zip_time(info))


def _tar_members(data: bytes, budget: _Budget) -> Iterator[Member]:
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
                content = member.read(info.size) if member is not None else None
                why = "" if content is not None else "not read"
                yield Member(member_name(info.name), content, why, float(info.mtime))
        except (tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
            budget.notes.append(f"the archive is damaged after {count} members: {exc}")


def _7z_members(data: bytes, budget: _Budget) -> Iterator[Member]:
    entries, streams = read_7z(data)
    if len(entries) > MAX_MEMBERS:
        budget.notes.append(f"only the first {MAX_MEMBERS:,} members were read")
        entries = entries[:MAX_MEMBERS]
    wanted = {e for e in entries if budget.take(e.size, e.name)}  # each entry: names repeat
    for entry, content, why in members_7z(data, entries, streams, wanted, MAX_UNPACKED):
        if content is not None or why:
            yield Member(member_name(entry.name), content, why, entry.mtime)


def archive_members(data: bytes, kind: str) -> tuple[Iterator[Member], list[str]]:
    """The archive's file members (`kind`: zip, tar or 7z), read one at a time (each member's
    bytes are let go before the next is unpacked), and the notes its budget leaves (filled as
    the members are read)."""
    budget = _Budget()
    readers = {"zip": _zip_members, "tar": _tar_members, "7z": _7z_members}
    return readers[kind](data, budget), budget.notes


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
