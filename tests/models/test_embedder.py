from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from findling.models.download import ModelStore
from findling.models.embedder import RUN_TOKENS, Embedder, embedding_windows, model_runs, normalize, pool
from findling.models.runtime import preferred_providers
from findling.records import SearchMode, SearchRequest


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


@given(st.lists(st.integers(1, 600), max_size=80), st.integers(1, 32), st.integers(1, 4096))
def test_model_runs_take_every_text_once_within_their_bounds(lengths, most, tokens):
    runs = model_runs(lengths, most, tokens)
    assert sorted(i for run in runs for i in run) == list(range(len(lengths)))
    for run in runs:
        assert 1 <= len(run) <= most
        # a single text longer than the budget still runs, alone
        assert len(run) == 1 or len(run) * max(lengths[i] for i in run) <= tokens
    # shortest first: a run pads its members to one another's length, not to a long stranger's
    longest_before = [max(lengths[i] for i in run) for run in runs]
    shortest_after = [min(lengths[i] for i in run) for run in runs]
    assert all(a <= b for a, b in zip(longest_before, shortest_after[1:]))


def test_long_windows_run_fewer_at_a_time_without_memory_patterns(embedder, monkeypatch):
    """ONNX Runtime keeps a run's largest tensors for the next: 16 full-length windows a run and a
    memory pattern per input shape held 464 MB, where runs of RUN_TOKENS without patterns hold
    ~130 MB."""
    assert embedder.session.session.get_session_options().enable_mem_pattern is False
    shapes: list[tuple[int, int]] = []
    run = embedder._run

    def spy(encodings, shrink=False):
        shapes.append((len(encodings), max(len(e.ids) for e in encodings)))
        return run(encodings, shrink)

    monkeypatch.setattr(embedder, "_run", spy)
    texts = [f"passage {i} " + "kernel memory page fault handler " * 60 for i in range(16)]
    texts += [f"short {i}" for i in range(16)]
    vectors = embedder.embed(texts, batch_size=16)
    assert vectors.shape == (32, 384)
    assert all(n * longest <= RUN_TOKENS for n, longest in shapes), shapes
    assert shapes[0][0] == 16, "short texts still run 16 at a time"
    assert sum(n for n, _ in shapes) == 32


def test_counting_tokens_keeps_one_batch_of_encodings_at_a_time(embedder, monkeypatch):
    """An embedding run's start counts the tokens of thousands of windows (the time left): their
    encodings, held together until counted, were ~100 MB of a window at its start."""
    import weakref

    from findling.models.embedder import _TOKENIZE_BATCH

    real = embedder.tokenizer
    live: weakref.WeakSet[object] = weakref.WeakSet()
    most = [0]

    class Encoding:
        def __init__(self, ids: list[int]) -> None:
            self.ids = ids

    class Tokenizer:
        def encode_batch(self, texts):
            out = [Encoding(e.ids) for e in real.encode_batch(texts)]
            live.update(out)
            most[0] = max(most[0], len(live))
            return out

    texts = [f"window {i} about how the kernel handles a page fault" for i in range(200)]
    expected = [len(real.encode(embedder.spec.passage_prefix + t).ids) for t in texts]
    monkeypatch.setattr(embedder, "tokenizer", Tokenizer())
    assert embedder.count_tokens(texts) == expected
    assert most[0] <= 2 * _TOKENIZE_BATCH, most[0]


def test_long_input_truncated_not_failing(embedder):
    assert embedder.embed(["token " * 5000]).shape == (1, 384)
    assert embedder.embed([""]).shape == (1, 384)


def test_cls_pooling_and_prefixes_on_real_model(embedder_installed):
    """bge uses CLS pooling and a query prefix, e5 'query: '/'passage: ': both paths run on
    the real encoder here (MiniLM's weights stand in for theirs)."""
    from dataclasses import replace

    store = ModelStore()
    cls_spec = replace(
        embedder_installed, pooling="cls", query_prefix="Represent this sentence: ", passage_prefix="passage: "
    )
    cls = Embedder(cls_spec, store, threads=2)
    mean = Embedder(embedder_installed, store, threads=2)
    text = "the borrow checker rejects this program"
    v_cls = cls.embed([text])[0]
    assert np.isclose(np.linalg.norm(v_cls), 1.0, atol=1e-5)
    assert float(v_cls @ mean.embed([text])[0]) < 0.99  # a different pooling, a different vector
    # prefixes are applied by kind: a passage is embedded as "passage: " + text
    assert np.allclose(cls.embed([text])[0], mean_free(cls, "passage: " + text), atol=1e-5)
    assert np.allclose(
        cls.embed([text], kind="query")[0], mean_free(cls, "Represent this sentence: " + text), atol=1e-5
    )


def mean_free(embedder, raw_text):
    """Embed text exactly as given, with no prefix."""
    from dataclasses import replace

    saved = embedder.spec
    embedder.spec = replace(saved, query_prefix="", passage_prefix="")
    try:
        return embedder.embed([raw_text])[0]
    finally:
        embedder.spec = saved


def test_a_long_query_is_cut_at_the_models_limit_not_before(embedder):
    paragraph = " ".join(f"word{i}" for i in range(400))
    (encoding,) = embedder.tokenize([paragraph])
    assert len(encoding.ids) == embedder.spec.max_length == 256
    assert len(embedder.tokenize(["a short query"])[0].ids) < 10


def test_passage_format_is_per_model_and_keys_its_vectors(tmp_path, settings, docs, embedder_installed):
    from dataclasses import replace

    from findling.engine import Engine
    from findling.models.manifest import DEFAULT_PASSAGE_FORMAT, ManifestError, _passage_format
    from tests.helpers import write

    assert embedder_installed.passage("Ferries", "Leave at dawn.") == "title: Ferries | text: Leave at dawn."
    assert embedder_installed.vector_key == embedder_installed.name  # the default format: the plain name
    plain = replace(embedder_installed, passage_format="{text}")
    assert plain.passage("T {x}", "body {title}") == "body {title}"  # braces in a text are text
    assert plain.vector_key.startswith(embedder_installed.name + "@") and plain.vector_key != DEFAULT_PASSAGE_FORMAT
    with pytest.raises(ManifestError, match="passage_format"):
        _passage_format("m", "{title} only")

    write(docs / "ferry.md", "# Ferries\n\nThe ferry leaves at dawn from the harbour.")
    write(docs / "bread.md", "# Bread\n\nKnead the dough and let it rise.")
    with Engine(tmp_path / "home", settings=settings) as engine:
        engine.add_source(docs)
        assert engine.index().embedding.documents == 2
        manifest = engine.models.manifest
        engine.models.use_manifest(replace(manifest, models={**manifest.models, plain.name: plain}))
        # another format is another model's vectors: everything is embedded again, the old dropped
        report = engine.embed()
        assert report.documents == 2
        assert [
            os.path.basename(h.path)
            for h in engine.find(SearchRequest("boat at sunrise", mode=SearchMode.SEMANTIC)).hits
        ][0] == "ferry.md"
        assert engine.embed().documents == 0
