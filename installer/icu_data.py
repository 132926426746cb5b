"""Qt's ICU data without the parts a search window never reads (Linux bundle).

PySide6 ships ICU's whole data library (libicudata.so.73, 32 MB): besides what Qt uses
(collation, case mapping, locale and time-zone rules) it holds break rules and legacy converters
Qt 6 does not use on Unix, and the names of every
unit, currency, language, region and time zone in every language, transliterators and spelled-
out number rules, which only an application formatting such names through ICU itself reads.
This rewrites ICU's common data package without those items and links it into a library of the
same name and symbol, with binutils alone (objcopy, ld). ICU asks for an item it lacks with
U_MISSING_RESOURCE_ERROR and falls back to the root locale, as it does for any locale it
does not know.

The package format: a 16-bit header size, magic 0xda 0x27, a UDataInfo naming the format
"CmnD", then at the header's end a table of contents, a 32-bit count and (name offset, data
offset) pairs relative to the table, sorted by name; names and items follow, items aligned
to 16 bytes."""

from __future__ import annotations

import struct
import subprocess
from pathlib import Path

# What Findling's window never formats: localized names and spelled-out numbers; and what Qt 6
# never reads for it: break iterators (QTextBoundaryFinder and text layout use Qt's own Unicode
# tables, qunicodetools) and the legacy converters (*.cnv: on Unix Qt 6's local 8-bit encoding
# is UTF-8, which it converts itself; ICU's converters serve only codecs asked for by name).
DROPPED = ("unit/", "curr/", "lang/", "region/", "zone/", "translit/", "rbnf/", "brkitr/")
DROPPED_SUFFIXES = (".cnv",)
_ALIGN = 16


def read_package(data: bytes) -> tuple[bytes, list[tuple[str, bytes]]]:
    """(header, [(item name, item bytes)]) of an ICU common data package."""
    header_size, magic1, magic2 = struct.unpack_from("<HBB", data, 0)
    if (magic1, magic2) != (0xDA, 0x27) or data[12:16] != b"CmnD":
        raise ValueError("not an ICU common data package")
    toc = header_size
    count = struct.unpack_from("<I", data, toc)[0]
    pairs = [struct.unpack_from("<II", data, toc + 4 + 8 * i) for i in range(count)]
    items = []
    for i, (name_at, data_at) in enumerate(pairs):
        name_end = data.index(b"\0", toc + name_at)
        end = pairs[i + 1][1] if i + 1 < count else len(data) - toc
        items.append((data[toc + name_at : name_end].decode("ascii"), data[toc + data_at : toc + end]))
    return data[:header_size], items


def write_package(header: bytes, items: list[tuple[str, bytes]]) -> bytes:
    """The package holding `items` (in the sorted order they were read in)."""

    def pad(n: int) -> int:
        return -n % _ALIGN

    names = b"".join(name.encode("ascii") + b"\0" for name, _ in items)
    table_size = 4 + 8 * len(items)
    name_at = table_size
    data_at = table_size + len(names)
    data_at += pad(len(header) + data_at)
    entries, blobs = [], []
    for name, blob in items:
        entries.append(struct.pack("<II", name_at, data_at))
        name_at += len(name) + 1
        blobs.append(blob + b"\0" * pad(len(blob)))
        data_at += len(blobs[-1])
    head = struct.pack("<I", len(items)) + b"".join(entries) + names
    head += b"\0" * pad(len(header) + len(head))
    return header + head + b"".join(blobs)


def _symbol(library: Path, name: str) -> tuple[int, int]:
    """(file offset, size) of a data symbol in a shared library."""
    table = subprocess.run(["objdump", "-T", str(library)], capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in table.splitlines() if ln.split() and ln.split()[-1] == name)
    address, size = int(line.split()[0], 16), int(line.split()[-2], 16)
    sections = subprocess.run(["objdump", "-h", str(library)], capture_output=True, text=True, check=True).stdout
    for row in sections.splitlines():
        cols = row.split()
        if len(cols) >= 6 and cols[1] == ".rodata":
            vma, file_off = int(cols[3], 16), int(cols[5], 16)
            return address - vma + file_off, size
    raise ValueError(f"no .rodata in {library}")


def trim(library: Path, out_dir: Path, dropped: tuple[str, ...] = DROPPED) -> Path:
    """A copy of libicudataNN.so without the dropped item folders, in out_dir."""
    soname = library.name
    version = soname.split(".so.")[-1].split(".")[0]
    symbol = f"icudt{version}_dat"
    offset, size = _symbol(library, symbol)
    header, items = read_package(library.read_bytes()[offset : offset + size])
    prefix = f"icudt{version}l/"
    kept = [
        (n, b) for n, b in items if not n.removeprefix(prefix).startswith(dropped) and not n.endswith(DROPPED_SUFFIXES)
    ]
    out_dir.mkdir(parents=True, exist_ok=True)
    blob = out_dir / "icudata.bin"
    blob.write_bytes(write_package(header, kept))
    obj = out_dir / "icudata.o"
    subprocess.run(
        [
            "objcopy", "-I", "binary", "-O", "elf64-x86-64", "-B", "i386:x86-64",
            "--rename-section", ".data=.rodata,alloc,load,readonly,data,contents",
            "--set-section-alignment", ".rodata=16",
            "--redefine-sym", f"_binary_{blob.stem}_bin_start={symbol}",
            blob.name, obj.name,
        ],
        check=True,
        cwd=out_dir,
    )  # fmt: skip
    target = out_dir / soname
    subprocess.run(["ld", "-shared", "-soname", soname, "-o", str(target), str(obj)], check=True)
    return target
