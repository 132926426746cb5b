"""A model server's name for a model the manifest knows is read as that model: its prompts and
passage format follow it to the server (Qwen3's queries keep their instruction under Ollama)."""

from __future__ import annotations

import pytest

from findling.models.manifest import load_manifest
from findling.models.remote import like_manifest


@pytest.mark.parametrize(
    ("served", "known"),
    [
        ("qwen3-embedding:0.6b", "qwen3-embedding-0.6b"),  # Ollama
        ("Qwen/Qwen3-Embedding-0.6B", "qwen3-embedding-0.6b"),  # vLLM, TEI: the hub name
        ("embeddinggemma:300m", "embeddinggemma-300m"),
        ("embeddinggemma", "embeddinggemma-300m"),  # Ollama's bare name: one entry begins with it
        ("embeddinggemma:latest", "embeddinggemma-300m"),
        ("google/embeddinggemma-300m", "embeddinggemma-300m"),
        ("all-minilm:l6-v2", "all-minilm-l6-v2"),
        ("sentence-transformers/all-MiniLM-L6-v2", "all-minilm-l6-v2"),
        ("intfloat/multilingual-e5-small", "multilingual-e5-small"),
        ("nomic-embed-text", None),
        ("bge-m3", None),  # another model of a known family is not taken for it
    ],
)
def test_a_served_name_is_read_as_the_manifest_model_it_is(served, known):
    spec = like_manifest(served, load_manifest())
    assert (spec.name if spec else None) == known


def test_qwen3_served_by_ollama_keeps_its_query_instruction():
    spec = like_manifest("qwen3-embedding:0.6b", load_manifest())
    assert spec is not None and spec.query_prefix.startswith("Instruct: ")
