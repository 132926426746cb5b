from __future__ import annotations

import numpy as np
import pytest

from findling.models.download import ModelStore
from findling.models.embedder import Embedder, embedding_windows, normalize, pool
from findling.models.runtime import preferred_providers


def test_mean_pool_counts_only_real_tokens():
    hidden = np.array([[[1.0, 2.0], [3.0, 4.0], [100.0, 100.0]]])
    mask = np.array([[1, 1, 0]])
    assert pool(hidden, mask, "mean").tolist() == [[2.0, 3.0]]
    assert pool(hidden, mask, "cls").tolist() == [[1.0, 2.0]]


def test_normalize_unit_length():
    v = normalize(np.array([[3.0, 4.0], [0.0, 0.0]], dtype=np.float32))
    assert np.allclose(v[0], [0.6, 0.8]) and np.all(np.isfinite(v))


def test_windows_cover_long_text():
    text = "word " * 2000
    spans = embedding_windows(text, 256)
    assert spans[0][0] == 0 and spans[-1][1] == len(text)
    assert all(b[0] < a[1] for a, b in zip(spans, spans[1:])), "windows overlap"
    assert embedding_windows("short", 256) == [(0, 5)]


def test_cpu_provider_always_last():
    assert preferred_providers("auto")[-1] == "CPUExecutionProvider"
    assert preferred_providers("cuda")[-1] == "CPUExecutionProvider"


@pytest.fixture
def embedder(embedder_installed):
    return Embedder(embedder_installed, ModelStore(), threads=2)


def test_real_embeddings_rank_by_meaning(embedder):
    passages = [
        "ERROR 2024-03-01 connection refused on port 5432",
        "The cat sat on the mat in the sun.",
        "Paris is the capital and largest city of France.",
        "def add(a, b):\n    return a + b",
    ]
    queries = ["database server not reachable", "French capital city", "function that sums two numbers"]
    p = embedder.embed(passages)
    q = embedder.embed(queries, kind="query")
    assert p.shape == (4, 384) and p.dtype == np.float32
    assert np.allclose(np.linalg.norm(p, axis=1), 1.0, atol=1e-5)
    assert (q @ p.T).argmax(axis=1).tolist() == [0, 2, 3]


def test_batching_keeps_order_and_meaning(embedder):
    # Dynamic int8 quantization scales activations per batch, so a text embedded inside a
    # batch differs slightly from the same text alone: close in direction, not identical.
    texts = [f"sentence number {i} " * (i % 7 + 1) for i in range(40)]
    together = embedder.embed(texts, batch_size=16)
    alone = np.stack([embedder.embed([t])[0] for t in texts[:8]])
    cosines = (together[:8] * alone).sum(axis=1)
    assert cosines.min() > 0.97, cosines
    # and each row is its own text's vector, not a neighbour's: order survives length-sorting
    assert (together[:8] @ alone.T).argmax(axis=1).tolist() == list(range(8))


def test_long_input_truncated_not_failing(embedder):
    assert embedder.embed(["token " * 5000]).shape == (1, 384)
    assert embedder.embed([""]).shape == (1, 384)
