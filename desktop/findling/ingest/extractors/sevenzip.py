"""7-Zip archives read with the standard library: the archive's header is parsed here and its
streams are unpacked by `lzma` (LZMA, LZMA2, with the BCJ and Delta filters 7-Zip puts before
them), `zlib` (Deflate), `bz2` (BZip2) or copied, which covers what 7-Zip writes by default.
py7zr, the library that reads every method, brings 15 MB of codecs (PPMd, Zstandard, Brotli,
AES through pycryptodomex) that the app cannot carry; a member packed with one of those, or
encrypted, is named with why, never guessed at.

The format (7-Zip's doc/7zFormat.txt): a 32-byte signature header pointing at the header at
the archive's end; the header, possibly itself packed ("encoded"), lists pack streams, folders
(a chain of coders that unpacks one or more pack streams into one stream), how each folder's
output splits into files, and the files' names, times and which have no data.

Every count and size comes from untrusted bytes: each is bounded before it is used, unpacking
stops at the size the header promised, and a header that contradicts itself is an error."""

from __future__ import annotations

import bz2
import lzma
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field

from findling.errors import ExtractionError

SIGNATURE = b"7z\xbc\xaf\x27\x1c"
_MAX_ITEMS = 100_000  # files, folders, coders or streams one header may declare
_MAX_HEADER = 64 * 1024 * 1024
_FILETIME_EPOCH = 116_444_736_000_000_000  # 1601-01-01 to 1970-01-01, in 100 ns

# property ids (doc/7zFormat.txt)
_END, _HEADER, _ARCHIVE_PROPERTIES, _ADDITIONAL_STREAMS, _MAIN_STREAMS, _FILES = 0, 1, 2, 3, 4, 5
_PACK_INFO, _UNPACK_INFO, _SUBSTREAMS, _SIZE, _CRC, _FOLDER, _CODERS_UNPACK_SIZE = 6, 7, 8, 9, 10, 11, 12
_NUM_UNPACK_STREAM, _EMPTY_STREAM, _EMPTY_FILE, _NAME, _MTIME, _ATTRIBUTES, _ENCODED_HEADER = 13, 14, 15, 17, 20, 21, 23
_DUMMY = 25

_COPY, _LZMA2, _LZMA, _DELTA, _DEFLATE, _BZIP2, _AES = (
    b"\x00",
    b"\x21",
    b"\x03\x01\x01",
    b"\x03",
    b"\x04\x01\x08",
    b"\x04\x02\x02",
    b"\x06\xf1\x07\x01",
)
_BRANCH_FILTERS = {
    b"\x03\x03\x01\x03": lzma.FILTER_X86,
    b"\x03\x03\x02\x05": lzma.FILTER_POWERPC,
    b"\x03\x03\x04\x01": lzma.FILTER_IA64,
    b"\x03\x03\x05\x01": lzma.FILTER_ARM,
    b"\x03\x03\x07\x01": lzma.FILTER_ARMTHUMB,
    b"\x03\x03\x08\x05": lzma.FILTER_SPARC,
}
_NAMES = {b"\x03\x03\x01\x1b": "BCJ2", b"\x03\x04\x01": "PPMd", b"\x04\xf7\x11\x01": "Zstandard", _AES: "AES"}


class SevenZipError(ExtractionError):
    """The archive cannot be read at all (damaged, or its header is encrypted)."""


@dataclass
class _Coder:
    method: bytes
    inputs: int
    outputs: int
    properties: bytes


@dataclass
class _Folder:
    coders: list[_Coder]
    bind_pairs: list[tuple[int, int]]  # (in index, out index)
    packed: list[int]  # in-stream indexes fed from pack streams
    unpack_sizes: list[int] = field(default_factory=list)
    substreams: int = 1

    @property
    def size(self) -> int:
        """The folder's final output: the out stream no bind pair consumes."""
        bound = {out for _in, out in self.bind_pairs}
        final = [i for i in range(len(self.unpack_sizes)) if i not in bound]
        return self.unpack_sizes[final[0]] if len(final) == 1 else 0


@dataclass
class _Streams:
    pack_pos: int = 0
    pack_sizes: list[int] = field(default_factory=list)
    folders: list[_Folder] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)  # of each file's stream, folder by folder


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise SevenZipError("the 7-Zip header ends early (damaged archive)")
        self.pos += 1
        return self.data[self.pos - 1]

    def take(self, count: int) -> bytes:
        if count < 0 or self.pos + count > len(self.data):
            raise SevenZipError("the 7-Zip header ends early (damaged archive)")
        self.pos += count
        return self.data[self.pos - count : self.pos]

    def number(self) -> int:
        """7-Zip's variable-length integer: the first byte's leading ones count the bytes that follow."""
        first = self.byte()
        mask, value = 0x80, 0
        for i in range(8):
            if not first & mask:
                return value | ((first & (mask - 1)) << (8 * i))
            value |= self.byte() << (8 * i)
            mask >>= 1
        return value

    def count(self) -> int:
        value = self.number()
        if value > _MAX_ITEMS:
            raise SevenZipError(f"the 7-Zip header declares {value:,} items (damaged, or hostile)")
        return value

    def bits(self, count: int) -> list[bool]:
        self.need((count + 7) // 8)
        out: list[bool] = []
        while len(out) < count:
            byte = self.byte()
            out.extend(bool(byte & (0x80 >> i)) for i in range(8))
        return out[:count]

    def defined(self, count: int) -> list[bool]:
        """An "all defined" byte, else a bit vector."""
        if self.byte():
            if count > _MAX_ITEMS:
                raise SevenZipError(f"the 7-Zip header declares {count:,} items (damaged, or hostile)")
            return [True] * count
        return self.bits(count)

    def skip_digests(self, count: int) -> None:
        """Skip `count` CRCs: counted, not listed (an all-defined list of 10^10 was built before)."""
        if self.byte():
            self.take(4 * count)
        else:
            self.take(4 * sum(self.bits(count)))

    def need(self, count: int) -> None:
        """The header holds `count` more bytes: checked before anything is built from a count."""
        if count < 0 or self.pos + count > len(self.data):
            raise SevenZipError("the 7-Zip header ends early (damaged archive)")


def _read_folder(r: _Reader) -> _Folder:
    coders = []
    count = r.count()
    if count == 0:
        raise SevenZipError("a folder of the 7-Zip archive has no coder (damaged archive)")
    for _ in range(count):
        flags = r.byte()
        method = r.take(flags & 0x0F)
        inputs, outputs = (r.count(), r.count()) if flags & 0x10 else (1, 1)
        properties = r.take(r.count()) if flags & 0x20 else b""
        if flags & 0x80:
            raise SevenZipError("the archive uses 7-Zip's alternative coder methods, which nothing writes today")
        coders.append(_Coder(method, inputs, outputs, properties))
    total_in = sum(c.inputs for c in coders)
    total_out = sum(c.outputs for c in coders)
    if total_out < 1 or total_in < total_out - 1:
        raise SevenZipError("a folder of the 7-Zip archive is inconsistent (damaged archive)")
    bind_pairs = [(r.count(), r.count()) for _ in range(total_out - 1)]
    packed_count = total_in - len(bind_pairs)
    if packed_count == 1:
        bound = {i for i, _out in bind_pairs}
        packed = [i for i in range(total_in) if i not in bound][:1]
    else:
        packed = [r.count() for _ in range(packed_count)]
    return _Folder(coders, bind_pairs, packed)


def _pack_info(r: _Reader, streams: _Streams) -> None:
    streams.pack_pos = r.number()
    count = r.count()
    while (kind := r.byte()) != _END:
        if kind == _SIZE:
            streams.pack_sizes = [r.number() for _ in range(count)]
        elif kind == _CRC:
            r.skip_digests(count)
        else:
            raise SevenZipError(f"unexpected property {kind} in the 7-Zip pack info")


def _unpack_info(r: _Reader, streams: _Streams) -> None:
    if r.byte() != _FOLDER:
        raise SevenZipError("the 7-Zip folder list is missing (damaged archive)")
    count = r.count()
    if r.byte():
        raise SevenZipError("the 7-Zip archive keeps its folder list elsewhere (not supported)")
    streams.folders = [_read_folder(r) for _ in range(count)]
    if r.byte() != _CODERS_UNPACK_SIZE:
        raise SevenZipError("the 7-Zip folder sizes are missing (damaged archive)")
    for folder in streams.folders:
        folder.unpack_sizes = [r.number() for _ in range(sum(c.outputs for c in folder.coders))]
    while (kind := r.byte()) != _END:
        if kind != _CRC:
            raise SevenZipError(f"unexpected property {kind} in the 7-Zip folder info")
        r.skip_digests(len(streams.folders))


def _substreams(r: _Reader, streams: _Streams) -> None:
    """How each folder's output splits into files' streams."""
    kind = r.byte()
    if kind == _NUM_UNPACK_STREAM:
        for folder in streams.folders:
            folder.substreams = r.count()
        if sum(f.substreams for f in streams.folders) > _MAX_ITEMS:  # each is bounded, not their sum
            raise SevenZipError("the 7-Zip header declares too many streams (damaged, or hostile)")
        kind = r.byte()
    sizes = []
    for folder in streams.folders:
        if folder.substreams == 0:
            continue
        parts = [r.number() for _ in range(folder.substreams - 1)] if kind == _SIZE else []
        if sum(parts) > folder.size:
            raise SevenZipError("the 7-Zip archive's file sizes exceed their folder (damaged archive)")
        sizes += [*parts, folder.size - sum(parts)]
    streams.sizes = sizes
    if kind == _SIZE:
        kind = r.byte()
    while kind != _END:
        if kind != _CRC:
            raise SevenZipError(f"unexpected property {kind} in the 7-Zip substreams info")
        r.skip_digests(sum(f.substreams for f in streams.folders))
        kind = r.byte()


def _read_streams(r: _Reader) -> _Streams:
    streams = _Streams()
    kind = r.byte()
    if kind == _PACK_INFO:
        _pack_info(r, streams)
        kind = r.byte()
    if kind == _UNPACK_INFO:
        _unpack_info(r, streams)
        kind = r.byte()
    streams.sizes = [f.size for f in streams.folders]
    if kind == _SUBSTREAMS:
        _substreams(r, streams)
        kind = r.byte()
    if kind != _END:
        raise SevenZipError(f"unexpected property {kind} in the 7-Zip streams info")
    return streams


def _lzma_filter(coder: _Coder, limit: int = 0xFFFFFFFF) -> dict[str, int] | None:
    """The coder as a filter of the standard library's lzma, or None. Its dictionary is no larger
    than the `limit` bytes unpacked (no match reaches further back than the output so far), as
    7-Zip's own decoder allocates: a 151-byte member claiming a 4 GiB dictionary failed its whole
    archive with "not enough memory"."""
    if coder.method == _LZMA2 and len(coder.properties) >= 1:
        bits = coder.properties[0] & 0x3F
        dict_size = 0xFFFFFFFF if bits >= 40 else (2 | (bits & 1)) << (bits // 2 + 11)
        return {"id": lzma.FILTER_LZMA2, "dict_size": _dictionary(dict_size, limit)}
    if coder.method == _LZMA and len(coder.properties) >= 5:
        d = coder.properties[0]
        if d >= 9 * 5 * 5:
            return None
        lc, lp, pb = d % 9, (d // 9) % 5, d // 45
        dict_size = int.from_bytes(coder.properties[1:5], "little")
        return {"id": lzma.FILTER_LZMA1, "lc": lc, "lp": lp, "pb": pb, "dict_size": _dictionary(dict_size, limit)}
    if coder.method == _DELTA:
        return {"id": lzma.FILTER_DELTA, "dist": (coder.properties[0] if coder.properties else 0) + 1}
    if coder.method in _BRANCH_FILTERS:
        return {"id": _BRANCH_FILTERS[coder.method]}
    return None


def _dictionary(declared: int, limit: int) -> int:
    return max(4096, min(declared, limit))


def method_name(coder: _Coder) -> str:
    return _NAMES.get(coder.method, f"method {coder.method.hex() or 'copy'}")


def _unpack_folder(folder: _Folder, packed: bytes, limit: int) -> bytes:
    """The folder's output, at most `limit` bytes: unpacking stops there."""
    coders = folder.coders
    if any(c.method == _AES for c in coders):
        raise _Encrypted()
    if any(c.inputs != 1 or c.outputs != 1 for c in coders) or len(folder.packed) != 1:
        raise _Unsupported(", ".join(method_name(c) for c in coders))
    chain = [c for c in _decoding_order(folder) if c.method != _COPY]
    if not chain:
        return packed[:limit]
    if len(chain) == 1 and chain[0].method in (_DEFLATE, _BZIP2):
        decompressor = zlib.decompressobj(-15) if chain[0].method == _DEFLATE else bz2.BZ2Decompressor()
        try:
            out = decompressor.decompress(packed, limit)
        except (OSError, ValueError, zlib.error) as exc:
            raise SevenZipError(f"a stream of the 7-Zip archive is damaged: {exc}") from exc
        return bytes(out)
    filters = [f for c in chain if (f := _lzma_filter(c, limit)) is not None]
    if len(filters) != len(chain) or filters[-1]["id"] not in (lzma.FILTER_LZMA1, lzma.FILTER_LZMA2):
        raise _Unsupported(", ".join(method_name(c) for c in coders))
    try:
        return lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=filters).decompress(packed, limit)
    except lzma.LZMAError as exc:
        raise SevenZipError(f"a stream of the 7-Zip archive is damaged: {exc}") from exc


def _decoding_order(folder: _Folder) -> list[_Coder]:
    """A folder's coders (each one in, one out) from the one giving the folder's output back to
    the one reading the pack stream: lzma's filter order (its filters first, LZMA last)."""
    size = len(folder.coders)
    if any(not (0 <= i < size and 0 <= o < size) for i, o in folder.bind_pairs):
        raise SevenZipError("a folder of the 7-Zip archive is inconsistent (damaged archive)")
    source = {in_index: out_index for in_index, out_index in folder.bind_pairs}
    consumed = set(source.values())
    finals = [i for i in range(len(folder.coders)) if i not in consumed]
    if len(finals) != 1:
        raise SevenZipError("a folder of the 7-Zip archive is inconsistent (damaged archive)")
    order = [finals[0]]
    while order[-1] in source and len(order) <= len(folder.coders):
        order.append(source[order[-1]])
    if len(order) != len(folder.coders) or folder.packed != [order[-1]]:
        raise SevenZipError("a folder of the 7-Zip archive is inconsistent (damaged archive)")
    return [folder.coders[i] for i in order]


class _Encrypted(Exception):
    pass


class _Unsupported(Exception):
    pass


def _read_header(data: bytes) -> tuple[_Reader, int]:
    """The (decoded) header, and where the pack streams start."""
    if len(data) < 32 or not data.startswith(SIGNATURE):
        raise SevenZipError("not a 7-Zip archive")
    offset, size = struct.unpack_from("<QQ", data, 12)
    start = 32 + offset
    if size == 0:
        raise SevenZipError("the 7-Zip archive is empty")
    if size > _MAX_HEADER or start + size > len(data):
        raise SevenZipError("the 7-Zip archive is cut short (its header is missing)")
    r = _Reader(data[start : start + size])
    kind = r.byte()
    for _ in range(4):  # an encoded header may encode an encoded header; a few levels at most
        if kind != _ENCODED_HEADER:
            break
        streams = _read_streams(r)
        if not streams.folders or not streams.pack_sizes:
            raise SevenZipError("the 7-Zip archive's packed header is missing (damaged archive)")
        at = 32 + streams.pack_pos
        folder = streams.folders[0]
        if folder.size > _MAX_HEADER:
            raise SevenZipError("the 7-Zip archive's header is too large (damaged, or hostile)")
        try:
            header = _unpack_folder(folder, data[at : at + streams.pack_sizes[0]], folder.size)
        except _Encrypted:
            raise SevenZipError(
                "encrypted 7-Zip archive: a password is needed to read even its list of files"
            ) from None
        except _Unsupported as exc:
            raise SevenZipError(
                f"the 7-Zip archive's header is packed with {exc}, which Findling does not read"
            ) from None
        r = _Reader(header)
        kind = r.byte()
    if kind != _HEADER:
        raise SevenZipError("the 7-Zip archive's header is not one (damaged archive)")
    return r, 32


@dataclass(frozen=True)
class Entry:
    name: str
    size: int
    mtime: float
    folder: int  # -1: no data (an empty file)
    offset: int  # where its bytes start in its folder's output


@dataclass
class _FileProperties:
    count: int
    empty_stream: list[bool]
    empty_file: list[bool]
    directory: list[bool]
    names: list[str]
    mtimes: list[float]


def _times(body: _Reader, count: int) -> list[float]:
    """FILETIMEs (100 ns since 1601) as seconds since 1970; 0 where undefined."""
    defined = body.defined(count)
    if body.byte():
        raise SevenZipError("the 7-Zip archive keeps its file times elsewhere (not supported)")
    return [
        max(0.0, (int.from_bytes(body.take(8), "little") - _FILETIME_EPOCH) / 1e7) if has else 0.0 for has in defined
    ]


def _attributes(body: _Reader, count: int) -> list[bool]:
    """Whether each entry is a folder (FILE_ATTRIBUTE_DIRECTORY)."""
    defined = body.defined(count)
    if body.byte():
        raise SevenZipError("the 7-Zip archive keeps its attributes elsewhere (not supported)")
    return [bool(int.from_bytes(body.take(4), "little") & 0x10) if has else False for has in defined]


def _file_properties(r: _Reader) -> _FileProperties:
    count = r.count()
    found = _FileProperties(count, [False] * count, [], [False] * count, [], [0.0] * count)
    while (kind := r.byte()) != _END:
        body = _Reader(r.take(r.number()))
        if kind == _EMPTY_STREAM:
            found.empty_stream = body.bits(count)
        elif kind == _EMPTY_FILE:
            found.empty_file = body.bits(sum(found.empty_stream))
        elif kind == _NAME:
            if body.byte():
                raise SevenZipError("the 7-Zip archive keeps its file names elsewhere (not supported)")
            found.names = body.data[body.pos :].decode("utf-16-le", "replace").split("\0")[:count]
        elif kind == _MTIME:
            found.mtimes = _times(body, count)
        elif kind == _ATTRIBUTES:
            found.directory = _attributes(body, count)
    found.names += [f"(unnamed {i})" for i in range(len(found.names), count)]
    return found


def _files(r: _Reader, streams: _Streams) -> list[Entry]:
    """The archive's files (not its folders), each with where its bytes lie."""
    p = _file_properties(r)
    folder_of = [i for i, f in enumerate(streams.folders) for _ in range(f.substreams)]
    entries, stream, empty_index = [], 0, 0
    offsets: dict[int, int] = {}
    for i in range(p.count):
        if p.empty_stream[i]:  # no data: an empty file, or a folder
            is_file = p.empty_file[empty_index] if empty_index < len(p.empty_file) else False
            empty_index += 1
            if is_file and not p.directory[i]:
                entries.append(Entry(p.names[i], 0, p.mtimes[i], -1, 0))
            continue
        if stream >= min(len(streams.sizes), len(folder_of)):
            raise SevenZipError("the 7-Zip archive lists more files than it has data for (damaged archive)")
        folder = folder_of[stream]
        at = offsets.get(folder, 0)
        offsets[folder] = at + streams.sizes[stream]
        if not p.directory[i]:
            entries.append(Entry(p.names[i], streams.sizes[stream], p.mtimes[i], folder, at))
        stream += 1
    return entries


def read_7z(data: bytes) -> tuple[list[Entry], _Streams]:
    r, _ = _read_header(data)
    streams = _Streams()
    while (kind := r.byte()) != _END:
        if kind == _ARCHIVE_PROPERTIES:
            while r.byte() != _END:
                r.take(r.number())
        elif kind == _ADDITIONAL_STREAMS:
            _read_streams(r)
        elif kind == _MAIN_STREAMS:
            streams = _read_streams(r)
        elif kind == _FILES:
            return _files(r, streams), streams
        else:
            raise SevenZipError(f"unexpected property {kind} in the 7-Zip header")
    return [], streams


@dataclass
class _Left:
    bytes: int  # what the archive may still unpack


def _folder_members(
    data: bytes, pack: tuple[int, int], folder: _Folder, inside: list[Entry], wanted: set[Entry], left: _Left
) -> Iterator[tuple[Entry, bytes | None, str]]:
    empty = [e for e in inside if e.size == 0 and e in wanted]
    yield from ((e, b"", "") for e in empty)  # nothing to unpack, whatever its folder's method
    inside = [e for e in inside if not (e.size == 0 and e in wanted)]
    if not any(e in wanted for e in inside):  # nothing wanted from it: it is not unpacked
        yield from ((e, None, "") for e in inside)
        return
    reach = max(e.offset + e.size for e in inside if e in wanted)
    start, end = pack
    if end > len(data):
        yield from ((e, None, "cut short: not read") for e in inside)
        return
    try:
        out = _unpack_folder(folder, data[start:end], min(reach, left.bytes))
    except _Encrypted:
        yield from ((e, None, "encrypted: not read") for e in inside)
        return
    except _Unsupported as exc:
        yield from ((e, None, f"packed with {exc}: not read") for e in inside)
        return
    except SevenZipError as exc:
        yield from ((e, None, f"could not be read: {exc}") for e in inside)
        return
    left.bytes -= len(out)
    for e in inside:
        if e not in wanted:
            yield e, None, ""
        elif e.offset + e.size > len(out):
            yield e, None, "cut short: not read"
        else:
            yield e, out[e.offset : e.offset + e.size], ""


def members_7z(
    data: bytes, entries: list[Entry], streams: _Streams, wanted: set[Entry], limit: int
) -> Iterator[tuple[Entry, bytes | None, str]]:
    """(entry, its bytes or None, why not) for each of `entries` (from read_7z): folders are
    unpacked one at a time, each only as far as the wanted members in it reach, all of them
    together never past `limit` bytes (what lies before a wanted member counts too)."""
    starts = [32 + streams.pack_pos]
    for size in streams.pack_sizes:
        starts.append(starts[-1] + size)
    left = _Left(limit)
    by_folder: dict[int, list[Entry]] = {}
    for entry in entries:
        by_folder.setdefault(entry.folder, []).append(entry)
    for entry in by_folder.pop(-1, []):
        yield entry, b"" if entry in wanted else None, ""
    pack = 0
    for index, folder in enumerate(streams.folders):
        first, pack = pack, pack + len(folder.packed)
        if index not in by_folder:
            continue
        if first + 1 >= len(starts):
            yield from ((e, None, "cut short: not read") for e in by_folder[index])
            continue
        yield from _folder_members(data, (starts[first], starts[first + 1]), folder, by_folder[index], wanted, left)
