"""How a float vector becomes a one-byte-a-dimension code and back, and how a query scores
codes: a rotation onto the vectors' principal axes (largest first, so a search can read only
the head of every code), a scale per axis, integer dot products. Pure functions and a frozen
codebook; search/vector_index.py keeps the codes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from findling.tuning import CODE_HEADROOM


@dataclass(frozen=True)
class Codebook:
    """How a float vector becomes a code: turned onto the basis's axes, then a byte per axis."""

    basis: np.ndarray  # float32 [dim, dim], orthonormal columns, the largest axis first
    scale: np.ndarray  # float32 [dim], per rotated axis
    fitted_on: int  # rows there were when the basis was fitted

    @classmethod
    def identity(cls, dim: int) -> Codebook:
        return cls(np.eye(dim, dtype=np.float32), np.zeros(dim, dtype=np.float32), 0)

    def rotate(self, vectors: np.ndarray) -> np.ndarray:
        rotated: np.ndarray = np.asarray(vectors, dtype=np.float32) @ self.basis
        return rotated

    def widened(self, rotated: np.ndarray) -> Codebook | None:
        """A codebook whose scale covers these rotated vectors, with headroom so that this is
        rare; None when this one already does."""
        # the largest magnitude per axis without an absolute copy of the batch
        peak = np.maximum(rotated.max(axis=0), -rotated.min(axis=0)) / 127
        if np.all(peak <= self.scale):
            return None
        scale = np.maximum(self.scale, peak * CODE_HEADROOM).astype(np.float32)
        scale[scale == 0] = 1e-6
        return Codebook(self.basis, scale, self.fitted_on)


def principal_axes(sample: np.ndarray) -> np.ndarray:
    """float32 [dim, dim]: orthonormal axes of the sample's second moments, the one along which
    the vectors are longest first. Not centred: a rotation about the origin keeps every dot
    product, so a code's score needs nothing added back."""
    x = np.asarray(sample, dtype=np.float64)
    _, axes = np.linalg.eigh(x.T @ x)
    basis: np.ndarray = np.ascontiguousarray(axes[:, ::-1], dtype=np.float32)
    return basis


def head_size(dim: int) -> int:
    return max(1, dim // 3)


def quantize(vectors: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """uint8 codes of float vectors: round(v / scale) clipped to ±127, offset by 128. One float
    copy of the batch, worked on in place: each step's own copy was what a vector index's load
    peaked on (docs/eval/disk-scale.md)."""
    steps = np.divide(vectors, scale, dtype=np.float32)
    np.rint(steps, out=steps)
    np.clip(steps, -127, 127, out=steps)
    steps += 128
    codes: np.ndarray = steps.astype(np.uint8)
    return codes


def query_code(query: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, float]:
    """The int8 query whose integer dot product with codes approximates the float one:
    v · q ≈ Σ (code − 128) · scale · q = step · (codes · b − 128 · Σ b)."""
    folded = query.astype(np.float32) * scale
    step = float(np.abs(folded).max()) / 127 or 1.0
    return np.rint(folded / step).astype(np.int8), step


def member_mask(doc_ids: np.ndarray, wanted: np.ndarray) -> np.ndarray:
    """bool [n]: which rows belong to the wanted documents, by a table indexed by document id
    (np.isin sorts or loops over the wanted ids: 10-40 ms at a million rows)."""
    if len(doc_ids) == 0 or len(wanted) == 0:
        return np.zeros(len(doc_ids), dtype=bool)
    highest = int(doc_ids.max())
    wanted = np.asarray(wanted, dtype=np.int64)
    wanted = wanted[(wanted >= 0) & (wanted <= highest)]
    table = np.zeros(highest + 1, dtype=bool)
    table[wanted] = True
    mask: np.ndarray = table[doc_ids]
    return mask
