"""How long embedding has left, from a steady rate.

A document is no unit of work: a kernel's README is one window and its KVM API page seven
hundred. Counting documents, the time left of one run swung between 3 and 10 hours within
eight minutes. Nor is a character: a window is cut at about 450 of them, and the model reads
its tokens, 60 for a window of indented device-tree lines and 250 for one of hexadecimal
register names. On the kernel's Documentation/ and arch/, characters a second went from 35,600
on arch/'s small files to 23,000 on its big C files while tokens a second held at 10,500-12,800
(docs/eval/disk-scale.md), and a time left in characters was a third short for a quarter of an
hour. So the work is counted in the model's tokens: the rate is the tokens the model read a
second over the run's last few minutes (a whole run's average lags behind a change of pace, one
batch's jumps about with it); the work left is the documents waiting for a first window, at the
first windows' mean, and the text waiting for whole vectors at its tokens per character, which
ingest/embed_work.py measures on a sample of it by extension.

While the first pass runs, its batches cost more than their tokens: each document's synopsis,
the machine-made check, a commit per 64 documents (about 9,000 tokens a second on the kernel
part, where the depth pass after it ran 10,500-12,800, and the whole pass's time left read
+26 %). So the text after the first pass is timed at the model's own rate until the first pass
is done, the seconds around its calls only."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

# Until then nothing is said: the first batches include the model's loading.
SETTLE_S = 20.0
# The rate is measured over the run's last this many seconds: replayed on the kernel's whole
# pass, 120 s followed a passing load into a +49 % reading and 600 s kept arch/'s fast start
# for ten minutes (+44 %); 300 s had 437 of 441 readings within 25 % (docs/eval/disk-scale.md).
RATE_WINDOW_S = 300.0
PRIOR_FIRST_TOKENS = 140.0  # a first window's tokens, before one is measured (a full window)


@dataclass(frozen=True)
class Waiting:
    """The work a run has left: documents without a vector, and the model's tokens for the text
    waiting for whole vectors."""

    first: int = 0
    whole_tokens: float = 0.0


@dataclass
class EmbedPace:
    started: float
    # (when, seconds the batch took, of them in the model, tokens the model read in it), newest last
    _work: deque[tuple[float, float, float, float]] = field(default_factory=deque)
    first_windows: int = 0
    first_tokens: float = 0.0

    def first(self, windows: int, tokens: float) -> None:
        """First windows read, `tokens` the model's tokens for them."""
        self.first_windows += windows
        self.first_tokens += tokens

    def spent(self, seconds: float, tokens: float, now: float, model_seconds: float | None = None) -> None:
        """A batch took `seconds` (reading, the model, writing), `model_seconds` of them in the
        model (all of them when not said), for `tokens` read by the model."""
        if seconds <= 0:
            return
        model = seconds if model_seconds is None else min(seconds, model_seconds)
        self._work.append((now, seconds, model, tokens))
        while len(self._work) > 2 and now - self._work[0][0] > RATE_WINDOW_S:
            self._work.popleft()

    def rate(self, now: float, model_only: bool = False) -> float | None:
        """Tokens read a second of the run (or of the model's calls alone); None until SETTLE_S
        of the run or while nothing was read."""
        if now - self.started < SETTLE_S:
            return None
        seconds = sum(m if model_only else s for _, s, m, _ in self._work)
        tokens = sum(t for *_, t in self._work)
        return tokens / seconds if seconds > 0 and tokens > 0 else None

    def seconds_left(self, waiting: Waiting, now: float, whole: bool = True) -> float | None:
        """Seconds until every document has its first vector (`whole` False) or is embedded whole."""
        per_first = self.first_tokens / self.first_windows if self.first_windows else PRIOR_FIRST_TOKENS
        first = waiting.first * per_first
        after = waiting.whole_tokens if whole else 0.0
        if first + after <= 0:
            return 0.0
        rate = self.rate(now)
        after_rate = self.rate(now, model_only=True) if first > 0 else rate
        if not rate or not after_rate:
            return None
        return first / rate + after / after_rate
