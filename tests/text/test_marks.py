"""text/marks.py is unicodedata's combining marks, written out so no command pays for computing
them: it holds them exactly on the Unicode version it was made from, and on any other every mark
it lists is still one (Unicode never takes a character out of a category it gave)."""

from __future__ import annotations

import re
import unicodedata

from findling.text.analyzer import UNSPACED_CLASS, iter_tokens
from findling.text.marks import MARKS, UNICODE_VERSION


def marks_class() -> set[int]:
    """The code points text/marks.py should list, from the running Python's tables."""
    unspaced = re.compile(UNSPACED_CLASS)
    return {
        c
        for c in (*range(0x300, 0x20000), *range(0xE0100, 0xE01F0))
        if unicodedata.category(chr(c)) in ("Mn", "Mc", "Me") and not unspaced.match(chr(c))
    }


def _listed() -> set[int]:
    listed: set[int] = set()
    for first, last in re.findall(r"(.)(?:-(.))?", MARKS, re.DOTALL):
        listed.update(range(ord(first), ord(last or first) + 1))
    return listed


def test_the_written_marks_are_unicodes():
    listed = _listed()
    if unicodedata.unidata_version == UNICODE_VERSION:
        assert listed == marks_class()
    assert all(unicodedata.category(chr(c)) in ("Mn", "Mc", "Me") for c in listed)


def test_a_word_goes_on_through_its_marks():
    assert [t.term for t in iter_tokens("nai\u0308ve हिन्दी")] == [t.term for t in iter_tokens("naïve हिन्दी")]
