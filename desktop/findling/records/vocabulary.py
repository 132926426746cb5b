"""The vocabularies that cross layers, spelled once: the values a field may take."""

from __future__ import annotations

from typing import Literal

DocumentStatus = Literal["ok", "failed", "skipped"]
Lane = Literal["bm25", "vector"]
Role = Literal["embedder", "reranker", "generator", "ocr"]
IndexPhase = Literal["scanning", "indexing", "embedding", "optimizing", "done"]
RerankerMode = Literal["auto", "cross-encoder", "llm", "off"]
# "most": any word matches, ranked by the share of the query's weight a document holds and by
# the words in its title or file name; "all": every word must match; "any": plain BM25 of any.
MatchMode = Literal["most", "all", "any"]
FusionMode = Literal["evidence", "rrf"]
StageName = Literal["strong_signal", "expansion", "lanes", "fusion", "rerank", "blend"]
