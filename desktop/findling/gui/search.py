"""The window's searches, apart from the window (as gui/indexing.py holds its indexing): each
search a generation, so an older answer never replaces a newer one; the quick list at once
and, on Enter, the whole pipeline's list in its place; and the request behind the list on
screen, which why-not explains. It owns no widgets; the window listens to its signals."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Signal

from findling.engine import Engine
from findling.gui.tasks import run_task
from findling.records import Filters, Hit, SearchMode, SearchRequest, SearchResult, WhyNotAnswer


class SearchController(QObject):
    searching = Signal(str)  # what is under way, for the status bar
    results = Signal(object, bool)  # SearchResult, and whether it replaces the quick list (reranked)
    names = Signal(list)  # paths of indexed files whose name holds the query
    failed = Signal(str)  # the search failed: nothing it showed stands

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.engine = engine
        self._generation = 0
        self._refined = -1  # the generation whose reranked list has arrived
        self.shown: SearchRequest | None = None  # the request the list on screen answers
        self.result: SearchResult | None = None  # ... and that list

    def search(self, request: SearchRequest, full: bool) -> None:
        """Keyword mode answers at once and completely. The other modes answer first without the
        slow stages; with `full` (Enter), the whole pipeline as configured follows and its list
        replaces the first in place."""
        generation = self._next()
        engine = self.engine

        def named(paths: list[str]) -> None:
            if generation == self._generation:
                self.names.emit(paths)

        # the name row is a convenience: the search itself says what failed
        run_task(lambda: engine.files_named(request.text), named, lambda _exc: None)
        if request.mode is SearchMode.KEYWORD or not full:
            self._submit(request if request.mode is SearchMode.KEYWORD else request.quick(), generation, False)
        else:
            self._submit(request.quick(), generation, False)
            self._submit(request, generation, True)

    def similar(self, hit: Hit, limit: int, filters: Filters, done: Callable[[SearchResult], None]) -> None:
        """Documents like this one, by meaning: a list of its own (why-not has no query to explain)."""
        generation = self._next()
        engine = self.engine

        def arrived(result: SearchResult) -> None:
            if generation == self._generation:
                self.shown, self.result = None, result
                self.results.emit(result, False)
                done(result)

        self.searching.emit(f"Looking for documents like {hit.title}…")
        run_task(
            lambda: engine.similar(hit.path, limit=limit, filters=filters),
            arrived,
            lambda exc: self._failed(generation, exc),
        )

    def why_not(
        self, path: str, answer: Callable[[WhyNotAnswer], None], failed: Callable[[BaseException], None]
    ) -> bool:
        """Ask why `path` is, or is not, in the list on screen, by the very request that made it.
        False when no search's list is shown."""
        if self.shown is None:
            return False
        engine, request = self.engine, self.shown
        run_task(lambda: engine.why_not(request, path), answer, failed)
        return True

    def clear(self) -> None:
        """Nothing shown; answers still on their way are dropped."""
        self._next()
        self.shown = self.result = None

    def _next(self) -> int:
        self._generation += 1
        return self._generation

    def _submit(self, request: SearchRequest, generation: int, refining: bool) -> None:
        self.searching.emit("Reranking…" if refining else "Searching…")
        engine = self.engine
        run_task(
            lambda: engine.find(request),
            lambda result: self._arrived(generation, request, result, refining),
            lambda exc: self._failed(generation, exc),
        )

    def _arrived(self, generation: int, request: SearchRequest, result: SearchResult, refining: bool) -> None:
        if generation != self._generation:
            return  # a newer search is on its way
        if refining:
            self._refined = generation
        elif self._refined == generation:
            return  # the reranked list came first: the quick one is out of date
        self.shown, self.result = request, result
        self.results.emit(result, refining)

    def _failed(self, generation: int, exc: BaseException) -> None:
        if generation == self._generation:  # a list under an error would answer another query
            self.shown = self.result = None
            self.failed.emit(error_text(exc))


def error_text(exc: BaseException) -> str:
    """A failure as the window says it: Findling's own errors in the window's words (its menus,
    not terminal commands), anything else with its kind. The one rule for every failure shown."""
    from findling.errors import FindlingError
    from findling.faces import presentation

    if isinstance(exc, FindlingError):
        return presentation.error_text(exc, "window")
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
