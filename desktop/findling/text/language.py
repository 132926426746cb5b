"""Guess a document's language from its function words, to pick the Snowball stemmer.

A full language identifier would be a heavy dependency for one job: choosing among the
stemmers Findling has. Counting the commonest words of each language is enough for that,
and unsure text falls back to English.
"""

from __future__ import annotations

import re
from collections import Counter

from findling.text.analyzer import DEFAULT_LANGUAGE

_MARKERS = {
    "en": "the and of to is in that it for with as was on are be this by not or which from",
    "de": "der die und das ist nicht ein eine zu den von mit sich des auf für im dem auch wird",
    "fr": "le la les et est un une des du en que qui dans pour pas sur au avec ce il sont",
    "es": "el la los las y es una por con para del se lo que en un como más pero sus",
    "it": "il di che la è per un una non sono del della con si le anche come nel gli",
    "nl": "de het een en van is dat op te zijn niet met voor die aan er ook als bij",
    "pt": "o as um uma de que não para com por mais se dos das do da em foi nos",
    "sv": "och att det som en på är av för med till den har inte om ett var jag",
    "da": "og at det som en på er af for med til den har ikke om et var jeg",
    "no": "og at det som en på er av for med til den har ikke om et var jeg",
    "fi": "ja on ei se että hän oli ole mutta kun niin joka myös tai kuin ovat",
    "ru": "и в не на что с как по это он а из но к у же то за все",
}
_WORDS = {lang: frozenset(words.split()) for lang, words in _MARKERS.items()}
_WORD = re.compile(r"\w+")
_MIN_DISTINCT = 3  # of a language's markers, for a text to be read as that language
# each language with those whose markers are nearly its own (itself included)
_TWINS = {a: {b for b in _WORDS if len(_WORDS[a] & _WORDS[b]) >= 0.9 * len(_WORDS[a])} for a in _WORDS}
# Scripts that name their language well enough without counting words (and that have no
# spaces to count words by).
_KANA = re.compile(r"[\u3040-\u30ff]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_SCRIPTS = (
    ("ko", re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")),
    ("th", re.compile(r"[\u0e00-\u0e7f]")),
    ("lo", re.compile(r"[\u0e80-\u0eff]")),
    ("km", re.compile(r"[\u1780-\u17ff]")),
    ("my", re.compile(r"[\u1000-\u109f]")),
)
_LETTER = re.compile(r"[^\W\d_]")


def _script_language(sample: str) -> str | None:
    """The language of an unspaced script whose characters are a fifth of the letters."""
    if sample.isascii():
        return None
    letters = len(_LETTER.findall(sample))
    kana, han = len(_KANA.findall(sample)), len(_HAN.findall(sample))
    if (kana + han) * 5 >= letters > 0:
        return "ja" if kana * 20 >= letters else "zh"  # Japanese writes kanji with some kana
    for language, pattern in _SCRIPTS:
        if len(pattern.findall(sample)) * 5 >= letters > 0:
            return language
    return None


def detect_language(text: str, sample_chars: int = 20000) -> str:
    script = _script_language(text[:sample_chars])
    if script is not None:
        return script
    words = _WORD.findall(text[:sample_chars].lower())
    if len(words) < 8:
        return DEFAULT_LANGUAGE
    counts = Counter(words)
    # (distinct markers present, their occurrences): prose uses many of its language's function
    # words; program text repeats one short name that happens to be one (gnuplot's `.dem`
    # demo files were German by "dem", a minified script Portuguese by its variable `o`)
    scores = {
        lang: (sum(1 for w in markers if w in counts), sum(counts[w] for w in markers))
        for lang, markers in _WORDS.items()
    }
    best = max(scores, key=lambda lang: scores[lang])
    distinct, found = scores[best]
    # Related languages share words: require a clear margin over the next language (Danish
    # and Norwegian, whose markers are one word apart, are not each other's next) and a real
    # share of the text.
    runner_up = max((scores[lang][0] for lang in scores if lang not in _TWINS[best]), default=0)
    if distinct < _MIN_DISTINCT or distinct < runner_up + 2 or found < max(3, len(words) // 50):
        return DEFAULT_LANGUAGE
    return best
