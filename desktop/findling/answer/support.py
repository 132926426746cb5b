"""Does a passage say what a sentence says? Checked by its words, in one place: one sentence of
a cited passage (read with the passage's title, which names what it speaks of) must hold every
number the sentence gives and nearly all its content words (stemmed, as the index reads them).
Words found apart are not enough: "the laptop is reachable on extension 40213" joins the asset
tag of one sentence to the helpdesk of the next. A sentence that says nothing checkable is not
supported: a citation must point at something. Pure functions; the figures behind the
thresholds are in docs/eval/ask.md."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from findling.text.analyzer import DEFAULT_LANGUAGE, fold, is_stopword, term_sequence
from findling.tuning import MISSING_SHARE

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_WORD = re.compile(r"\w+(?:['\u2019]\w+)?")


@dataclass(frozen=True)
class Support:
    supported: bool
    missing: tuple[str, ...] = ()  # the sentence's words and numbers its passages lack
    checked: int = 0  # how many words and numbers were looked for


def numbers(text: str) -> set[str]:
    """The numbers a text gives, as written without grouping (1,200 and 1200 are one)."""
    found = set()
    for raw in _NUMBER.findall(text):
        grouped = re.fullmatch(r"\d{1,3}(?:,\d{3})+", raw)
        found.add(raw.replace(",", "") if grouped else raw)
    return found


# stems that say the same in a question and an answer: "per year" is "annual", "daily" a day
_SAME = {"annual": "year", "daili": "day"}
# words the stopword list keeps for search but that say nothing to check ("premium per year",
# "what size does the car use", "Mia's": "mia" and "s")
_SAYS_NOTHING = {"per", "s", "must", "use", "need", "want", "get"}


def _stems(text: str, language: str) -> list[str]:
    return [_SAME.get(stem, stem) for stem in term_sequence(text, language)]


def content_words(text: str, language: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """The text's content words (not function words, not numbers): stem -> the word as written."""
    found: dict[str, str] = {}
    for word in _WORD.findall(text):
        if is_stopword(word) or word.isdigit():
            continue
        for stem in _stems(word, language):
            if not stem.isdigit() and stem not in _SAYS_NOTHING:
                found.setdefault(stem, word)
    return found


def check(
    sentence: str, passages: Sequence[tuple[str, str]], language: str = DEFAULT_LANGUAGE, question: str = ""
) -> Support:
    """Whether one sentence of the passages ((title, text) each) says what `sentence` says (see
    the module's docstring); else what the closest one lacks. The sentence's words that answer
    the `question`'s own words get no allowance: "the last car service cost 145 euros" is not
    said by the boiler's "the last service cost 145 euros"."""
    from findling.answer.sentences import split_sentences  # sentences import nothing of this module

    words = content_words(sentence, language)
    asked_numbers = numbers(sentence)
    if not words and not asked_numbers:
        return Support(False, ("(nothing to check)",), 0)
    allowed = math.floor(len(words) * MISSING_SHARE)
    asked = set(question_words(question, language)) if question else set()
    closest: tuple[str, ...] | None = None
    for title, text in passages:
        context = _terms(title, language)
        for unit in split_sentences(text) or [text]:
            have = context | _terms(unit, language)
            missing_numbers = sorted(asked_numbers - numbers(unit))
            missing_words = [word for stem, word in words.items() if stem not in have]
            topic = [word for stem, word in words.items() if stem in asked and stem not in have]
            if not missing_numbers and not topic and len(missing_words) <= allowed:
                return Support(True, (), len(words) + len(asked_numbers))
            missing = (*missing_numbers, *missing_words)
            if closest is None or len(missing) < len(closest):
                closest = missing
    return Support(False, closest or (), len(words) + len(asked_numbers))


def says_nothing_more(sentence: str, shown: Sequence[str], language: str = DEFAULT_LANGUAGE) -> bool:
    """Whether every content word and number of `sentence` is in the `shown` sentences: the
    model restating a quote ("The monthly kindergarten fee is 320 euros" after "The monthly fee
    is 320 euros, paid by direct debit")."""
    if not shown:
        return False
    joined = " ".join(shown)
    have = _terms(joined, language)
    return set(content_words(sentence, language)) <= have and numbers(sentence) <= numbers(joined)


def _terms(text: str, language: str) -> set[str]:
    return set(_stems(text, language)) | set(_stems(fold(text), language))


def overlap(question: str, text: str, language: str = DEFAULT_LANGUAGE, context: str = "") -> float:
    """Share of the question's content words (stems) that the text holds, or its `context` (the
    title of the passage it is from): how much of what was asked a sentence speaks of."""
    asked = set(content_words(question, language))
    if not asked:
        return 0.0
    return len(asked & (_terms(text, language) | (_terms(context, language) if context else set()))) / len(asked)


# What a question asks for, when its words say: money is a number with a currency; an amount or
# a count is a number; a time is a number, a month or a day. A sentence that gives none of it
# does not answer, whatever its words.
_ASKS_MONEY = re.compile(
    r"\b(?:cost|costs|price|prices|pay|paid|charge|charges|fee|fees|premium|rent|deposit|refund|salary|"
    r"spend|spent)\b",
    re.IGNORECASE,
)
_MONEY = re.compile(
    r"[\u20ac$\u00a3\u00a5]|\b(?:euros?|eur|dollars?|usd|pounds?|gbp|chf|francs?|cents?|yen|kr|sek|nok|dkk)\b",
    re.IGNORECASE,
)
# "how much", "how many"…: the words after "how" that ask for an amount (one list for both uses below)
_HOW_AMOUNT = "much|many|long|large|big|old|far|often|high|heavy"
_WHAT_WHEN = "time|date|day"
_ASKS_NUMBER = re.compile(rf"\bhow (?:{_HOW_AMOUNT})\b|\b(?:number|amount)\b", re.IGNORECASE)
_ASKS_TIME = re.compile(rf"^\W*when\b|\bwhat (?:{_WHAT_WHEN})\b|\bhow long\b", re.IGNORECASE)
_TIME_WORDS = re.compile(
    r"\b(?:january|february|march|april|may|june|july|august|september|october|november|december|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|today|tomorrow|yesterday|daily|weekly|"
    r"monthly|yearly|annually|every|each|spring|summer|autumn|fall|winter)\b",
    re.IGNORECASE,
)
_NUMBER_WORDS = re.compile(
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|hundred|thousand|"
    r"half|once|twice|dozen|a few|several)\b",
    re.IGNORECASE,
)
# words that say what kind of answer is asked, not what it is about: "much" in "how much", "number"
# in "phone number" ("cost" stays: "the flights cost" is not answered by what the travel insurance
# covers)
_ASKING_WORDS = re.compile(rf"\bhow ({_HOW_AMOUNT})\b|\b(number)\b|\bwhat ({_WHAT_WHEN})\b", re.IGNORECASE)


def gives_what_is_asked(question: str, sentence: str) -> bool:
    """Whether the sentence holds the kind of answer the question asks for, where its words say
    which: an amount of money for what costs, is paid or charged; a number for "how much", "how
    many"; a number or a time word for "when". Other questions are not judged here (True)."""
    has_number = bool(re.search(r"\d", sentence) or _NUMBER_WORDS.search(sentence))
    if _ASKS_TIME.search(question):
        return has_number or bool(_TIME_WORDS.search(sentence))
    if _ASKS_MONEY.search(question):
        return bool(re.search(r"\d", sentence)) and bool(_MONEY.search(sentence))
    if _ASKS_NUMBER.search(question):
        return has_number
    return True


# A question asking how to do something or why, or a few keywords: a manual answers it with
# sentences that explain, in its own words, not with the value a factual question asks for.
_ASKS_HOW = re.compile(
    r"^\W*(?:how (?:do|does|can|could|should|would|to)|why)\b"
    r"|^(?!.*\b(?:what|who|whom|whose|when|where|which|how|why)\b)",
    re.IGNORECASE,
)


def asks_how(question: str) -> bool:
    """Whether the question asks how to do something or why ("how do I copy a folder", "why
    does 0.1 + 0.2 not equal 0.3"), or is a few keywords ("decimal rounding money"): what a
    passage answers by explaining, in words other than the question's. A question asking for a
    value (what, who, when, where, which, how much) is answered only by a sentence that names
    what it asks about."""
    return bool(_ASKS_HOW.search(question))


def question_words(question: str, language: str = DEFAULT_LANGUAGE) -> dict[str, str]:
    """The question's content words, without those that say what kind of answer is asked ("much"
    in "how much", "number"): what the answer must speak of."""
    asking = {word.lower() for match in _ASKING_WORDS.finditer(question) for word in match.groups() if word}
    return {stem: word for stem, word in content_words(question, language).items() if word.lower() not in asking}


def missing_from(question: str, text: str, language: str = DEFAULT_LANGUAGE, context: str = "") -> set[str]:
    """The question's words (question_words, stemmed) that neither the text nor its context holds."""
    asked = set(question_words(question, language))
    return asked - _terms(text, language) - (_terms(context, language) if context else set())
