"""Unnamed scratch files for in-memory structures that spill to disk."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import IO


def scratch_file(folder: Path | None, prefix: str) -> IO[bytes]:
    """An unnamed temporary file the OS deletes when the process ends, beside the index where it can be
    (the disk the user chose for it), else in the system's temporary folder (a read-only data folder)."""
    if folder is not None:
        try:
            return tempfile.TemporaryFile(dir=folder, prefix=prefix)
        except OSError:
            pass
    return tempfile.TemporaryFile(prefix=prefix)
