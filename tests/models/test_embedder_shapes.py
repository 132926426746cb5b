"""The shipped manifest's newer embedders, run on small ONNX graphs of their shapes: their weights
cannot be downloaded here, so each graph is built in the test with the inputs and outputs the real
export has, and imported as that manifest entry. What is checked is Findling's side: the prompts
each entry names, last-token pooling with the end token and position ids of a decoder (Qwen3),
the graph's own `sentence_embedding` with weights in a separate file (embeddinggemma)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers, processors  # noqa: E402

from findling.errors import FindlingError  # noqa: E402
from findling.models.download import ModelChecksumError, ModelStore  # noqa: E402
from findling.models.embedder import Embedder  # noqa: E402
from findling.models.manifest import load_manifest  # noqa: E402

DIM = 6
END = "<|endoftext|>"
TEXTS = ["alpha beta gamma delta", "gamma", "beta beta alpha", "delta gamma beta alpha epsilon zeta"]


def _tokenizer(folder: Path, words: list[str], add_end: bool) -> Tokenizer:
    """A word-level tokenizer over `words`; with `add_end`, it ends every input with END itself
    (as Qwen3's later tokenizer files do), else the embedder must."""
    splitter = pre_tokenizers.Whitespace()
    vocab = {"[UNK]": 0, END: 1}
    for text in words:
        for word, _ in splitter.pre_tokenize_str(text):
            vocab.setdefault(word, len(vocab))
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = splitter
    tokenizer.add_special_tokens([END])
    if add_end:
        tokenizer.post_processor = processors.TemplateProcessing(single=f"$A {END}", special_tokens=[(END, 1)])
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer.save(str(folder / "tokenizer.json"))
    (folder / "config.json").write_text(json.dumps({"hidden_size": DIM}))
    return tokenizer


def _table(vocab_size: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(vocab_size, DIM)).astype(np.float32)


def _ids(name: str):
    return helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "tokens"])


def _decoder_graph(path: Path, table: np.ndarray, step: np.ndarray) -> None:
    """Qwen3's shape: input_ids, attention_mask, position_ids -> last_hidden_state, no pooling.
    Token t's state is the sum of the embeddings up to t (what a causal model has read) plus
    position_ids[t] * step, so the last real token's state tells whether the end token was
    added and the positions were numbered."""
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["embedded"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_f", "last_axis"], ["mask3"]),
        helper.make_node("Mul", ["embedded", "mask3"], ["masked"]),
        helper.make_node("CumSum", ["masked", "token_axis"], ["read"]),
        helper.make_node("Cast", ["position_ids"], ["pos_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["pos_f", "last_axis"], ["pos3"]),
        helper.make_node("Mul", ["pos3", "step"], ["placed"]),
        helper.make_node("Add", ["read", "placed"], ["last_hidden_state"]),
    ]
    ints = [_ids(n) for n in ("input_ids", "attention_mask", "position_ids")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", DIM])
    inits = [
        numpy_helper.from_array(table, "table"),
        numpy_helper.from_array(step, "step"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "last_axis"),
        numpy_helper.from_array(np.array(1, dtype=np.int64), "token_axis"),
    ]
    graph = helper.make_graph(nodes, "decoder", ints, [out], inits)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9), str(path))


def _pooled_graph(path: Path, table: np.ndarray, projection: np.ndarray) -> None:
    """embeddinggemma's shape: input_ids, attention_mask -> last_hidden_state and
    sentence_embedding (mean of the real tokens, projected, normalised), its weights in a
    separate `.onnx_data` file as the hub's export keeps them."""
    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"]),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask_f", "last_axis"], ["mask3"]),
        helper.make_node("Mul", ["last_hidden_state", "mask3"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "token_axes"], ["summed"], keepdims=0),
        helper.make_node("ReduceSum", ["mask3", "token_axes"], ["count"], keepdims=0),
        helper.make_node("Div", ["summed", "count"], ["mean"]),
        helper.make_node("MatMul", ["mean", "projection"], ["projected"]),
        helper.make_node("LpNormalization", ["projected"], ["sentence_embedding"], axis=-1, p=2),
    ]
    ints = [_ids(n) for n in ("input_ids", "attention_mask")]
    outs = [
        helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "tokens", DIM]),
        helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", DIM]),
    ]
    inits = [
        numpy_helper.from_array(table, "table"),
        numpy_helper.from_array(projection, "projection"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "last_axis"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "token_axes"),
    ]
    graph = helper.make_graph(nodes, "pooled", ints, outs, inits)
    path.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9),
        str(path),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location=path.name + "_data",
        size_threshold=64,  # the weights go out; shape constants stay in the graph, as in the export
    )


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v)


@pytest.fixture
def manifest():
    return load_manifest()


def _qwen3(tmp_path: Path, manifest, add_end: bool):
    spec = manifest.get("qwen3-embedding-0.6b")
    folder = tmp_path / f"qwen3-{add_end}"
    tokenizer = _tokenizer(folder, [spec.query_prefix, *TEXTS], add_end)
    table = _table(tokenizer.get_vocab_size(), seed=1)
    step = np.linspace(0.1, 0.6, DIM).astype(np.float32)
    _decoder_graph(folder / "onnx" / "model_quantized.onnx", table, step)
    store = ModelStore()
    store.remove(spec)
    store.import_dir(spec, folder)
    return spec, tokenizer, table, step, Embedder(spec, store)


def _decoder_expected(tokenizer: Tokenizer, table: np.ndarray, step: np.ndarray, text: str) -> np.ndarray:
    ids = [i for i in tokenizer.encode(text).ids if i != 1] + [1]  # the end token, once
    return _unit(table[ids].sum(axis=0) + (len(ids) - 1) * step)


@pytest.mark.parametrize("add_end", [False, True], ids=["tokenizer-without-end", "tokenizer-with-end"])
def test_qwen3_pools_the_end_token_of_each_text_whatever_the_batch(tmp_path, manifest, add_end):
    spec, tokenizer, table, step, embedder = _qwen3(tmp_path, manifest, add_end)
    assert spec.pooling == "last" and spec.end_token == END
    passages = embedder.embed(TEXTS, kind="passage", batch_size=4)  # one batch, padded to the longest
    for text, vector in zip(TEXTS, passages):
        assert np.allclose(vector, _decoder_expected(tokenizer, table, step, text), atol=1e-5), text
        assert np.allclose(vector, embedder.embed([text], kind="passage")[0], atol=1e-5), "padding changed it"
    query = embedder.embed(["gamma"], kind="query")[0]
    assert np.allclose(query, _decoder_expected(tokenizer, table, step, spec.query_prefix + "gamma"), atol=1e-5)
    assert not np.allclose(query, passages[1], atol=1e-3), "the query's instruction was not read"


def test_qwen3_truncation_keeps_room_for_the_end_token(tmp_path, manifest):
    spec, tokenizer, table, step, embedder = _qwen3(tmp_path, manifest, add_end=False)
    long_text = " ".join(["alpha"] * (spec.max_length + 50))
    ids = embedder.tokenize([long_text])[0].ids
    assert len(ids) == spec.max_length - 1  # the end token makes max_length
    expected = _unit(table[[*ids, 1]].sum(axis=0) + (spec.max_length - 1) * step)
    assert np.allclose(embedder.embed([long_text])[0], expected, atol=1e-4)


def test_an_end_token_the_tokenizer_lacks_is_a_clear_error(tmp_path, manifest):
    spec = manifest.get("qwen3-embedding-0.6b")
    folder = tmp_path / "no-end"
    _tokenizer(folder, TEXTS, add_end=False)
    vocab = json.loads((folder / "tokenizer.json").read_text())
    vocab["added_tokens"] = []
    del vocab["model"]["vocab"][END]
    (folder / "tokenizer.json").write_text(json.dumps(vocab))
    _decoder_graph(folder / "onnx" / "model_quantized.onnx", _table(20, 2), np.zeros(DIM, np.float32))
    store = ModelStore()
    store.import_dir(spec, folder)
    with pytest.raises(FindlingError, match="no '<\\|endoftext\\|>' token"):
        Embedder(spec, store)


def _gemma(tmp_path: Path, manifest):
    spec = manifest.get("embeddinggemma-300m")
    folder = tmp_path / "gemma"
    titled = [spec.passage("Notes", t) for t in TEXTS]
    tokenizer = _tokenizer(folder, [spec.query_prefix, *titled], add_end=False)
    table = _table(tokenizer.get_vocab_size(), seed=3)
    projection = np.random.default_rng(4).normal(size=(DIM, DIM)).astype(np.float32)
    _pooled_graph(folder / "onnx" / "model_quantized.onnx", table, projection)
    store = ModelStore()
    store.remove(spec)
    store.import_dir(spec, folder)
    return spec, store, tokenizer, table, projection


def test_embeddinggemma_reads_its_own_pooled_output_and_prompts(tmp_path, manifest):
    spec, store, tokenizer, table, projection = _gemma(tmp_path, manifest)
    assert (store.folder(spec) / "onnx" / "model_quantized.onnx_data").is_file()
    embedder = Embedder(spec, store)

    def expected(text: str) -> np.ndarray:
        return _unit(table[tokenizer.encode(text).ids].mean(axis=0) @ projection)

    passage = spec.passage("Notes", TEXTS[0])
    assert passage.startswith("title: Notes | text: ")  # the model card's document prompt
    assert np.allclose(embedder.embed([passage])[0], expected(passage), atol=1e-5)
    query = embedder.embed(["gamma"], kind="query")[0]
    assert np.allclose(query, expected("task: search result | query: gamma"), atol=1e-5)
    mean_only = _unit(table[tokenizer.encode("task: search result | query: gamma").ids].mean(axis=0))
    assert not np.allclose(query, mean_only, atol=1e-3), "the graph's projection was skipped"


def test_embeddinggemma_weights_are_checked_before_they_are_loaded(tmp_path, manifest):
    spec, store, *_ = _gemma(tmp_path, manifest)
    weights = store.folder(spec) / "onnx" / "model_quantized.onnx_data"
    data = bytearray(weights.read_bytes())
    data[0] ^= 0xFF
    weights.write_bytes(bytes(data))
    with pytest.raises(ModelChecksumError):
        Embedder(spec, store)


def test_import_names_missing_external_weights(tmp_path, manifest):
    spec, *_ = _gemma(tmp_path, manifest)
    folder = tmp_path / "gemma"
    (folder / "onnx" / "model_quantized.onnx_data").unlink()
    with pytest.raises(FindlingError, match="model_quantized.onnx_data \\(the ONNX model's weights\\)"):
        ModelStore().import_dir(spec, folder)
