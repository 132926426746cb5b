"""A small instruct model run with onnxruntime: a KV-cache greedy generation loop (no
torch, no onnxruntime-genai), plus next-token probabilities for yes/no judgements."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from findling.models.download import ModelStore
from findling.models.manifest import ModelSpec
from findling.models.runtime import create_session

_PAST = re.compile(r"^past_key_values\.(\d+)\.key$")


def chatml(messages: Sequence[tuple[str, str]], add_generation_prompt: bool = True) -> str:
    """ChatML, as SmolLM2 and Qwen2.5 expect: `<|im_start|>role\\ncontent<|im_end|>`."""
    text = "".join(f"<|im_start|>{role}\n{content}<|im_end|>\n" for role, content in messages)
    return text + ("<|im_start|>assistant\n" if add_generation_prompt else "")


class ChatModel(Protocol):
    """What expansion and the LLM judge ask of a generator, run here (Generator) or by a model
    server (models/remote.RemoteChat)."""

    spec: ModelSpec

    def chat(
        self,
        messages: Sequence[tuple[str, str]],
        max_new_tokens: int = 160,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> str:
        """The answer; `on_text` is given the text so far as it grows (where the model streams),
        and a set `cancel` ends it where it is."""
        ...

    def yes_probability(self, messages: Sequence[tuple[str, str]]) -> float: ...


class Generator:
    def __init__(self, spec: ModelSpec, store: ModelStore, provider: str = "auto", threads: int = 0) -> None:
        self.spec = spec
        from tokenizers import Tokenizer  # loaded with the first model: keyword search never pays for it

        self.tokenizer = Tokenizer.from_file(str(store.verified_path(spec, spec.file_of_kind("tokenizer"))))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        config = {}
        generation = {}
        for f in spec.files:
            if f.path.endswith("config.json") and not f.path.endswith("generation_config.json"):
                config = json.loads(store.verified_path(spec, f).read_text(encoding="utf-8"))
            elif f.path.endswith("generation_config.json"):
                generation = json.loads(store.verified_path(spec, f).read_text(encoding="utf-8"))
        self.session = create_session(store.verified_path(spec, spec.file_of_kind("model")), provider, threads)
        self.layers = sorted(int(m.group(1)) for name in self.session.input_names if (m := _PAST.match(name)))
        heads = int(config.get("num_attention_heads") or 1)
        self.kv_heads = int(config.get("num_key_value_heads") or heads)
        self.head_dim = config.get("head_dim") or config.get("hidden_size", 64) // heads
        eos = generation.get("eos_token_id", config.get("eos_token_id"))
        self.eos_ids = set(eos if isinstance(eos, list) else [eos] if eos is not None else [])
        im_end = self.tokenizer.token_to_id("<|im_end|>")
        if im_end is not None:
            self.eos_ids.add(im_end)
        self._lock = threading.Lock()  # one generation at a time per session

    @property
    def provider(self) -> str:
        return self.session.provider

    def _empty_past(self) -> dict[str, np.ndarray]:
        shape = (1, self.kv_heads, 0, int(self.head_dim))
        past: dict[str, np.ndarray] = {}
        for i in self.layers:
            past[f"past_key_values.{i}.key"] = np.zeros(shape, dtype=np.float32)
            past[f"past_key_values.{i}.value"] = np.zeros(shape, dtype=np.float32)
        return past

    def _step(
        self, ids: list[int], past: dict[str, np.ndarray], total: int
    ) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        n = len(ids)
        feed = {
            "input_ids": np.array([ids], dtype=np.int64),
            "attention_mask": np.ones((1, total), dtype=np.int64),
            **past,
        }
        if "position_ids" in self.session.input_names:
            feed["position_ids"] = np.arange(total - n, total, dtype=np.int64).reshape(1, n)
        outputs = self.session.run(None, feed)
        names = self.session.output_names
        logits = outputs[names.index("logits")][0, -1]
        new_past = {}
        for i in self.layers:
            new_past[f"past_key_values.{i}.key"] = outputs[names.index(f"present.{i}.key")]
            new_past[f"past_key_values.{i}.value"] = outputs[names.index(f"present.{i}.value")]
        return logits, new_past

    def chat(
        self,
        messages: Sequence[tuple[str, str]],
        max_new_tokens: int = 160,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> str:
        """The model's answer to a conversation of (role, text) messages."""
        return self.generate(chatml(messages), max_new_tokens, on_text=on_text, cancel=cancel)

    def yes_probability(self, messages: Sequence[tuple[str, str]]) -> float:
        """P("yes") against "no" as the answer's first word: the LLM judge's score."""
        return self.next_token_probabilities(chatml(messages), ["yes", "no"])[0]

    def generate(
        self,
        prompt: str,
        max_new_tokens: int = 160,
        repetition_penalty: float = 1.2,
        on_text: Callable[[str], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> str:
        """Greedy decoding with a repetition penalty (small models loop without one). `on_text`
        is given the text so far after each token; `cancel`, once set, ends it after the token
        being made."""
        with self._lock:
            ids = self.tokenizer.encode(prompt, add_special_tokens=False).ids
            total = len(ids)
            logits, past = self._step(ids, self._empty_past(), total)
            produced: list[int] = []
            for _ in range(max_new_tokens):
                if repetition_penalty != 1.0 and produced:
                    seen = np.array(sorted(set(produced)))
                    values = logits[seen]
                    logits[seen] = np.where(values > 0, values / repetition_penalty, values * repetition_penalty)
                token = int(np.argmax(logits))
                if token in self.eos_ids or (cancel is not None and cancel.is_set()):
                    break
                produced.append(token)
                if on_text is not None:
                    on_text(self.tokenizer.decode(produced, skip_special_tokens=True))
                total += 1
                logits, past = self._step([token], past, total)
            return self.tokenizer.decode(produced, skip_special_tokens=True)

    def next_token_probabilities(self, prompt: str, candidates: Sequence[str]) -> list[float]:
        """Probability of each candidate's first token as the next token, normalized over
        the candidates (e.g. "yes" vs "no")."""
        with self._lock:
            ids = self.tokenizer.encode(prompt, add_special_tokens=False).ids
            logits, _ = self._step(ids, self._empty_past(), len(ids))
        token_ids = [self.tokenizer.encode(c, add_special_tokens=False).ids[0] for c in candidates]
        chosen = logits[token_ids].astype(np.float64)
        chosen = np.exp(chosen - chosen.max())
        return [float(p) for p in chosen / chosen.sum()]
