"""Open at line: the chosen editor command, filled in and started."""

from __future__ import annotations

import shutil
import sys

from findling.gui import open_at
from findling.gui.open_at import editor_command


def test_the_template_is_filled_after_splitting():
    assert editor_command('kate --line {line} "{path}"', "/a b/it's.md", 12) == ["kate", "--line", "12", "/a b/it's.md"]
    assert editor_command("subl {path}:{line}", "/x.py", 3) == ["subl", "/x.py:3"]
    assert editor_command('broken "quote', "/x", 1) is None


def test_vs_code_when_nothing_is_set(monkeypatch):
    monkeypatch.setattr(open_at.shutil, "which", lambda name: "/usr/bin/code" if name == "code" else None)
    assert editor_command("", "/x.py", 7) == ["/usr/bin/code", "-g", "/x.py:7"]
    monkeypatch.setattr(open_at.shutil, "which", lambda name: None)
    assert editor_command("", "/x.py", 7) is None


def test_the_window_starts_the_editor_at_the_line(qtbot, window, tmp_path):
    seen = tmp_path / "seen.txt"
    script = tmp_path / "editor.py"
    script.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(' '.join(sys.argv[1:]))\n")
    window.engine.settings.search.open_at_line = f"{shutil.which(sys.executable) or sys.executable} {script} {{path}} {{line}}"
    command = editor_command(window.engine.settings.search.open_at_line, str(tmp_path / "doc.md"), 42)
    window.open_at_line(command)
    qtbot.waitUntil(seen.exists, timeout=10000)
    qtbot.waitUntil(lambda: seen.read_text() == f"{tmp_path / 'doc.md'} 42", timeout=5000)
