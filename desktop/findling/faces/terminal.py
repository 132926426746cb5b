"""Search results as a terminal shows them, from their JSON payload (server/payloads.py): the
one printer for `findling search` whether it ran the search itself or asked the process that
holds the index (findling/thin.py). Imports nothing heavier than the standard library."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence

from findling.faces.timings import loading_text
from findling.pathnames import printable

# typing is not imported at run time: this path counts every millisecond (annotations are strings)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BOLD = "\033[1m"
YELLOW = "\033[33m"
DIM = "\033[2m"
RESET = "\033[0m"

_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u2028\u2029\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def reader_left() -> int:
    """`findling search … | head`: the reader of stdout left, which is no failure. Point stdout at
    nothing, so the interpreter's last flush does not complain either; the exit code is 0."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 0


def color() -> bool:
    return sys.stdout.isatty() and os.environ.get("NO_COLOR") is None


def dump_json(payload: object) -> str:
    """JSON for a terminal or a pipe: readable Unicode, but DEL, C1 controls (U+009B is a
    one-character CSI), bidi overrides and lone surrogates (undecodable file names) as
    \\u escapes. JSON escapes the C0 controls itself. Paths round-trip exactly."""
    text = json.dumps(payload, ensure_ascii=False, indent=2, default=str)
    return _UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def pieces(text: str, highlights: Sequence[Sequence[int]]) -> list[tuple[str, bool]]:
    """`text` cut into (piece, is_match) in order; overlapping highlights are merged away."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for start, end in sorted(highlights, key=lambda h: (h[0], h[1])):
        if start < pos:
            continue
        if start > pos:
            out.append((text[pos:start], False))
        out.append((text[start:end], True))
        pos = end
    if pos < len(text):
        out.append((text[pos:], False))
    return out


def _snippet(hit: dict[str, Any], colored: bool) -> str:
    """The snippet with its matches in colour. Every piece taken from the file is made
    printable on its own, after slicing, so the offsets still fit."""
    if not colored or not hit["highlights"]:
        return printable(hit["snippet"])
    return "".join(
        f"{BOLD}{YELLOW}{printable(piece)}{RESET}" if match else printable(piece)
        for piece, match in pieces(hit["snippet"], hit["highlights"])
    )


def print_payload(payload: dict[str, Any], colored: bool) -> None:
    """A search payload as the readable list: rank, title, score and docid; where (the definition
    in a source file, the path and line, the page); the snippet; the other places of copies."""
    dim, reset = (DIM, RESET) if colored else ("", "")
    if not payload["results"]:
        print("no results")
    for note in payload["notes"]:
        print(f"{dim}note: {printable(note)}{reset}")
    for i, hit in enumerate(payload["results"], 1):
        title = f"{BOLD}{printable(hit['title'])}{RESET}" if colored else printable(hit["title"])
        print(f"{i:>2}. {title}  [{hit['score']:.2f}{' weak' if hit['weak'] else ''}]  {hit['docid']}")
        print(
            "    "
            + (f"{printable(hit['symbol'])} · " if hit["symbol"] else "")
            + printable(hit["path"])
            + (f":{hit['line']}" if hit["line"] else "")
            + (f"  (page {hit['page']})" if hit["page"] else "")
            + ("  (text read by OCR)" if hit.get("ocr_pages") else "")  # .get: an older owner's payload
            + (f"  (shared: {printable(hit['collection'])})" if hit.get("collection") else "")
        )
        if hit["snippet"]:
            print(f"    {_snippet(hit, colored)}")
        for copy in hit["copies"]:
            print(f"    {dim}same file at {printable(copy)}{reset}")
        for copy in hit["near_copies"]:
            print(f"    {dim}nearly the same text at {printable(copy)}{reset}")
    shown = len(payload["results"])
    if payload["total"] > shown:
        took = payload["timings_ms"]
        print(f"{shown} of {payload['total']} matching documents ({took.get('total', 0):.0f} ms{loading_text(took)})")


def print_slice(piece: dict[str, Any], line_numbers: bool) -> None:
    """A `get` payload: the lines as they are (numbered with `line_numbers`), and on a terminal
    which document and lines they are."""
    text = piece["text"]
    if line_numbers:
        width = len(str(piece["to_line"]))
        for number, line in enumerate(text.splitlines(), piece["from_line"]):
            print(f"{number:>{width}}  {printable(line)}")
    else:
        text = printable(text, one_line=False)
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    if sys.stderr.isatty():
        print(
            f"{piece['docid']} {printable(piece['path'])} lines {piece['from_line']}–{piece['to_line']} "
            f"of {piece['total_lines']}",
            file=sys.stderr,
        )


def print_why_not(answer: dict[str, Any]) -> None:
    """A `why-not` answer: the file and the one sentence, then where it stands in each lane."""
    print(f"{printable(os.path.basename(answer['path']))}: {printable(answer['summary'])}")
    for line in answer["details"]:
        print(f"  {printable(line)}")


def _folder_line(s: dict[str, Any]) -> str:
    """One added folder's counts in `status`, with what waits and what .gitignore left out."""
    more = f", {s['waiting']:,} not read yet" if s.get("waiting") else ""
    if s.get("left_out"):
        more += f", {s['left_out']:,} files and folders left out by .gitignore"
    elif s["source"].get("gitignore") is False:
        more += " (.gitignore not followed)"
    counts = f"{s['indexed']} indexed, {s['failed']} failed, {s['skipped']} skipped"
    tested = f"\n    {s['self_test_line']}" if s.get("self_test_line") else ""  # an older owner has none
    if s.get("shared_line"):
        tested = f"\n    {printable(s['shared_line'])}{tested}"
        more = ""  # a copy is not scanned: no .gitignore, nothing waits to be read
    return f"  {printable(s['source']['path'])}: {counts}{more}{tested}"


def print_status(st: dict[str, Any]) -> None:
    """A `status` payload: the index, its documents and folders, semantic search, the problems."""
    print(f"index: {printable(st['database'])} ({st['size_bytes'] / 1e6:.1f} MB)")
    print(
        f"documents: {st['indexed']} indexed, {st['failed']} failed, {st['skipped']} skipped; "
        f"{st['chunks']} chunks, {st['terms']} terms"
    )
    for s in st["sources"]:
        print(_folder_line(s))
    if st.get("waiting_line"):  # an owner from before the count answers without it
        print(st["waiting_line"])
    print(st["semantic_line"])
    for line in st.get("held_back_lines", ()):  # an owner from before the two passes answers without them
        print(f"  {line}")
    if st.get("embedder_where"):  # an owner from before model servers answers without it
        print(f"embeddings: {printable(st['embedder_where'])}")
    if st.get("text_sent_to"):
        print(f"note: document text is sent to {printable(st['text_sent_to'])} to be embedded")
    if st.get("activity_line"):  # an owner from before the activity record answers without it
        print(f"now: {st['activity_line']}")
    if "ocr_line" in st:  # an owner from before OCR answers without it
        print(st["ocr_line"])
    if st.get("costly_lines"):  # an owner from before the record answers without it
        print("slowest to read:")
        for line in st["costly_lines"]:
            print(f"  {printable(line)}")
    if st["problems"]:
        print("problems:")
        for p in st["problems"]:
            label = "partly" if p["status"] == "ok" else p["status"]
            print(f"  [{label}] {printable(p['path'])}: {printable(p['error'])}")


_LEFT_OUT = {"off-topic": " (not about the question)", "repeated": " (the quotes above say it)"}


def print_answer(payload: dict[str, Any], colored: bool, streamed: bool) -> None:
    """An `ask` payload: the answer (unless its sentences were printed as they came), then the
    passages it cites, where each is; a decline names the closest documents instead. Sentences
    the passages did not bear out are listed apart, never as cited."""
    dim, reset = (DIM, RESET) if colored else ("", "")
    if payload["abstained"]:
        print(printable(payload["answer"]))
        if payload["closest"]:
            print("closest documents:")
            for hit in payload["closest"]:
                print(f"  {printable(hit['title'])}  {hit['docid']}  {printable(hit['path'])}")
    elif not streamed:
        print(printable(payload["answer"]))
    if payload["citations"]:
        print()
    for c in payload["citations"]:
        where = (
            printable(c["path"])
            + (f":{c['line']}" if c["line"] else "")
            + (f"  (page {c['page']})" if c["page"] else "")
        )
        print(f"[{c['n']}] {printable(c['title'])}  {c['docid']}\n    {where}")
    unsupported = [s for s in payload["sentences"] if not s["supported"]]
    if unsupported:
        print(f"{dim}left out, what the model wrote that the answer does not show:{reset}")
        for s in unsupported:
            why = _LEFT_OUT.get(s["how"]) or (
                f" (not in the passages: {', '.join(s['missing'][:4])})" if s["missing"] else ""
            )
            print(f"{dim}  {printable(s['text'])}{why}{reset}")
    if payload["extractive"] and not payload["abstained"]:
        print(f"{dim}quoted from the files{reset}")
    for note in payload["notes"]:
        print(f"{dim}note: {printable(note)}{reset}")
