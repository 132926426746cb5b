"""Which texts are nearly the same, from their MinHash signatures (shingles.py makes them at
ingest): the share of equal slots estimates the Jaccard similarity of two texts' shingles.

A search compares the signatures of its results, so this module is plain Python: a keyword
search from a terminal loads no numpy (50 ms of a 220 ms command). Near copies are found through
bands: a signature cut into BANDS runs of slots is filed under each run. Two signatures NEAR alike
differ in at most MAX_DIFFERING slots, which spoil at most that many bands, so they share at least
one band whole: every near copy is a candidate, and only candidates are compared slot by slot."""

from __future__ import annotations

import math

SLOTS = 64
NEAR = 0.9  # estimated similarity from which two texts are nearly the same
# The same text in another format (a manual's page beside its source, a report beside its PDF):
# files of one name whose shorter text is mostly inside the longer's. A rendered page holds
# what its source includes from elsewhere, so their similarity is lower: of Git's manual pages
# beside their AsciiDoc sources half were nearly the same, 92 % are listed once by this rule
# (the Linux kernel's HTML beside its .rst sources: 54 % -> 72 %).
CONTAINED = 0.8
SIZES = 0.25  # the shorter text at least this share of the longer: not an excerpt (and the estimate holds)
_WIDTH = 4  # bytes a slot: little-endian 32-bit values
MAX_DIFFERING = SLOTS - math.ceil(NEAR * SLOTS)
BANDS = 8
_BAND_BYTES = SLOTS * _WIDTH // BANDS
assert BANDS > MAX_DIFFERING and SLOTS % BANDS == 0  # what makes every near copy share a band


def _equal_slots(a: bytes, b: bytes) -> int:
    return sum(x == y for x, y in zip(memoryview(a).cast("I"), memoryview(b).cast("I"), strict=True))


def similarity(a: bytes, b: bytes) -> float:
    """Estimated Jaccard similarity of two texts' shingles; 0 when either has no signature."""
    if not a or len(a) != len(b) or len(a) != SLOTS * _WIDTH:
        return 0.0
    return _equal_slots(a, b) / SLOTS


def contained(a: bytes, b: bytes, size_a: float, size_b: float) -> float:
    """Estimated share of the shorter text's shingles inside the longer's, from the two texts'
    similarity and sizes (|A ∩ B| = J·(|A| + |B|) / (1 + J)); 0 when the shorter is less than
    SIZES of the longer."""
    small, large = sorted((size_a, size_b))
    if small <= 0 or small < SIZES * large:
        return 0.0
    j = similarity(a, b)
    return min(1.0, j * (small + large) / ((1 + j) * small))


class NearIndex:
    """The signatures of the documents kept so far, each at its place in a list: the first one
    nearly the same as a new signature, found through the bands they share (a few dictionary
    lookups a document, not a comparison with every one kept)."""

    def __init__(self) -> None:
        self._bands: dict[tuple[int, bytes], list[int]] = {}
        self._kept: list[tuple[bytes, int]] = []  # (signature, place)

    def first_near(self, signed: bytes) -> int | None:
        """The place of the first kept document whose estimated similarity is NEAR or more."""
        if len(signed) != SLOTS * _WIDTH:
            return None
        candidates: set[int] = set()
        for key in _band_keys(signed):
            candidates.update(self._bands.get(key, ()))
        for index in sorted(candidates):  # the first kept, as a scan in order would find
            kept, place = self._kept[index]
            if _equal_slots(kept, signed) >= SLOTS - MAX_DIFFERING:
                return place
        return None

    def add(self, signed: bytes, place: int) -> None:
        if len(signed) != SLOTS * _WIDTH:
            return
        index = len(self._kept)
        self._kept.append((signed, place))
        for key in _band_keys(signed):
            self._bands.setdefault(key, []).append(index)


def _band_keys(signed: bytes) -> list[tuple[int, bytes]]:
    return [(band, signed[band * _BAND_BYTES : (band + 1) * _BAND_BYTES]) for band in range(BANDS)]
