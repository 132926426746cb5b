"""The vocabularies that cross layers, spelled once: the values a field may take, as types for
the records and as tuples for every face's choices (the CLI's options, settings, MCP's fields,
the thin client). Import-light: the thin `findling search` reads it too."""

from __future__ import annotations

from typing import Literal, get_args

DocumentStatus = Literal["ok", "failed", "skipped"]
Lane = Literal["bm25", "vector"]
Role = Literal["embedder", "reranker", "generator", "ocr"]
IndexPhase = Literal["scanning", "indexing", "embedding", "optimizing", "done"]
RerankerMode = Literal["auto", "cross-encoder", "llm", "off"]
# "most": any word matches, ranked by the share of the query's weight a document holds and by
# the words in its title or file name; "all": every word must match; "any": plain BM25 of any.
MatchMode = Literal["most", "all", "any"]
FusionMode = Literal["evidence", "rrf"]
ServerApi = Literal["openai", "ollama"]  # what a model server of the user's speaks
StageName = Literal["strong_signal", "expansion", "lanes", "fusion", "rerank", "blend"]
# What a query looks like (search/lane_balance.py): a few words, a sentence or a question, a
# pasted paragraph, a name from code. A collection's self-test weighs its lanes by each.
QueryKind = Literal["words", "sentence", "paragraph", "identifier"]

MATCH_MODES: tuple[MatchMode, ...] = get_args(MatchMode)
RERANKER_MODES: tuple[RerankerMode, ...] = get_args(RerankerMode)
SERVER_APIS: tuple[ServerApi, ...] = get_args(ServerApi)
QUERY_KINDS: tuple[QueryKind, ...] = get_args(QueryKind)
RESULT_LIMIT = (1, 10_000)  # how many results a search may ask for, on every face
AGENT_RESULT_LIMIT = 200  # at most, through MCP and HTTP: an agent's context, not a person's scrolling
