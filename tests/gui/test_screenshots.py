"""The real window under Xvfb (xcb platform): PNGs of the window with results, preview and
explain panel, written to screenshots/ for a person to look at."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


MATCH = 0xFFFFE68A  # a query word, highlighted in the snippets and the preview (gui/hits.py)
CURRENT_MATCH = 0xFFFF9F43  # the preview's current hit


def _count(image, colour: int) -> int:
    return sum(image.pixel(x, y) == colour for x in range(0, image.width(), 2) for y in range(0, image.height(), 2))


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run is not installed (.ci/run installs it)")
@pytest.mark.slow
def test_window_screenshots(tmp_path):
    """The real window draws what it holds: matches highlighted where a query found them, none
    before a query or after a bad one. FINDLING_SCREENSHOTS=DIR keeps the pictures to look at."""
    out = Path(os.environ.get("FINDLING_SCREENSHOTS") or tmp_path / "screenshots")
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb"}
    proc = subprocess.run(
        [
            "xvfb-run",
            "-a",
            "-s",
            "-screen 0 1400x900x24",
            sys.executable,
            "-m",
            "findling.devtools.gui.screenshots",
            str(out),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from PySide6.QtGui import QImage

    images = {path.name: QImage(str(path)) for path in out.glob("*.png")}
    assert {"01-indexed.png", "02-results-preview.png", "03-explain.png", "18-bad-query-clears-the-list.png"} <= set(
        images
    )
    for name, image in images.items():
        assert not image.isNull() and image.width() >= 300, name
        colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
        assert len(colours) > 5, f"{name} looks blank ({len(colours)} colours)"
    assert _count(images["01-indexed.png"], MATCH) == 0  # no query yet: nothing highlighted
    results = images["02-results-preview.png"]
    assert _count(results, MATCH) > 100 and _count(results, CURRENT_MATCH) > 20  # snippets and the preview's hit
    assert _count(images["18-bad-query-clears-the-list.png"], MATCH) == 0  # nothing of the last list survives
