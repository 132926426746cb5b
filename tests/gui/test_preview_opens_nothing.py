"""The formatted preview never opens a file the user did not index: images and style sheets
named by a page (a FIFO, /dev/zero, a real image, a file:// address) are not read, through the
real window. Qt's rich text opens such addresses itself when its document hands back nothing,
so this is watched from outside: inotify on the sentinels' folder, and a FIFO whose reader is
seen by opening it for writing."""

from __future__ import annotations

import ctypes
import os
import struct
import sys
import threading
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from tests.helpers import index_files

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify and FIFOs")

_IN_OPEN, _IN_ACCESS = 0x20, 0x01


class _OpenWatch:
    """Names of files opened or read in one folder (inotify), and whether a FIFO got a reader."""

    def __init__(self, folder: Path, fifo: Path) -> None:
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._fd = self._libc.inotify_init1(os.O_NONBLOCK)
        assert self._fd >= 0
        assert self._libc.inotify_add_watch(self._fd, str(folder).encode(), _IN_OPEN | _IN_ACCESS) >= 0
        self.fifo_opened = threading.Event()
        self._stop = threading.Event()
        self._fifo = fifo
        self._thread = threading.Thread(target=self._watch_fifo, daemon=True)
        self._thread.start()

    def _watch_fifo(self) -> None:
        # Opening a FIFO for writing without blocking works only while someone has it open for
        # reading; closing it again gives that reader an end of file, so a stuck window goes on.
        while not self._stop.wait(0.005):
            try:
                fd = os.open(self._fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                continue
            self.fifo_opened.set()
            os.close(fd)

    def opened(self) -> set[str]:
        names: set[str] = set()
        try:
            data = os.read(self._fd, 65536)
        except BlockingIOError:
            return names
        at = 0
        while at < len(data):
            _, _, _, size = struct.unpack_from("iIII", data, at)
            names.add(data[at + 16 : at + 16 + size].rstrip(b"\0").decode())
            at += 16 + size
        return names

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        os.close(self._fd)


@pytest.fixture
def sentinels(tmp_path):
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    image = QImage(4, 4, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    assert image.save(str(folder / "secret.png"))
    (folder / "secret.css").write_text("body { color: red }")
    fifo = folder / "pipe.png"
    os.mkfifo(fifo)
    watch = _OpenWatch(folder, fifo)
    watch.opened()  # the sentinels' own writing above is not the window's
    yield folder, watch
    watch.close()


def _show(qtbot, window, tmp_path, name: str, text: str) -> None:
    index_files(window.engine, tmp_path / "docs", {name: text})
    window.mode_box.setCurrentText("Keyword")
    window.search_field.setText("quokka")
    window.run_search(full=False)
    panel = window.preview_panel
    qtbot.waitUntil(lambda: panel.view() is panel.formatted and panel.formatted.hit_count >= 1, timeout=10000)
    window.preview_panel.formatted.viewport().grab()  # laid out and painted, images and all


def test_markdown_images_of_every_form_are_never_opened(qtbot, window, tmp_path, sentinels):
    folder, watch = sentinels
    page = (
        f"# Quokka\n\nThe quokka smiles.\n\n![a]({folder}/secret.png) ![b]({folder}/pipe.png) ![c](/dev/zero)\n\n"
        f'![d](file://localhost{folder}/secret.png) ![e][ref] <img src="{folder}/secret.png">\n\n'
        f"[ref]: {folder}/secret.png\n"
    )
    _show(qtbot, window, tmp_path, "q.md", page)
    assert "The quokka smiles." in window.preview_panel.formatted.document().toPlainText()
    assert watch.opened() == set()
    assert not watch.fifo_opened.is_set()


@pytest.mark.parametrize("element", ["style", "form", "template", "svg", "noscript"])
def test_an_html_element_marked_as_main_content_loads_no_style_sheet(qtbot, window, tmp_path, sentinels, element):
    folder, watch = sentinels
    body = "The quokka smiles at the camera. " * 20
    page = (
        f"<?xml version='1.0' encoding='utf-8'?><html><head><link rel=stylesheet href='{folder}/secret.css'>"
        f"</head><body><{element} role=main>@import url({folder}/secret.css); @import url({folder}/pipe.png);"
        f"<img src='{folder}/secret.png'></{element}><p>{body}</p><img src='/dev/zero'></body></html>"
    )
    _show(qtbot, window, tmp_path, "q.html", page)
    shown = window.preview_panel.formatted.document().toPlainText()
    assert "The quokka smiles" in shown and "@import" not in shown
    assert watch.opened() == set()
    assert not watch.fifo_opened.is_set()
