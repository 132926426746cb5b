"""Findling's tools for AI agents, on the official MCP SDK. The same tools serve stdio
(`findling mcp`) and Streamable HTTP (`findling serve`); each call goes through the IndexHandle,
so agents search the index the window shows, while it is open."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations
from pydantic import Field

from findling import __version__
from findling.errors import MAX_QUERY_CHARS, FindlingError
from findling.faces.payloads import (
    answer_json,
    models_json,
    multi_get_json,
    outline_json,
    result_json,
    slice_json,
    why_not_json,
)
from findling.faces.presentation import activity_line, error_text
from findling.filter_options import OPTION
from findling.records import SearchMode
from findling.search.filter_table import filters_from_options
from findling.search.query_parser import SYNTAX_EXAMPLES
from findling.search.request_options import request_from_options
from findling.server.handle import IndexHandle
from findling.vocabulary import AGENT_RESULT_LIMIT, MatchMode

T = TypeVar("T")
log = logging.getLogger(__name__)

SYNTAX = (
    "Query syntax: "
    + "; ".join(f"{example} = {meaning}" for example, meaning in SYNTAX_EXAMPLES)
    + ". Results carry a docid (#3fa9c2) to pass to `get`, the snippet's line number, and for PDFs its page."
)

INSTRUCTIONS = (
    "Findling searches the user's indexed local documents (folders they added to Findling). Start with "
    "`query` (hybrid: keywords and meaning, reranked) for questions; use `search` for exact words, names and "
    "identifiers (sym:NAME for where a function or class is defined, `symbols` for a source file's outline); "
    "`vsearch` for meaning alone. Then read a result with `get` (by docid, with a line range "
    "around the snippet's line), or several with `multi_get`. `similar` finds documents like one you have. "
    "`status` says what is indexed and whether semantic search is on. " + SYNTAX
)

_READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
_WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)

Limit = Annotated[int, Field(ge=1, le=AGENT_RESULT_LIMIT, description=f"how many results (1–{AGENT_RESULT_LIMIT})")]
# the filter options, as filter_options.OPTIONS declares them (a test holds every tool to them)
Extensions = Annotated[list[str] | None, Field(description=OPTION["ext"].help)]
Paths = Annotated[list[str] | None, Field(description=OPTION["path"].help)]
Folders = Annotated[list[str] | None, Field(description=OPTION["folder"].help + "; absolute")]
Languages = Annotated[list[str] | None, Field(description=OPTION["lang"].help)]
After = Annotated[str | None, Field(description=OPTION["after"].help)]
Before = Annotated[str | None, Field(description=OPTION["before"].help)]


async def _run(work: Callable[[], T]) -> T:
    """Engine work on a worker thread (it blocks), options parsed inside it; Findling's own errors
    become the tool's error text, and a fault says what it was instead of an opaque failure."""
    try:
        return await anyio.to_thread.run_sync(work)
    except FindlingError as exc:
        raise ToolError(error_text(exc, "terminal")) from exc
    except Exception as exc:
        log.exception("tool failed")
        raise ToolError(f"Findling failed: {type(exc).__name__}: {exc}") from exc


def _results(payload: dict[str, Any]) -> dict[str, Any]:
    """A search payload without the fields only a terminal's highlighting needs."""
    for hit in payload["results"]:
        hit.pop("highlights", None)
        hit.pop("doc_id", None)
    return payload


def build_server(handle: IndexHandle, allow_write: bool = False) -> MCPServer:  # noqa: C901 - the tools declared one after another, each a closure over the handle
    server: MCPServer = MCPServer(name="findling", title="Findling", version=__version__, instructions=INSTRUCTIONS)

    @server.tool(
        annotations=_READ,
        description=(
            "Hybrid search over the user's documents: keyword (BM25) and semantic lanes fused, then reranked. "
            "Best for questions and descriptions. min_score drops results below an absolute relevance (0–1; 0.3 "
            "keeps only fair matches). explain adds each result's per-stage scores. " + SYNTAX
        ),
    )
    async def query(
        query: str,
        limit: Limit = 10,
        min_score: Annotated[float, Field(ge=0, le=1)] = 0.0,
        ext: Extensions = None,
        path: Paths = None,
        folder: Folders = None,
        lang: Languages = None,
        after: After = None,
        before: Before = None,
        explain: bool = False,
    ) -> dict[str, Any]:
        options = dict(locals())  # the parameters are the options' names
        result = await _run(lambda: handle.find(request_from_options(SearchMode.HYBRID, options)))
        extra = {"explain": result.explain.to_dict()} if explain and result.explain else None
        return _results(result_json(result, extra))

    @server.tool(
        annotations=_READ,
        description=(
            "Keyword (BM25) search: documents containing the words, best first, with highlighted snippets. Fast "
            "and exact: use it for names, identifiers, error messages. match='all' requires every word, 'any' any "
            "word; the default ranks files by how much of the query they hold and by their titles. " + SYNTAX
        ),
    )
    async def search(
        query: str,
        limit: Limit = 10,
        match: MatchMode | None = None,
        ext: Extensions = None,
        path: Paths = None,
        folder: Folders = None,
        lang: Languages = None,
        after: After = None,
        before: Before = None,
    ) -> dict[str, Any]:
        options = dict(locals())  # the parameters are the options' names
        result = await _run(lambda: handle.find(request_from_options(SearchMode.KEYWORD, options)))
        return _results(result_json(result))

    @server.tool(
        annotations=_READ,
        description=(
            "Semantic search: documents by meaning, with the closest passage of each; finds paraphrases that share "
            "no words with the query. Needs the embedding model (see `status`). " + SYNTAX
        ),
    )
    async def vsearch(
        query: str,
        limit: Limit = 10,
        ext: Extensions = None,
        path: Paths = None,
        folder: Folders = None,
        lang: Languages = None,
        after: After = None,
        before: Before = None,
    ) -> dict[str, Any]:
        options = dict(locals())  # the parameters are the options' names
        result = await _run(lambda: handle.find(request_from_options(SearchMode.SEMANTIC, options)))
        return _results(result_json(result))

    @server.tool(
        annotations=_READ,
        description=(
            "Read one indexed document's text: `ref` is a docid from a result (#3fa9c2) or an absolute path, "
            "optionally with :LINE or :LINE:COUNT (e.g. #3fa9c2:120:40). from_line/lines do the same as arguments. "
            "Only documents under the indexed folders are served."
        ),
    )
    async def get(
        ref: str, from_line: Annotated[int | None, Field(ge=1)] = None, lines: Annotated[int | None, Field(ge=1)] = None
    ) -> dict[str, Any]:
        piece = await _run(lambda: handle.get(ref, from_line, lines))
        return slice_json(piece)

    @server.tool(
        annotations=_READ,
        description=(
            "A source file's outline: its functions, classes, methods... each with its qualified name, kind, "
            "signature, doc comment and line range (then `get` with #docid:LINE:COUNT reads one). `ref` is a docid "
            "or an absolute path. To find where a name is defined across files, `search` with sym:NAME."
        ),
    )
    async def symbols(ref: str) -> dict[str, Any]:
        outline = await _run(lambda: handle.symbols(ref))
        return outline_json(outline)

    @server.tool(
        annotations=_READ,
        description=(
            "Read several documents at once: refs are docids, absolute paths, or glob patterns over the indexed "
            "paths (e.g. '*/notes/2024-*.md'). Stops at max_bytes of text; what was left out is listed with why."
        ),
    )
    async def multi_get(
        refs: Annotated[list[str], Field(min_length=1)],
        max_bytes: Annotated[int, Field(ge=1000, le=1_000_000)] = 60_000,
        max_lines: Annotated[int | None, Field(ge=1)] = None,
    ) -> dict[str, Any]:
        found = await _run(lambda: handle.multi_get(refs, max_bytes=max_bytes, max_lines=max_lines))
        return multi_get_json(found)

    @server.tool(
        annotations=_READ,
        description=(
            "Documents like a given one (docid or absolute path), by meaning: the mean of its passages' vectors. "
            "Needs the embedding model."
        ),
    )
    async def similar(
        ref: str,
        limit: Limit = 10,
        ext: Extensions = None,
        path: Paths = None,
        folder: Folders = None,
        lang: Languages = None,
        after: After = None,
        before: Before = None,
    ) -> dict[str, Any]:
        filters = lambda: filters_from_options(  # noqa: E731 - parsed on the worker, as _run says
            ext=ext, path=path, folder=folder, lang=lang, after=after, before=before
        )
        result = await _run(lambda: handle.similar(ref, limit=limit, filters=filters()))
        return _results(result_json(result))

    @server.tool(
        annotations=_READ,
        description=(
            "Why a file you expected is not among a query's results (or where it is): not under an added folder, "
            "excluded by which .gitignore or exclude pattern, not indexed yet, failed or skipped and why, removed by "
            "a filter, the query words it lacks and its keyword rank, its semantic rank and closest passage, or cut "
            "by the result limit or score floor. mode: hybrid (query), keyword (search) or semantic (vsearch); give "
            "the same limit, filters and min_score as that search."
        ),
    )
    async def why_not(
        query: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)],
        path: str,
        mode: SearchMode = SearchMode.HYBRID,
        limit: Limit = 10,
        min_score: Annotated[float, Field(ge=0.0, le=1.0)] = 0.0,
        ext: Extensions = None,
        folder: Folders = None,
        lang: Languages = None,
        after: After = None,
        before: Before = None,
    ) -> dict[str, Any]:
        options = {**locals(), "path": None}  # the parameters are the options' names
        # `path` names the file here: the path-text filter is the query's `path:` (SYNTAX)
        answer = await _run(
            lambda: handle.why_not(
                request_from_options(mode, options),
                path,
            )
        )
        return why_not_json(answer)

    @server.tool(
        annotations=_READ,
        description=(
            "An answer to a question from the user's own files, every sentence cited and checked: written from "
            "the passages of a hybrid search, each sentence kept only where a cited passage says it (else the "
            "passages' own sentences are quoted). abstained is true, with the closest documents, when the files do "
            "not seem to answer: never an answer from the model's own knowledge. citations give each passage's "
            "path, line and page."
        ),
    )
    async def ask(
        question: Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)],
        ext: Extensions = None,
        path: Paths = None,
        folder: Folders = None,
        lang: Languages = None,
        after: After = None,
        before: Before = None,
    ) -> dict[str, Any]:
        answer = await _run(
            lambda: handle.ask(
                question, filters_from_options(ext=ext, path=path, folder=folder, lang=lang, after=after, before=before)
            )
        )
        return answer_json(answer)

    @server.tool(
        annotations=_READ,
        description=(
            "What is indexed: folders, document counts, failures, the index size, and which models are installed "
            "(semantic search and reranking need them)."
        ),
    )
    async def status() -> dict[str, Any]:
        st = await _run(handle.status)
        return {
            "documents": st.indexed,
            "failed": st.failed,
            "skipped": st.skipped,
            "chunks": st.chunks,
            "index_bytes": st.size_bytes,
            "folders": [{"path": s.source.path, "indexed": s.indexed, "failed": s.failed} for s in st.sources],
            "problems": [{"path": p.path, "status": p.status, "error": p.error} for p in st.problems[:20]],
            "semantic": models_json(await _run(handle.models_state)),
            "embedded": {
                "documents": st.embedded,
                "of": st.embeddable,
                "model": st.embedder or None,
                "runs": st.embedder_where or None,
                "text_sent_to": st.text_sent_to or None,
            },
            # what the index is busy with now, as the window's bar and `findling status` say it
            "activity": None
            if st.activity is None
            else {
                "phase": st.activity.phase,
                "done": st.activity.done,
                "total": st.activity.total,
                "unit": st.activity.unit,
                "line": activity_line(st.activity, time.time()),
            },
            "writes_allowed": allow_write,
        }

    if allow_write:

        @server.tool(
            annotations=_WRITE,
            description=(
                "Add a folder (or file) to the index and index it now. include/exclude are gitignore-style patterns."
            ),
        )
        async def add_folder(
            path: str, include: list[str] | None = None, exclude: list[str] | None = None
        ) -> dict[str, Any]:
            source = await _run(lambda: handle.add_source(path, include or (), exclude or ()))
            report = await _run(handle.index)
            return {"added": source.path, "indexed": report.added + report.updated, "failed": report.failed}

        @server.tool(
            annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True),
            description="Remove a folder and its documents from the index (the files are not touched).",
        )
        async def remove_folder(path: str) -> dict[str, Any]:
            removed = await _run(lambda: handle.remove_source(path))
            return {"removed": path, "documents": removed}

        @server.tool(
            annotations=_WRITE,
            description="Bring the index up to date with the folders (new, changed, "
            "moved and deleted files), then embed what is new.",
        )
        async def index() -> dict[str, Any]:
            report = await _run(handle.index)
            return {
                "added": report.added,
                "updated": report.updated,
                "removed": report.removed,
                "unchanged": report.unchanged,
                "failed": report.failed,
                "seconds": round(report.seconds, 2),
            }

    return server


def run_stdio(handle: IndexHandle, allow_write: bool = False) -> None:
    build_server(handle, allow_write).run("stdio")
