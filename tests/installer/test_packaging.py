"""Packaging: the NSIS script compiles with warnings as errors, the release workflow covers
every platform, and (in CI's bundle step) the PyInstaller app builds and passes --selftest."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


@pytest.mark.skipif(shutil.which("makensis") is None, reason="makensis (Debian package nsis) is not installed")
def test_nsis_script_compiles_with_warnings_as_errors(tmp_path):
    app = tmp_path / "Findling"
    app.mkdir()
    (app / "Findling.exe").write_bytes(b"MZ placeholder")
    (app / "_internal").mkdir()
    (app / "_internal" / "base_library.zip").write_bytes(b"placeholder")
    out = tmp_path / f"Findling-{VERSION}-setup.exe"
    proc = subprocess.run(
        ["makensis", "-WX", "-V2", f"-DVERSION={VERSION}", f"-DSOURCE={app}", f"-DOUTFILE={out}", "findling.nsi"],
        cwd=ROOT / "installer" / "windows", capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert out.stat().st_size > 50_000


def test_release_workflow_builds_every_platform():
    import yaml

    flow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text())
    matrix = flow["jobs"]["build"]["strategy"]["matrix"]["include"]
    assert {m["os"] for m in matrix} == {"ubuntu-latest", "windows-latest", "macos-14"}
    text = (ROOT / ".github" / "workflows" / "release.yml").read_text()
    for script in ("installer/build_linux.sh", "build_windows.ps1", "installer/macos/make_dmg.sh"):
        assert script in text
    for script in ("build_linux.sh", "windows/build_windows.ps1", "macos/make_dmg.sh"):
        assert "--selftest" in (ROOT / "installer" / script).read_text()


def test_icons_are_real_images():
    icons = ROOT / "resources" / "icons"
    assert (icons / "findling.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (icons / "findling.ico").read_bytes()[:4] == b"\x00\x00\x01\x00"
    icns = (icons / "findling.icns").read_bytes()
    assert icns[:4] == b"icns" and int.from_bytes(icns[4:8], "big") == len(icns)


@pytest.mark.skipif(os.environ.get("FINDLING_BUNDLE_TEST") != "1",
                    reason="builds the PyInstaller bundle (minutes): set FINDLING_BUNDLE_TEST=1 (CI's bundle step)")
def test_bundle_builds_and_passes_selftest(tmp_path):
    dist, work = tmp_path / "dist", tmp_path / "build"
    build = subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--distpath", str(dist), "--workpath", str(work), "installer/findling.spec"],
        cwd=ROOT, capture_output=True, text=True, timeout=1200,
    )
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    exe = dist / "Findling" / ("Findling.exe" if os.name == "nt" else "Findling")
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    proc = subprocess.run([str(exe), "--selftest"], capture_output=True, text=True, env=env, timeout=300)
    print(proc.stdout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "selftest passed" in proc.stdout
    size = sum(p.stat().st_size for p in (dist / "Findling").rglob("*") if p.is_file() and not p.is_symlink())
    print(f"bundle size: {size / 1e6:.0f} MB")
    assert not list((dist / "Findling").rglob("torch")), "torch must never be bundled"
    assert not re.search(r"libarrow_flight", " ".join(str(p) for p in (dist / "Findling").rglob("*.so*")))
