"""`ask` end to end over a folder of everyday notes, with the real MiniLM and SmolLM2: the CLI answers
and cites, declines what the files do not say, sentences stream from the process holding the
index to the one asking, a new question cancels, and without a generator the files are quoted."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest

from findling.engine import Engine
from findling.faces.presentation import DECLINED
from findling.server.handle import IndexHandle
from tests.conftest import needs_models
from tests.helpers import indexed_home
from tests.test_cli import _run

pytestmark = [pytest.mark.slow, needs_models]
NOTES = Path(__file__).resolve().parents[2] / "docs" / "eval" / "everyday-notes"
FEE = "How much is the monthly kindergarten fee?"


@pytest.fixture
def notes_home(tmp_path, settings, all_models_installed):
    """Six of the everyday notes, indexed and embedded; the untrained test cross-encoder off."""
    docs = tmp_path / "notes"
    docs.mkdir()
    for name in ("kindergarten.md", "car.txt", "insurance.txt", "dentist.txt", "heating.md", "garden.txt"):
        shutil.copy(NOTES / name, docs / name)
    settings.pipeline.reranker = "off"
    home = tmp_path / "home"
    assert indexed_home(settings, home, docs).embedded == 6
    return home, docs, settings


def _supported_sentences_are_cited(payload: dict) -> None:
    cited = {c["n"] for c in payload["citations"]}
    for sentence in payload["sentences"]:
        if sentence["supported"]:
            assert sentence["cites"] and set(sentence["cites"]) <= cited, sentence
        else:
            assert sentence["cites"] == [], sentence  # never shown as cited


def test_the_cli_answers_with_citations_and_declines_what_the_files_do_not_say(notes_home):
    home, docs, _ = notes_home
    payload = json.loads(_run("ask", FEE, "--json", home=home).stdout)
    assert not payload["abstained"] and "320 euros" in payload["answer"], payload
    assert payload["citations"][0]["path"] == str(docs / "kindergarten.md")
    assert payload["citations"][0]["line"] >= 1 and payload["citations"][0]["page"] == 0
    _supported_sentences_are_cited(payload)
    declined = json.loads(_run("ask", "What is my passport number?", "--json", home=home).stdout)
    assert declined["abstained"] and declined["answer"] == DECLINED and declined["citations"] == []
    assert declined["closest"], "a decline names the closest documents"
    plain = _run("ask", FEE, home=home).stdout
    assert "320 euros" in plain and "[1]" in plain and str(docs / "kindergarten.md") in plain


def test_sentences_stream_from_the_process_holding_the_index(notes_home):
    home, docs, settings = notes_home
    with IndexHandle.open(home, settings=settings) as owner:
        assert owner.role == "owner"
        with IndexHandle.open(home, settings=settings) as client:
            assert client.role == "client"
            streamed = []
            answer = client.ask("Who services the gas boiler?", on_sentence=streamed.append)
    assert not answer.abstained and "Wagner" in answer.text
    assert streamed == [s for s in answer.sentences if s.supported]  # each as it was checked, in order
    assert answer.citations[0].path == str(docs / "heating.md")


def test_a_set_cancel_ends_the_answer_where_it_is(notes_home, monkeypatch):
    """A new question sets the old one's cancel: generation stops at the next token, what was
    quoted before it began stays, and nothing the model wrote is shown; a cancel set before the
    answer began ends it before anything is quoted."""
    home, _, settings = notes_home
    from findling.models.generator import Generator

    asked = threading.Event()
    made: list[str] = []
    real = Generator.generate

    def cancelled_at_the_first_token(
        self, prompt, max_new_tokens=160, repetition_penalty=1.2, on_text=None, cancel=None
    ):
        def seen(text: str) -> None:
            made.append(text)
            asked.set()  # as a new question sets the answer's cancel
            if on_text is not None:
                on_text(text)

        return real(self, prompt, max_new_tokens, repetition_penalty, seen, cancel)

    monkeypatch.setattr(Generator, "generate", cancelled_at_the_first_token)
    with Engine(home, settings=settings) as engine:
        answer = engine.ask("When is the car's next service due?", cancel=asked)
        gone = threading.Event()
        gone.set()
        early = engine.ask("When is the car's next service due?", cancel=gone)
    assert answer.cancelled and len(made) == 1
    assert answer.sentences and all(s.how == "quoted" for s in answer.sentences)
    assert early.cancelled and early.sentences == () and early.text == ""


def test_without_a_generator_the_files_are_quoted(notes_home, monkeypatch):
    home, docs, settings = notes_home
    settings.models.generator = "no-such-model"
    with Engine(home, settings=settings) as engine:
        answer = engine.ask("How much did the last boiler service cost?")
    assert answer.extractive and not answer.abstained and answer.model == ""
    assert answer.sentences[0].how == "quoted" and "145 euros" in answer.text
    assert answer.citations[0].path == str(docs / "heating.md")
    assert any("quotes the files" in note.text for note in answer.notes)


def test_a_how_question_is_answered_by_the_sentence_closest_in_meaning(tmp_path, settings, all_models_installed):
    """A manual explains in its own words: "copies an entire directory tree" answers "copy a whole
    folder with everything in it", which no sentence says in the question's words."""
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(NOTES / "heating.md", docs / "heating.md")
    (docs / "file-operations.txt").write_text(
        "File operations\n\n"
        "copytree(src, dst) recursively copies an entire directory tree rooted at src to a directory named dst.\n"
        "rmtree(path) deletes an entire directory tree; path must point to a directory.\n"
    )
    settings.pipeline.reranker = "off"
    settings.models.generator = "no-such-model"
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(str(docs))
        engine.index()
        answer = engine.ask("how do I copy a whole folder with everything in it")
        value = engine.ask("What is the name of the folder copy function?")
    assert not answer.abstained and answer.extractive, answer.notes
    assert [(s.how, s.text[:9]) for s in answer.sentences] == [("meaning", "copytree(")]
    assert answer.citations[0].path == str(docs / "file-operations.txt")
    assert value.abstained  # asking for a value: its words must be there
