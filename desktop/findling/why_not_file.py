"""Why a file is, or is not, among a search's results: first the file's side (missing, outside the
added folders, excluded and by which rule, a kind Findling does not read, not indexed, failed or
skipped), then the search's: the facts of each lane, the limit and the score floor, which
search/why_not.py judges. The engine's `why_not` asks here; the faces word the answer."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING

from findling.errors import Remedy
from findling.pathnames import MEMBER_SEPARATOR, absolute_address, container_file, display_path
from findling.records import SearchMode, SearchRequest, SearchResult, WhyNotAnswer
from findling.search.query_parser import ParsedQuery
from findling.search.why_not import (
    SearchFacts,
    filter_reason,
    judge,
    keyword_standing,
    semantic_standing,
)
from findling.store.documents import document_state
from findling.store.sources import owner_of
from findling.tuning import WHY_NOT_WIDE_LIMIT

if TYPE_CHECKING:
    from findling.engine import Engine


def why_not(engine: Engine, request: SearchRequest, path: str | os.PathLike[str]) -> WhyNotAnswer:
    """Why this file is, or is not, among the results of this request (the very search a face
    showed): first the file (missing, outside the folders, excluded and by which rule, a kind
    Findling does not read, not indexed, failed or skipped), then the search (filters, each
    lane's standing, the result limit, the score floor)."""
    from findling.ingest.formats import kind_of
    from findling.ingest.scan import why_left_out

    parsed, limit = engine._search.parse(request)
    target = absolute_address(os.fspath(path))
    name = os.path.basename(target)

    def answer(
        reason: str,
        summary: str,
        details: tuple[str, ...] = (),
        remedy: Remedy | None = None,
        subject: str = "",
        **ranks: int | None,
    ) -> WhyNotAnswer:
        return WhyNotAnswer(request.text, target, reason, summary, details, remedy=remedy, subject=subject, **ranks)

    sources = engine.sources()
    source = owner_of(sources, target)
    if source is None:  # asked first: outside the folders, whether a path exists is not ours to tell
        added = ", ".join(s.path for s in sources) or "none yet"
        return answer("outside", f"It is not under any added folder (added: {added}).", remedy=Remedy.ADD_FOLDER)
    on_disk = container_file(target)  # an archive's member: its archive
    if not os.path.lexists(on_disk):
        return answer("missing", f"There is no file at {on_disk}.")
    left_out = why_left_out(
        source.path, on_disk, source.include, (*engine.settings.index.exclude, *source.exclude), source.gitignore
    )
    if left_out is not None:
        return answer("excluded", left_out.sentence(source.path, source.include, engine.settings.index.exclude))
    if kind_of(target) is None:
        ext = os.path.splitext(name)[1]
        return answer("unsupported", f"Findling does not read {ext or 'this kind of'} files (binary or media).")
    cur = engine._db.cursor()
    state = document_state(cur, display_path(target))
    if state is None and kind_of(target) == "image":
        read = "the words in a picture's metadata (EXIF description, title, comment, keywords, artist)"
        read = f"{read} and, by OCR, in the picture itself" if engine._ocr_files() else f"only {read}"
        return answer(
            "unsupported",
            f"Findling reads {read}; this {os.path.splitext(name)[1]} file has none, or it is not indexed yet.",
            remedy=Remedy.UPDATE_INDEX,
        )
    if state is None and on_disk != target and document_state(cur, display_path(on_disk)) is not None:
        member = target[len(on_disk) + len(MEMBER_SEPARATOR) :]
        return answer(
            "missing",
            f"{os.path.basename(on_disk)} holds no {member} that Findling reads.",
            remedy=Remedy.LIST_MEMBERS,
            subject=on_disk,
        )
    if state is None:
        return answer(
            "not_indexed",
            "It is not indexed yet.",
            remedy=Remedy.UPDATE_OR_WAIT,
        )
    doc_id, status, error = state
    if status in ("failed", "skipped"):
        what = "Reading it failed" if status == "failed" else "It was skipped"
        return answer(status, f"{what}: {error or 'no reason was recorded'}.")
    facts = _search_facts(engine, request, parsed, doc_id, display_path(target), limit)
    verdict = judge(facts)
    return answer(
        verdict.reason,
        verdict.summary,
        verdict.details,
        verdict.remedy,
        verdict.subject,
        rank=facts.shown_rank or facts.wider_rank,
        keyword_rank=facts.keyword.rank if facts.keyword else None,
        semantic_rank=facts.semantic.rank if facts.semantic else None,
    )


def _search_facts(
    engine: Engine, request: SearchRequest, parsed: ParsedQuery, doc_id: int, path: str, limit: int
) -> SearchFacts:
    mode = request.mode
    min_score = request.min_score

    def results(n: int, floor: float, keep_weak: bool = False) -> SearchResult:
        return engine._search.find_all(replace(request, limit=n, min_score=floor), keep_weak=keep_weak)

    def place(result: SearchResult) -> tuple[int | None, float | None]:
        """Its row in the list, also when it is listed as a copy (or near copy) of another file."""
        rows = enumerate(result.hits, 1)
        return next(
            ((i, h.score) for i, h in rows if h.doc_id == doc_id or path in h.copies or path in h.near_copies),
            (None, None),
        )

    shown = results(limit, min_score)
    shown_rank, _ = place(shown)
    wider = results(max(WHY_NOT_WIDE_LIMIT, limit), 0.0, keep_weak=True) if shown_rank is None else shown
    wider_rank, wider_score = place(wider)
    weak_cut = bool(shown.hits) and all(h.weak for h in shown.hits) and len(shown.hits) < limit
    too_weak = not weak_cut and wider_rank is not None and wider.hits[wider_rank - 1].weak
    cur = engine._db.cursor()
    semantic, semantic_off = None, None
    if mode is not SearchMode.KEYWORD:
        semantic_off = engine.semantic_off()
        if semantic_off is None:
            semantic = semantic_standing(
                engine._search.vectors, engine.models.embedder(), parsed, doc_id, engine._search.passage
            )
    # the keyword lane as the search ran it: beside the vector lane it ranks any word's matches
    # (pipeline.run), and its ranks are the ones the Explain tab shows
    match = "any" if mode is SearchMode.HYBRID and semantic_off is None else None
    keyword = (
        keyword_standing(engine._bm25, cur, parsed, doc_id, match or request.match or engine.settings.search.match)
        if mode is not SearchMode.SEMANTIC
        else None
    )
    return SearchFacts(
        mode=mode,
        limit=limit,
        min_score=min_score,
        shown_rank=shown_rank,
        wider_rank=wider_rank,
        wider_score=wider_score,
        weak_cut=weak_cut and wider_rank is not None,
        too_weak=too_weak,
        weak_floor=engine.settings.search.weak_score,
        filter_reason=filter_reason(cur, doc_id, parsed.filters) if not parsed.filters.empty else None,
        keyword=keyword,
        semantic=semantic,
        semantic_off=semantic_off,
    )
