"""A folder filter keeps to that folder: `/x/notes` never takes `/x/notes-old/`, `/x/notes2/` or
`/x/notes.txt` (the SQL once matched any path starting with the folder's name). One rule,
pathnames.under, and its SQL twin held together here."""

from __future__ import annotations

import json
import os

import duckdb
from hypothesis import given, settings
from hypothesis import strategies as st

from findling.cli import main
from findling.pathnames import under, under_sql
from tests.helpers import write

NAMES = st.sampled_from(["notes", "notes-old", "notes2", "notes.txt", "a", "b.md", "x y"])


@settings(max_examples=300, deadline=None)
@given(st.lists(NAMES, min_size=1, max_size=4), st.lists(NAMES, min_size=1, max_size=3), st.booleans())
def test_the_sql_says_what_python_says(path_parts, folder_parts, trailing):
    path = os.sep + os.sep.join(path_parts)
    folder = os.sep + os.sep.join(folder_parts) + (os.sep if trailing else "")
    sql, params = under_sql("p", folder)
    found = duckdb.sql(f"SELECT {sql} FROM (SELECT ? AS p)", params=[*params, path]).fetchall()[0][0]
    # the parameters are bound in order: the folder's three values come before the path's one
    assert bool(found) == under(path, folder)


def test_sql_parameters_bind_in_place():
    sql, params = under_sql("p", "/x/notes")
    assert duckdb.execute(f"SELECT {sql} FROM (SELECT '/x/notes-old/a.md' AS p)", params).fetchall() == [(False,)]
    assert duckdb.execute(f"SELECT {sql} FROM (SELECT '/x/notes/a.md' AS p)", params).fetchall() == [(True,)]


def test_every_face_of_the_folder_filter_keeps_to_the_folder(tmp_path, capsys, monkeypatch):
    root = tmp_path / "x"
    for place in ("notes/a.md", "notes-old/b.md", "notes2/c.md", "notes.txt"):
        write(root / place, "The quarterly melon report.")
    monkeypatch.setenv("FINDLING_HOME", str(tmp_path / "home"))
    assert main(["add", str(root)]) == 0
    capsys.readouterr()
    folder = str(root / "notes")
    for args in (
        ["search", "melon", "--folder", folder],
        ["search", f"melon folder:{folder}"],
        ["search", f"melon in:{folder}"],
    ):
        assert main([*args, "--json"]) == 0
        paths = [r["path"] for r in json.loads(capsys.readouterr().out)["results"]]
        assert paths == [str(root / "notes" / "a.md")], args
