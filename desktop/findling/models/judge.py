"""The LLM reranker: a generative model asked, passage by passage, whether it answers the
query; the probability of "yes" is the passage's score (beside the cross-encoder in reranker.py)."""

from __future__ import annotations

from collections.abc import Sequence

from findling.models.generator import ChatModel

JUDGE_PROMPT = (
    "Judge whether the passage answers the search query. Reply with yes or no only.\n\n"
    "Query: {query}\n\nPassage: {passage}"
)
PASSAGE_CHARS = 1500  # a small model's context; the reranker's passages are shorter anyway


class LlmJudge:
    def __init__(self, generator: ChatModel) -> None:
        self.generator = generator
        self.name = f"llm judge {generator.spec.name}"

    def scores(self, query: str, passages: Sequence[str]) -> list[float]:
        """Each passage's probability of answering the query, in [0, 1]."""
        return [
            self.generator.yes_probability([("user", JUDGE_PROMPT.format(query=query, passage=p[:PASSAGE_CHARS]))])
            for p in passages
        ]
