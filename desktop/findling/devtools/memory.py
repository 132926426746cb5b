"""Process memory readings for the benchmarks."""

from __future__ import annotations

import os
import resource
import sys


def peak_rss_mb() -> float:
    """The process's peak resident memory so far, in MB."""
    # ru_maxrss is bytes on macOS and kilobytes on Linux.
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e6


def rss_now_mb() -> float:
    """Resident memory now (Linux /proc; elsewhere the peak, which only grows)."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except OSError:
        return peak_rss_mb()
