"""Near-duplicate detection at ingest: a MinHash signature of a text's word 4-shingles, so that two
documents that are nearly the same text (a copy with a fixed typo, another export of the same
page) are known by comparing 64 numbers instead of their text.

The share of equal slots of two signatures estimates the Jaccard similarity of their shingle
sets (standard error about .06 at 64 slots). Words are lower-cased runs of letters and digits,
hashed on their bytes all at once (stable across processes and runs, unlike Python's `hash`),
a shingle is four consecutive word hashes mixed, and each slot is the minimum over the
shingles of one random multiply-add hash (fixed seeds, so signatures compare across runs).
near_copies.py compares them."""

from __future__ import annotations

import re
import unicodedata

import numpy as np

from findling.text.near_copies import SLOTS

SHINGLE = 4
MIN_WORDS = 50  # shorter texts are too small to call near-duplicates by their wording
MAX_CHARS = 1_000_000  # the first million characters stand for a longer text
_MASK = np.uint64((1 << 61) - 1)


def _splitmix64(seed: int, count: int) -> list[int]:
    """Fixed pseudo-random numbers (SplitMix64): the same in every run and on every machine,
    without numpy.random (which the app bundle leaves out)."""
    out, state = [], seed
    for _ in range(count):
        state = (state + 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        out.append(z ^ (z >> 31))
    return out


_RANDOM = _splitmix64(20261124, 2 * SLOTS)
_A = np.array([(r & ((1 << 61) - 1)) | 1 for r in _RANDOM[:SLOTS]], np.uint64)  # odd multipliers
_B = np.array([r & ((1 << 61) - 1) for r in _RANDOM[SLOTS:]], np.uint64)
_BLOCK = 1 << 20
_P = 1_000_003  # odd: invertible modulo 2^64
_P_INV = pow(_P, -1, 1 << 64)
_WORD_BYTE = np.zeros(256, np.int8)
for _c in b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_":
    _WORD_BYTE[_c] = 1
_WORD_BYTE[0x80:] = 1


def _separators_class() -> str:
    """A regex class (Python's and RE2's alike) of the characters past ASCII that are no part
    of a word: punctuation, symbols, spaces and controls of the Basic Multilingual Plane."""
    ranges: list[list[int]] = []
    for code in range(0x80, 0x10000):
        if 0xD800 <= code <= 0xDFFF or unicodedata.category(chr(code))[0] not in "PSZC":
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1][1] = code
        else:
            ranges.append([code, code])
    return "[" + "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in ranges) + "]"


# A rendered page and its source differ in their typography: Sphinx writes ’ “ ” — … where the
# source has ' " -- ..., and a ¶ after every heading. Read as letters (every byte past ASCII is),
# they glued words together ("we’re", "“quoted”") and broke the shingles around each: of 400
# Linux-kernel pages and their reStructuredText sources, 32 % were known as nearly the same;
# with them read as spaces, 55 % (the rest differ in directives and roles the page does not show).
SEPARATORS_CLASS = _separators_class()
_SEPARATORS = re.compile(SEPARATORS_CLASS + "+")


def signature(text: str) -> bytes:
    """The text's MinHash signature (SLOTS little-endian 32-bit values); b"" for a text of
    fewer than MIN_WORDS words."""
    text = text[:MAX_CHARS]
    if not text.isascii():
        text = _SEPARATORS.sub(" ", text)
    hashes = _word_hashes(text)
    if len(hashes) < MIN_WORDS:
        return b""
    # each shingle's hash mixes its four words'
    mixed = hashes[: len(hashes) - SHINGLE + 1].copy()
    for k in range(1, SHINGLE):
        mixed = (mixed * np.uint64(0x9E3779B1) + hashes[k : len(hashes) - SHINGLE + 1 + k]) & _MASK
    shingles = np.unique(mixed)
    slots = np.empty(SLOTS, dtype=np.uint64)
    step = max(1, _BLOCK // len(shingles))  # slots per pass: at most _BLOCK values in memory
    for i in range(0, SLOTS, step):
        hashed = (shingles[:, None] * _A[None, i : i + step] + _B[None, i : i + step]) & _MASK
        slots[i : i + step] = hashed.min(axis=0) >> np.uint64(29)
    return slots.astype("<u4").tobytes()


def _word_hashes(text: str) -> np.ndarray:
    """A polynomial hash of each word of the lower-cased text, in order, computed on its UTF-8
    bytes at once: a word is a run of ASCII letters, digits and underscores and of any
    non-ASCII bytes (the letters of other scripts; `signature` has made their punctuation spaces)."""
    data = np.frombuffer(text.lower().encode("utf-8", "surrogatepass"), np.uint8)
    edges = np.diff(np.concatenate(([0], _WORD_BYTE[data], [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    if len(starts) == 0:
        return np.empty(0, np.uint64)
    # prefix sums of byte * P^i wrap modulo 2^64; P is odd, so P^-i exists modulo 2^64 and a
    # word's hash no longer depends on where it stands
    n = len(data)
    one = np.ones(1, np.uint64)
    powers = np.concatenate((one, np.cumprod(np.full(n - 1, _P, np.uint64))))  # P^0 .. P^(n-1), wrapping
    inverses = np.concatenate((one, np.cumprod(np.full(n - 1, _P_INV, np.uint64))))
    prefix = np.concatenate(([np.uint64(0)], np.cumsum(data.astype(np.uint64) * powers)))
    hashes: np.ndarray = ((prefix[ends] - prefix[starts]) * inverses[starts]) & _MASK
    return hashes
