"""Documents by reference, for `get` and `multi_get`: a docid (`#3fa9c2`) or a path, with an
optional line range. Only indexed documents are served: a path outside the indexed folders is
refused, so an agent cannot read arbitrary files through Findling."""

from __future__ import annotations

import bisect
import fnmatch
import os
from collections.abc import Callable, Sequence

import duckdb

from findling.docids import docid, docid_prefix, full_docid
from findling.errors import NotFoundError
from findling.pathnames import absolute_address, display_path
from findling.records import DocumentSlice, MultiGetResult, Source
from findling.store.documents import document_paths, document_state, document_text
from findling.store.sources import owner_of
from findling.store.text_cache import DocumentCache

_AMBIGUOUS_SHOWN = 5
LEFT_OUT_SHOWN = 50  # a reply stays small whatever the patterns match; the count says how many more


def line_slice(text: str, first: int | None, count: int | None) -> tuple[str, int, int, int]:
    """Lines first..first+count-1 of text (1-based; all lines when first is None), with the
    first and last line numbers returned and the document's line count."""
    lines = text.splitlines(keepends=True)
    total = len(lines)
    start = max(1, first or 1)
    end = total if count is None else min(total, start + max(0, count) - 1)
    if start > total:
        return "", start, start - 1, total
    return "".join(lines[start - 1 : end]), start, end, total


class _Docids:
    """Every indexed document's full docid, sorted, so that a prefix is found by bisection: read
    once for a whole multi_get (per reference, 5,000 docids on 1,250 documents took 5.2 s), and
    only when a reference is a docid (a multi_get of paths reads none)."""

    def __init__(self, cursor: Callable[[], duckdb.DuckDBPyConnection]) -> None:
        self._cursor = cursor
        self._sorted: list[tuple[str, int, str]] | None = None

    def starting(self, prefix: str) -> list[tuple[int, str]]:
        if self._sorted is None:
            paths = document_paths(self._cursor())
            self._sorted = sorted((full_docid(path), doc_id, path) for doc_id, path in paths.items())
        at = bisect.bisect_left(self._sorted, (prefix,))
        found = []
        while at < len(self._sorted) and self._sorted[at][0].startswith(prefix):
            found.append(self._sorted[at][1:])
            at += 1
        return found


class DocumentFetcher:
    def __init__(self, cursor: Callable[[], duckdb.DuckDBPyConnection], documents: DocumentCache) -> None:
        self._cursor = cursor
        self._documents = documents

    def resolve(self, ref: str, sources: Sequence[Source], docids: _Docids | None = None) -> int:
        """The document id a reference names, or a NotFoundError that says why there is none.
        `docids`: the index's docids, when many references are resolved at once."""
        cur = self._cursor()
        prefix = docid_prefix(ref)
        looks_like_path = os.sep in ref or "/" in ref or ref.startswith("~")
        if prefix is not None and not looks_like_path:
            found = (docids or _Docids(self._cursor)).starting(prefix)
            if len(found) == 1:
                return found[0][0]
            if len(found) > 1:
                named = ", ".join(f"#{full_docid(p)[:8]} {display_path(p)}" for _, p in found[:_AMBIGUOUS_SHOWN])
                raise NotFoundError(f"#{prefix} names {len(found)} documents; give more digits: {named}")
            if ref.startswith("#"):
                raise NotFoundError(f"no indexed document has the id #{prefix}")
        if ref.startswith("#") and prefix is None and not looks_like_path:
            raise NotFoundError(
                f"no document has docid {ref}: a docid is # and 4 to 16 hex digits (0-9, a-f), as results show them"
            )
        path = absolute_address(ref, resolve=True)
        if owner_of(sources, path) is None:
            raise NotFoundError(
                f"{display_path(path)} is not under any indexed folder; Findling serves only documents it has indexed"
            )
        state = document_state(cur, path)
        if state is None:
            raise NotFoundError(
                f"{display_path(path)} is not in the index (not a supported file, excluded, or not indexed yet)"
            )
        doc_id, status, error = state
        if status != "ok":
            raise NotFoundError(f"{display_path(path)} was {status} when indexed: {error or 'no text'}")
        return doc_id

    def get(self, doc_id: int, first: int | None = None, count: int | None = None) -> DocumentSlice:
        cached = self._documents.documents(self._cursor(), [doc_id]).get(doc_id)
        if cached is None:
            raise NotFoundError(f"document {doc_id} left the index")
        meta = cached.meta
        text, start, end, total = line_slice(document_text(cached.chunks), first, count)
        return DocumentSlice(docid(meta.path), meta.path, meta.title, text, start, end, total, meta.mtime, meta.size)

    def expand(self, patterns: Sequence[str]) -> list[str]:
        """References as given, with glob patterns (`*`, `?`, `[`) replaced by the indexed paths they match."""
        refs: list[str] = []
        paths: list[str] | None = None
        for pattern in patterns:
            if not any(ch in pattern for ch in "*?["):
                refs.append(pattern)
                continue
            if paths is None:
                paths = sorted(document_paths(self._cursor()).values())
            absolute = pattern if os.path.isabs(os.path.expanduser(pattern)) else None
            wanted = os.path.expanduser(absolute) if absolute else pattern
            refs += [p for p in paths if fnmatch.fnmatch(p, wanted) or fnmatch.fnmatch(p, "*" + os.sep + wanted)]
        return list(dict.fromkeys(refs))

    def multi_get(
        self, patterns: Sequence[str], sources: Sequence[Source], max_bytes: int, max_lines: int | None = None
    ) -> MultiGetResult:
        """Whole documents (or their first max_lines lines) until max_bytes of text; what did not fit or
        could not be read is listed with the reason."""
        documents: list[DocumentSlice] = []
        left_out: list[tuple[str, str]] = []
        refs = self.expand(patterns)
        docids = _Docids(self._cursor)
        used = 0
        for at, ref in enumerate(refs):
            if used >= max_bytes:  # the budget is spent: the rest is named, not read
                rest = refs[at:]
                left_out += [(r, f"not read: the {max_bytes}-byte budget was spent") for r in rest]
                break
            try:
                piece = self.get(self.resolve(ref, sources, docids), None, max_lines)
            except NotFoundError as exc:
                left_out.append((ref, str(exc)))
                continue
            size = len(piece.text.encode("utf-8", "surrogatepass"))
            if used + size > max_bytes:
                left_out.append((piece.path, f"over the {max_bytes}-byte budget ({size} bytes); get it alone"))
                used = max_bytes  # the budget stops the reading here, in the order asked
                continue
            used += size
            documents.append(piece)
        if not documents and not left_out:
            left_out.append((", ".join(patterns), "matches no indexed document"))
        return MultiGetResult(tuple(documents), tuple(left_out[:LEFT_OUT_SHOWN]), len(left_out))
