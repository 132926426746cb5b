"""Words a person understands: match words for scores, time left, the window's own advice,
folders told apart, a mistyped command, a mistyped docid."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from findling.errors import Remedy
from findling.faces.presentation import (
    advice,
    dropped_words,
    embedding_line,
    error_text,
    match_word,
    note_text,
    said,
    time_left,
)
from findling.pathnames import distinct_names
from findling.records import EmbedDepth, Note


def test_scores_read_as_words():
    assert [match_word(s) for s in (0.9, 0.5, 0.2, 0.06)] == [
        "strong match",
        "strong match",
        "good match",
        "fair match",
    ]
    assert match_word(0.9, weak=True) == "weak match"


def test_dropped_words_are_the_common_ones_of_a_query_with_others():
    assert dropped_words("the history of rome") == ["the", "of"]
    assert dropped_words("to be or not to be") == []  # nothing else: nothing is dropped


def test_time_left_from_the_pace_so_far():
    assert time_left(0, 100, 10.0) == "" and time_left(10, 100, 1.0) == ""
    assert time_left(10, 100, 10.0) == "about 2 min left"
    assert time_left(90, 100, 10.0) == "less than a minute left"
    assert time_left(1, 1000, 10.0) == "about 2.8 h left"


def test_embedding_with_every_document_whole_says_no_time_left():
    """`findling index` with nothing to embed printed "1,173 of 1,173 documents whole, less than a
    minute left" while the folders' self-tests ran after it (12-111 s)."""
    assert embedding_line(1173, 1173, EmbedDepth(1173, 1173, 0.0, 0.0)) == (
        "Embedding every passage: all 1,173 documents whole"
    )
    waiting = embedding_line(1173, 1173, EmbedDepth(900, 1173, 0.0, 150.0))
    assert waiting == "Embedding every passage: 900 of 1,173 documents whole, about 2 min left"


def test_a_bar_stands_where_the_embedding_line_says():
    from findling.faces.presentation import embedding_share

    assert embedding_share(55, 1212, EmbedDepth(0, 1212, 60.0, 900.0)) == (55, 1212)
    assert embedding_share(1212, 1212, EmbedDepth(300, 1190, 0.0, 600.0)) == (300, 1190)
    assert embedding_share(1212, 1212, EmbedDepth(1190, 1190, 0.0, 0.0)) == (1190, 1190)
    assert embedding_share(1212, 1212, None) == (1212, 1212)  # a run without depth (a model server's)
    assert embedding_share(7, 9, None) == (7, 9)


def test_each_face_says_what_to_do_in_its_own_words():
    """The engine says facts and a Remedy; the terminal names a command, the window a menu or a
    gesture, never a command (it rewrote terminal advice by regex, and missed some)."""
    for remedy in Remedy:
        terminal = advice(remedy, "X", "terminal")
        window = advice(remedy, "X", "window")
        assert "findling " in terminal or " -n " in terminal, remedy
        assert "findling " not in window and " -n " not in window, remedy
    note = Note("no documents are embedded yet", Remedy.UPDATE_INDEX)
    assert note_text(note, "terminal") == "no documents are embedded yet; run findling index"
    assert note_text(note, "window") == "no documents are embedded yet; update the index (File → Update index, F5)"
    assert said("It is not indexed yet.", Remedy.UPDATE_OR_WAIT, "", "window").endswith("to reach it.")
    assert note_text(Note("plain fact"), "window") == "plain fact"


def test_an_error_keeps_its_remedy_across_processes():
    from findling.models.download import ModelDownloadError, ModelMissingError
    from findling.server.codec import decode, encode

    sent = ModelMissingError("model bge is not installed", remedy=Remedy.GET_MODEL, subject="bge")
    got = decode(json.loads(json.dumps(encode(sent))))
    assert type(got) is ModelMissingError and got.remedy is Remedy.GET_MODEL and got.subject == "bge"
    assert error_text(got, "terminal") == "model bge is not installed; findling models pull bge"
    assert error_text(got, "window") == "model bge is not installed; File → Models… downloads or imports it"
    # an error with its own constructor crosses too, and one from a newer peer reads as its message
    assert type(decode(encode(ModelDownloadError("offline", unreachable=True)))) is ModelDownloadError
    newer = decode({"__x": "FindlingError", "m": "fact", "r": ["some_new_remedy", ""]})
    assert str(newer) == "fact" and newer.remedy is None


def test_folders_are_named_by_as_much_of_their_path_as_tells_them_apart():
    paths = ["/usr/share/doc/python3.11/html", "/usr/share/doc/rust/html", "/home/me/notes"]
    assert distinct_names(paths) == ["python3.11/html", "rust/html", "notes"]
    assert distinct_names(["/a/x/html", "/b/x/html"]) == ["a/x/html", "b/x/html"]
    assert distinct_names(["/same", "/same"]) == ["/same", "/same"]


def _cli(*args: str, home) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "findling", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=dict(os.environ, FINDLING_HOME=str(home), NO_COLOR="1"),
    )


def test_a_mistyped_command_or_docid_is_named_as_such(tmp_path):
    typo = _cli("--home", str(tmp_path / "h"), "serch", "borrow", home=tmp_path / "h")
    assert typo.returncode == 2 and "did you mean 'search'?" in typo.stderr
    docid = _cli("get", "#zzzzzz", home=tmp_path / "h")
    assert docid.returncode == 2 and "no document has docid #zzzzzz" in docid.stderr
