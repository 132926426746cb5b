"""An answer from the files: its sentences, each checked, and the passages they cite."""

from __future__ import annotations

from dataclasses import dataclass, field

from findling.records.search import Hit, Note


@dataclass(frozen=True)
class Citation:
    """A passage an answer was written from: [n] in its sentences. `start`/`end` are the
    passage's characters in the document's text (what the preview lights), `line` the line of
    the first sentence the answer cites it for and `page` its page (0: not paged)."""

    n: int
    doc_id: int
    path: str
    title: str
    text: str
    start: int
    end: int
    line: int
    page: int = 0
    score: float = 0.0  # the result's relevance (Hit.score)


@dataclass(frozen=True)
class AnswerSentence:
    """One sentence of an answer. `supported`: checked against the passages it cites (`how`
    says how: "words", its content words and numbers are there; "quoted", it is a passage's own
    sentence; "meaning", a passage's own sentence closest in meaning to a how or why question).
    An unsupported sentence is never shown as cited: `cites` is then empty and what the model
    claimed is in `claimed`, with what was not found in `missing` (`how` "off-topic": true or
    not, it does not speak of the question; "repeated": the quotes shown say it already)."""

    text: str
    cites: tuple[int, ...]
    supported: bool
    how: str = "words"
    claimed: tuple[int, ...] = ()
    missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class Answer:
    """An answer from the user's files (`ask`): the supported sentences, each with the passages
    it rests on; or `abstained`, with the closest documents, when no passage is a good match or
    none says what was asked. `extractive`: the sentences are the passages' own, quoted."""

    question: str
    text: str
    abstained: bool
    citations: tuple[Citation, ...] = ()  # the passages its sentences cite
    sentences: tuple[AnswerSentence, ...] = ()  # every sentence written, the unsupported too
    closest: tuple[Hit, ...] = ()  # the best results, shown with a declined answer
    extractive: bool = False
    model: str = ""  # the generator that wrote it ("" : none ran)
    notes: tuple[Note, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    first_sentence_ms: float = 0.0  # from the question to the first checked sentence
    passages: tuple[Citation, ...] = ()  # every passage the model was given, numbered
    cancelled: bool = False  # a newer question ended it: the sentences so far
