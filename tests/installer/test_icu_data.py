"""The bundle's trimmed ICU data: the package format read and written back byte for byte, and a
library that exports ICU's symbol without the dropped items."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "installer"))

from icu_data import _symbol, read_package, trim, write_package  # noqa: E402

PYSIDE = Path(__import__("PySide6").__file__).parent / "Qt" / "lib"
ICU = sorted(PYSIDE.glob("libicudata.so.*"))
pytestmark = pytest.mark.skipif(not ICU or not shutil.which("objcopy"), reason="Linux PySide6 wheel and binutils")


def _package(library: Path) -> tuple[bytes, list[tuple[str, bytes]]]:
    version = library.name.split(".so.")[-1].split(".")[0]
    offset, size = _symbol(library, f"icudt{version}_dat")
    if size == 0:  # our own library: the package runs to the end of its section
        size = len(library.read_bytes()) - offset
    return read_package(library.read_bytes()[offset : offset + size])


def test_a_package_is_written_back_as_it_was_read():
    header, items = _package(ICU[0])
    assert len(items) > 1000
    again_header, again = read_package(write_package(header, items))
    assert again_header == header and again == items


def test_the_trimmed_library_keeps_what_qt_reads(tmp_path):
    trimmed = trim(ICU[0], tmp_path)
    assert trimmed.name == ICU[0].name and trimmed.stat().st_size < ICU[0].stat().st_size * 0.7
    soname = subprocess.run(["objdump", "-p", str(trimmed)], capture_output=True, text=True).stdout
    assert f"SONAME               {ICU[0].name}" in soname
    names = [n.split("/", 1)[1] for n, _ in read_package((tmp_path / "icudata.bin").read_bytes())[1]]
    assert any(n.startswith("coll/") for n in names) and "root.res" in names and "uts46.nrm" in names
    assert not any(n.startswith("brkitr/") or n.endswith(".cnv") for n in names)
    assert "zoneinfo64.res" in names and not any(n.startswith(("lang/", "curr/", "unit/")) for n in names)
