"""An archive's members are documents of their own, addressed `bundle.zip › docs/inner.md`: they
follow their archive when it changes, moves or goes (a full run and the watcher's), and the index
stays consistent through all of it."""

from __future__ import annotations

import io
import os
import tarfile
import zipfile
from pathlib import Path

from findling.engine import Engine
from findling.records import SearchMode, SearchRequest
from findling.store.documents import delete_documents
from tests.helpers import assert_index_consistent


def _zip(path: Path, members: dict[str, str | bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return path


def _nested() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as inner:
        inner.writestr("deep/note.txt", "the innermost wombatfish note")
    return buffer.getvalue()


def _paths(engine: Engine, query: str) -> list[str]:
    return [h.path for h in engine.find(SearchRequest(query, SearchMode.KEYWORD)).hits]


def test_members_follow_their_archive(tmp_path, settings):
    folder = tmp_path / "docs"
    folder.mkdir()
    bundle = _zip(folder / "bundle.zip", {"a.md": "# A\n\nalphaword", "nested.zip": _nested()})
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        assert _paths(engine, "alphaword") == [f"{bundle} › a.md"]
        assert _paths(engine, "wombatfish") == [f"{bundle} › nested.zip › deep/note.txt"]
        status = engine.status()
        assert (status.indexed, status.sources[0].indexed) == (4, 4)  # the archive, a.md, nested.zip, note.txt
        assert engine.index(embed=False).unchanged == 1  # the archive unchanged: its members kept as they are
        assert _paths(engine, "alphaword") == [f"{bundle} › a.md"]

        # changed: its members are read again (one gone, one new)
        _zip(bundle, {"b.md": "betaword"})
        os.utime(bundle, (1_000_000_000, 1_000_000_000))
        engine.index(embed=False)
        assert _paths(engine, "alphaword") == [] and _paths(engine, "wombatfish") == []
        assert _paths(engine, "betaword") == [f"{bundle} › b.md"]
        assert assert_index_consistent(engine) == 2

        # moved: its members' addresses move with it
        moved = folder / "renamed.zip"
        bundle.rename(moved)
        report = engine.index(embed=False)
        assert report.moved == 1
        (hit,) = engine.find(SearchRequest("betaword", SearchMode.KEYWORD)).hits
        assert hit.path == f"{moved} › b.md" and engine.get(f"#{hit.docid}").text == "betaword"

        # gone: so are its members
        moved.unlink()
        engine.index(embed=False)
        assert _paths(engine, "betaword") == [] and engine.status().indexed == 0
        assert assert_index_consistent(engine) == 0


def test_the_watchers_update_replaces_members(tmp_path, settings):
    folder = tmp_path / "docs"
    folder.mkdir()
    data = b"def tarred_function():\n    return 'tarmemberword'\n"
    archive = folder / "src.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        info = tarfile.TarInfo("pkg/mod.py")
        info.size, info.mtime = len(data), 1_600_000_000
        tar.addfile(info, io.BytesIO(data))
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        (hit,) = engine.find(SearchRequest("tarmemberword", SearchMode.KEYWORD)).hits
        # a member is a document as a file is: its own kind (a source file, its definitions), its own time
        assert hit.path == f"{archive} › pkg/mod.py" and hit.symbol == "tarred_function" and hit.mtime == 1_600_000_000
        with tarfile.open(archive, "w:gz") as tar:
            info = tarfile.TarInfo("pkg/other.py")
            info.size = 12
            tar.addfile(info, io.BytesIO(b"gammaword = 1"[:12]))
        engine.update_paths([str(archive)])
        assert _paths(engine, "tarmemberword") == []
        assert _paths(engine, "gammaword") == [f"{archive} › pkg/other.py"]
        archive.unlink()
        engine.update_paths([str(archive)])
        assert engine.status().indexed == 0
        assert assert_index_consistent(engine) == 0


def test_why_not_speaks_of_members(tmp_path, settings):
    folder = tmp_path / "docs"
    folder.mkdir()
    bundle = _zip(folder / "bundle.zip", {"a.md": "alphaword"})
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        shown = engine.why_not(SearchRequest("alphaword", SearchMode.KEYWORD), f"{bundle} › a.md")
        assert shown.reason == "shown"
        absent = engine.why_not(SearchRequest("alphaword", SearchMode.KEYWORD), f"{bundle} › b.md")
        assert absent.reason == "missing" and "bundle.zip holds no b.md" in absent.summary


def test_an_index_from_before_members_reads_its_archives_and_mail_again(tmp_path, settings):
    from email.message import EmailMessage

    folder = tmp_path / "docs"
    folder.mkdir()
    bundle = _zip(folder / "bundle.zip", {"a.md": "alphaword"})
    message = EmailMessage()
    message["Subject"], message["From"] = "Report", "ada@example.org"
    message.set_content("See the attachment.")
    message.add_attachment(b"attachedword notes", maintype="text", subtype="plain", filename="notes.txt")
    (folder / "message.eml").write_bytes(bytes(message))
    home = tmp_path / "home"
    with Engine(home, settings=settings) as engine:
        engine.add_source(folder)
        engine.index(embed=False)
        cur = engine._db.cursor()  # as schema 14 left it: no members, each file one document
        inner = [r[0] for r in cur.execute("SELECT doc_id FROM members").fetchall()]
        delete_documents(cur, inner)
        cur.execute("DROP TABLE members")
        cur.execute("UPDATE meta SET value = '14' WHERE key = 'schema_version'")
    with Engine(home, settings=settings) as engine:
        report = engine.index(embed=False)
        assert report.updated == 2  # the archive and the message, read again by the migrations
        assert _paths(engine, "alphaword") == [f"{bundle} › a.md"]
        assert _paths(engine, "attachedword") == [f"{folder / 'message.eml'} › notes.txt"]
        assert assert_index_consistent(engine) == 4


def test_where_a_document_inside_a_file_is():
    from findling.pathnames import folder_of

    assert folder_of("/d/bundle.zip › docs/inner.md") == "/d/bundle.zip › docs"
    assert folder_of("/d/message.eml › report.docx") == "/d/message.eml"
    assert folder_of("/d/a.mbox › 3. Re: budget.eml › sheet.txt") == "/d/a.mbox › 3. Re: budget.eml"
    assert folder_of("/d/notes › old/plan.md") == "/d/notes › old"  # a folder's own name may hold the mark
    assert folder_of("/d/plain.md") == "/d"
