"""How long embedding has left, from a steady rate.

A document is no unit of work: a kernel's README is one window and its KVM API page seven
hundred. Counting documents, the time left of one run swung between 3 and 10 hours within
eight minutes. The work here is the text the model reads, in characters, and the rate is kept
apart for prose and for code: code has more tokens to the character (the model reads a C file's
characters at about two thirds of a page's pace on this machine), and a run reads its prose
first. Each kind's rate is the characters it read per second of the run over its last few
minutes of that kind (a whole run's average lags behind a change of pace, one batch's jumps
about with it); the work left is counted from the index: the documents waiting for a first
window, and the text of those waiting for the rest."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

KINDS = ("prose", "code")
# Until then nothing is said: the first batches include the model's loading.
SETTLE_S = 20.0
# Each kind's rate is measured over its last this many seconds of work.
RATE_WINDOW_S = 180.0
# A kind not measured yet is read at the other's pace times this (code) or divided by it (prose).
CODE_PACE = 0.7
# What the model reads for a document's whole text, per character of it, before it is measured:
# windows overlap by a tenth, and each carries the document's title.
PRIOR_INPUT_PER_CHAR = 1.15
PRIOR_FIRST_CHARS = 440.0  # a first window's text, before one is measured


@dataclass(frozen=True)
class Waiting:
    """The work one kind of document has left: documents without a vector, and characters of
    text waiting for whole vectors."""

    first: int = 0
    whole_chars: float = 0.0


@dataclass
class EmbedPace:
    started: float
    # per kind: (when, seconds spent on it, characters the model read), newest last
    _work: dict[str, deque[tuple[float, float, float]]] = field(
        default_factory=lambda: {kind: deque() for kind in KINDS}
    )
    first_windows: int = 0
    first_chars: float = 0.0
    whole_text: float = 0.0  # characters of documents embedded whole this run
    whole_input: float = 0.0  # ... and what the model read for them

    def first(self, windows: int, chars: float) -> None:
        """First windows read (`chars`: what the model read for them)."""
        self.first_windows += windows
        self.first_chars += chars

    def whole(self, text_chars: float, input_chars: float) -> None:
        """Documents embedded whole: `text_chars` of their text, `input_chars` read by the model."""
        self.whole_text += text_chars
        self.whole_input += input_chars

    def spent(self, seconds: float, read: dict[str, float], now: float) -> None:
        """A batch took `seconds` (reading, the model, writing) for these characters read by kind;
        the time is shared among the kinds as their characters are."""
        total = sum(read.values())
        if total <= 0 or seconds <= 0:
            return
        for kind, chars in read.items():
            if chars > 0:
                work = self._work[kind]
                work.append((now, seconds * chars / total, chars))
                while len(work) > 2 and now - work[0][0] > RATE_WINDOW_S:
                    work.popleft()

    def rate(self, kind: str, now: float) -> float | None:
        """Characters of this kind read a second; from the other kind's where this one has not been
        read yet; None until SETTLE_S of the run."""
        if now - self.started < SETTLE_S:
            return None
        own = self._measured(kind)
        if own is not None:
            return own
        other = self._measured("code" if kind == "prose" else "prose")
        if other is None:
            return None
        return other * CODE_PACE if kind == "code" else other / CODE_PACE

    def _measured(self, kind: str) -> float | None:
        work = self._work[kind]
        seconds = sum(s for _, s, _ in work)
        return sum(c for _, _, c in work) / seconds if seconds > 0 else None

    def seconds_left(self, waiting: dict[str, Waiting], now: float, whole: bool = True) -> float | None:
        """Seconds until every document has its first vector (`whole` False) or is embedded whole:
        each document without a vector is a first window (about as long as the first windows'
        average, and then its text); each character waiting for whole vectors is read as the
        model has read them so far."""
        per_first = self.first_chars / self.first_windows if self.first_windows else PRIOR_FIRST_CHARS
        per_char = self.whole_input / self.whole_text if self.whole_text else PRIOR_INPUT_PER_CHAR
        left = 0.0
        for kind, work in waiting.items():
            chars = work.first * per_first + (work.whole_chars * per_char if whole else 0.0)
            if chars <= 0:
                continue
            rate = self.rate(kind, now)
            if rate is None:
                return None
            left += chars / rate
        return left
