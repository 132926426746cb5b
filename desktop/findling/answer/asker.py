"""An answer from the user's files, every sentence checked: a hybrid search gives the results, the
best chunk of each gives a numbered passage, the generator writes from them, and each sentence it
writes is checked against the passages it cites (answer/support.py) as soon as it is complete,
so a face can show it at once. A sentence the passages do not bear out is never shown as cited.
The passages' own sentences that speak of the question are quoted first, before the generator
has read its prompt; its checked sentences follow where they say more than the quotes. A result
below the relevance floor answers only by a sentence of its own holding every word of the
question (one line of a long file). Where no passage could bear out what the generator writes,
Findling declines before it runs, and names the closest documents. It never answers from the
model's own knowledge."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath
from typing import Any

from findling.answer.passages import line_of, passage_span
from findling.answer.sentences import citations, sentence_spans, split_sentences, with_citations
from findling.answer.support import (
    asks_how,
    check,
    content_words,
    gives_what_is_asked,
    missing_from,
    overlap,
    question_words,
    says_nothing_more,
)
from findling.errors import FindlingError
from findling.records import Answer, AnswerSentence, Citation, Filters, Hit, Note, SearchMode, SearchRequest
from findling.search.results import page_at
from findling.search.service import Searcher
from findling.settings import AskSettings
from findling.tuning import (
    CLOSE_IN_MEANING,
    GIVE_UP_AFTER,
    INTRODUCED_AT_MOST,
    LEANS_BACK,
    ON_TOPIC,
    QUOTE_CHARS,
    QUOTE_MISSING,
    QUOTED_AT_MOST,
)

# the model saying that the passages do not answer: a decline, not a claim to check
_MODEL_DECLINES = re.compile(
    r"\b(?:do(?:es)?n[o']t|does not|do not|cannot|can't|no information|not (?:mentioned|provided|stated|given))\b"
    r".{0,40}\b(?:say|mention|answer|contain|provide|state|specify|know|find|information)",
    re.IGNORECASE,
)

SYSTEM = (
    "You answer questions using only the numbered passages from the user's files. "
    "Write one to three short sentences. Copy facts exactly as the passages give them. "
    "End each sentence with the number of the passage it comes from, like [1]. "
    "If the passages do not answer the question, write: The passages do not say."
)


@dataclass
class _Draft:
    """The generated text as it grows, and how many of its sentences have been checked."""

    text: str = ""
    done: int = 0
    failed: int = 0  # sentences in a row its passages do not bear out


def prompt(question: str, passages: Sequence[Citation]) -> list[tuple[str, str]]:
    """The conversation the generator answers: the passages, numbered, then the question."""
    listed = "\n\n".join(f"[{p.n}] {p.title}\n{p.text}" for p in passages)
    return [("system", SYSTEM), ("user", f"Passages:\n\n{listed}\n\nQuestion: {question}")]


def checked_sentence(
    sentence: str, question: str, passages: Sequence[Citation], language: str = "en"
) -> AnswerSentence | None:
    """A generated sentence as shown: cited by the passages it names when one of their sentences
    bears it out; else by the passage that does, else unsupported. A sentence that does not speak
    of the question (ON_TOPIC) is left out even when true: a small model copies the passage's
    first sentence, whatever was asked. None: not a claim at all (empty, or the model saying the
    passages do not answer)."""
    clean, claimed = citations(sentence)
    if not clean or _MODEL_DECLINES.search(clean):
        return None
    by_n = {p.n: p for p in passages}
    named = tuple(n for n in claimed if n in by_n)
    if overlap(question, clean, language) < ON_TOPIC or not gives_what_is_asked(question, clean):
        return AnswerSentence(clean, (), False, "off-topic", claimed, ("(does not speak of the question)",))
    if named and check(clean, [(by_n[n].title, by_n[n].text) for n in named], language, question).supported:
        return AnswerSentence(clean, named, True, "words", claimed)
    alone = [p.n for p in passages if check(clean, [(p.title, p.text)], language, question).supported]
    if alone:
        return AnswerSentence(clean, (alone[0],), True, "words", claimed)
    cited = [by_n[n] for n in named] or list(passages)
    support = check(clean, [(p.title, p.text) for p in cited], language, question)
    return AnswerSentence(clean, (), False, "words", claimed, support.missing)


def checked_after(
    sentence: str, question: str, passages: Sequence[Citation], quoted: Sequence[AnswerSentence]
) -> AnswerSentence | None:
    """checked_sentence, and left out ("repeated") when the `quoted` sentences shown before it
    (with the titles of the passages they cite, which name what they speak of) say all it says:
    not shown twice."""
    checked = checked_sentence(sentence, question, passages)
    titles = {p.n: p.title for p in passages}
    shown = [q.text for q in quoted] + [titles[n] for q in quoted for n in q.cites if n in titles]
    if checked is not None and checked.supported and says_nothing_more(checked.text, shown):
        return replace(checked, cites=(), supported=False, how="repeated")
    return checked


def could_be_answered(question: str, passages: Sequence[Citation], language: str = "en") -> bool:
    """Whether a generated sentence could be shown for these passages at all: one on topic
    (ON_TOPIC of the question's content words) must find the question's own words in the
    passage it is checked against (answer/support.py check, where they get no allowance); only
    the words saying what kind of answer is asked ("much", "number") may be its own. A passage
    holding too few of them cannot bear out any sentence, whatever the model writes."""
    asked = content_words(question, language)
    if not asked:
        return False
    own = len(question_words(question, language))
    free = len(asked) - own
    for passage in passages:
        held = own - len(missing_from(question, passage.text, language, _named(passage)))
        if (held + free) / len(asked) >= ON_TOPIC:
            return True
    return False


def at_cited_line(passage: Citation, sentences: Sequence[AnswerSentence], language: str = "en") -> Citation:
    """The passage with `line` at the first sentence the answer cites it for, not at its first
    line: a quote's own line, else the passage's sentence holding most of a written sentence's
    words (line 150 of a long file was cited as 136)."""
    citing = next((x for x in sentences if x.supported and passage.n in x.cites), None)
    if citing is None:
        return passage
    at = None
    if citing.how in ("quoted", "meaning"):
        words = citing.text.rstrip(" …").split()[:8]
        found = re.search(r"\s+".join(re.escape(w) for w in words), passage.text) if words else None
        at = found.start() if found else None
    if at is None:
        spans = sentence_spans(passage.text)
        if not spans:
            return passage
        a, _ = max(spans, key=lambda ab: (overlap(citing.text, passage.text[ab[0] : ab[1]], language), -ab[0]))
        at = a
    return replace(passage, line=passage.line + passage.text.count("\n", 0, at))


def quoted_sentences(
    question: str,
    passages: Sequence[Citation],
    language: str = "en",
    closeness: Callable[[Sequence[str]], Sequence[float]] | None = None,
    may_lack: int = QUOTE_MISSING,
) -> list[AnswerSentence]:
    """The passages' own sentences that answer the question as far as words can tell: holding
    all its words but QUOTE_MISSING (the passage's title counting: it names what the passage
    speaks of; and the sentence before, at a cost of LEANS_BACK: "It is serviced every year"
    says by whom after "The gas boiler is a Vaillant") and the kind of answer it asks for (money
    for what costs); the best of each passage, best passages first, at most QUOTED_AT_MOST. A
    sentence read with the one before is quoted with it. For a question asking how or why
    (asks_how), a passage with no such sentence gives the one closest in meaning to the
    question, at least CLOSE_IN_MEANING by `closeness` (a passage's sentences -> the cosine of
    each to the question, asked only of a passage that needs it; none given: words alone).
    `may_lack`: the question's words a quote may lack (QUOTE_MISSING; none from a weak result)."""
    found = []
    allowed = min(may_lack, len(question_words(question, language)) - 1)  # "passport": none
    answered: set[str] = set()  # the question's words the quotes so far hold
    explains = asks_how(question) and closeness is not None
    for passage in passages:
        sentences = split_sentences(passage.text)
        named = _named(passage)
        fitting = []
        for i, sentence in enumerate(sentences):
            if not gives_what_is_asked(question, sentence):
                continue
            lacks = missing_from(question, sentence, language, named)
            cost: float = len(lacks)
            before = ""
            if i > 0:  # the sentence before may say what this one speaks of ("It is serviced ...")
                with_before = missing_from(question, sentence, language, f"{named} {sentences[i - 1]}")
                if len(with_before) + LEANS_BACK < cost:
                    lacks, cost, before = with_before, len(with_before) + LEANS_BACK, sentences[i - 1]
            # a later passage's quote may not lack what an earlier one holds: "the last service
            # cost 145 euros" of the boiler does not join the car's service, which names the car
            if cost <= allowed and not lacks & answered:
                quote = f"{before} {sentence}" if before else sentence
                fitting.append((cost, -overlap(question, sentence, language), i, quote, lacks))
        if fitting:
            best = min(fitting, key=lambda f: f[:3])
            found.append(AnswerSentence(clipped(best[3]), (passage.n,), True, "quoted"))
            answered |= set(question_words(question, language)) - best[4]
        elif explains and closeness is not None and sentences:
            meaning = _closest_in_meaning(question, sentences, closeness(sentences))
            if meaning is not None:
                found.append(AnswerSentence(clipped(meaning), (passage.n,), True, "meaning"))
        if len(found) == QUOTED_AT_MOST:
            break
    return found


def _named(passage: Citation) -> str:
    """What names the passage's subject: its title and its file's name. A note titled "Bicycle"
    in bike.md speaks of the bike: "bike spare key" quoted the sentence after the key's (it
    held "bike") with the key's leaned on, and "What tyre pressure should the bike have?" the
    sentence naming the bike's make instead of "Tyre pressure: 4 bar front and 4.5 bar rear"."""
    return f"{passage.title} {re.sub(r'[-_.]+', ' ', PurePath(passage.path).stem)}"


def clipped(quote: str, at_most: int = QUOTE_CHARS) -> str:
    """A quote as shown: its whitespace as one space, cut at a word before `at_most` characters
    with "…" (a manual's code example reads as one long sentence); the passage it cites shows
    the rest."""
    quote = " ".join(quote.split())
    if len(quote) <= at_most:
        return quote
    return quote[:at_most].rsplit(" ", 1)[0].rstrip(",;:") + " …"


# A manual's entry for a function or class: its signature alone, the description after it
# ("class tempfile.TemporaryDirectory(suffix=None, ...)", then "This class securely creates a
# temporary directory ...")
_SIGNATURE = re.compile(r"(?:class\s+|async\s+)?[A-Za-z_][\w.]*\(.*\)(?:\s*->\s*\S+)?")


def _closest_in_meaning(question: str, sentences: Sequence[str], cosines: Sequence[float]) -> str | None:
    """The sentence closest in meaning to the question, when close enough (CLOSE_IN_MEANING)
    and of the kind of answer asked; one that ends in a colon is quoted with what it
    introduces ("Create a range partitioned table:" and the statement after it), and a
    function's signature with its description, as far as INTRODUCED_AT_MOST characters."""
    ranked = sorted(zip(cosines, range(len(sentences))), reverse=True)
    for cosine, i in ranked:
        if cosine < CLOSE_IN_MEANING:
            return None
        if gives_what_is_asked(question, sentences[i]):
            quote = sentences[i]
            if (quote.rstrip().endswith(":") or _SIGNATURE.fullmatch(quote.strip())) and i + 1 < len(sentences):
                quote = f"{quote} {sentences[i + 1][:INTRODUCED_AT_MOST].rstrip()}"
            return quote
    return None


def answer_text(sentences: Sequence[AnswerSentence]) -> str:
    """The supported sentences with their citations: "… 320 euros a month [1]."."""
    return " ".join(with_citations(s.text, s.cites) for s in sentences if s.supported)


class Asker:
    """Answers questions over one index (see the module's docstring)."""

    def __init__(self, searcher: Searcher, settings: AskSettings) -> None:
        self.searcher = searcher
        self.settings = settings

    def ask(
        self,
        question: str,
        filters: Filters | None = None,
        on_sentence: Callable[[AnswerSentence], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Answer:
        """The answer to `question` from the files (Answer). `on_sentence` is given each sentence
        that will be shown, as soon as it is checked; a set `cancel` ends generation where it is
        (the sentences checked so far are the answer)."""
        started = time.perf_counter()
        timings: dict[str, float] = {}
        question = question.strip()
        if not question:
            raise FindlingError("ask a question: the text was empty")
        s = self.settings
        request = SearchRequest(question, SearchMode.HYBRID, limit=max(10, s.passages), filters=filters or Filters())
        result = self.searcher.find(request)
        timings["search"] = (time.perf_counter() - started) * 1000
        hits = [h for h in result.hits if not h.weak]
        closest = tuple(result.hits[:3])
        # A document's relevance weighs all of it: one line of a long file that answers ("The X fee
        # is 14 euros per visit.", line 150 of 250) leaves the file below the floor. Below it, a
        # passage's own sentence holding every word of the question still answers, by quote alone.
        good = bool(hits) and hits[0].score >= s.min_score
        passages: list[Citation] = []
        if result.hits:  # the weak too, when none is good: their quotes must hold every word
            at = time.perf_counter()
            passages = self._passages(question, (hits if good else list(result.hits))[: s.passages])
            timings["passages"] = (time.perf_counter() - at) * 1000
        if cancel is not None and cancel.is_set():
            return Answer(question, "", False, timings_ms=timings, passages=tuple(passages), cancelled=True)
        # The passages' own sentences that answer come first, at once; the generator's checked
        # sentences follow where they say more. A small model on a long page takes seconds to
        # read its prompt (5.2 s to the first sentence on the Python docs, 1.5 s on the notes):
        # what the files say is not held back for it.
        at = time.perf_counter()
        if good:
            quoted = quoted_sentences(question, passages, closeness=self._closeness(question))
        else:
            quoted = quoted_sentences(question, passages, may_lack=0)
        timings["quote"] = (time.perf_counter() - at) * 1000
        if not quoted and not (good and could_be_answered(question, passages)):
            # decided before the generator runs: nothing it writes could be shown (29 s of
            # generation once came before the same decline)
            if good:
                note = Note("no passage of the best results speaks of what was asked")
            else:
                top = result.hits[0].score if result.hits else None
                best = f" (the best result is a {top:.2f} match, below {s.min_score:.2f})" if top is not None else ""
                note = Note(f"no result is a good match for the question{best}")
            return Answer(
                question,
                "",  # faces say the decline (faces/presentation.DECLINED)
                True,
                closest=closest,
                notes=(note, *result.notes),
                timings_ms=timings,
                passages=tuple(passages),
            )
        for sentence in quoted:
            if on_sentence is not None:
                on_sentence(sentence)
        first_ms = (time.perf_counter() - started) * 1000 if quoted else 0.0
        if good:
            generated, model, notes, generated_ms = self._generated(
                question, passages, quoted, on_sentence, cancel, started, timings
            )
        else:  # the files answer by a line the search ranked weak: quoted, not paraphrased
            generated, model, notes, generated_ms = [], "", [], 0.0
        first_ms = first_ms or generated_ms
        sentences = [*quoted, *generated]
        if cancel is not None and cancel.is_set():
            return Answer(
                question,
                answer_text(sentences),
                False,
                sentences=tuple(sentences),
                model=model,
                timings_ms=timings,
                passages=tuple(passages),
                cancelled=True,
            )
        extractive = not any(x.supported for x in generated)
        if not any(x.supported for x in sentences):
            note = Note("no passage of the best results speaks of what was asked")
            return Answer(
                question,
                "",  # faces say the decline (faces/presentation.DECLINED)
                True,
                (),
                tuple(sentences),
                closest,
                model=model,
                notes=(*notes, note),
                timings_ms=timings,
                passages=tuple(passages),
            )
        cited = {n for x in sentences if x.supported for n in x.cites}
        timings["total"] = (time.perf_counter() - started) * 1000
        return Answer(
            question,
            answer_text(sentences),
            False,
            tuple(at_cited_line(p, sentences) for p in passages if p.n in cited),
            tuple(sentences),
            closest,
            extractive=extractive,
            model=model,
            notes=tuple(notes),
            timings_ms=timings,
            first_sentence_ms=first_ms,
            passages=tuple(passages),
        )

    def _passages(self, question: str, hits: Sequence[Hit]) -> list[Citation]:
        """A numbered passage from each result: its best sentences, within the budget."""
        out: list[Citation] = []
        for hit in hits:
            doc = self.searcher.document_text(hit.doc_id)
            if doc is None:
                continue
            start = hit.chunk_start if hit.chunk_start is not None else 0
            end = hit.chunk_end if hit.chunk_end is not None else len(doc.text)
            a, b = passage_span(doc.text, start, end, question, self.settings.passage_chars, doc.language or "en")
            raw = doc.text[a:b]
            text = raw.strip()
            if not text:
                continue
            a += len(raw) - len(raw.lstrip())  # the passage's first character, on its first line
            n = len(out) + 1
            out.append(
                Citation(
                    n,
                    hit.doc_id,
                    hit.path,
                    hit.title,
                    text,
                    a,
                    b,
                    line_of(doc.text, a),
                    page_at(doc.pages, a),
                    hit.score,
                )
            )
        return out

    def _closeness(self, question: str) -> Callable[[Sequence[str]], list[float]] | None:
        """For a question asking how or why, the cosine of each of a passage's sentences to the
        question by the embedder (see quoted_sentences), the question embedded once; None for
        other questions, or with no embedder (the quotes then go by words alone). Only a passage
        with no quote by words is embedded."""
        models = self.searcher.models
        if not asks_how(question) or models.unavailable_reason("embedder") is not None:
            return None
        asked: list[Any] = []  # the question's vector, once a passage needs it

        def cosines(sentences: Sequence[str]) -> list[float]:
            try:
                embedder = models.embedder()
                if not asked:
                    asked.append(embedder.embed([question], kind="query")[0])
                return list((embedder.embed(list(sentences), kind="passage") @ asked[0]).tolist())
            except FindlingError:
                return []  # no cosine: no quote by meaning

        return cosines

    def _generated(
        self,
        question: str,
        passages: list[Citation],
        quoted: Sequence[AnswerSentence],
        on_sentence: Callable[[AnswerSentence], None] | None,
        cancel: threading.Event | None,
        started: float,
        timings: dict[str, float],
    ) -> tuple[list[AnswerSentence], str, list[Note], float]:
        """The generator's sentences, each checked as soon as the next one begins (the last when
        it ends), the generation stopped after GIVE_UP_AFTER failures in a row; one that says
        nothing the `quoted` sentences do not is left out; the model's name; notes; the time to
        the first shown sentence. A model whose sentences add nothing GIVE_UP_AFTER times in
        a row (failed, or repeating the quotes) is stopped."""
        models = self.searcher.models
        off = models.unavailable_reason("generator")
        if off is not None:
            return [], "", [replace(off, text=f"the answer quotes the files: {off.text}")], 0.0
        if cancel is not None and cancel.is_set():
            return [], "", [], 0.0
        sentences: list[AnswerSentence] = []
        first = [0.0]
        draft = _Draft()
        stop = threading.Event()  # the caller's cancel, or the model having lost its way

        def take(upto: list[str]) -> None:
            for raw in upto:
                sentence = checked_after(raw, question, passages, quoted)
                if sentence is None:
                    continue
                sentences.append(sentence)
                if sentence.supported:
                    draft.failed = 0
                    first[0] = first[0] or (time.perf_counter() - started) * 1000
                    if on_sentence is not None:
                        on_sentence(sentence)
                else:
                    draft.failed += 1
                    if draft.failed >= GIVE_UP_AFTER:
                        stop.set()

        def grew(text: str) -> None:
            if cancel is not None and cancel.is_set():
                stop.set()
            draft.text = text
            pieces = split_sentences(text)
            complete = pieces[:-1]  # the last may go on
            take(complete[draft.done :])
            draft.done = max(draft.done, len(complete))

        at = time.perf_counter()
        try:
            generator = models.generator()
            text = generator.chat(prompt(question, passages), self.settings.max_tokens, on_text=grew, cancel=stop)
        except FindlingError as exc:
            timings["generate"] = (time.perf_counter() - at) * 1000
            return sentences, "", [Note(f"the answer quotes the files: the generator failed ({exc})")], first[0]
        pieces = split_sentences(text)
        take(pieces[draft.done : len(pieces) - 1] if stop.is_set() else pieces[draft.done :])
        timings["generate"] = (time.perf_counter() - at) * 1000
        return sentences, generator.spec.name, [], first[0]
