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


@pytest.mark.skipif(shutil.which("xvfb-run") is None, reason="xvfb-run is not installed (.ci/run installs it)")
def test_window_screenshots(tmp_path):
    out = ROOT / "screenshots"
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "xcb"}
    proc = subprocess.run(
        ["xvfb-run", "-a", "-s", "-screen 0 1400x900x24", sys.executable, "-m", "findling.devtools.gui.screenshots", str(out)],
        env=env, capture_output=True, text=True, timeout=180,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    from PySide6.QtGui import QImage

    for name, least in (("01-indexed.png", 5), ("02-results-preview.png", 20), ("03-explain.png", 20)):
        image = QImage(str(out / name))
        assert not image.isNull() and image.width() >= 1000, name
        colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
        assert len(colours) > least, f"{name} looks blank ({len(colours)} colours)"
