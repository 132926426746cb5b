"""Build a paragraph-query set from a BEIR dataset, for `findling eval`:

    python -m findling.devtools.long_queries ../shared/datasets/nfcorpus OUT [--split test]

"Find what is like this": for each query with at least two relevant documents, one of
them (the first by id) becomes the query, cut to at most 250 words, and the others are
what it should find. The query documents are taken out of the corpus, so a query cannot
find itself. NFCorpus suits this: its relevant documents for one query are abstracts on
the same topic, cited by the same article. The result is a BEIR folder (corpus.jsonl,
queries.jsonl, qrels/SPLIT.tsv) that `findling eval OUT --split SPLIT` reads."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from findling.devtools.eval import load_beir

MAX_WORDS = 250
MIN_WORDS = 150


def build(source: Path, out: Path, split: str = "test") -> dict[str, int]:
    dataset = load_beir(source, split)
    queries: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    used: set[str] = set()
    for qid, rels in dataset.qrels.items():
        relevant = sorted(d for d, r in rels.items() if r > 0 and d in dataset.corpus)
        if len(relevant) < 2:
            continue
        example = next((d for d in relevant if d not in used), None)
        if example is None:
            continue
        title, text = dataset.corpus[example]
        words = f"{title}. {text}".split()
        if len(words) < MIN_WORDS:
            continue
        others = {d: rels[d] for d in relevant if d != example}
        queries[f"long-{qid}"] = " ".join(words[:MAX_WORDS])
        qrels[f"long-{qid}"] = others
        used.add(example)
    # documents that are some query's example leave the corpus (and every qrels list)
    for rels in qrels.values():
        for d in used & set(rels):
            del rels[d]
    qrels = {q: r for q, r in qrels.items() if r}
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as handle:
        for doc_id, (title, text) in dataset.corpus.items():
            if doc_id not in used:
                handle.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with open(out / "queries.jsonl", "w", encoding="utf-8") as handle:
        for qid in qrels:
            handle.write(json.dumps({"_id": qid, "text": queries[qid]}) + "\n")
    with open(out / "qrels" / f"{split}.tsv", "w", encoding="utf-8") as handle:
        handle.write("query-id\tcorpus-id\tscore\n")
        for qid, rels in qrels.items():
            for doc_id, score in rels.items():
                handle.write(f"{qid}\t{doc_id}\t{score}\n")
    return {
        "queries": len(qrels),
        "documents": len(dataset.corpus) - len(used),
        "words_per_query": round(sum(len(queries[q].split()) for q in qrels) / max(1, len(qrels))),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source")
    parser.add_argument("out")
    parser.add_argument("--split", default="test")
    args = parser.parse_args(argv)
    print(json.dumps(build(Path(args.source), Path(args.out), args.split)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
