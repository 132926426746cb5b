"""Ranked documents made into results: metadata and a snippet each."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import duckdb

from findling.pathnames import readable_name
from findling.records import CodeSymbol, CopyKey, Hit
from findling.search.facets import COMPRESSED
from findling.search.snippets import make_snippet
from findling.store.documents import Chunk
from findling.store.symbols import matching_symbols, needle_path, symbols_of
from findling.store.text_cache import DocumentCache
from findling.text.analyzer import identifier_term, term_sequence, terms_in
from findling.text.code_languages import language_of
from findling.text.near_copies import CONTAINED, NearIndex, contained


def what_matched(coverage: float | None, by_meaning: bool) -> str:
    """What of the query a result matched (Hit.matched), from its share of the query's words
    (None: not looked at, as in Semantic mode); `by_meaning`: the user asked by meaning."""
    if by_meaning:
        return "asked"
    if coverage is None:
        return ""
    if coverage >= 1.0:
        return "all"
    return "some" if coverage > 0 else "meaning"


@dataclass(frozen=True)
class RankedEntry:
    """One document as a lane or the pipeline ranked it."""

    doc_id: int
    raw: float  # the ranking's own score (BM25, cosine, fused)
    score: float  # in [0, 1]
    span: tuple[int, int] | None = None  # the matched passage, when a lane knows it


_WORD_BACK = 40  # how far back a span's start may move to begin at a word


def _cut_span(chunks: list[Chunk], span: tuple[int, int]) -> list[Chunk]:
    """The text of a document span, from the chunk that holds its start. A span from the
    vector lane starts where a tokenizer window did, often inside a word (`or(eternity()`
    of `wait_for(eternity()`): it is moved back to the word's start."""
    start, end = span
    for c_start, c_end, text in chunks:
        if c_start <= start < c_end:
            at = start - c_start
            space = max(
                text.rfind(" ", max(0, at - _WORD_BACK), at + 1), text.rfind("\n", max(0, at - _WORD_BACK), at + 1)
            )
            if space >= 0 and not text[at : at + 1].isspace():
                at = space + 1
            elif space < 0 and at <= _WORD_BACK:
                at = 0
            return [(c_start + at, min(end, c_end), text[at : min(end, c_end) - c_start])]
    return chunks[:1]


def present(
    cur: duckdb.DuckDBPyConnection,
    documents: DocumentCache,
    entries: Sequence[RankedEntry],
    terms: Sequence[str],
    snippet_chars: int,
    symbol_needles: Sequence[str] = (),
    terms_apart: Mapping[str, frozenset[str]] | None = None,
) -> list[Hit]:
    """Results in the entries' order: a snippet from the matched span when one is given (from
    the definition a `sym:` asked for, in source files), else from the best chunk; each
    source file's result names the definition its snippet lies in. Documents removed since
    they were ranked are left out. `terms_apart`: as SearchResult's, each document lit up by
    the terms of its language."""
    if not entries:
        return []
    found = documents.documents(cur, [e.doc_id for e in entries])
    code = [doc_id for doc_id, doc in found.items() if language_of(doc.meta.ext)]
    definitions = symbols_of(cur, code)
    asked: dict[int, CodeSymbol] = {}
    if symbol_needles:
        for doc_id, matched in matching_symbols(cur, symbol_needles, code, 50 * len(code)):
            asked.setdefault(doc_id, matched)
    hits: list[Hit] = []
    for entry in entries:
        cached = found.get(entry.doc_id)
        if cached is None:
            continue
        doc = cached.meta
        doc_chunks = cached.chunks
        doc_terms = terms_in(terms, terms_apart or {}, doc.language or "")
        target: CodeSymbol | None = asked.get(entry.doc_id) or _defined(definitions.get(entry.doc_id, ()), doc_terms)
        span = (target.start, target.end) if target is not None else entry.span
        if span is not None:
            doc_chunks = _cut_span(doc_chunks, span)
        # a source file's `# ` starts a comment, kept; elsewhere it marks a heading, taken out
        marks = language_of(doc.ext) is None
        snippet = make_snippet(doc_chunks, doc_terms, doc.language or "en", snippet_chars, heading_marks=marks)
        line = line_at(cached.chunks, snippet.at) if snippet.chunk_start is not None else 0
        symbol = target or innermost(definitions.get(entry.doc_id, ()), snippet.at)
        if target is not None and not terms:
            line = target.line
        hits.append(
            Hit(
                doc_id=entry.doc_id,
                path=doc.path,
                title=doc.title or readable_name(Path(doc.path).name),
                score=round(entry.score, 6),
                snippet=snippet.text,
                highlights=snippet.highlights,
                mtime=doc.mtime,
                size=doc.size,
                ext=doc.ext,
                raw_score=entry.raw,
                chunk_start=snippet.chunk_start,
                chunk_end=snippet.chunk_end,
                line=line,
                page=page_at(doc.pages, snippet.at),
                author=doc.author,
                copy_key=CopyKey(doc.content_hash, doc.signature, doc.path, doc.length, doc.language),
                symbol=symbol.qualname if symbol else "",
                symbol_kind=symbol.kind if symbol else "",
                ocr_pages=doc.ocr_pages,
            )
        )
    return hits


def symbol_terms(needles: Sequence[str]) -> tuple[str, ...]:
    """The terms of the names `sym:` asks for (`sym:JSONDecoder.raw_decode` -> raw_decode), to
    highlight where a query has no words of its own."""
    names = (needle_path(n).split(".")[-1] for n in needles)  # case kept: readFileSync is an identifier
    return tuple(dict.fromkeys(t for name in names for t in term_sequence(name)))


def _defined(symbols: Sequence[CodeSymbol], terms: Sequence[str]) -> CodeSymbol | None:
    """The definition of an identifier the query names whole (`parse_known_args`): the place to
    show, rather than the passage that mentions it most."""
    if not symbols or not terms:
        return None
    wanted = set(terms)
    return next((s for s in symbols if identifier_term(s.name) in wanted), None)


def innermost(symbols: Sequence[CodeSymbol], offset: int) -> CodeSymbol | None:
    """The narrowest definition holding a character offset (symbols in text order, outer first)."""
    best = None
    for symbol in symbols:
        if symbol.start > offset:
            break
        if offset < symbol.end:
            best = symbol
    return best


_EXTENSION = re.compile(r"\.[a-z][a-z0-9]{0,7}$")


def format_stem(path: str) -> tuple[str, str]:
    """The name a file's formats share and its format: `git-branch.txt` and `git-branch.html`,
    `RCU/UP.rst.gz` and `RCU/UP.html`, `_sources/os.rst.txt` and `os.html` share theirs. The
    file name lowered, less its compression (facets.COMPRESSED, as type_extension reads it) and
    up to two extensions, the last of them its format."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    for suffix in COMPRESSED:
        name = name.removesuffix(f".{suffix}")
    form = ""
    for _ in range(2):
        if (found := _EXTENSION.search(name)) is None or found.start() == 0:
            break
        form = form or found.group(0)[1:]
        name = name[: found.start()]
    return name, form


def copy_of(keys: Sequence[CopyKey]) -> list[tuple[int, bool] | None]:
    """For each document of a list, by its copy key in the list's order: None where it stands
    for itself, else (the place among those that do of the one it copies, whether its bytes are
    the same). A copy is listed once, under the first of its copies: the same bytes, nearly the
    same text, or the same text in another format (near_copies.CONTAINED)."""
    out: list[tuple[int, bool] | None] = []
    kept = 0
    first_of: dict[str, int] = {}  # content hash -> place of the document that stands for it
    near = NearIndex()
    formats: dict[str, list[tuple[int, str, CopyKey]]] = {}  # file stem -> (place, format, key)
    for key in keys:
        at = first_of.get(key.content_hash) if key.content_hash else None
        if at is not None:
            out.append((at, True))
            continue
        at = near.first_near(key.signature)
        stem, form = format_stem(key.path) if key.path else ("", "")
        if at is None and stem:
            at = next(
                (
                    place
                    for place, other_form, other in formats.get(stem, ())
                    if other_form != form
                    and other.language == key.language
                    and contained(key.signature, other.signature, key.length, other.length) >= CONTAINED
                ),
                None,
            )
        if at is not None:
            out.append((at, False))
            continue
        if key.content_hash:
            first_of[key.content_hash] = kept
        near.add(key.signature, kept)
        if stem:
            formats.setdefault(stem, []).append((kept, form, key))
        out.append(None)
        kept += 1
    return out


def listed_groups(keys: Sequence[CopyKey]) -> list[tuple[int, list[tuple[int, bool]]]]:
    """A list's documents as it shows them, by their copy keys in the list's order (copy_of):
    each that stands for itself (its place in `keys`), with the places of the copies it names
    and whether their bytes are the same."""
    groups: list[tuple[int, list[tuple[int, bool]]]] = []
    for place, of in enumerate(copy_of(keys)):
        if of is None:
            groups.append((place, []))
        else:
            groups[of[0]][1].append((place, of[1]))
    return groups


def distinct_count(hits: Sequence[Hit]) -> int:
    """How many results a list of these hits shows once copies are listed under their first."""
    return sum(of is None for of in copy_of([h.copy_key for h in hits]))


def with_room_for_copies(limit: int) -> int:
    """How many ranked documents to read for a list of `limit` results: each copy is listed
    under the first of its copies, and a folder holding a manual's pages with their sources
    (the Linux kernel's HTML beside its .rst files) showed 3 results when 6 were asked for.
    Room for two copies of each, 100 at most."""
    return limit + min(2 * limit, 100)


def with_room_for_a_few_copies(limit: int) -> int:
    """A keyword search's first reading: room for a copy of every other result, 10 at most. A
    deeper list leaves MaxScore less to skip (keyword/lane.py): read three times as deep at once, a
    search with snippets at 100k documents took 12.7-15.3 ms, 12.1-13.6 at `limit`; ranking
    again when copies took more places took 22 ms, there being a near copy in the first 20 for
    24 of 40 of its queries."""
    return limit + min(limit // 2, 10)


def collapse_copies(hits: Sequence[Hit]) -> list[Hit]:
    """Copies listed once, under the first of them in the list's final order, which names the
    others: files with the same bytes (`copies`), and files with nearly the same text
    (`near_copies`: their shingle signatures' estimated similarity NEAR or more, such as a copy
    with a corrected typo or the same page saved twice, or the same text in another format,
    a manual's page beside its source)."""
    out: list[Hit] = []
    for place, named in listed_groups([h.copy_key for h in hits]):
        hit = hits[place]
        if named:
            same = tuple(hits[p].path for p, same_bytes in named if same_bytes)
            near = tuple(hits[p].path for p, same_bytes in named if not same_bytes)
            hit = replace(hit, copies=(*hit.copies, *same), near_copies=(*hit.near_copies, *near))
        out.append(hit)
    return out


def as_listed(hits: Sequence[Hit]) -> list[Hit]:
    """Results as every list shows them: copies once (collapse_copies), and results that share a
    title named by their file as well: a Javadoc's source pages are all titled "Source code",
    three of them in one list said nothing; "Source code (StringUtils.html)" does."""
    listed = collapse_copies(hits)
    shared = Counter(h.title for h in listed)
    out = []
    for hit in listed:
        name = readable_name(Path(hit.path).name)
        if shared[hit.title] > 1 and name not in hit.title:
            hit = replace(hit, title=f"{hit.title} ({name})")
        out.append(hit)
    return out


def line_at(chunks: Sequence[Chunk], offset: int) -> int:
    """The 1-based line of a character offset in the document the chunks rebuild."""
    newlines = 0
    covered = 0
    for start, end, text in chunks:
        if start >= offset:
            break
        if end > covered:
            piece = text[max(0, covered - start) : max(0, offset - start)]
            newlines += piece.count("\n")
            covered = min(end, offset)
    return newlines + 1


def page_at(pages: Sequence[int], offset: int) -> int:
    """The 1-based page holding a character offset, given where each page begins (0: no pages)."""
    return bisect_right(pages, offset) if pages else 0


def rebuilt_offsets(chunks: Sequence[Chunk], offsets: Sequence[int]) -> list[int]:
    """Where ascending document offsets fall in the text `document_text` rebuilds, which
    leaves out the rare run of whitespace between two chunks. One pass over the chunks."""
    out = []
    gaps = covered = 0
    index = 0
    for offset in offsets:
        while index < len(chunks) and chunks[index][0] <= offset:
            start, end, _text = chunks[index]
            gaps += max(0, start - covered)
            covered = max(covered, end)
            index += 1
        out.append(offset - gaps)
    return out
