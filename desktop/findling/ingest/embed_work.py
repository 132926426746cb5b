"""What an embedding run has left to read, in the model's tokens.

The index knows the waiting text's characters by extension; what the model will read of it
depends on what the characters are: prose runs about four to a token, indented device-tree
source seven, a register header's hexadecimal names two. Each extension's tokens per character
is measured at the start of a run on a sample of its waiting documents, cut into windows and
titled as the depth pass will (window overlap and titles included), by the embedder's own
tokenizer. On the kernel's Documentation/ and arch/ (18,457 documents, 61.2 M tokens), 24
documents an extension estimated the whole within 0.3 % (docs/eval/disk-scale.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import duckdb

from findling.ingest.embedding_windows import batch_windows, read_documents
from findling.models.embedder import CHARS_PER_TOKEN
from findling.models.manifest import ModelSpec
from findling.store.vectors import waiting_sample

SAMPLE_DOCUMENTS = 24  # of each extension
SAMPLE_CHUNKS = 2  # of each document, from its beginning: a giant file's first pages tell its kind
# Tokens per character where no document of an extension was sampled: English prose, its
# windows overlapping by a tenth and each carrying its title.
PRIOR_TOKENS_PER_CHAR = 1.15 / CHARS_PER_TOKEN

CountTokens = Callable[[Sequence[str]], list[int]]


def token_density(
    cur: duckdb.DuckDBPyConnection, table: str, spec: ModelSpec, one_window: int, count_tokens: CountTokens
) -> dict[str, float]:
    """The model's tokens per character of the text waiting for whole vectors, by extension."""
    sample = waiting_sample(cur, table, one_window, SAMPLE_DOCUMENTS)
    if not sample:
        return {}
    titles = {doc_id: title for doc_id, _, title in sample}
    documents = read_documents(cur, list(titles), first_chunks=SAMPLE_CHUNKS)
    doc_ids, _, _, texts = batch_windows(spec, titles, documents)
    tokens: dict[str, float] = {}
    for doc_id, n in zip(doc_ids, count_tokens(texts), strict=True):
        ext = documents[doc_id].ext
        tokens[ext] = tokens.get(ext, 0.0) + n
    chars: dict[str, float] = {}
    for doc in documents.values():
        chars[doc.ext] = chars.get(doc.ext, 0.0) + doc.length
    return {ext: tokens.get(ext, 0.0) / n for ext, n in chars.items() if n > 0}


def tokens_waiting(chars: dict[str, float], density: dict[str, float]) -> float:
    """The model's tokens for this many characters by extension; an extension not sampled is
    read at the sampled text's mean density (or English prose's where none was)."""
    total = sum(chars.get(ext, 0.0) for ext in density)
    mean = sum(chars.get(ext, 0.0) * d for ext, d in density.items()) / total if total > 0 else PRIOR_TOKENS_PER_CHAR
    return sum(max(0.0, n) * density.get(ext, mean) for ext, n in chars.items())
