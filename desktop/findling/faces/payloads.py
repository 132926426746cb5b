"""Results as JSON-ready dicts: one shape for `--json`, MCP tools and the HTTP API."""

from __future__ import annotations

import time
from dataclasses import asdict

from findling.docids import docid
from findling.faces.explaining import self_test_status
from findling.faces.presentation import (
    activity_line,
    answer_said,
    costly_lines,
    held_back_lines,
    match_label,
    note_text,
    semantic_line,
    shared_line,
    waiting_line,
    why_not_summary,
)
from findling.records import (
    Answer,
    Citation,
    DocumentSlice,
    MultiGetResult,
    Note,
    Outline,
    SearchResult,
    StoreStatus,
    WhyNotAnswer,
)


def result_json(result: SearchResult, extra: dict | None = None) -> dict:
    payload = {
        "query": result.query,
        "results": [
            {
                "docid": f"#{h.docid}",
                "path": h.path,
                "title": h.title,
                "score": h.score,
                "weak": h.weak,
                "matched": h.matched,
                "label": match_label(h.score, h.weak, h.matched),
                "line": h.line,
                "page": h.page or None,  # null where the document has no pages (0 read as a page)
                "snippet": h.snippet,
                "highlights": [[x.start, x.end] for x in h.highlights],
                "raw_score": h.raw_score,
                "mtime": h.mtime,
                "size": h.size,
                "doc_id": h.doc_id,
                "author": h.author,
                "copies": list(h.copies),
                "near_copies": list(h.near_copies),
                "symbol": h.symbol,
                "symbol_kind": h.symbol_kind,
                "ocr_pages": h.ocr_pages,
                "collection": h.collection,  # the shared collection it comes from; "": a folder here
            }
            for h in result.hits
        ],
        "total": result.total_matched,
        "relaxed": result.relaxed,
        "notes": [note_text(note, "terminal") for note in result.notes],
        "timings_ms": result.timings_ms,
    }
    payload.update(extra or {})
    return payload


def _citation_json(c: Citation) -> dict:
    return {
        "n": c.n,
        "path": c.path,
        "line": c.line,
        "page": c.page,  # 0: the document has no pages
        "title": c.title,
        "docid": f"#{docid(c.path)}",
        "start": c.start,
        "end": c.end,
        "text": c.text,
        "score": c.score,
    }


def answer_json(answer: Answer) -> dict:
    """An answer (`ask`): the answer, whether Findling declined, the passages its sentences cite,
    and every sentence with its citations and whether its passages bear it out."""
    return {
        "question": answer.question,
        "answer": answer_said(answer),
        "abstained": answer.abstained,
        "extractive": answer.extractive,
        "citations": [_citation_json(c) for c in answer.citations],
        "sentences": [
            {
                "text": s.text,
                "cites": list(s.cites),
                "supported": s.supported,
                "how": s.how,
                "claimed": list(s.claimed),
                "missing": list(s.missing),
            }
            for s in answer.sentences
        ],
        "closest": [
            {"docid": f"#{h.docid}", "path": h.path, "title": h.title, "score": h.score, "line": h.line}
            for h in answer.closest
        ],
        "passages": [_citation_json(c) for c in answer.passages],
        "model": answer.model,
        "notes": [note_text(note, "terminal") for note in answer.notes],
        "timings_ms": answer.timings_ms,
        "first_sentence_ms": answer.first_sentence_ms,
        "cancelled": answer.cancelled,
    }


def slice_json(piece: DocumentSlice) -> dict:
    return {
        "docid": f"#{piece.docid}",
        "path": piece.path,
        "title": piece.title,
        "from_line": piece.first_line,
        "to_line": piece.last_line,
        "total_lines": piece.total_lines,
        "mtime": piece.mtime,
        "size": piece.size,
        "text": piece.text,
    }


def outline_json(outline: Outline) -> dict:
    return {
        "docid": f"#{outline.docid}",
        "path": outline.path,
        "title": outline.title,
        "language": outline.language,
        "symbols": [
            {
                "name": s.name,
                "qualname": s.qualname,
                "kind": s.kind,
                "line": s.line,
                "end_line": s.end_line,
                "signature": s.signature,
                "doc": s.doc,
            }
            for s in outline.symbols
        ],
    }


def multi_get_json(found: MultiGetResult) -> dict:
    return {
        "documents": [slice_json(d) for d in found.documents],
        "left_out": [{"ref": ref, "why": why} for ref, why in found.left_out],
        "left_out_total": max(found.left_out_total, len(found.left_out)),
    }


def why_not_json(answer: WhyNotAnswer) -> dict:
    """A why-not answer for the terminal, MCP and HTTP: its summary says what to do in commands."""
    return {
        **asdict(answer),
        "summary": why_not_summary(answer, "terminal"),
        "remedy": answer.remedy and str(answer.remedy),
    }


def models_json(states: dict[str, Note | None]) -> dict[str, str]:
    """Each model role: "ready", or why not and the command that would make it so."""
    return {role: "ready" if note is None else note_text(note, "terminal") for role, note in states.items()}


def status_json(status: StoreStatus, now: float | None = None) -> dict:
    """`activity_line`: what the index is busy with, as the window's bar says it ("" when idle)."""
    busy = status.activity
    line = activity_line(busy, time.time() if now is None else now) if busy is not None else ""
    data = asdict(status)
    for source, said in zip(data["sources"], status.sources, strict=True):
        source["self_test_line"] = self_test_status(said.weights) if said.weights is not None else ""
        source["shared_line"] = shared_line(said.attached, time.time()) if said.attached is not None else ""
    return {
        **data,
        "semantic_line": semantic_line(status, "terminal"),
        "held_back_lines": held_back_lines(status),
        "waiting_line": waiting_line(status, "terminal"),
        "costly_lines": costly_lines(status, "terminal"),
        "ocr_line": status.ocr_line,
        "activity_line": line,
    }
