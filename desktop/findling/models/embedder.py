"""Sentence embeddings with an ONNX encoder: tokenize, batch by length, pool, normalize."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import numpy as np

from findling.models.download import ModelStore
from findling.models.manifest import ManifestError, ModelSpec
from findling.models.runtime import Session, create_session, every_core

log = logging.getLogger(__name__)

_TOKENIZE_BATCH = 16  # small calls into the tokenizer so the GIL is never held for long
# A model run's windows times its longest window's tokens, at most. Attention's memory grows with
# the windows and the square of their length: 16 full MiniLM windows (256 tokens) kept ~270 MB in
# ONNX Runtime's arena, 8 kept ~130 MB, at the same tokens a second on 2 cores
# (docs/eval/beside-recoll.md, "Memory").
RUN_TOKENS = 2048


class EmbeddingStopped(Exception):
    """`embed` was asked to stop (its `cancel` was set) between two model runs."""


class TextEmbedder(Protocol):
    """What indexing and search ask of an embedder, run here (Embedder) or by a model server
    (models/remote.RemoteEmbedder)."""

    spec: ModelSpec
    dimension: int

    @property
    def provider(self) -> str: ...

    @property
    def windows_per_call(self) -> int:
        """How many windows an embedding run hands to one `embed` call (and commits together)."""
        ...

    def embed(
        self, texts: Sequence[str], kind: str = "passage", batch_size: int = 16, cancel: Any = None
    ) -> np.ndarray: ...

    def release_memory(self) -> None:
        """After a run of many batches: what the model kept for the next batch goes back."""
        ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """The model's tokens for each passage as `embed` reads it: what a window costs."""
        ...


class Embedder:
    # Windows committed together: a stop asked mid-run keeps the calls committed before it and
    # loses at most one call's model runs.
    windows_per_call = 64

    def __init__(self, spec: ModelSpec, store: ModelStore, provider: str = "auto", threads: int = 0) -> None:
        self.spec = spec
        from tokenizers import Tokenizer  # loaded with the first model: keyword search never pays for it

        self.tokenizer = Tokenizer.from_file(str(store.verified_path(spec, spec.file_of_kind("tokenizer"))))
        self.tokenizer.no_padding()  # batches are padded here, to their own longest member
        self._end_id = self._end_token_to_add(spec)
        self.tokenizer.enable_truncation(max_length=spec.max_length - (self._end_id is not None))
        for weights in (f for f in spec.files if f.kind == "weights"):
            store.verified_path(spec, weights)  # read by onnxruntime beside the graph: checked first
        # every core: a run in the background has the lowest priority (findling/priority.py), and
        # its threads wait without spinning, so searches and the window never queue behind it
        self.session: Session = create_session(
            store.verified_path(spec, spec.file_of_kind("model")), provider, threads or every_core(), spinning=False
        )
        self.dimension = spec.dimension or 0
        self._pooled_output = "sentence_embedding" in self.session.output_names

    def _end_token_to_add(self, spec: ModelSpec) -> int | None:
        """The id of the spec's end token when the tokenizer does not end its inputs with it:
        a last-token embedder reads its vector off that token, and tokenizer files of one
        model differ in whether they add it (Qwen3's gained it in a later revision)."""
        if not spec.end_token:
            return None
        end = self.tokenizer.token_to_id(spec.end_token)
        if end is None:
            raise ManifestError(f"model {spec.name}: its tokenizer has no {spec.end_token!r} token")
        ids = self.tokenizer.encode("a").ids
        return None if ids and ids[-1] == end else end

    @property
    def provider(self) -> str:
        return self.session.provider

    def tokenize(self, texts: Sequence[str]) -> list[Any]:
        """The tokenizer's encodings (ids, offsets) of the texts, in batches."""
        return [encoding for batch in self._encoded(texts) for encoding in batch]

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        # a batch's encodings (ids, offsets, token strings) go once counted: a run's start counts
        # thousands of windows, and all their encodings at once were ~100 MB of a window
        prefixed = [self.spec.passage_prefix + t for t in texts]
        return [len(encoding.ids) for batch in self._encoded(prefixed) for encoding in batch]

    def _encoded(self, texts: Sequence[str]) -> Iterator[list[Any]]:
        """The texts' encodings, _TOKENIZE_BATCH at a time."""
        for start in range(0, len(texts), _TOKENIZE_BATCH):
            yield self.tokenizer.encode_batch(list(texts[start : start + _TOKENIZE_BATCH]))

    def embed(
        self, texts: Sequence[str], kind: str = "passage", batch_size: int = 16, cancel: Any = None
    ) -> np.ndarray:
        """L2-normalized float32 vectors, one row per text, in input order. `cancel` (an Event) is
        looked at before each model run: once set, EmbeddingStopped is raised, so a quit waits for
        one run of `batch_size` texts, never for a whole document."""
        prefix = self.spec.query_prefix if kind == "query" else self.spec.passage_prefix
        encodings = self.tokenize([prefix + t for t in texts])
        out: np.ndarray | None = None
        for idx in model_runs([len(e.ids) + (self._end_id is not None) for e in encodings], batch_size, RUN_TOKENS):
            if cancel is not None and cancel.is_set():
                raise EmbeddingStopped()
            vectors = self._run([encodings[i] for i in idx])
            if out is None:
                out = np.empty((len(texts), vectors.shape[1]), dtype=np.float32)
            out[idx] = vectors
        if out is None:
            return np.zeros((0, self.dimension), dtype=np.float32)
        self.dimension = out.shape[1]
        return out

    def release_memory(self) -> None:
        # ONNX Runtime's arena keeps the largest batch's tensors for the next run: 300-340 MB
        # after an embedding run here (docs/eval/disk-scale.md), which a window kept for good.
        # A one-token run that shrinks the arena hands them back.
        try:
            self._run(self.tokenize([""]), shrink=True)
        except Exception as exc:  # a provider without a CPU arena: nothing was kept
            log.debug("the embedder's arena was not shrunk: %s", exc)

    def _run(self, encodings: list[Any], shrink: bool = False) -> np.ndarray:
        end = [] if self._end_id is None else [self._end_id]
        longest = max(1, max(len(e.ids) + len(end) for e in encodings))
        ids = np.zeros((len(encodings), longest), dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for row, enc in enumerate(encodings):
            n = len(enc.ids) + len(end)
            ids[row, :n] = [*enc.ids, *end]
            mask[row, :n] = 1
            types[row, :n] = [*enc.type_ids, *([0] * len(end))]
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self.session.input_names:
            feed["token_type_ids"] = types
        if "position_ids" in self.session.input_names:
            # decoders number the real tokens; padding sits at the right, after them
            feed["position_ids"] = np.maximum(np.cumsum(mask, axis=1) - 1, 0)
        if self._pooled_output:
            pooled = self.session.run(["sentence_embedding"], feed, shrink)[0]
        else:
            hidden = self.session.run([self.session.output_names[0]], feed, shrink)[0]
            pooled = pool(hidden, mask, self.spec.pooling)
        return normalize(pooled.astype(np.float32))


def model_runs(lengths: Sequence[int], most: int, tokens: int) -> list[list[int]]:
    """The texts' indices in model runs: shortest first, so a run pads little, each run at most
    `most` texts and, past its first text, at most `tokens` once padded to its longest."""
    runs: list[list[int]] = []
    run: list[int] = []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if run and (len(run) >= most or (len(run) + 1) * lengths[i] > tokens):
            runs.append(run)
            run = []
        run.append(i)
    if run:
        runs.append(run)
    return runs


def pool(hidden: np.ndarray, mask: np.ndarray, mode: str) -> np.ndarray:
    """[batch, tokens, dim] token vectors to [batch, dim]: the CLS token, the last real token (a
    decoder's, which has read all the others; padding is at the right) or the mean of real tokens."""
    if mode == "cls":
        return hidden[:, 0, :]
    if mode == "last":
        last = np.maximum(mask.sum(axis=1) - 1, 0)
        return hidden[np.arange(hidden.shape[0]), last, :]
    weights = mask[..., None].astype(hidden.dtype)
    pooled: np.ndarray = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    return pooled


def normalize(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: np.ndarray = vectors / np.maximum(norms, 1e-12)
    return unit


CHARS_PER_TOKEN = 3.5  # English prose with WordPiece; code and numbers run shorter
WINDOW_OVERLAP = 0.1


def embedding_windows(text: str, max_tokens: int, overlap: float = WINDOW_OVERLAP) -> list[tuple[int, int]]:
    """Character spans of a chunk that each fit the embedder's context (about 3.5
    characters a token for English); a chunk longer than that is covered by several."""
    size = max(200, int(max_tokens * CHARS_PER_TOKEN))
    if len(text) <= size:
        return [(0, len(text))]
    step = max(1, int(size * (1 - overlap)))
    spans = []
    start = 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            space = text.rfind(" ", start + size // 2, end)
            end = space if space > 0 else end
        spans.append((start, end))
        if end >= len(text):
            break
        start = max(start + 1, end - (size - step))
    return spans
