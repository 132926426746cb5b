"""The pure parts of `ask`: sentences and their citations, the support check, the passage a
result gives, and which generated sentences are shown (cited), left out, or quoted instead."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from findling.answer.asker import answer_text, checked_after, checked_sentence, clipped, quoted_sentences
from findling.answer.passages import line_of, passage_span
from findling.answer.sentences import citations, sentence_spans, split_sentences, with_citations
from findling.answer.support import asks_how, check, numbers, overlap
from findling.records import AnswerSentence, Citation

KINDERGARTEN = (
    "Mia started at Kindergarten Sonnenblume on 2 September 2024. Her teacher is Frau Albers.\n\n"
    "The monthly fee is 320 euros, paid by direct debit on the first working day of each month.\n"
    "Pick-up is by 16:30 at the latest; late pick-up costs 10 euros for each started\nquarter hour.\n"
)
LAPTOP = (
    "Work laptop: Lenovo ThinkPad T14 Gen 4, asset tag IT-40213.\n"
    "The IT helpdesk is reachable on extension 4400 or helpdesk@example-corp.de.\n"
)


def _passage(n: int, title: str, text: str) -> Citation:
    return Citation(n, n, f"/notes/{title}", title, text, 0, len(text), 1)


def test_sentences_end_at_stops_not_at_abbreviations_or_hard_wraps():
    text = "It rose in Sept. 2024, e.g. for Dr. Who [2]. Next one?\nIt goes\non here.\n\n# Heading\n- a list item"
    assert split_sentences(text) == [
        "It rose in Sept. 2024, e.g. for Dr. Who [2].",
        "Next one?",
        "It goes on here.",
        "Heading",
        "a list item",
    ]


@given(st.text(alphabet="ab .!?\n-#[]12", max_size=80))
def test_sentence_spans_lie_in_order_within_the_text(text):
    spans = sentence_spans(text)
    assert all(0 <= a < b <= len(text) for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in zip(spans, spans[1:]))
    assert all(text[a:b] == text[a:b].strip() for a, b in spans)


def test_citations_as_models_write_them():
    assert citations("The fee is 320 euros [1].") == ("The fee is 320 euros.", (1,))
    assert citations("It is paid monthly [1, 3][2]") == ("It is paid monthly", (1, 3, 2))
    assert citations("Due in May [Passage 2].") == ("Due in May.", (2,))
    assert with_citations("The fee is 320 euros.", (1, 2)) == "The fee is 320 euros [1, 2]."
    assert with_citations("No stop", (3,)) == "No stop [3]"


def test_numbers_are_read_as_written_without_grouping():
    assert numbers("1,200 euros on 12.05.2025 at 16:30, 3.5 %") == {"1200", "12.05.2025", "16:30", "3.5"}


def test_a_sentence_is_supported_by_one_sentence_of_a_passage_with_its_title():
    passages = [("Kindergarten Sonnenblume", KINDERGARTEN)]
    assert check("The monthly kindergarten fee is 320 euros.", passages).supported  # "kindergarten": the title
    wrong_number = check("The monthly fee is 350 euros.", passages)
    assert not wrong_number.supported and "350" in wrong_number.missing
    assert not check("The fee went up sharply last winter.", passages).supported
    assert not check("Yes.", passages).supported  # nothing checkable is no claim


def test_words_found_in_two_sentences_do_not_support_one_claim():
    passages = [("work-laptop.txt", LAPTOP)]
    assert check("The asset tag of the laptop is IT-40213.", passages).supported
    joined = check("The IT helpdesk is reachable on extension 40213.", passages)
    assert not joined.supported and "40213" in joined.missing


def test_the_words_the_question_asks_about_must_all_be_there():
    boiler = [("heating.md", "The gas boiler was serviced in September; the last service cost 145 euros.")]
    claim = "The last car service cost 145 euros."
    assert check(claim, boiler).supported  # four words of five: the allowance covers "car"...
    asked = check(claim, boiler, question="What did the last car service cost?")
    assert not asked.supported and "car" in asked.missing  # ...but the question asks about the car


def test_overlap_counts_the_questions_content_words_and_the_title():
    question = "When is my next dentist appointment?"
    assert overlap(question, "Next check-up for me: 18 March 2026 at 10:15.") == 1 / 3
    assert overlap(question, "Next check-up for me: 18 March 2026 at 10:15.", context="dentist.txt") == 2 / 3


def test_the_passage_is_the_best_sentence_and_its_neighbours_within_the_budget():
    start = KINDERGARTEN.index("Pick-up")
    a, b = passage_span(KINDERGARTEN, start, len(KINDERGARTEN), "How much is the monthly fee?", 120)
    passage = KINDERGARTEN[a:b]
    assert "The monthly fee is 320 euros" in passage and "Pick-up" not in passage and b - a <= 120
    assert passage.startswith("Her teacher") and line_of(KINDERGARTEN, a) == 1  # a neighbour that fits
    one = passage_span(KINDERGARTEN, start, len(KINDERGARTEN), "How much is the monthly fee?", 95)
    assert KINDERGARTEN[one[0] : one[1]].startswith("The monthly fee") and line_of(KINDERGARTEN, one[0]) == 3


def test_generated_sentences_are_cited_only_where_a_passage_bears_them_out():
    passages = [_passage(1, "Kindergarten Sonnenblume", KINDERGARTEN), _passage(2, "work-laptop.txt", LAPTOP)]
    question = "How much is the monthly kindergarten fee?"
    right = checked_sentence("The monthly kindergarten fee is 320 euros [1].", question, passages)
    assert right == AnswerSentence("The monthly kindergarten fee is 320 euros.", (1,), True, "words", (1,))
    moved = checked_sentence("The monthly kindergarten fee is 320 euros [2].", question, passages)
    assert moved is not None and moved.cites == (1,) and moved.claimed == (2,)  # cited where it is said
    made_up = checked_sentence("The monthly kindergarten fee is 36 euros [1].", question, passages)
    assert made_up is not None and not made_up.supported and made_up.cites == () and "36" in made_up.missing
    off = checked_sentence("Her teacher is Frau Albers [1].", question, passages)
    assert off is not None and not off.supported and off.how == "off-topic"
    assert checked_sentence("The passages do not say [1].", question, passages) is None
    assert answer_text([right, made_up, off]) == "The monthly kindergarten fee is 320 euros [1]."


def test_a_later_quote_may_not_lack_what_an_earlier_one_holds():
    car = _passage(1, "car.txt", "Last service at Autohaus Meier on 14 May 2025: new brake pads, 389 euros.")
    boiler = _passage(2, "heating.md", "The boiler is serviced every September; the last service cost 145 euros.")
    quoted = quoted_sentences("What did the last car service cost?", [car, boiler])
    assert [q.cites for q in quoted] == [(1,)]  # the boiler's lacks "car", which the car's holds
    both = quoted_sentences("What did the last service cost?", [car, boiler])
    assert [q.cites for q in both] == [(1,), (2,)]  # asked of no one: both answer


def test_a_file_name_says_what_its_sentences_speak_of():
    bike = Citation(
        1,
        1,
        "/notes/bike.md",
        "Bicycle",
        "My bike is a Cube Kathmandu, bought in 2022.\nTyre pressure: 4 bar front and 4.5 bar rear.\n"
        "The lock is an Abus Bordo; the spare key is in the kitchen drawer.\n"
        "The bike is registered with the police under code H-2022-8841.",
        0,
        200,
        1,
    )
    pressure = quoted_sentences("What tyre pressure should the bike have?", [bike])
    assert [q.text for q in pressure] == ["Tyre pressure: 4 bar front and 4.5 bar rear."]
    key = quoted_sentences("bike spare key", [bike])
    assert [q.text for q in key] == ["The lock is an Abus Bordo; the spare key is in the kitchen drawer."]


def test_quoted_sentences_speak_of_the_question():
    passages = [_passage(1, "Kindergarten Sonnenblume", KINDERGARTEN), _passage(2, "work-laptop.txt", LAPTOP)]
    quoted = quoted_sentences("How much does a late pick-up cost?", passages)
    assert [(q.text[:20], q.cites, q.how) for q in quoted] == [("Pick-up is by 16:30 ", (1,), "quoted")]
    assert quoted_sentences("What is my passport number?", passages) == []


def test_how_and_why_questions_and_keywords_are_told_from_questions_for_a_value():
    for explained in (
        "how do I copy a whole folder with everything in it",
        "How can I measure how long a piece of code takes?",
        "why does 0.1 + 0.2 not equal 0.3",
        "decimal rounding money exact precision",
    ):
        assert asks_how(explained), explained
    for value in (
        "How much is the monthly kindergarten fee?",
        "What is the Wi-Fi password of the main network?",
        "When is the next parents' evening at the kindergarten?",
        "Who services the gas boiler?",
        "Which phone number do I call to report Mia sick?",
    ):
        assert not asks_how(value), value


SHUTIL = (
    "shutil.copytree(src, dst) Recursively copy an entire directory tree rooted at src to a directory "
    "named dst and return the destination directory. Permissions and times of directories are copied."
)


def test_a_how_question_quotes_the_sentence_closest_in_meaning_when_no_sentence_has_its_words():
    shutil = _passage(1, "shutil — High-level file operations", SHUTIL)
    question = "how do I copy a whole folder with everything in it"
    assert quoted_sentences(question, [shutil]) == []  # by words: "folder", "whole", "everything" lack

    def close(sentences):
        return [0.53, 0.31]

    quoted = quoted_sentences(question, [shutil], closeness=close)
    assert [(q.text[:30], q.cites, q.how) for q in quoted] == [("shutil.copytree(src, dst) Recu", (1,), "meaning")]
    assert quoted_sentences(question, [shutil], closeness=lambda sentences: [0.44, 0.31]) == []  # not close enough
    # a question asking for a value is never answered by meaning alone
    assert quoted_sentences("What is the name of the folder copy function?", [shutil], closeness=close) == []


def test_a_quote_by_words_is_preferred_to_one_by_meaning_in_the_same_passage():
    shutil = _passage(1, "shutil", SHUTIL)
    asked: list[Sequence[str]] = []

    def close(sentences):
        asked.append(sentences)
        return [0.9, 0.5]

    quoted = quoted_sentences("how are permissions of directories copied", [shutil], closeness=close)
    assert [(q.text[:11], q.how) for q in quoted] == [("Permissions", "quoted")]
    assert asked == []  # a passage quoted by its words is not embedded


def test_a_generated_sentence_that_says_what_the_quotes_say_is_not_shown_twice():
    passages = [_passage(1, "Kindergarten Sonnenblume", KINDERGARTEN)]
    question = "How much is the monthly kindergarten fee?"
    quoted = quoted_sentences(question, passages)
    assert [q.text[:20] for q in quoted] == ["The monthly fee is 3"]
    again = checked_after("The monthly kindergarten fee is 320 euros [1].", question, passages, quoted)
    assert again is not None and not again.supported and again.how == "repeated" and again.cites == ()
    more = checked_after("It is paid by direct debit on the first working day [1].", question, passages, quoted)
    assert more is not None and more.how == "off-topic"  # true, but not about the fee: left out as before
    alone = checked_after("The monthly kindergarten fee is 320 euros [1].", question, passages, [])
    assert alone is not None and alone.supported and alone.cites == (1,)


@pytest.mark.parametrize(
    ("text", "question", "cosines", "expected"),
    [
        (  # a colon: what it introduces
            "Partitioning by month. Create a range partitioned table:\n\n"
            "CREATE TABLE measurement (logdate date) PARTITION BY RANGE (logdate);",
            "how should I split a huge events table into one partition per month",
            [0.3, 0.6, 0.4],
            "Create a range partitioned table: CREATE TABLE measurement (logdate date) PARTITION BY RANGE (logdate);",
        ),
        (  # a manual's signature: its description
            "class tempfile.TemporaryDirectory(suffix=None, prefix=None, dir=None)\n\n"
            "This class securely creates a temporary directory. The directory is removed on cleanup.",
            "how do I get a scratch folder that goes away by itself",
            [0.6, 0.4, 0.3],
            "class tempfile.TemporaryDirectory(suffix=None, prefix=None, dir=None) "
            "This class securely creates a temporary directory.",
        ),
    ],
)
def test_a_quote_by_meaning_that_introduces_or_names_something_brings_the_next_sentence(
    text, question, cosines, expected
):
    quoted = quoted_sentences(question, [_passage(1, "manual", text)], closeness=lambda sentences: cosines)
    assert [q.text for q in quoted] == [expected]


def test_a_long_quote_is_cut_at_a_word():
    assert clipped("The fee is\n  320 euros.") == "The fee is 320 euros."
    code = ">>> data = bytearray(b'abcefg') " * 30
    cut = clipped(code, 100)
    assert len(cut) <= 102 and cut.endswith(" …") and code.startswith(cut[:-2].rstrip())
