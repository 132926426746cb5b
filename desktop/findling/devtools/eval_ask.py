"""`findling eval FOLDER --ask QUESTIONS.tsv`: how well `ask` answers, cites and declines.

QUESTIONS.tsv holds `question<TAB>targets[<TAB>kind]` as known-item sets do; the target `-`
marks a question the files cannot answer. For each question the answer is asked as a user asks
it, and measured:

- answered / declined: an answerable question must be answered, an unanswerable one declined;
- the gold document cited, against how often hybrid search has it in its top 3;
- cited sentences that pass an independent support check: the embedder (not the lexical check
  `ask` itself applies) must find a sentence of the cited passages that says nearly the same
  (cosine >= SAME_MEANING), and that sentence must hold every number the cited one gives;
- time to the first checked sentence and to the whole answer."""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from findling.answer.sentences import split_sentences
from findling.answer.support import numbers
from findling.devtools.eval import _log, answers, indexed_folder, load_known_items
from findling.engine import Engine
from findling.errors import FindlingError
from findling.faces.presentation import answer_said
from findling.models.embedder import TextEmbedder
from findling.records import Answer, SearchMode, SearchRequest
from findling.settings import Settings

UNANSWERABLE = "-"
# MiniLM (int8) cosine of a claim and the passage sentence it restates: .67 for "The monthly
# kindergarten fee is 320 euros, paid by direct debit ..." against its source sentence, which
# lacks only "kindergarten"; sentences of the same note on other matters score .45-.55
SAME_MEANING = 0.6


def independently_supported(embedder: TextEmbedder, claim: str, passages: Sequence[str]) -> bool:
    """Whether, for each sentence of the claim (a quote may hold two), a sentence of the passages
    says nearly what it says (see the module)."""
    candidates = [s for p in passages for s in split_sentences(p)]
    claims = split_sentences(claim)
    if not candidates or not claims:
        return False
    vectors = embedder.embed([*claims, *candidates], kind="passage")
    for i, sentence in enumerate(claims):
        cosines = vectors[len(claims) :] @ vectors[i]
        best = int(np.argmax(cosines))
        if float(cosines[best]) < SAME_MEANING or not numbers(sentence) <= numbers(candidates[best]):
            return False
    return True


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    return float(np.percentile(values, q))


def evaluate_ask(
    questions: Path,
    folder: Path,
    workdir: Path | None = None,
    max_queries: int = 0,
    settings: Settings | None = None,
    split: str = "",
) -> dict:
    """Index `folder` (kept under --workdir) and ask each question (see the module)."""
    items = load_known_items(questions)
    if split and any(item.kind in ("train", "dev", "test") for item in items):  # a set with splits
        items = [item for item in items if item.kind == split]
        if not items:
            raise FindlingError(f"{questions} has no questions of the split {split!r} (its third column)")
    if max_queries:
        items = items[:max_queries]
    resolved = folder.expanduser().resolve()
    engine, _seconds = indexed_folder(folder, workdir, settings)
    try:
        embedder = engine.models.embedder()
        rows = []
        for number, item in enumerate(items, 1):
            asked = time.perf_counter()
            answer = engine.ask(item.query)
            took = (time.perf_counter() - asked) * 1000
            rows.append(_row(engine, embedder, resolved, item.query, item.targets, answer, took))
            _log(f"{number}/{len(items)} {'declined' if answer.abstained else 'answered'}: {item.query}")
        return {"dataset": questions.name, "folder": str(resolved), "split": split, **summary(rows), "rows": rows}
    finally:
        engine.close()


def _row(
    engine: Engine,
    embedder: TextEmbedder,
    folder: Path,
    question: str,
    targets: frozenset[str],
    answer: Answer,
    took_ms: float,
) -> dict:
    answerable = targets != frozenset({UNANSWERABLE})
    hits = engine.find(SearchRequest(question, SearchMode.HYBRID, limit=10)).hits
    by_n = {p.n: p.text for p in answer.passages}
    cited = [s for s in answer.sentences if s.supported and s.cites]
    independent = [independently_supported(embedder, s.text, [by_n[n] for n in s.cites]) for s in cited]
    return {
        "question": question,
        "answerable": answerable,
        "abstained": answer.abstained,
        "extractive": answer.extractive,
        "gold_cited": answerable and any(answers(c.path, folder, targets) for c in answer.citations),
        "gold_in_top3": answerable and any(answers(h.path, folder, targets) for h in hits[:3]),
        "cited_sentences": len(cited),
        "independently_supported": sum(independent),
        "generated_sentences": sum(1 for s in answer.sentences if s.how == "words"),
        "unsupported_sentences": sum(1 for s in answer.sentences if not s.supported),
        "first_sentence_ms": round(answer.first_sentence_ms, 1),
        "total_ms": round(took_ms, 1),
        "answer": answer_said(answer),
    }


def summary(rows: list[dict]) -> dict:
    """The figures the issue asks for, from the rows of `evaluate_ask`."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    cited = sum(r["cited_sentences"] for r in rows)
    firsts = [r["first_sentence_ms"] for r in rows if r["first_sentence_ms"] > 0]
    totals = [r["total_ms"] for r in rows]
    return {
        "answerable": len(answerable),
        "answered": sum(not r["abstained"] for r in answerable),
        "gold_cited": sum(r["gold_cited"] for r in answerable),
        "gold_in_top3": sum(r["gold_in_top3"] for r in answerable),
        "unanswerable": len(unanswerable),
        "declined": sum(r["abstained"] for r in unanswerable),
        "cited_sentences": cited,
        "independently_supported": sum(r["independently_supported"] for r in rows),
        "quoted_answers": sum(r["extractive"] and not r["abstained"] for r in rows),
        "unsupported_dropped": sum(r["unsupported_sentences"] for r in rows),
        "first_sentence_p50_ms": round(_percentile(firsts, 50), 0),
        "first_sentence_p95_ms": round(_percentile(firsts, 95), 0),
        "total_p50_ms": round(statistics.median(totals), 0) if totals else 0.0,
        "total_p95_ms": round(_percentile(totals, 95), 0),
    }


def print_ask_table(result: dict) -> None:
    def share(part: int, whole: int) -> str:
        return f"{part}/{whole} ({100 * part / whole:.0f} %)" if whole else "-"

    print(f"{result['dataset']} on {result['folder']}" + (f" ({result['split']})" if result["split"] else ""))
    print(f"answerable answered        {share(result['answered'], result['answerable'])}")
    print(f"gold document cited        {result['gold_cited']} (hybrid top 3: {result['gold_in_top3']})")
    print(f"unanswerable declined      {share(result['declined'], result['unanswerable'])}")
    print(f"cited sentences supported  {share(result['independently_supported'], result['cited_sentences'])}")
    print(
        f"answers quoted from files  {result['quoted_answers']}; unsupported sentences left out: "
        f"{result['unsupported_dropped']}"
    )
    print(
        f"first sentence p50/p95     {result['first_sentence_p50_ms']:.0f} / {result['first_sentence_p95_ms']:.0f} ms"
    )
    print(f"whole answer p50/p95       {result['total_p50_ms']:.0f} / {result['total_p95_ms']:.0f} ms")
