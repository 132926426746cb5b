"""How a process holding the index keeps its C heap: large blocks in mappings of their own."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")

# A large block is mapped and freed (glibc's threshold rises to its size), then sixteen smaller
# ones are made and every other one freed: what RSS gave back of those 48 MB.
_SCRIPT = """
import json, os, sys
def rss():
    return int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
if sys.argv[1] == "engine":
    from findling.engine import Engine
    Engine(sys.argv[2]).close()
big = bytearray(b"x") * (24 << 20)
del big
blocks = [bytearray(b"x") * (6 << 20) for _ in range(16)]
before = rss()
del blocks[::2]  # every other block: each hole has a live neighbour on both sides
print(json.dumps({"freed_mb": (before - rss()) / 2**20}))
"""


def _freed_mb(mode: str, home: str) -> float:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, mode, home],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["freed_mb"])


def test_a_process_holding_the_index_gives_freed_large_blocks_back(tmp_path):
    """A window searching while it embeds copies the vector index's arrays at each search: with
    glibc's own threshold those copies came from its heaps, which kept them (555 → 620 MB)."""
    if _freed_mb("plain", str(tmp_path / "plain")) >= 40:
        pytest.skip("this C library gives such blocks back by itself")
    assert _freed_mb("engine", str(tmp_path / "home")) >= 40
