"""A coarse partition of the chunk vectors (an inverted file, IVF): spherical k-means centroids
trained on a sample, every vector filed under its nearest centroid. A query scores only the
vectors filed under its `probes` nearest centroids (with their int8 codes), and the best of
those are rescored exactly as before, so a million chunks cost a few percent of a full scan.

The vectors stay where the index keeps them; the index orders its rows by list, so each list
is one contiguous slice and a probe scores slices without copying them. Rows added after the
partition was built (a live update) sit after the partitioned ones and are always scored."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_TRAIN_SAMPLE = 40_000
_ITERATIONS = 8
_BLOCK = 65_536


@dataclass(frozen=True)
class Partition:
    centroids: np.ndarray  # float32 [lists, dim], unit length
    labels: np.ndarray  # int32 [covered]: each partitioned row's list, ascending (rows are grouped by list)

    @property
    def covered(self) -> int:
        """Rows [0, covered) are partitioned; later rows are scanned whole."""
        return len(self.labels)

    @property
    def offsets(self) -> np.ndarray:
        """Where each list's rows begin (and, last, where they end)."""
        offsets: np.ndarray = np.searchsorted(self.labels, np.arange(len(self.centroids) + 1)).astype(np.int64)
        return offsets

    def kept(self, mask: np.ndarray) -> Partition:
        """The partition after rows were dropped (`mask` over every row, True where kept): the
        kept rows stay grouped by list, so only the labels are taken."""
        return Partition(self.centroids, self.labels[mask[: self.covered]])

    def probe(self, query: np.ndarray, probes: int) -> list[tuple[int, int]]:
        """The (start, end) row slices of the lists nearest the query, nearest first."""
        nearest = np.argsort(-(self.centroids @ query.astype(np.float32)))[:probes]
        offsets = self.offsets
        return [(int(offsets[i]), int(offsets[i + 1])) for i in nearest if offsets[i + 1] > offsets[i]]


def lists_for(rows: int) -> int:
    """About 4·√n lists: a few thousand vectors a list, whatever the size."""
    return int(max(16, min(4096, round(4 * np.sqrt(rows)))))


def _normalized(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out: np.ndarray = vectors / np.maximum(norms, 1e-12)
    return out


def train(sample: np.ndarray, lists: int, rng: np.random.Generator, iterations: int = _ITERATIONS) -> np.ndarray:
    """Spherical k-means (cosine) over `sample` (float32 [m, dim]): unit centroids [lists, dim]."""
    sample = _normalized(sample.astype(np.float32))
    lists = min(lists, len(sample))
    centroids = sample[rng.choice(len(sample), size=lists, replace=False)].copy()
    for _ in range(iterations):
        labels = np.argmax(sample @ centroids.T, axis=1)
        sums = np.zeros_like(centroids)
        np.add.at(sums, labels, sample)
        counts = np.bincount(labels, minlength=lists)
        empty = counts == 0
        if empty.any():  # an empty list takes a vector far from every centroid
            far = np.argsort((sample @ centroids.T).max(axis=1))[: int(empty.sum())]
            sums[empty] = sample[far]
        centroids = _normalized(sums)
    return centroids.astype(np.float32)


def assign(decoded_blocks: list[np.ndarray], centroids: np.ndarray) -> np.ndarray:
    """Each vector's nearest centroid (int32), from blocks of vectors (a million never at once)."""
    labels = [np.argmax(block.astype(np.float32) @ centroids.T, axis=1).astype(np.int32) for block in decoded_blocks]
    return np.concatenate(labels) if labels else np.zeros(0, dtype=np.int32)


def block_slices(rows: int) -> list[tuple[int, int]]:
    return [(lo, min(rows, lo + _BLOCK)) for lo in range(0, rows, _BLOCK)]


def sample_rows(rows: int, rng: np.random.Generator) -> np.ndarray:
    return np.sort(rng.choice(rows, size=min(rows, _TRAIN_SAMPLE), replace=False))
