"""A vector index's exact float vectors, in a file read by position (search/vector_index.py)."""

from __future__ import annotations

import io
import os
import threading
from pathlib import Path
from typing import IO, cast

import numpy as np

from findling.scratch import scratch_file


class FloatFile:
    """Exact vectors, appended to a file and read back by position: on disk, in the OS's file
    cache where a search looked. An unnamed temporary file the OS deletes when the process
    ends, or (`path`) the index's own float file, kept for the next process.

    Why not a memory map: every row a search touched stayed mapped, with the pages the kernel
    read around it, so the process's resident memory grew by 200-400 MB a search at a million
    vectors until it held the whole file (1.5 GB); read into a buffer, it stays flat."""

    def __init__(self, folder: Path | None, dim: int, path: Path | None = None) -> None:
        self.dim = dim
        self._row_bytes = dim * 4
        self._lock = threading.Lock()
        self.path = path
        self.count = 0
        self._file: IO[bytes] | None = None
        if path is None:
            self._file = scratch_file(folder, "findling-vectors-")
        elif path.exists():
            self._open(path)
        # else made at its first row: a process that maps a kept snapshot instead, or ends
        # without closing (a CLI search), leaves no empty file behind

    def _open(self, path: Path) -> IO[bytes]:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
        self._file = os.fdopen(fd, "r+b")
        size = os.fstat(fd).st_size
        self.count = size // self._row_bytes
        if size % self._row_bytes:  # a row cut off by a killed process: never referenced
            self._file.truncate(self.count * self._row_bytes)
        return self._file

    def append(self, vectors: np.ndarray) -> np.ndarray:
        with self._lock:
            if self._file is None:
                assert self.path is not None
                self._open(self.path)
            assert self._file is not None
            self._file.seek(0, os.SEEK_END)
            self._file.write(np.ascontiguousarray(vectors, dtype=np.float32).data.cast("B"))
            self._file.flush()
            slots = np.arange(self.count, self.count + len(vectors), dtype=np.int64)
            self.count += len(vectors)
            return slots

    def erase(self, slots: np.ndarray) -> None:
        """Overwrite these rows with zeros: a removed document's vectors do not outlive it in a
        file kept between processes (the slots stay; compaction reclaims them)."""
        zeros = bytes(self._row_bytes)
        with self._lock:
            if self._file is None:
                return
            for slot in np.asarray(slots, dtype=np.int64).tolist():
                self._file.seek(slot * self._row_bytes)
                self._file.write(zeros)
            self._file.flush()

    def read(self, slots: np.ndarray) -> np.ndarray:
        """float32 [len(slots), dim]: the rows at these slots, in their order; runs of
        consecutive slots are read in one call."""
        slots = np.asarray(slots, dtype=np.int64).reshape(-1)
        out = np.empty((len(slots), self.dim), dtype=np.float32)
        if len(slots) == 0:
            return out
        order = np.argsort(slots, kind="stable")
        ordered = slots[order]
        breaks = np.flatnonzero(np.diff(ordered) != 1) + 1
        firsts = np.concatenate(([0], breaks))
        lasts = np.concatenate((breaks, [len(ordered)]))
        with self._lock:
            if self._file is None:
                raise OSError("the vector file has no rows yet")
            in_order = bool(np.all(order[1:] > order[:-1]))
            for first, last in zip(firsts.tolist(), lasts.tolist(), strict=True):
                self._file.seek(int(ordered[first]) * self._row_bytes)
                wanted = (last - first) * self._row_bytes
                if in_order:  # straight into the rows: a batch is not held twice (a load's re-coding)
                    if cast(io.BufferedIOBase, self._file).readinto(out[first:last].data.cast("B")) != wanted:
                        raise OSError("the vector scratch file is shorter than its rows")
                    continue
                data = self._file.read(wanted)
                if len(data) != wanted:
                    raise OSError("the vector scratch file is shorter than its rows")
                out[order[first:last]] = np.frombuffer(data, dtype=np.float32).reshape(-1, self.dim)
        return out

    def close(self) -> None:
        with self._lock:
            if self._file is not None:
                self._file.close()
