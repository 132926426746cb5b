"""Score normalizations from the pipeline spec: pure functions, unit-tested."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def minmax(scores: Sequence[float]) -> list[float]:
    """(s - worst) / (best - worst); a single score, or all equal, map to 1.0."""
    if not scores:
        return []
    best, worst = max(scores), min(scores)
    if best == worst:
        return [1.0] * len(scores)
    span = best - worst
    return [(s - worst) / span for s in scores]


def cosine_from_distance(distance: float) -> float:
    """Cosine distance in [0, 2] to a similarity in [0, 1]."""
    return min(1.0, max(0.0, 1.0 - distance / 2.0))


def sigmoid(logits: float | np.ndarray) -> float | np.ndarray:
    """Cross-encoder logits to [0, 1]; a float for a float, an array for an array.
    Written with exp(-|x|) so that no logit overflows."""
    x = np.asarray(logits, dtype=np.float64)
    z = np.exp(-np.abs(x))
    out = np.where(x >= 0, 1.0 / (1.0 + z), z / (1.0 + z))
    return float(out) if out.ndim == 0 else out
