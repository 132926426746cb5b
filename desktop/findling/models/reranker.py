"""Cross-encoder reranking: score (query, passage) pairs with an ONNX sequence classifier.
It returns the model's logits; turning them into probabilities is search's business."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from findling.models.download import ModelStore
from findling.models.manifest import ModelSpec
from findling.models.runtime import create_session


class CrossEncoder:
    kind = "cross-encoder"

    def __init__(
        self, spec: ModelSpec, store: ModelStore, provider: str = "auto", threads: int = 0, max_tokens: int = 0
    ) -> None:
        self.spec = spec
        self.max_tokens = min(spec.max_length, max_tokens) if max_tokens else spec.max_length
        from tokenizers import Tokenizer  # loaded with the first model: keyword search never pays for it

        self.tokenizer = Tokenizer.from_file(str(store.verified_path(spec, spec.file_of_kind("tokenizer"))))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_tokens, strategy="longest_first")
        self.session = create_session(store.verified_path(spec, spec.file_of_kind("model")), provider, threads)

    @property
    def provider(self) -> str:
        return self.session.provider

    def logits(self, query: str, passages: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """The model's relevance logit for each passage, in input order."""
        out = np.zeros(len(passages), dtype=np.float32)
        for start in range(0, len(passages), batch_size):
            pairs = [(query, p) for p in passages[start : start + batch_size]]
            encodings = self.tokenizer.encode_batch(pairs)
            longest = max(len(e.ids) for e in encodings)
            ids = np.zeros((len(pairs), longest), dtype=np.int64)
            mask = np.zeros_like(ids)
            types = np.zeros_like(ids)
            for row, enc in enumerate(encodings):
                n = len(enc.ids)
                ids[row, :n], mask[row, :n], types[row, :n] = enc.ids, 1, enc.type_ids
            feed = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self.session.input_names:
                feed["token_type_ids"] = types
            logits = self.session.run([self.session.output_names[0]], feed)[0]
            logits = logits.reshape(len(pairs), -1)
            # one logit: relevance; two (not relevant, relevant): their difference
            column = logits[:, 0] if logits.shape[1] == 1 else logits[:, -1] - logits[:, 0]
            out[start : start + len(pairs)] = column
        return out
