"""Text analysis shared by indexing and querying: the one place terms are made.

Tokens are runs of word characters. Scripts written without spaces between words (Chinese,
Japanese, Korean, Thai, Lao, Khmer, Myanmar) have no word boundaries a dictionary-free
analyzer could find, so their runs become overlapping character bigrams (`北京大学` ->
北京 京大 大学), each also indexing its single characters: a two-character word matches as a
unit, a one-character query still finds its character, and a word inside a run is found
by its bigrams. Words are case- and accent-folded, then Snowball-stemmed by the document's
language.
Identifiers (`snake_case`, `camelCase`, `x86_64`) are kept whole and unstemmed, and
their parts are indexed too, so both `x86_64` and `snake` find `snake_case_x86_64`.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePath

import Stemmer

from findling.text.marks import MARKS

DEFAULT_LANGUAGE = "en"

# ISO 639-1 code -> Snowball algorithm name.
STEMMERS = {
    "en": "english",
    "de": "german",
    "fr": "french",
    "es": "spanish",
    "it": "italian",
    "nl": "dutch",
    "pt": "portuguese",
    "sv": "swedish",
    "da": "danish",
    "no": "norwegian",
    "fi": "finnish",
    "ru": "russian",
}

# Han, kana, Hangul (syllables and jamo), Thai, Lao, Khmer, Myanmar: the marks of Thai and
# its neighbours are in their blocks, so a run keeps its vowel signs.
_UNSPACED = (
    "\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u3040-\u30ff\u3130-\u318f"
    "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
)
UNSPACED_CLASS = f"[{_UNSPACED}]"  # as a regex character class, Python's and RE2's alike
_UNSPACED_CHAR = re.compile(UNSPACED_CLASS)

# Invisible characters written inside words: a soft hyphen (U+00AD, HTML's &shy;, common in
# German text and EPUBs), zero-width non-joiner and joiner, word joiner, a stray byte-order mark.
# A word holding one is the word without it: `data&shy;base` is `database`.
IGNORABLE = "\u00ad\u200c\u200d\u2060\ufeff"
_DROP_IGNORABLE = str.maketrans(dict.fromkeys(IGNORABLE))


# A word: word characters not of an unspaced script, with the marks and ignorables among them
# (a mark never starts one). Every mark is past ASCII: the lookahead on that keeps the common
# word end, a space or punctuation, off the class of 700 ranges (0.46 s for 10 MB, as before;
# 0.76 s without it).
WORD_CONTINUES = f"{MARKS}{IGNORABLE}"  # marks: Python's `\w` leaves them out (text/marks.py)
_TOKEN = re.compile(rf"[{_UNSPACED}]+|[^\W{_UNSPACED}]+(?:(?=[^\x00-\x7f])[{WORD_CONTINUES}]+[^\W{_UNSPACED}]*)*")
_CONTINUES_CHAR = re.compile(rf"[{WORD_CONTINUES}]")
_CAMEL_BOUNDARY = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]")
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|[0-9]+")
_MAX_TOKEN = 64  # longer "words" are base64 blobs or hashes: keep, but truncated

_local = threading.local()


def _stemmer(language: str) -> Stemmer.Stemmer:
    cache = getattr(_local, "stemmers", None)
    if cache is None:
        cache = _local.stemmers = {}
    stemmer = cache.get(language)
    if stemmer is None:
        stemmer = cache[language] = Stemmer.Stemmer(stemmer_of(language), 50000)
    return stemmer


# Letters Unicode does not decompose into a base letter and a mark, written out as people
# type them without the key for it: "oeufs" finds "œufs", "Aerø" finds "Ærø".
_LETTERS = str.maketrans({"œ": "oe", "æ": "ae", "ø": "o", "ł": "l", "đ": "d", "ð": "d", "þ": "th", "ı": "i"})
LETTERS_CLASS = "[œæøłđðþıŒÆØŁĐÐÞ]"  # the same letters in either case, as a regex class


def fold(text: str) -> str:
    """Case- and accent-fold: `Crème Brûlée` -> `creme brulee`, `Straße` -> `strasse`,
    `Œufs` -> `oeufs`."""
    text = text.casefold()
    if text.isascii():
        return text
    decomposed = unicodedata.normalize("NFKD", text.translate(_LETTERS).translate(_DROP_IGNORABLE))
    return "".join(c for c in decomposed if not unicodedata.combining(c))


@dataclass(frozen=True, slots=True)
class Token:
    term: str  # the term this token indexes under (stemmed word or whole identifier)
    parts: tuple[str, ...]  # extra terms for identifier parts
    start: int
    end: int


def _is_identifier(raw: str) -> bool:
    if "_" in raw:
        return True
    if not raw.isalpha() and not raw.isdigit():
        return True  # letters and digits mixed: x86, sha256
    return _CAMEL_BOUNDARY.search(raw) is not None


def _split_identifier(raw: str) -> list[str]:
    parts: list[str] = []
    for piece in raw.split("_"):
        if not piece:
            continue
        if _CAMEL_BOUNDARY.search(piece):
            parts.extend(_CAMEL_PART.findall(piece))
        else:
            parts.append(piece)
    return parts


_ANALYSED_CACHE_LIMIT = 300_000


def _analyse(raw: str, language: str) -> tuple[str, tuple[str, ...], int, int] | None:
    """(term, parts, offset, length) of one raw token; None for a run of underscores.
    Cached: a corpus repeats the same words endlessly, so each is folded and stemmed once."""
    cache = getattr(_local, "analysed", None)
    if cache is None or len(cache) > _ANALYSED_CACHE_LIMIT:
        cache = _local.analysed = {}
    key = (raw, language)
    found = cache.get(key, False)
    if found is not False:
        return found  # type: ignore[no-any-return]  # the cache holds only this function's results
    offset, word = 0, raw
    if "_" in raw:
        word = raw.strip("_")
        if not word:
            cache[key] = None
            return None
        offset = raw.index(word[0])
    length = len(word)
    if not word.isascii():
        # composed and without ignorables, so a decomposed word is analysed as its composed
        # form is (stemmed, not taken for an identifier by the mark that is not a letter);
        # the token still spans the word as written
        word = unicodedata.normalize("NFC", word.translate(_DROP_IGNORABLE))
    stem = _stemmer(language).stemWord
    if _is_identifier(word):
        whole = fold(word)[:_MAX_TOKEN]
        parts = []
        for part in _split_identifier(word):
            folded = fold(part)
            term = stem(folded) if folded.isalpha() else folded
            if term != whole:
                parts.append(term)
        result = (whole, tuple(parts), offset, length)
    else:
        folded = fold(word)[:_MAX_TOKEN]
        result = (stem(folded) if folded.isalpha() else folded, (), offset, length)
    cache[key] = result
    return result


def is_unspaced(text: str) -> bool:
    """Whether `text` starts with a character of a script written without spaces."""
    # the comparison first: nearly every token is Latin, and skips the regex
    return bool(text) and text[0] >= "\u0e00" and _UNSPACED_CHAR.match(text) is not None


def _bigrams(run: str, base: int) -> Iterator[Token]:
    """A run of an unspaced script as overlapping bigrams; every character is a part of
    the bigram it starts (the last one of the final bigram too), so single characters
    are indexed exactly once each."""
    if len(run) == 1:
        yield Token(run, (), base, base + 1)
        return
    last = len(run) - 2
    for i in range(len(run) - 1):
        parts = (run[i],) if i < last else (run[i], run[i + 1])
        yield Token(run[i : i + 2], parts, base + i, base + i + 2)


def iter_tokens(text: str, language: str = DEFAULT_LANGUAGE) -> Iterator[Token]:
    for match in _TOKEN.finditer(text):
        if is_unspaced(match.group()):
            yield from _bigrams(match.group(), match.start())
            continue
        analysed = _analyse(match.group(), language)
        if analysed is not None:
            term, parts, offset, length = analysed
            start = match.start() + offset
            yield Token(term, parts, start, start + length)


def continues_word(char: str) -> bool:
    """Whether a word of a spaced script goes on through `char` (a letter, a digit, `_`, a mark)."""
    if char.isalnum() or char == "_":
        return not is_unspaced(char)
    return _CONTINUES_CHAR.match(char) is not None


def token_at(text: str, pos: int, language: str = DEFAULT_LANGUAGE) -> Token | None:
    """The token that covers position `pos` (for checking a candidate match in place)."""
    if is_unspaced(text[pos : pos + 1]):
        end = pos + 1
        if end < len(text) and is_unspaced(text[end]):
            return Token(text[pos : end + 1], (text[pos],), pos, end + 1)
        return Token(text[pos], (), pos, end)
    start = pos
    while start > 0 and continues_word(text[start - 1]):
        start -= 1
    match = _TOKEN.match(text, start)
    if match is None:
        return None
    analysed = _analyse(match.group(), language)
    if analysed is None:
        return None
    term, parts, offset, length = analysed
    begin = match.start() + offset
    return Token(term, parts, begin, begin + length)


def _unspaced_counts(runs: Counter[str]) -> Counter[str]:
    """Bigrams and single characters of runs of unspaced scripts, as `_bigrams` makes them:
    counted as code points in numpy (a character, and a pair of them packed in 64 bits), not
    as a token object per character, so a page of Chinese indexes at the speed of English."""
    counts: Counter[str] = Counter()
    batch: list[str] = []
    size = 0
    for run, n in runs.items():
        batch.extend([run] * n)
        size += len(run) * n
        if size > _UNSPACED_BATCH:  # a bounded list of pairs at a time: a 16 MB page makes millions
            _count_runs(batch, counts)
            batch, size = [], 0
    _count_runs(batch, counts)
    return counts


_UNSPACED_BATCH = 1 << 23  # characters: 64 MB of packed pairs at most


def _count_runs(runs: list[str], counts: Counter[str]) -> None:
    import numpy as np  # only for pages with unspaced scripts: keyword search never pays for it

    codes = np.frombuffer("\n".join(runs).encode("utf-32-le"), dtype=np.uint32)
    newline = codes == 10
    chars, char_tally = np.unique(codes[~newline], return_counts=True)
    pairs, pair_tally = np.unique(
        ((codes[:-1].astype(np.uint64) << 32) | codes[1:])[~(newline[:-1] | newline[1:])], return_counts=True
    )
    # The distinct terms decoded in one go (a packed pair is its two characters' UTF-32 in a
    # row) and cut apart by a regex: no Python step per term
    text = chars.astype("<u4").tobytes().decode("utf-32-le")
    pair_codes = np.empty((len(pairs), 2), dtype="<u4")
    pair_codes[:, 0], pair_codes[:, 1] = pairs >> 32, pairs & 0xFFFFFFFF
    bigrams = _PAIRS.findall(pair_codes.tobytes().decode("utf-32-le"))
    for terms, tally in ((text, char_tally), (bigrams, pair_tally)):
        found = dict(zip(terms, tally.astype(float).tolist(), strict=True))  # counts are floats (weights)
        if counts:
            counts.update(found)
        else:
            dict.update(counts, found)  # C speed into an empty Counter


_PAIRS = re.compile(r"..", re.DOTALL)


def term_counts(text: str, language: str = DEFAULT_LANGUAGE, weight: float = 1.0) -> Counter[str]:
    """Index-side: every term with its (weighted) frequency, identifier parts included."""
    return _counts(_TOKEN.findall(text), language, weight)


def body_terms(text: str, language: str = DEFAULT_LANGUAGE) -> tuple[Counter[str], list[str]]:
    """`term_counts(text)` and `term_sequence(text)` from one pass of the tokenizer: a document's
    text is indexed by both, and reading it twice was a fifth of analysing it."""
    tokens = _TOKEN.findall(text)
    return _counts(tokens, language, 1.0), _sequence(tokens, language)


def _counts(tokens: list[str], language: str, weight: float) -> Counter[str]:
    counts: Counter[str] = Counter()  # float counts: title terms weigh more than one
    unspaced: Counter[str] = Counter()
    for raw, n in Counter(tokens).items():
        if is_unspaced(raw):
            unspaced[raw] = n
            continue
        analysed = _analyse(raw, language)
        if analysed is None:
            continue
        counts[analysed[0]] += n * weight  # type: ignore[assignment]
        for part in analysed[1]:
            counts[part] += n * weight  # type: ignore[assignment]
    if unspaced:
        found = _unspaced_counts(unspaced)
        if weight == 1.0 and not counts.keys() & found.keys():
            dict.update(counts, found)  # disjoint scripts: one C-speed merge
        else:
            for term, n in found.items():
                counts[term] += n * weight  # type: ignore[assignment]
    return counts


def identifier_term(name: str) -> str | None:
    """The whole term an identifier (`parse_known_args`, `readFileSync`) indexes under; None for
    a plain word, whose term is its stem."""
    word = name.strip("_")
    if not word or not _is_identifier(word) or _TOKEN.fullmatch(word) is None:
        return None
    return fold(word)[:_MAX_TOKEN]


def identifier_parts(word: str) -> list[str]:
    """The words an identifier is made of, as written (`parseKnownArgs`: parse, Known, Args), each
    also indexed on its own; none for a plain word."""
    stripped = word.strip("_")
    if identifier_term(stripped) is None:
        return []
    parts = _split_identifier(stripped)
    return parts if len(parts) > 1 else []


def title_terms(title: str, name: str, language: str = DEFAULT_LANGUAGE) -> set[str]:
    """The terms of a document's title field: its title and its file name without the
    extension, what a person who knows the document names it by. Ingest writes them and
    the keyword lane weighs a query's words found there (search/keyword/lane.py)."""
    return set(term_counts(title, language)) | set(term_counts(PurePath(name).stem, language))


def term_sequence(text: str, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """The main term of each token in order: what phrase matching compares."""
    return _sequence(_TOKEN.findall(text), language)


def _sequence(tokens: list[str], language: str) -> list[str]:
    # each distinct token analysed once: a text repeats its words, and a local dict is quicker
    # than the shared cache behind _analyse
    out: list[str] = []
    terms_of: dict[str, tuple[str, ...]] = {}
    for raw in tokens:
        terms = terms_of.get(raw)
        if terms is None:
            if is_unspaced(raw):
                terms = tuple(token.term for token in _bigrams(raw, 0))
            else:
                analysed = _analyse(raw, language)
                terms = () if analysed is None else (analysed[0],)
            terms_of[raw] = terms
        out.extend(terms)
    return out


# Between the title's words and the text's in a document's positions: no phrase or NEAR spans them.
POSITION_GAP = 1024


def positions_of(sequences: Sequence[list[str]]) -> dict[str, list[int]]:
    """Index-side: where each term stands in the parts' term sequences (`term_sequence` of a
    title, then of the text), in order, the parts POSITION_GAP apart: what phrases and NEAR are
    matched with."""
    found: dict[str, list[int]] = {}
    at = 0
    for sequence in sequences:
        for position, term in enumerate(sequence, at):
            found.setdefault(term, []).append(position)
        at += len(sequence) + POSITION_GAP
    return found


def stemmer_of(language: str) -> str:
    """The Snowball stemmer a document of `language` is indexed with (English for a language
    Findling has none for, or none detected)."""
    return STEMMERS.get(language, "english")


def stemmed_apart(words: Sequence[str], languages: Sequence[str]) -> dict[str, frozenset[str]]:
    """The terms of `words` that some of the index's languages make and others do not, each with
    the languages that make it; a term every stemmer makes is not listed. A stem one language
    makes of a query word may be another word in the documents of another: French stems
    "cookies" to "cook", which English documents index "cooking" as. Such a term is matched in
    the documents of the languages that make it only ("" stands for a document of no detected
    language, indexed in English)."""
    stemmers = {stemmer_of(language) for language in languages}
    if len(stemmers) < 2:
        return {}
    made: dict[str, set[str]] = {}
    for language in languages:
        for word in words:
            for token in iter_tokens(word, language):
                made.setdefault(token.term, set()).add(stemmer_of(language))
    return {
        term: frozenset(language for language in (*languages, "") if stemmer_of(language) in found)
        for term, found in made.items()
        if len(found) < len(stemmers)
    }


def terms_in(terms: Iterable[str], apart: Mapping[str, frozenset[str]], language: str) -> tuple[str, ...]:
    """Of a query's terms, those a document of `language` ("" for none detected) is matched and
    highlighted by: a stem only some languages make (`apart`, stemmed_apart) in theirs only."""
    return tuple(t for t in terms if t not in apart or language in apart[t])


def query_terms(word: str, languages: list[str]) -> list[str]:
    """Terms for one query word, one per language stemmer present in the index (deduplicated)."""
    return [term for terms in query_token_terms(word, languages) for term in terms]


def query_token_terms(word: str, languages: list[str]) -> list[list[str]]:
    """The terms of each token of one query word ("beta-catenin" is two, 北京 its bigrams),
    each token's as one per language stemmer present in the index (deduplicated): what
    one part of the word may match, in whichever language a document is."""
    by_start: dict[int, list[str]] = {}
    seen: set[str] = set()
    for language in languages or [DEFAULT_LANGUAGE]:
        for token in iter_tokens(word, language):
            if token.term not in seen:
                seen.add(token.term)
                by_start.setdefault(token.start, []).append(token.term)
    return [by_start[start] for start in sorted(by_start)]


# Function words: dropped from a query's required terms when it has other words, so
# "the history of rome" needs "history" and "rome" but still ranks with all of them.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself
    just me more most my myself no nor not now of off on once only or other our ours ourselves out
    over own same she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up very was we were what when where which
    while who whom why will with would you your yours yourself yourselves
    don doesn didn isn aren wasn weren won wouldn couldn shouldn s t d ll m re ve
    der die das und ist nicht ein eine zu den von mit sich des auf für im dem
    le la les et est un une des du en que qui dans pour pas sur au
    el los las y es una por con para del se lo""".split()
)


_WORD_RUN = re.compile(r"\w+")


def is_stopword(word: str) -> bool:
    """Whether a query word is a function word: every run of word characters in it is one, so
    with the punctuation a query writes around it ("good for you?", "(the") and a contraction
    of them ("isn't", "don't": the list holds their parts) too. A call is not: `now()` names
    PostgreSQL's function."""
    folded = fold(word)
    runs = _WORD_RUN.findall(folded)
    return bool(runs) and "()" not in folded and all(run in STOPWORDS for run in runs)
