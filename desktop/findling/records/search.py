"""What a search is asked and answers: the request and its filters, the hits, the explain record,
the notes beside them, and why a file is or is not among them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from enum import StrEnum
from typing import Any, Literal

from findling.docids import docid
from findling.errors import Remedy
from findling.vocabulary import (
    Lane,
    MatchMode,
    QueryKind,
    RerankerMode,
    StageName,
)


@dataclass(frozen=True)
class Filters:
    """Restrictions on which documents a query may return."""

    extensions: tuple[str, ...] = ()
    path_contains: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    after: float | None = None  # epoch seconds, inclusive
    before: float | None = None  # epoch seconds, exclusive
    authors: tuple[str, ...] = ()  # the author contains each (lower case)
    titles: tuple[str, ...] = ()  # the title contains each
    names: tuple[str, ...] = ()  # the file name contains each
    symbols: tuple[str, ...] = ()  # the file defines a function, class... so named (store/symbols.py)
    languages: tuple[str, ...] = ()  # the document's language is one of these (ISO 639-1: en, de)

    def merged(self, other: Filters) -> Filters:
        """Both restrictions at once: the values of each, the later `after`, the earlier `before`."""
        given: dict[str, Any] = {}
        for f in fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if f.name == "after":
                given[f.name] = max(filter(None, (mine, theirs)), default=None)
            elif f.name == "before":
                given[f.name] = min(filter(None, (mine, theirs)), default=None)
            else:
                given[f.name] = mine + theirs
        return Filters(**given)

    @property
    def empty(self) -> bool:
        return self == Filters()


class SearchMode(StrEnum):
    """What a search ranks by. Every face offers these three and nothing else."""

    HYBRID = "hybrid"  # words and meaning: the whole pipeline
    KEYWORD = "keyword"  # words alone: BM25, every word required unless none matches them all
    SEMANTIC = "semantic"  # meaning alone: the vector lane

    @property
    def lanes(self) -> tuple[Lane, ...]:
        return _LANES[self]

    @property
    def label(self) -> str:
        return self.value.capitalize()


@dataclass(frozen=True)
class SearchRequest:
    """One search, as every face asks it (the window, the CLI, MCP, HTTP, why-not): the engine
    answers it in one place, so two faces asking the same request see the same list."""

    text: str
    mode: SearchMode = SearchMode.HYBRID
    limit: int | None = None  # None: the settings' number of results
    filters: Filters = field(default_factory=Filters)
    min_score: float = 0.0
    expand: bool | None = None  # None: as the settings say (hybrid and semantic)
    rerank: RerankerMode | None = None  # None: as the settings say (hybrid and semantic)
    match: MatchMode | None = None  # keyword mode: every word, or any; None: as the settings say

    def quick(self) -> SearchRequest:
        """The same search without the slow stages (expansion, reranking): the list to show at once."""
        return replace(self, expand=False, rerank="off")


@dataclass(frozen=True)
class ListScore:
    """One result's place in one ranked list."""

    list_name: str  # "bm25 original", "bm25 lex 1", "vector original", "vector sem 2", "vector hyde"
    lane: Lane
    rank: int
    raw: float  # BM25 score, or cosine similarity
    normalized: float  # BM25 min-max within the list, or cosine mapped to [0, 1]
    weight: float
    rrf: float  # weight / (k + rank)


@dataclass(frozen=True)
class Evidence:
    """What the lanes measured for one document, the inputs of its absolute score; None
    where a lane did not run (or the document has no vectors yet)."""

    coverage: float | None = None  # share of the query's idf mass matched, [0, 1]
    saturation: float | None = None  # BM25 score over the most any document could score
    cosine: float | None = None  # best chunk's cosine similarity to the query
    saturation_share: float | None = None  # saturation over the query's best document's, [0, 1]
    cosine_gap: float | None = None  # cosine minus the query's best document's, <= 0
    # how strong the query's keywords are at all: its best document's saturation and coverage
    top_saturation: float | None = None
    top_coverage: float | None = None
    # how far the two lanes agree on this query's other candidates: the share of the keyword
    # lane's best ten among the meaning lane's best ten, this one left out (lane_agreements)
    agreement: float | None = None
    # the share of the page's text in links or in entries pointing elsewhere (an index, a glossary,
    # a table of contents), where it has them and the pipeline looked: its relevance is taken
    # down by the prior against such pages, unless the query names the page (`named`: the share
    # of the query's weight its title field holds; all of it names the page)
    link_share: float | None = None
    named: float | None = None
    # a giant document's length over the index's average (a changelog of every release, 30
    # times or more: Bm25Lane.giants): the prior against them takes it down, unless the query
    # names it
    length_ratio: float | None = None
    # the document is not embedded yet: `cosine` is not its own but what the query's embedded
    # keyword matches typically have (relevance.with_meaning_assumed)
    cosine_assumed: bool = False
    # the meaning lane's share of the hybrid model's weight on this document's own evidence, as
    # its folder's self-test found for this kind of query (search/lane_balance.py); None: the
    # shipped model's (0.5)
    meaning_share: float | None = None


@dataclass(frozen=True)
class LaneWeights:
    """How one folder's self-test weighs the two lanes in hybrid search (search/lane_balance.py):
    the meaning lane's share of the fused model's weight on a candidate's own evidence (0.5 as
    shipped), for every query and by kind of query, and how many self-test queries said so."""

    meaning: float = 0.5
    queries: int = 0
    by_kind: tuple[tuple[QueryKind, float, int], ...] = ()  # (kind, meaning share, its queries)

    def for_kind(self, kind: QueryKind) -> tuple[float, int]:
        """(the meaning share, the queries it was read from) for a query of this kind: the
        kind's own where the self-test had enough of them, else the folder's."""
        for name, share, queries in self.by_kind:
            if name == kind:
                return share, queries
        return self.meaning, self.queries


@dataclass(frozen=True)
class Weighting:
    """What a hybrid search's explain record says of the lanes' weights: the folder whose
    self-test set them for this query's best candidate, the query's kind, the share and its
    queries."""

    folder: str
    kind: QueryKind
    meaning: float
    queries: int


@dataclass(frozen=True)
class ResultExplain:
    doc_id: int
    lists: tuple[ListScore, ...]
    rrf: float
    bonus: float
    fused: float
    fused_rank: int
    rerank: float | None  # None when no reranker ran
    fusion_weight: float | None  # the blend's weight on the fusion score
    blended: float | None
    final: float
    chunk_start: int | None = None
    chunk_end: int | None = None
    evidence: Evidence = field(default_factory=Evidence)
    relevance: float = 0.0  # P(relevant) from the evidence, before any rerank


@dataclass(frozen=True)
class Note:
    """A fact a face tells beside its answer ("no documents are embedded yet"), and what would
    set it right, which each face words its own way (faces/presentation.py)."""

    text: str
    remedy: Remedy | None = None
    subject: str = ""  # what the remedy acts on: a model's name, a path, a count


@dataclass(frozen=True)
class Stage:
    name: StageName
    status: Literal["ran", "skipped"]
    reason: str = ""
    ms: float = 0.0
    detail: dict = field(default_factory=dict)
    remedy: Remedy | None = None  # what would let a skipped stage run (its model, say)
    subject: str = ""


@dataclass(frozen=True)
class ExpansionExplain:
    """What query expansion added, as the explain panel shows it."""

    lexical: tuple[str, ...]
    semantic: tuple[str, ...]
    hyde: str
    cached: bool
    raw: str  # the generator's text, before it was read


@dataclass(frozen=True)
class QueryExplain:
    query: str
    mode: str
    stages: tuple[Stage, ...]
    expansion: ExpansionExplain | None
    candidates: int
    results: tuple[ResultExplain, ...]
    timings_ms: dict[str, float]
    weighting: Weighting | None = None  # a folder's self-test weighed the lanes (not as shipped)

    def to_dict(self) -> dict:
        return asdict(self)

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)


@dataclass(frozen=True)
class Highlight:
    start: int
    end: int


@dataclass(frozen=True)
class CopyKey:
    """What tells a document's copies (the hash of its bytes), its near copies (its text's
    signature) and its text in another format (its file name and length besides)."""

    content_hash: str = ""  # of the file's bytes: files with the same one are copies
    signature: bytes = b""  # MinHash of its text's shingles (text/shingles.py)
    path: str = ""
    length: float = 0.0  # in index terms
    language: str = ""


@dataclass(frozen=True)
class Hit:
    """One result. `score` is an absolute relevance estimate in [0, 1], comparable across
    queries; `weak` marks a result shown only because nothing scored well."""

    doc_id: int
    path: str
    title: str
    score: float
    snippet: str = ""
    highlights: tuple[Highlight, ...] = ()
    mtime: float = 0.0
    size: int = 0
    ext: str = ""
    raw_score: float = 0.0
    chunk_start: int | None = None
    chunk_end: int | None = None
    weak: bool = False
    line: int = 0  # the snippet's line in the document's text (0: unknown)
    page: int = 0  # the snippet's page, for PDFs (0: not paged)
    author: str = ""  # from the document's properties, when it has any
    copies: tuple[str, ...] = ()  # other files with the same bytes, listed once under this one
    near_copies: tuple[str, ...] = ()  # other files with nearly the same text, listed under this one
    copy_key: CopyKey = CopyKey()  # what tells its copies and near copies
    symbol: str = ""  # the definition the snippet lies in (source files): `Parser.parse_known_args`
    symbol_kind: str = ""  # function, method, class...
    ocr_pages: int = 0  # its text (some of it) was read by OCR from this many pictures or scanned pages
    # what of the query it matched (search/presentation.what_matched): "all" its words, "some" of
    # them, "meaning" only (none of the words) where words were asked, "asked" by meaning (Semantic
    # mode, a pasted passage); "" where nothing was asked of it (a filter alone)
    matched: str = ""
    collection: str = ""  # the shared collection it comes from (its name here); "": a folder here

    @property
    def docid(self) -> str:
        return docid(self.path)


@dataclass(frozen=True)
class SearchResult:
    query: str
    hits: tuple[Hit, ...]
    total_matched: int
    relaxed: bool = False
    notes: tuple[Note, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    explain: QueryExplain | None = None  # the pipeline's record, for `query`
    # The analysed query terms the result was matched and highlighted with: the preview
    # highlights the same words, by the same analysis. Those only some of the index's
    # languages make are in `terms_apart`, with those languages: a document of another
    # language is neither matched nor highlighted by them (text/analyzer.terms_in).
    terms: tuple[str, ...] = ()
    terms_apart: Mapping[str, frozenset[str]] = field(default_factory=dict)


WHY_NOT_REASONS = (
    "shown",
    "missing",
    "outside",
    "excluded",
    "unsupported",
    "not_indexed",
    "failed",
    "skipped",
    "filtered",
    "no_match",
    "ranked_low",
    "cut_by_limit",
    "below_floor",
    "weak_cut",
    "too_weak",
)


@dataclass(frozen=True)
class WhyNotAnswer:
    """Why a file is (or is not) among the results of a query: `findling why-not`."""

    query: str
    path: str
    reason: str  # one of WHY_NOT_REASONS
    summary: str  # one sentence for a person
    details: tuple[str, ...] = ()  # where it stands in each lane
    rank: int | None = None  # in the results, shown or as far as a wider search reaches
    keyword_rank: int | None = None
    semantic_rank: int | None = None
    remedy: Remedy | None = None  # what would bring it in, for each face to word
    subject: str = ""


_LANES: dict[SearchMode, tuple[Lane, ...]] = {
    SearchMode.HYBRID: ("bm25", "vector"),
    SearchMode.KEYWORD: ("bm25",),
    SearchMode.SEMANTIC: ("vector",),
}
