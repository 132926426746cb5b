"""Build a held-out set of short queries against long paragraphs: the sections of a tree of
reStructuredText (the Linux kernel's documentation, Debian's `linux-doc-6.1`), each a document
of its text without its heading, and each heading of a few words a query whose one answer is
its section. Headings name a section in a handful of words its text need not repeat, which no
other set here asks: the question sets are sentences, BEIR's queries claims and titles of
their own collections, the paragraph sets whole paragraphs.

    python -m findling.devtools.section_set /usr/share/doc/linux-doc-6.1/Documentation /tmp/kernel-sections

Writes a BEIR folder (corpus.jsonl, queries.jsonl, qrels/dev.tsv with every third query for
tuning, qrels/test.tsv with the rest), as `findling eval` reads it. Deterministic: sections are
chosen by a hash of their place. Translations are left out; a heading that more than one
section has ("Introduction", "Usage") is never a query, and neither is one of one word."""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from findling.devtools.eval import split_of

_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+.:_])\1{2,}\s*$")
_NUMBERING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.|[ivx]+\.)\s+")  # "3.7 ", "2.4.3. ", "A. "
MIN_TEXT = 600  # characters: a section of a long paragraph or more


@dataclass(frozen=True)
class Section:
    place: str  # file:line of its heading
    heading: str
    text: str


def _read(path: Path) -> str:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as handle:
        return str(handle.read())


def sections_of(text: str, place: str) -> list[Section]:
    """The sections of one reStructuredText file: a heading is a line underlined (and maybe
    overlined) by a run of one punctuation character at least as long as it."""
    lines = text.splitlines()
    heads = [
        i
        for i in range(len(lines) - 1)
        if lines[i].strip()
        and _UNDERLINE.match(lines[i + 1])
        and len(lines[i + 1].strip()) >= len(lines[i].strip())
        and not _UNDERLINE.match(lines[i])
    ]
    found = []
    for n, i in enumerate(heads):
        end = heads[n + 1] - 1 if n + 1 < len(heads) else len(lines)
        body = [line for line in lines[i + 2 : end] if not _UNDERLINE.match(line)]
        prose = "\n".join(body).strip()
        heading = _NUMBERING.sub("", " ".join(lines[i].replace("``", "").split()))
        found.append(Section(f"{place}:{i + 1}", heading, prose))
    return found


def build(source: Path, out: Path, documents: int = 4000, queries: int = 300) -> dict:
    everything: list[Section] = []
    for path in sorted(source.rglob("*.rst*")):
        rel = path.relative_to(source)
        if "translations" in rel.parts:
            continue
        everything.extend(s for s in sections_of(_read(path), str(rel)) if len(s.text) >= MIN_TEXT)
    shared: dict[str, int] = {}
    for s in everything:
        shared[s.heading.lower()] = shared.get(s.heading.lower(), 0) + 1
    chosen = sorted(everything, key=lambda s: hashlib.sha256(s.place.encode()).hexdigest())[:documents]
    asked = [
        s
        for s in chosen
        if shared[s.heading.lower()] == 1 and len(re.findall(r"[A-Za-z]{2,}", s.heading)) >= 2 and len(s.heading) <= 80
    ][:queries]
    out.mkdir(parents=True, exist_ok=True)
    (out / "qrels").mkdir(exist_ok=True)
    ids = {s.place: f"s{i}" for i, s in enumerate(chosen)}
    with open(out / "corpus.jsonl", "w", encoding="utf-8") as handle:
        for s in chosen:
            handle.write(json.dumps({"_id": ids[s.place], "title": "", "text": s.text}) + "\n")
    with open(out / "queries.jsonl", "w", encoding="utf-8") as handle:
        for i, s in enumerate(asked):
            handle.write(json.dumps({"_id": f"q{i}", "text": s.heading}) + "\n")
    for split in ("dev", "test"):
        with open(out / "qrels" / f"{split}.tsv", "w", encoding="utf-8") as handle:
            handle.write("query-id\tcorpus-id\tscore\n")
            for i, s in enumerate(asked):
                if split_of(i) == split:
                    handle.write(f"q{i}\t{ids[s.place]}\t1\n")
    return {"documents": len(chosen), "queries": len(asked), "sections": len(everything)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--documents", type=int, default=4000)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args(argv)
    print(json.dumps(build(args.source, args.out, args.documents, args.queries)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
