"""The index's API, defined once: what every face may ask of an index, whether it holds the
index itself (`Engine`) or reaches the process that does (`server.handle.IndexHandle`, whose
methods are made from this table). mypy checks both against it."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from findling.records import (
    Answer,
    AnswerSentence,
    DocumentSlice,
    Filters,
    IndexProgress,
    IndexReport,
    MultiGetResult,
    Note,
    Outline,
    PublishReport,
    SearchRequest,
    SearchResult,
    Source,
    StoreStatus,
    WhyNotAnswer,
)


class IndexAPI(Protocol):
    # -- writes: they change the index -------------------------------------------------------

    def add_source(
        self, path: str, include: Sequence[str] = (), exclude: Sequence[str] = (), gitignore: bool | None = None
    ) -> Source:
        """Add a folder (or a single file) to index."""
        ...

    def remove_source(self, path: str) -> int:
        """Forget a folder and everything indexed from it; the documents removed."""
        ...

    def attach(self, uri: str, name: str = "") -> Source:
        """Attach a collection another Findling published, read-only; `index` copies it in."""
        ...

    def index(
        self,
        progress: Callable[[IndexProgress], None] | None = None,
        cancel: threading.Event | None = None,
        embed: bool = True,
    ) -> IndexReport:
        """Bring the index up to date with the folders, then (with `embed`) embed what is new."""
        ...

    def repair_index(self) -> int:
        """Mend what check_index finds (documents of removed folders, duplicates, stray rows); the
        documents removed. A run of `index` after it reads again what was taken out."""
        ...

    # -- reads ------------------------------------------------------------------------------------

    def sources(self) -> list[Source]: ...

    def publish(self, path: str, uri: str, name: str = "") -> PublishReport:
        """Publish a folder of this index at a path or s3:// URI (what changed since the last time)."""
        ...

    def find(self, request: SearchRequest) -> SearchResult:
        """Answer one search, in the mode it asks for."""
        ...

    def why_not(self, request: SearchRequest, path: str) -> WhyNotAnswer:
        """Why this file is, or is not, among this search's results."""
        ...

    def ask(
        self,
        question: str,
        filters: Filters | None = None,
        on_sentence: Callable[[AnswerSentence], None] | None = None,
        cancel: threading.Event | None = None,
    ) -> Answer:
        """An answer from the files, each sentence checked against the passages it cites, given to
        `on_sentence` as soon as it is; or a decline naming the closest documents."""
        ...

    def similar(self, ref: str, limit: int | None = None, filters: Filters | None = None) -> SearchResult: ...

    def files_named(self, text: str, limit: int = 5) -> list[str]: ...

    def get(self, ref: str, first_line: int | None = None, count: int | None = None) -> DocumentSlice: ...

    def multi_get(
        self, refs: Sequence[str], max_bytes: int = 60_000, max_lines: int | None = None
    ) -> MultiGetResult: ...

    def symbols(self, ref: str) -> Outline: ...

    def status(self) -> StoreStatus: ...

    def check_index(self) -> list[str]:
        """What would make the index lie (documents of removed folders, duplicates, orphans,
        counts out of step); empty when sound."""
        ...

    def semantic_off(self) -> Note | None:
        """Why semantic search cannot run now (no embedder, or nothing embedded yet), or None."""
        ...

    def models_state(self) -> dict[str, Note | None]:
        """Each model role's state: None when ready, else why it is not."""
        ...


WRITE_VERBS = frozenset({"add_source", "remove_source", "attach", "index", "repair_index"})
# verbs that report as they go, and their callback's argument: its calls travel to another
# process's caller as "progress" messages, and a "cancel" from it sets their `cancel`
STREAMED = {"index": "progress", "ask": "on_sentence"}
VERBS: tuple[str, ...] = tuple(name for name in vars(IndexAPI) if not name.startswith("_"))
READ_VERBS = frozenset(VERBS) - WRITE_VERBS
