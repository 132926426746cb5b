"""What the index holds and does: folders, documents as ingest writes them, progress and reports
of a run, the status of the whole."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from findling.records.search import LaneWeights, Note
from findling.vocabulary import (
    DocumentStatus,
    IndexPhase,
)


@dataclass(frozen=True)
class Source:
    id: int
    path: str
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    gitignore: bool = True  # the folder's .gitignore files leave files out, as git does
    # a collection another Findling published, attached read-only (its URI; "": a folder here).
    # `path` is then the folder its documents were indexed from on the publisher's machine.
    shared: str = ""


@dataclass(frozen=True)
class Attached:
    """A published collection attached here (ingest/sharing.py): what its copy holds."""

    uri: str
    name: str
    version: int  # the publication whose documents are held here (0: none read yet)
    embedder: str  # the model that made its vectors ("": none published)
    documents: int
    checked: float  # when it was last reached (Unix time; 0: never)
    error: str = ""  # why the last try could not reach it ("": it did)
    vectors_used: bool = False  # its vectors serve semantic search here: the embedders match


@dataclass(frozen=True)
class PublishReport:
    """What `findling publish` wrote."""

    uri: str
    name: str
    root: str
    version: int
    documents: int
    changed: int  # documents written: new, edited, or with more vectors than last time
    removed: int
    embedded: int  # documents published with vectors
    embedder: str
    seconds: float


@dataclass(frozen=True)
class SourceStatus:
    source: Source
    documents: int
    indexed: int
    failed: int
    skipped: int
    waiting: int = 0  # files a run found new or changed and stopped before reading
    left_out: int = 0  # files and folders its .gitignore files left out at the last run's scan
    weights: LaneWeights | None = None  # its self-test with the embedder in use (search/lane_balance.py)
    attached: Attached | None = None  # a shared collection: its state


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
    positions: dict[str, list[int]] = field(default_factory=dict)  # term -> where it stands (positions_of)
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
    whole: int = 0  # documents embedded whole in the index when the run ended (this run's and before)
    vectors: int = 0  # windows stored
    computed: int = 0  # windows run through the model (the rest were found already embedded)
    seconds: float = 0.0
    cancelled: bool = False
    skipped: Note | None = None  # why nothing was embedded (no model, no runtime)
    stopped: str = ""  # why the run stopped before the end (its model server stopped answering)
    # the folders whose self-test ran after it: (folder, the meaning lane's share, its queries, seconds)
    weighed: tuple[tuple[str, float, int, float], ...] = ()

    def followed_by(self, later: EmbedReport) -> EmbedReport:
        """This part of an embedding run, then the next (the run stepped aside between them)."""
        return EmbedReport(
            model=later.model or self.model,
            documents=self.documents + later.documents,
            deepened=self.deepened + later.deepened,
            whole=later.whole or self.whole,
            vectors=self.vectors + later.vectors,
            computed=self.computed + later.computed,
            seconds=self.seconds + later.seconds,
            cancelled=later.cancelled,
            skipped=later.skipped,
            stopped=later.stopped,
            weighed=self.weighed + later.weighed,
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
    shared: list[str] = field(default_factory=list)  # each attached collection brought up to date

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
            shared=[*self.shared, *later.shared],
        )


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


@dataclass(frozen=True)
class Check:
    """One line of `findling doctor`."""

    name: str
    ok: bool
    detail: str
    optional: bool = False  # information (an optional part not installed), never a problem
