"""`ask` answers from one line of a long file (the red team's 6), cites that line, and decides
what it can answer before the generator runs (the rest of 12)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from findling.answer.asker import at_cited_line, could_be_answered
from findling.records import AnswerSentence, Citation
from findling.settings import save_settings
from tests.conftest import needs_models
from tests.helpers import indexed_home
from tests.test_cli import _run

pytestmark = [pytest.mark.slow, needs_models]

FILLER = [
    "The committee met on a Tuesday and reviewed the minutes of the previous meeting.",
    "Several members asked about the schedule for the spring cleaning of the shared garden.",
    "A reminder went out about parking behind the building during the renovation works.",
    "The newsletter will be printed in colour from next month onwards.",
    "Volunteers are still needed for the library corner on Saturday mornings.",
    "The heating in the hall was checked and found to work as expected.",
    "Minutes are kept in the blue folder in the office cupboard.",
    "The bicycle shed will be repainted once the weather allows it.",
]


@pytest.fixture
def long_file_home(tmp_path, settings, all_models_installed):
    rng = random.Random(7)
    lines = [rng.choice(FILLER) for _ in range(250)]
    lines[149] = "The X fee is 14 euros per visit."
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "association.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (docs / "recipes.txt").write_text("Bake the bread at 220 degrees for forty minutes.\n", encoding="utf-8")
    settings.pipeline.reranker = "off"
    home = tmp_path / "home"
    indexed_home(settings, home, docs)
    return home, docs


def test_ask_answers_from_one_line_of_a_long_file_and_cites_that_line(long_file_home):
    home, docs = long_file_home
    payload = json.loads(_run("ask", "What is the X fee?", "--json", home=home).stdout)
    assert not payload["abstained"], payload
    assert "14 euros" in payload["answer"]
    [citation] = [c for c in payload["citations"] if c["path"] == str(docs / "association.txt")]
    assert citation["line"] == 150, citation


def test_ask_declines_before_generating_what_no_passage_could_bear_out(long_file_home, settings):
    """Every result let through (floor 0): the garden note is found by meaning, holds none of the
    question's words, and the generator is never started."""
    home, docs = long_file_home
    (docs / "garden.txt").write_text("Tomatoes need sun and regular watering in July.\nBasil grows well beside them.\n")
    settings.ask.min_score = 0.0
    save_settings(settings, home)
    _run("index", home=home)
    payload = json.loads(_run("ask", "How often should I irrigate my vegetable plants?", "--json", home=home).stdout)
    assert payload["abstained"], payload
    assert payload["notes"][0] == "no passage of the best results speaks of what was asked", payload["notes"]
    assert "generate" not in payload["timings_ms"], payload["timings_ms"]
    answered = json.loads(_run("ask", "What do tomatoes need?", "--json", home=home).stdout)
    assert not answered["abstained"] and "generate" in answered["timings_ms"]  # a passage that could: it runs


def _passage(text: str, title: str = "notes") -> Citation:
    return Citation(1, 1, f"/x/{title}.txt", title, text, 0, len(text), 1)


def test_could_be_answered_needs_the_question_words_in_a_passage():
    question = "How often should I irrigate my vegetable plants?"
    assert not could_be_answered(question, [_passage("Tomatoes need sun and regular watering.")])
    assert could_be_answered(question, [_passage("Irrigate the vegetable beds twice a week.")])
    assert could_be_answered(question, [_passage("Twice a week.", title="vegetable plants")])  # its title names them
    assert not could_be_answered("", [_passage("anything")])


def test_a_citation_points_at_the_line_it_is_cited_for():
    text = "First line.\nSecond line.\nThe X fee is 14 euros per visit.\nFourth line."
    quoted = AnswerSentence("The X fee is 14 euros per visit.", (1,), True, "quoted")
    assert at_cited_line(replace(_passage(text), line=40), [quoted]).line == 42
    written = AnswerSentence("A visit costs 14 euros as the X fee.", (1,), True, "words")
    assert at_cited_line(replace(_passage(text), line=40), [written]).line == 42
    assert at_cited_line(_passage(text), [replace(quoted, cites=(2,))]).line == 1  # not cited: unchanged
