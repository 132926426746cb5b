"""How this process's C heap holds large blocks: each in a mapping of its own, and freed memory
given back to the system after a burst of large allocations. glibc only (Linux); elsewhere
(macOS, Windows, musl) these do nothing."""

from __future__ import annotations

import ctypes
import sys
from typing import Any

_M_MMAP_THRESHOLD = -3  # mallopt's parameter (malloc.h)
LARGE_BLOCK = 1 << 20  # bytes: a block this size or larger gets a mapping of its own

_libc: Any = None


def _glibc() -> Any:
    """The C library's functions, from this process's own symbols (find_library would run a
    subprocess: 26 ms of a command's start); False where they are not glibc's."""
    global _libc
    if _libc is None:
        _libc = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None)
            except OSError:
                return _libc
            if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim"):  # musl has neither
                _libc = libc
    return _libc


def keep_large_blocks_apart() -> None:
    """Every block of LARGE_BLOCK or more in its own mapping, unmapped when freed. glibc's own
    threshold rises to the size of the largest mapped block freed (up to 32 MB), and from then
    on serves blocks that large from its heaps, which keep them once freed: a window searching
    while it embeds (each search copies the vector index's arrays anew) crept from 555 to 620
    MB and stayed there; with this, 548 MB on average (docs/eval/disk-scale.md)."""
    libc = _glibc()
    if libc:
        libc.mallopt(_M_MMAP_THRESHOLD, LARGE_BLOCK)


def return_freed_memory() -> None:
    """glibc keeps memory that was freed in its heaps, so a process that once read a million
    vectors or a large picture stays that big; malloc_trim hands it back (a worker held
    400 MB between pictures, 105 MB with this)."""
    libc = _glibc()
    if libc:
        libc.malloc_trim(0)
