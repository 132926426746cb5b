"""Packaging: the NSIS script compiles with warnings as errors, the release workflow covers
every platform, and (in CI's bundle step) the PyInstaller app builds and passes --selftest."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from findling import __version__
from findling.executables import CONSOLE_EXE

ROOT = Path(__file__).resolve().parents[2]
VERSION = __version__  # the one place it is written (pyproject.toml reads it too)


@pytest.mark.skipif(shutil.which("makensis") is None, reason="makensis (Debian package nsis) is not installed")
def test_nsis_script_compiles_with_warnings_as_errors(tmp_path):
    app = tmp_path / "Findling"
    app.mkdir()
    (app / "Findling.exe").write_bytes(b"MZ placeholder")
    (app / CONSOLE_EXE).write_bytes(b"MZ placeholder")
    (app / "_internal").mkdir()
    (app / "_internal" / "base_library.zip").write_bytes(b"placeholder")
    out = tmp_path / f"Findling-{VERSION}-setup.exe"
    proc = subprocess.run(
        ["makensis", "-WX", "-V2", f"-DVERSION={VERSION}", f"-DSOURCE={app}", f"-DOUTFILE={out}", "findling.nsi"],
        cwd=ROOT / "installer" / "windows",
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert out.stat().st_size > 50_000


def test_windows_path_launcher_runs_the_console_executable():
    """bin\\findling.cmd, which the installer puts on PATH, must call the console exe that the
    spec builds and that findling.executables names."""
    script = (ROOT / "installer" / "windows" / "findling.nsi").read_text()
    spec = (ROOT / "installer" / "findling.spec").read_text()
    assert f'%~dp0..\\{CONSOLE_EXE}" %*' in script
    assert f'name="{CONSOLE_EXE.removesuffix(".exe")}", console=True' in spec
    assert 'WriteRegExpandStr HKCU "Environment" "Path"' in script and "UnStrRep" in script


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


BUNDLE_MAX_MB = 300  # unpacked, Linux
PACKED_MAX_MB = 120  # the .tar.gz, as the installers' bound


def _formats(folder: Path, pictures_of_text: bool = False) -> Path:
    from tests.helpers import draw_page, make_docx, make_epub, make_pdf

    folder.mkdir()
    make_pdf(
        folder / "logbook.pdf",
        ["The lighthouse keeper wrote down the storm at midnight.", "Second page: the lamp was trimmed at dawn."],
        title="Logbook",
    )
    make_docx(
        folder / "budget.docx",
        "Budget",
        "Quarterly budget",
        ["The marketing team may spend forty thousand euros this quarter."],
    )
    make_epub(
        folder / "baking.epub",
        "Baking",
        [("Starter", "Feed the sourdough starter flour and water daily; fermentation makes the bread rise.")],
    )
    (folder / "leaf.html").write_text(
        "<html><head><title>Leaves</title></head><body><main><h1>Leaves</h1>"
        "<p>Photosynthesis turns sunlight, water and carbon dioxide into sugar "
        "inside the chloroplasts of a leaf.</p></main></body></html>"
    )
    from PIL import Image

    exif = Image.Exif()
    exif[0x010E] = "The aurora over the fjord at midnight"  # ImageDescription
    Image.new("RGB", (16, 16), "black").save(folder / "aurora.jpg", exif=exif)
    if pictures_of_text:
        draw_page(["The florbulate dashboard"], size=(900, 240), mode="RGB").save(folder / "screenshot.png")
        draw_page(["Your quindecagon permit was approved"]).save(folder / "scan.pdf", resolution=150)
    import wave

    from mutagen.id3 import TIT2
    from mutagen.wave import WAVE

    with wave.open(str(folder / "song.wav"), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(8000)
        out.writeframes(b"\x00\x00" * 800)
    song = WAVE(str(folder / "song.wav"))
    song.add_tags()
    song.tags.add(TIT2(encoding=3, text="Lullaby of the harbour seals"))
    song.save()
    return folder


def _build(dist: Path, work: Path) -> None:
    """PyInstaller on the spec, as CI's bundle step runs it."""
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--distpath",
            str(dist),
            "--workpath",
            str(work),
            "installer/findling.spec",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert build.returncode == 0, build.stdout[-4000:] + build.stderr[-4000:]
    _assert_light_start(work)


def _assert_light_start(work: Path) -> None:
    """Every command's start runs the bundle's run-time hooks: ours sets Qt's paths; PyInstaller's
    PySide6 hook, which imported QtCore in each of them (60 ms of a terminal call), is left out."""
    started = (work / "findling" / "PKG-00.toc").read_text()
    assert "rth_qt_paths" in started and "pyi_rth_pyside6" not in started


def _says_the_shared_extra_is_missing(exe: Path, tmp_path: Path, env: dict[str, str]) -> None:
    """Shared collections are an extra the bundle leaves out: attaching one says so."""
    proc = subprocess.run(
        [str(exe), "--home", str(tmp_path / "home"), "attach", str(tmp_path / "a-collection")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode != 0 and "pip install 'findling[shared]'" in proc.stdout + proc.stderr, proc


@pytest.mark.skipif(
    os.environ.get("FINDLING_BUNDLE_TEST") != "1",
    reason="builds the PyInstaller bundle (minutes): set FINDLING_BUNDLE_TEST=1 (CI's bundle step)",
)
def test_bundle_builds_within_its_size_and_works(tmp_path):
    """The app as users get it: builds, passes its self-test (which starts the MCP server over
    stdio and calls a tool), stays within its size bounds, and with the offline models
    imported indexes PDF, DOCX, EPUB and HTML and answers keyword, semantic and hybrid queries."""
    import tarfile

    sys.path.insert(0, str(ROOT / "installer"))
    from bundle_size import part_sizes

    from tests.conftest import CROSS_ENCODER, MINILM, ocr_model_dir, write_test_manifest

    dist, work = tmp_path / "dist", tmp_path / "build"
    _build(dist, work)
    app = dist / "Findling"
    exe = app / ("findling-cli.exe" if os.name == "nt" else "Findling")
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "FINDLING_CACHE": str(tmp_path / "cache"),
        "FINDLING_MODELS_MANIFEST": str(write_test_manifest(tmp_path / "models.toml")),
    }
    env.pop("FINDLING_HOME", None)

    def run(*args: str) -> str:
        proc = subprocess.run(
            [str(exe), "--home", str(tmp_path / "home"), *args], capture_output=True, text=True, env=env, timeout=600
        )
        assert proc.returncode == 0, f"{args}: {proc.stdout[-2000:]} {proc.stderr[-2000:]}"
        return proc.stdout

    proc = subprocess.run([str(exe), "--selftest"], capture_output=True, text=True, env=env, timeout=600)
    print(proc.stdout)
    assert proc.returncode == 0 and "selftest passed" in proc.stdout, proc.stdout + proc.stderr
    assert "ok  mcp over stdio" in proc.stdout and "ok  command line" in proc.stdout

    sizes = part_sizes(app)
    total_mb = sum(sizes.values()) / 1e6
    print("\n".join(f"{size / 1e6:8.1f} MB  {name}" for name, size in sizes.most_common(15)))
    packed = tmp_path / "Findling.tar.gz"
    with tarfile.open(packed, "w:gz") as tar:
        tar.add(app, arcname="Findling")
    print(f"bundle size: {total_mb:.0f} MB unpacked, {packed.stat().st_size / 1e6:.0f} MB packed")
    assert total_mb <= BUNDLE_MAX_MB
    assert packed.stat().st_size / 1e6 <= PACKED_MAX_MB
    assert not any(name.startswith(("pyarrow", "torch", "duckdb_extension", "lance")) for name in sizes)
    _says_the_shared_extra_is_missing(exe, tmp_path, env)

    if not MINILM.exists():
        pytest.skip("../shared/models is not beside the checkout: the offline-model half needs it")
    run("models", "import", "minilm-test", str(MINILM))
    run("models", "import", "ce-test", str(CROSS_ENCODER))
    ocr = ocr_model_dir()
    if ocr is not None:
        run("models", "import", str(ocr))  # recognised by its files' hashes: pp-ocrv4
    docs = _formats(tmp_path / "docs", pictures_of_text=ocr is not None)
    # --wait: a plain add embeds in a background process, and the keyword searches below take
    # under a second in all, so a semantic query after them could come before its vectors.
    run("add", str(docs), "--wait")
    status = json.loads(run("status", "--json"))
    assert status["documents"] == (8 if ocr else 6) and status["failed"] == 0, status
    if ocr is not None:  # Pillow and the OCR models run in the bundle's workers
        assert status["ocr_line"] == "pictures and scans: OCR read 2 pages of 2 documents", status
        for word, name in (("florbulate", "screenshot.png"), ("quindecagon", "scan.pdf")):
            hits = json.loads(run("search", word, "--json"))["results"]
            assert [(Path(h["path"]).name, h["ocr_pages"]) for h in hits] == [(name, 1)], (word, hits)
    for word, name in (
        ("lighthouse", "logbook.pdf"),
        ("marketing", "budget.docx"),
        ("sourdough", "baking.epub"),
        ("chloroplasts", "leaf.html"),
        ("aurora", "aurora.jpg"),  # the picture's EXIF description
        ("lullaby", "song.wav"),  # the recording's title tag
    ):
        hits = json.loads(run("search", word, "--json"))["results"]
        assert [Path(h["path"]).name for h in hits] == [name], (word, hits)
    meaning = json.loads(run("vsearch", "how do plants make food from light", "--json"))["results"]
    assert Path(meaning[0]["path"]).name == "leaf.html", meaning
    hybrid = json.loads(run("query", "feeding a bread starter", "--json"))["results"]
    assert Path(hybrid[0]["path"]).name == "baking.epub", hybrid


def test_the_app_imports_no_module_the_bundle_leaves_out():
    """The spec's excludes (installer/findling.spec) are modules the app never imports: a product
    module that uses one works from a checkout and fails only in the installed app."""
    import ast

    spec = (ROOT / "installer" / "findling.spec").read_text()
    left_out = (
        *("numpy.random", "pyarrow", "pandas", "sqlite3", "tkinter", "pydoc", "mutagen", "cv2", "rapidocr_onnxruntime"),
        *("PIL.ImageFont", "PIL.ImageCms", "PIL.ImageGrab", "PIL.ImageQt", "py7zr", "psutil", "brotli"),
    )
    assert all(f'"{name}"' in spec for name in left_out)  # (findling.devtools too: the CLI says it is absent)

    def excluded(module: str) -> bool:
        return any(module == name or module.startswith(name + ".") for name in left_out)

    # the optional extra findling[shared] has one door: it imports Lance and pyarrow and, where
    # they are absent (the bundle), says to install the extra (the bundle test runs it)
    optional = ROOT / "desktop" / "findling" / "store" / "published.py"
    offenders = []
    for path in (ROOT / "desktop" / "findling").rglob("*.py"):
        if "devtools" in path.parts or path == optional:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                used = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                used = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("np", "numpy")
            ):
                used = [f"numpy.{node.attr}"]
            else:
                continue
            offenders += [f"{path.relative_to(ROOT)}:{node.lineno} {m}" for m in used if excluded(m)]
    assert offenders == []
