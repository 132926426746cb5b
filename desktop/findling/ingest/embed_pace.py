"""How long embedding has left, from a steady rate.

A document is no unit of work: a kernel's README is one window and its KVM API page seven
hundred. Counting documents, the time left of one run swung between 3 and 10 hours within
eight minutes. The work here is the text the model reads, in characters; the rate is the
characters it read per second over the last few minutes (a whole run's average lags behind a
change of pace, one batch's jumps about with it), and the work left is counted from the
index: the documents waiting for a first window, and the text of those waiting for the rest."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

# Until then nothing is said: the first batches include the model's loading.
SETTLE_S = 20.0
# The rate is measured over this long a stretch of the run.
RATE_WINDOW_S = 180.0
# What the model reads for a document's whole text, per character of it, before it is measured:
# windows overlap by a tenth, and each carries the document's title.
PRIOR_INPUT_PER_CHAR = 1.15
PRIOR_FIRST_CHARS = 440.0  # a first window's text, before one is measured


@dataclass
class EmbedPace:
    started: float
    _marks: deque[tuple[float, float]] = field(default_factory=deque)  # (time, characters read by then)
    read: float = 0.0  # characters the model read this run
    first_windows: int = 0
    first_chars: float = 0.0
    whole_text: float = 0.0  # characters of documents embedded whole this run
    whole_input: float = 0.0  # ... and what the model read for them

    def __post_init__(self) -> None:
        self._marks.append((self.started, 0.0))

    def first(self, windows: int, chars: float, now: float) -> None:
        """A batch of first windows read (`chars`: what the model read for them)."""
        self.first_windows += windows
        self.first_chars += chars
        self._read(chars, now)

    def whole(self, text_chars: float, input_chars: float, now: float) -> None:
        """Documents embedded whole: `text_chars` of their text, `input_chars` read by the model."""
        self.whole_text += text_chars
        self.whole_input += input_chars
        self._read(input_chars, now)

    def _read(self, chars: float, now: float) -> None:
        self.read += chars
        self._marks.append((now, self.read))
        while len(self._marks) > 2 and now - self._marks[1][0] >= RATE_WINDOW_S:
            self._marks.popleft()

    def rate(self, now: float) -> float | None:
        """Characters read a second, over the last RATE_WINDOW_S; None until SETTLE_S of the run."""
        if now - self.started < SETTLE_S or len(self._marks) < 2:
            return None
        then, read_then = self._marks[0]
        if now - then <= 0 or self.read <= read_then:
            return None
        return (self.read - read_then) / (now - then)

    def seconds_left(self, first_waiting: int, whole_waiting_chars: float, now: float) -> float | None:
        """Seconds until every document is embedded: `first_waiting` documents without a vector
        (each a first window, then its whole text, about as long as the first windows' average
        for the many one-window documents), `whole_waiting_chars` characters of text waiting
        for the rest."""
        rate = self.rate(now)
        if rate is None:
            return None
        per_first = self.first_chars / self.first_windows if self.first_windows else PRIOR_FIRST_CHARS
        per_char = self.whole_input / self.whole_text if self.whole_text else PRIOR_INPUT_PER_CHAR
        return (first_waiting * per_first + whole_waiting_chars * per_char) / rate
