"""The window's memory of one index: recent and saved searches, geometry, the one-time model
offer. Kept beside the index (an INI file in its folder), so the demo or a second index
(`--home`, FINDLING_HOME) never shows another index's searches or uses up its offer."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from findling.paths import data_home

FILENAME = "window.ini"


def window_state(home: str | Path) -> QSettings:
    path = Path(home) / FILENAME
    settings = QSettings(str(path), QSettings.Format.IniFormat)
    if not path.exists() and Path(home) == Path(data_home(None)):
        # Earlier versions kept one app-wide store: it belonged to the default index.
        shared = QSettings("findling", "findling")
        for key in shared.allKeys():
            settings.setValue(key, shared.value(key))
        settings.sync()
    return settings
