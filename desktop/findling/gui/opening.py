"""Open a file or a folder in the application the desktop chooses, and say so in the window
when none does.

On Linux QDesktopServices starts xdg-open and reports success as soon as it has started,
whatever xdg-open finds after: a file type with no application, a folder with no file
manager. Here xdg-open runs as a child whose exit is watched, and a failure comes back as a
sentence for the status bar. Elsewhere the platform's answer is already the true one."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable

from PySide6.QtCore import QObject, QProcess, QUrl
from PySide6.QtGui import QDesktopServices

from findling.pathnames import display_path

_REASON_CHARS = 300

# xdg-open's exit codes (xdg-utils' manual)
_XDG_REASONS = {
    1: "the request was not understood",
    2: "it does not exist",
    3: "no application on this computer opens it",
    4: "the application that opens it failed",
}


def file_url(path: str) -> QUrl:
    """A file: URL for the exact bytes of `path`, also when the name is not valid UTF-8
    (QUrl.fromLocalFile would need it as text)."""
    from urllib.parse import quote_from_bytes

    return QUrl.fromEncoded(b"file://" + quote_from_bytes(os.fsencode(os.path.abspath(path)), safe="/").encode())


def failure_sentence(path: str, code: int, said: str) -> str:
    reason = _XDG_REASONS.get(code, f"the opener stopped with code {code}")
    said = " ".join(said.split())[-_REASON_CHARS:]
    return f"Could not open {display_path(path)}: {reason}" + (f" ({said})" if said else "") + "."


def xdg_open() -> str | None:
    """xdg-open where the desktop is a Linux one and has it; None: ask Qt."""
    return shutil.which("xdg-open") if sys.platform.startswith("linux") else None


class DesktopOpener(QObject):
    """`open(path, on_failure)`: on_failure(sentence) runs on the GUI thread when nothing opened it."""

    def open(self, path: str, on_failure: Callable[[str], None]) -> None:
        opener = xdg_open()
        if opener is None:
            if not QDesktopServices.openUrl(file_url(path)):
                on_failure(f"Could not open {display_path(path)}: no application on this computer opens it.")
            return
        process = QProcess(self)  # the opener keeps it until it ends (some wait for their application)
        process.setProgram(opener)
        process.setArguments([path])
        process.setStandardOutputFile(QProcess.nullDevice())

        def finished(code: int, _status: QProcess.ExitStatus) -> None:
            said = bytes(process.readAllStandardError().data()[-4096:]).decode("utf-8", "replace")
            process.deleteLater()
            if code != 0:
                on_failure(failure_sentence(path, code, said))

        def errored(error: QProcess.ProcessError) -> None:
            if error == QProcess.ProcessError.FailedToStart:
                process.deleteLater()
                on_failure(f"Could not open {display_path(path)}: {opener} did not start.")

        process.finished.connect(finished)
        process.errorOccurred.connect(errored)
        process.start()
