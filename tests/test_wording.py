"""Words a person understands: match words for scores, time left, the window's own advice,
folders told apart, a mistyped command, a mistyped docid."""

from __future__ import annotations

import os
import subprocess
import sys

from findling.pathnames import distinct_names
from findling.search.presentation import dropped_words, match_word, time_left, window_advice


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


def test_the_window_points_at_its_own_buttons():
    text = window_advice("no embedder model installed (all-minilm-l6-v2 is missing): findling models pull x-y")
    assert "findling models pull" not in text and "File → Models" in text
    text = window_advice("semantic search is off: no documents are embedded yet; run findling index")
    assert text == "semantic search is off: no documents are embedded yet (File → Update index, F5)"


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
