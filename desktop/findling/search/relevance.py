"""Absolute relevance from evidence: the score a result shows, comparable across queries.

A rank says nothing about whether a result is any good (the first of ten poor matches is
still first); what each lane measured does. For every candidate the pipeline gathers

- coverage:   the share of the query's idf mass the document matched (BM25 lane),
- saturation: its BM25 score over the most any document could score for the query,
- cosine:     its best chunk's cosine similarity to the query (vector lane),

and a logistic model turns them into P(relevant). The coefficients were fitted on SciFact
train and NFCorpus dev (`python -m findling.devtools.fit_scores`), never on test sets;
`findling eval --calibration` checks the buckets on the held-out sets.

Pure functions: the pipeline, the keyword search and the semantic search all score here."""

from __future__ import annotations

import math
from dataclasses import dataclass

from findling.records import Evidence


@dataclass(frozen=True)
class ScoreModel:
    """logit = intercept + Σ coefficient · feature."""

    intercept: float
    coverage: float = 0.0
    saturation: float = 0.0
    cosine: float = 0.0

    def logit(self, evidence: Evidence) -> float:
        return (
            self.intercept
            + self.coverage * (evidence.coverage or 0.0)
            + self.saturation * (evidence.saturation or 0.0)
            + self.cosine * (evidence.cosine or 0.0)
        )


# Fitted by findling.devtools.fit_scores (all-MiniLM-L6-v2 cosines); see that module.
KEYWORD = ScoreModel(intercept=-4.0, coverage=3.0, saturation=4.0)
SEMANTIC = ScoreModel(intercept=-6.0, cosine=9.0)
HYBRID = ScoreModel(intercept=-7.0, coverage=2.0, saturation=3.0, cosine=7.0)


def model_for(evidence: Evidence) -> ScoreModel:
    """The model for the evidence at hand: a document not embedded yet is judged by its
    keywords alone, as with no embedder at all."""
    has_keywords = evidence.coverage is not None
    has_vector = evidence.cosine is not None
    if has_keywords and has_vector:
        return HYBRID
    return SEMANTIC if has_vector else KEYWORD


def relevance(evidence: Evidence) -> float:
    """P(relevant) in [0, 1]."""
    if evidence.coverage is None and evidence.cosine is None:
        return 0.0
    return _sigmoid(model_for(evidence).logit(evidence))


def with_recency(score: float, age_days: float, weight: float, half_life_days: float = 30.0) -> float:
    """The sort key: the score, plus at most `weight` for a file modified now (half of it
    after `half_life_days`), so that among near-equal scores newer files come first and
    a clearly better older file still wins."""
    if weight <= 0:
        return score
    return score + weight * math.pow(0.5, max(0.0, age_days) / half_life_days)


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return float(z / (1.0 + z))
