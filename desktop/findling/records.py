"""Typed records that cross layers. No Qt or DuckDB types in here."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from enum import StrEnum
from typing import Any, Literal

from findling.docids import docid
from findling.errors import Remedy

# The vocabularies that cross layers, spelled once.
DocumentStatus = Literal["ok", "failed", "skipped"]
Lane = Literal["bm25", "vector"]
Role = Literal["embedder", "reranker", "generator", "ocr"]
IndexPhase = Literal["scanning", "indexing", "embedding", "optimizing", "done"]
RerankerMode = Literal["auto", "cross-encoder", "llm", "off"]
# "most": any word matches, ranked by the share of the query's weight a document holds and by
# the words in its title or file name; "all": every word must match; "any": plain BM25 of any.
MatchMode = Literal["most", "all", "any"]
FusionMode = Literal["evidence", "rrf"]
StageName = Literal["strong_signal", "expansion", "lanes", "fusion", "rerank", "blend"]


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


_LANES: dict[SearchMode, tuple[Lane, ...]] = {
    SearchMode.HYBRID: ("bm25", "vector"),
    SearchMode.KEYWORD: ("bm25",),
    SearchMode.SEMANTIC: ("vector",),
}


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

    def to_dict(self) -> dict:
        return asdict(self)

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)


@dataclass(frozen=True)
class Source:
    id: int
    path: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True  # the folder's .gitignore files leave files out, as git does


@dataclass(frozen=True)
class SourceStatus:
    source: Source
    documents: int
    indexed: int
    failed: int
    skipped: int
    waiting: int = 0  # files a run found new or changed and stopped before reading
    left_out: int = 0  # files and folders its .gitignore files left out at the last run's scan


@dataclass(frozen=True)
class ChunkSpan:
    """A piece of a document's text for the vector lane and for snippets."""

    start: int
    end: int
    heading: str = ""


@dataclass(frozen=True)
class CodeSymbol:
    """A definition in a source file: a function, method, class, struct, interface..."""

    name: str  # parse_known_args
    qualname: str  # ArgumentParser.parse_known_args: its containers' names, then its own
    kind: str  # function, method, class, struct, interface, enum, trait, impl, module, namespace, ...
    start: int  # character span in the document's text, its doc comment and decorators included
    end: int
    line: int  # 1-based lines of the definition itself
    end_line: int
    signature: str = ""  # the definition up to its body, on one line
    doc: str = ""  # its docstring or doc comment, shortened


@dataclass
class DocumentRow:
    """Everything the indexer writes for one file."""

    path: str
    ext: str
    size: int
    mtime: float
    hash: str | None
    status: DocumentStatus
    title: str = ""
    language: str = ""
    mime: str = ""
    error: str = ""  # why it failed or was skipped; for "ok", what was left out ("partly")
    length: float = 0.0
    chunks: Sequence[tuple[ChunkSpan, str]] = ()
    terms: dict[str, float] = field(default_factory=dict)
    positions: dict[str, list[int]] = field(default_factory=dict)  # term -> where it stands (term_positions)
    doc_id: int = 0
    pages: tuple[int, ...] = ()  # where each page begins in the text (PDFs)
    author: str = ""  # the document's author (or an e-mail's sender), from its properties
    title_terms: frozenset[str] = frozenset()  # the title field's terms (text/analyzer.py title_terms)
    link_share: float = 0.0  # a web page's share of text in links or index entries: index pages, nearly all
    symbols: tuple[CodeSymbol, ...] = ()  # a source file's definitions (ingest/code_symbols.py)
    signature: bytes = b""  # MinHash of the text's shingles, to know near-duplicates (text/shingles.py)
    ocr_pages: int = 0  # pictures or scanned pages whose words were read by OCR
    # when the document says it was written (an e-mail's Date), apart from `mtime`, which tells
    # whether its file changed: 0 when it does not say (its file's time dates it)
    dated: float = 0.0
    # documents inside this file (an archive's members, theirs too), each under its own address
    members: tuple[DocumentRow, ...] = ()
    seconds: float = 0.0  # what reading and analysing the file took (status names the costliest)


@dataclass(frozen=True)
class FailedFile:
    path: str
    status: DocumentStatus  # "ok" with an error: indexed only in part
    error: str


@dataclass(frozen=True)
class CostlyFile:
    """A file that took long to read (a giant generated header, a 16 MB log): status names the
    costliest, with a folder to exclude where they gather."""

    path: str
    seconds: float
    size: int


@dataclass(frozen=True)
class IndexProgress:
    phase: IndexPhase
    done: int
    total: int
    current: str = ""
    failed: int = 0
    # embedding: the documents embedded before this run, so that the index's count is base + done
    # of base + total ("55 of 1,212 documents", as the status says), not the run's own "16/1173"
    base: int = 0
    depth: EmbedDepth | None = None  # embedding: how deep the index's vectors go, and the time left


@dataclass(frozen=True)
class EmbedDepth:
    """How far embedding has come in the index's terms: every document gets a first window (its
    opening and headings, or what a source file defines), then the rest (ingest/embedding.py)."""

    whole: int  # documents embedded whole
    whole_total: int  # documents to embed whole: those with text, less those held back (machine-made)
    first_left_s: float | None = None  # until every document has a first vector; None: not known yet
    left_s: float | None = None  # until every document is embedded whole; None: not known yet


@dataclass(frozen=True)
class Activity:
    """What the index is busy with now: the one record of progress that every face reads (the
    window's bar and Folders panel, `findling status`, MCP's status), whoever asked for the run
    (the window, `findling add` or `index` served by it, a live update, a model import).
    Embedding counts documents of the whole index, as the semantic-search line does: "Embedding
    55 of 1,212 documents" beside "55 of 1,212 documents embedded", never a run's own "16/1173"."""

    phase: IndexPhase
    done: int
    total: int  # 0 while not known (scanning, optimizing)
    unit: str  # "files" (reading them) or "documents" (embedding)
    current: str = ""  # the file or document being read or embedded
    failed: int = 0
    started: float = 0.0  # time.time() when this phase began
    done_at_start: int = 0  # `done` when the phase began: the pace counts what this run did
    depth: EmbedDepth | None = None  # embedding: how deep the vectors go, the time left from a steady rate


@dataclass
class EmbedReport:
    model: str = ""
    documents: int = 0  # documents given their first vector (all of it, for one window long)
    deepened: int = 0  # documents whose first vector gave way to all their windows
    vectors: int = 0  # windows stored
    computed: int = 0  # windows run through the model (the rest were found already embedded)
    seconds: float = 0.0
    cancelled: bool = False
    skipped: Note | None = None  # why nothing was embedded (no model, no runtime)
    stopped: str = ""  # why the run stopped before the end (its model server stopped answering)

    def followed_by(self, later: EmbedReport) -> EmbedReport:
        """This part of an embedding run, then the next (the run stepped aside between them)."""
        return EmbedReport(
            model=later.model or self.model,
            documents=self.documents + later.documents,
            deepened=self.deepened + later.deepened,
            vectors=self.vectors + later.vectors,
            computed=self.computed + later.computed,
            seconds=self.seconds + later.seconds,
            cancelled=later.cancelled,
            skipped=later.skipped,
            stopped=later.stopped,
        )


@dataclass
class IndexReport:
    scanned: int = 0
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    moved: int = 0
    removed: int = 0
    failed: int = 0
    skipped: int = 0
    cancelled: bool = False
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    embedding: EmbedReport | None = None  # the vector step after the text, when it ran or was skipped

    def followed_by(self, later: IndexReport) -> IndexReport:
        """One report for a run that stopped here and went on as `later` (another process took
        the index over): the work of both; what the later run found as it was, from it."""
        carried = self.added + self.updated + self.moved
        return IndexReport(
            scanned=later.scanned,
            added=self.added + later.added,
            updated=self.updated + later.updated,
            unchanged=max(0, later.unchanged - carried),
            moved=self.moved + later.moved,
            removed=self.removed + later.removed,
            failed=self.failed + later.failed,
            skipped=later.skipped,
            cancelled=later.cancelled,
            seconds=self.seconds + later.seconds,
            warnings=[*self.warnings, *later.warnings],
            embedding=later.embedding,
        )


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


@dataclass(frozen=True)
class StoreStatus:
    home: str
    database: str
    documents: int
    indexed: int
    failed: int
    skipped: int
    chunks: int
    terms: int
    postings: int
    size_bytes: int
    sources: tuple[SourceStatus, ...]
    problems: tuple[FailedFile, ...]
    languages: tuple[tuple[str, int], ...] = ()  # (language, indexed documents), most first
    embedder: str = ""  # the embedding model's name; "" when none is installed (no semantic search)
    embedder_where: str = ""  # where it runs: "Ollama at localhost:11434, nomic-embed-text"
    embedder_dimension: int = 0  # of the vectors the index holds for it; 0: none yet
    text_sent_to: str = ""  # a model server on another machine that document text is sent to
    embedded: int = 0  # documents with vectors of that model
    embeddable: int = 0  # documents with text to embed
    first_only: int = 0  # of the embedded, those with their first window's vector only, waiting for the rest
    held_back: tuple[tuple[str, int], ...] = ()  # (ingest/machine_made reason, documents) kept at their first window
    ocr: str = ""  # "" when OCR reads pictures and scans, else why not (off, no model)
    ocr_documents: int = 0  # documents with text OCR read
    ocr_pages: int = 0  # their pictures and scanned pages
    activity: Activity | None = None  # what the index is busy with now; None: idle
    costliest: tuple[CostlyFile, ...] = ()  # the indexed files that took longest to read, costliest first
    free_bytes: int = 0  # of the index file, free blocks (removed documents' space) compaction gives back

    @property
    def ocr_line(self) -> str:
        """Whether pictures' and scans' words are read, in words."""
        if self.ocr:
            return f"pictures and scans: words not read ({self.ocr})"
        return f"pictures and scans: OCR read {self.ocr_pages:,} pages of {self.ocr_documents:,} documents"


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


@dataclass(frozen=True)
class Check:
    """One line of `findling doctor`."""

    name: str
    ok: bool
    detail: str
    optional: bool = False  # information (an optional part not installed), never a problem


@dataclass(frozen=True)
class Outline:
    """A source file's definitions in the order of its text (what `symbols` returns)."""

    docid: str
    path: str
    title: str
    symbols: tuple[CodeSymbol, ...]
    language: str = ""  # the grammar that read it; "" when its type has none


@dataclass(frozen=True)
class DocumentSlice:
    """Lines of one indexed document's text (what `get` returns). Lines count from 1."""

    docid: str
    path: str
    title: str
    text: str
    first_line: int
    last_line: int
    total_lines: int
    mtime: float = 0.0
    size: int = 0


@dataclass(frozen=True)
class MultiGetResult:
    documents: tuple[DocumentSlice, ...]
    left_out: tuple[tuple[str, str], ...] = ()  # (path or reference, why): the first few
    left_out_total: int = 0  # how many were left out in all


@dataclass(frozen=True)
class Citation:
    """A passage an answer was written from: [n] in its sentences. `start`/`end` are the
    passage's characters in the document's text (what the preview lights), `line` the line of
    the first sentence the answer cites it for and `page` its page (0: not paged)."""

    n: int
    doc_id: int
    path: str
    title: str
    text: str
    start: int
    end: int
    line: int
    page: int = 0
    score: float = 0.0  # the result's relevance (Hit.score)


@dataclass(frozen=True)
class AnswerSentence:
    """One sentence of an answer. `supported`: checked against the passages it cites (`how`
    says how: "words", its content words and numbers are there; "quoted", it is a passage's own
    sentence; "meaning", a passage's own sentence closest in meaning to a how or why question).
    An unsupported sentence is never shown as cited: `cites` is then empty and what the model
    claimed is in `claimed`, with what was not found in `missing` (`how` "off-topic": true or
    not, it does not speak of the question; "repeated": the quotes shown say it already)."""

    text: str
    cites: tuple[int, ...]
    supported: bool
    how: str = "words"
    claimed: tuple[int, ...] = ()
    missing: tuple[str, ...] = ()


@dataclass(frozen=True)
class Answer:
    """An answer from the user's files (`ask`): the supported sentences, each with the passages
    it rests on; or `abstained`, with the closest documents, when no passage is a good match or
    none says what was asked. `extractive`: the sentences are the passages' own, quoted."""

    question: str
    text: str
    abstained: bool
    citations: tuple[Citation, ...] = ()  # the passages its sentences cite
    sentences: tuple[AnswerSentence, ...] = ()  # every sentence written, the unsupported too
    closest: tuple[Hit, ...] = ()  # the best results, shown with a declined answer
    extractive: bool = False
    model: str = ""  # the generator that wrote it ("" : none ran)
    notes: tuple[Note, ...] = ()
    timings_ms: dict[str, float] = field(default_factory=dict)
    first_sentence_ms: float = 0.0  # from the question to the first checked sentence
    passages: tuple[Citation, ...] = ()  # every passage the model was given, numbered
    cancelled: bool = False  # a newer question ended it: the sentences so far
