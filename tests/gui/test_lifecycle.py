"""The app's first minutes and last second, in a real process each (tests/gui/lifecycle_driver.py):
the first-run model offer through a failed download and two imports, a quit while embedding,
a relaunch while the last window is closing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from findling.engine import Engine
from tests.conftest import MINILM, ocr_model_dir

pytestmark = pytest.mark.slow  # processes, real models or whole folders: seconds each

ROOT = Path(__file__).resolve().parents[2]


def _driver(*argv: str, timeout: float = 120, x11: bool = False) -> tuple[int, str, float]:
    """(exit code, what it printed, when it ended) of the driver in a process of its own; with
    `x11`, a real window on an X server (Xvfb) where xvfb-run is installed (CI installs it)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    xvfb = shutil.which("xvfb-run") if x11 else None
    platform = "xcb" if xvfb else "offscreen"
    env = dict(os.environ, QT_QPA_PLATFORM=platform, HF_ENDPOINT="http://127.0.0.1:9", PYTHONPATH=path)
    proc = subprocess.run(
        [*([xvfb, "-a"] if xvfb else []), sys.executable, "-m", "tests.gui.lifecycle_driver", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    ended = time.time()
    return proc.returncode, proc.stdout + proc.stderr, ended


def _prose(n: int) -> str:
    """Long, varied text: many embedding windows a document."""
    words = "river stone ledger harbour lantern quarry orchard signal meadow copper garden winter".split()
    return "\n\n".join(
        " ".join(words[(i * 7 + j * 3) % len(words)] + ("s" if (i + j) % 5 == 0 else "") for j in range(120))
        for i in range(n)
    )


def _pending_index(home: Path, folder: Path, documents: int, paragraphs: int) -> int:
    folder.mkdir()
    for i in range(documents):
        (folder / f"notes-{i:03}.txt").write_text(f"document {i}\n\n" + _prose(paragraphs + i), encoding="utf-8")
    engine = Engine(home)
    try:
        engine.add_source(folder)
        return engine.index(embed=False).added
    finally:
        engine.close()


def _embedded(home: Path) -> tuple[int, int]:
    engine = Engine(home)
    try:
        status = engine.status()
        return status.embedded, status.embeddable
    finally:
        engine.close()


@pytest.mark.skipif(not MINILM.exists(), reason="../shared/models is not beside the checkout")
def test_first_run_offer_failed_download_imports_and_close_keep_the_app_alive(tmp_path, monkeypatch):
    """Yes to the offer, the download fails offline, the embedder and the OCR model are imported
    from folders, Close: the app went on embedding and quit normally (it crashed with a
    segmentation fault: a pool thread freed the dialog)."""
    from tests.conftest import write_test_manifest

    monkeypatch.setenv("FINDLING_MODELS_MANIFEST", str(write_test_manifest(tmp_path / "models.toml")))
    home = Path(os.environ["FINDLING_HOME"])
    _pending_index(home, tmp_path / "docs", 30, 4)
    ocr = ocr_model_dir()
    code, said, _ = _driver("first-run", str(MINILM), *([str(ocr)] if ocr else []))
    assert code == 0, said[-3000:]
    assert "cannot reach" in said  # the download failed, and said why
    assert said.count("IMPORTED") == (2 if ocr else 1) and "installed" in said
    assert "PROGRESS" in said and "EXIT" in said
    embedded, total = _embedded(home)
    assert total == 30 and embedded > 0  # the window embedded after the import


@pytest.fixture
def pending(tmp_path, embedder_installed) -> tuple[Path, int]:
    """An index whose text is searchable and whose embedding has barely begun: documents of
    some 40 windows each, so one batch of sixteen is seconds of model runs."""
    home = Path(os.environ["FINDLING_HOME"])
    return home, _pending_index(home, tmp_path / "docs", 40, 40)


def test_quitting_while_embedding_ends_the_process_and_the_next_opener_resumes(pending):
    home, total = pending
    code, said, ended = _driver("quit-embedding", x11=True)
    assert code == 0, said[-3000:]
    closed = float(said.split("CLOSE ")[1].split()[0])
    left = float(said.split("EXIT ")[1].split()[0])
    # the app waited for the whole batch in flight (7 s on a small folder, minutes on a manual)
    assert left - closed < 2.0, said[-2000:]
    assert ended - closed < 8.0  # and the process (and the X server's wrapper) ended after it
    engine = Engine(home)  # the index is free: this opens it
    try:
        status = engine.status()
        reached, first_only = status.embedded, status.first_only
        assert reached - first_only < total  # stopped before every document was embedded whole
        report = engine.embed()
    finally:
        engine.close()
    # resumed where it stopped, nothing embedded twice: a first vector for those without one, the
    # rest of each document for those that had their first only
    assert report.documents == total - reached and report.deepened == total - (reached - first_only)
    assert _embedded(home) == (total, total)


def test_a_relaunch_while_the_window_closes_shows_a_window(pending):
    """The closing app stopped answering at once, so the new launch opened the index itself
    once it was free (it was asked to come forward instead, and nothing was shown)."""
    code, said, _ = _driver("quit-embedding", "--relaunch")
    assert code == 0, said[-3000:]
    assert "RELAUNCHED" in said
    assert "SHOWN" in said, said[-3000:]


def test_sigterm_quits_as_ctrl_q_does_and_lets_the_index_go(tmp_path, monkeypatch):
    """A session that ends sends SIGTERM: the window died on it, leaving its owner record beside
    the index for the next process to find stale. Now it quits as Ctrl+Q does."""
    home = tmp_path / "home"
    monkeypatch.setenv("FINDLING_HOME", str(home))
    code, said, _ended = _driver("terminate", timeout=60)
    assert "SHOWN" in said and code == 0, said
    assert any(line.startswith("EXIT") and line.endswith(" 0") for line in said.splitlines()), said
    assert not (home / "owner.endpoint").exists()
